// The byte path (fastline.ts + the body cache) against the string path it stands in for:
// the same lines fed to one parser as bytes and to another as decoded strings give the same
// records, the same skipped count and the same requests to the scanner, on good lines, on
// every single-byte damage of them, on bodies that repeat and differ, and on random lines.
import t from 'tap';
import fc from 'fast-check';
import { BODY_CACHE_ENTRIES, BODY_CACHE_MAX_CHARS, BodyCache, ByteBodyIndex, classify } from '../../../lib/journal/body-cache.js';
import { isSyncFileBytes, readKlogHeader, readShortPrefix, shortKlogLine } from '../../../lib/journal/fastline.js';
import { LineParser, type LineRecord } from '../../../lib/journal/lines.js';

const PRE = 'Aug 21 18:54:45 host kubelet[108430]: ';
const HDR = 'I0821 18:54:45.115977  108430 controller.go:101] ';
const LINES = [
  `${PRE}${HDR}kubelet config controller: starting controller`,
  `${PRE}E0821 18:54:46.000001  108430 configsync.go:89] kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: x`,
  `${PRE}E0821 18:54:46.000001  108430 pkg/kubelet/kubeletconfig/configsync.go:89] kubelet config controller: internal failure, see Kubelet log for details, error: y`,
  `${PRE}E0821 18:54:46.000001  108430 status.go:89] kubelet config controller: internal failure, see Kubelet log for details, error: y`,
  `${PRE}I0821 18:54:47.000000  108430 fsstore.go:116] kubelet config controller: loading Kubelet configuration checkpoint for source /api/v1/namespaces/kube-system/configmaps/a, UID: 7a0c, ResourceVersion: 42`,
  `Aug  1 18:54:45.123456 kubelet[7]: I0801 18:54:45.115977 7 fsstore.go:116] "Kubelet config controller starting controller"`,
  `Aug 21 18:54:45 host kubelet[108430]:I0821 18:54:45.115977  108430 controller.go:101]kubelet config controller: starting controller`,
  `Aug 21 18:54:45 host kubelet[1]: ${HDR}kubelet config controller: starting controller`,
  `Aug 21 18:54:45 host systemd[5]: ${HDR}kubelet config controller: starting controller`,
  `Mai 21 18:54:45 host kubelet[9]: ${HDR}kubelet config controller: starting controller`,
  `Xyz 21 18:54:45 host kubelet[9]: ${HDR}kubelet config controller: starting controller`,
  `Aug 21 18:54:45 host kubelet[9]: ${HDR}kubelet config controller: assigned ConfigMap was upd\u00e4ted`,
  `Aug 21 18:54:45 host kubelet[9]: ${HDR}"Kubelet config controller" err="failed to sync: x"`,
  `Aug 21 18:54:45 host kubelet[9]: ${HDR}the config controller said nothing we know`,
  `Aug 21 18:54:45 host kubelet[9]: ${HDR}`,
  `Aug 21 18:54:45 host kubelet[9]: ${HDR}kubelet config controller: starting controller\r`,
  `Aug 21 18:54:45 host kubelet[9]: ${HDR}kubelet config controller: starting\0 controller`,
  `Aug 21 18:54:45 host kubelet[9]: I1321 18:54:45.115977 9 controller.go:101] kubelet config controller: starting controller`,
  `Aug 21 18:54:45 host kubelet[9]: I0800 18:54:45.115977 9 controller.go:101] kubelet config controller: starting controller`,
  `Aug 21 18:54:45 host kubelet[9]: I0821 18:54:45.1159770 9 controller.go:101] kubelet config controller: starting controller`,
  `Aug 21 18:54:45.1234567 host kubelet[9]: ${HDR}kubelet config controller: starting controller`,
  `2021-08-21T18:54:45+0000 host kubelet[9]: ${HDR}kubelet config controller: starting controller`,
  `Sat 2021-08-21 18:54:45 UTC host kubelet[9]: ${HDR}kubelet config controller: starting controller`,
  `${HDR}kubelet config controller: starting controller`,
];
// Lines that may follow a continued (legacy) line: its own process's text, another's, a klog line.
const NEXT = [
  `${PRE}goroutine 1 [running]:`,
  `${PRE}some more text of the message`,
  `Aug 21 18:54:45 host kubelet[5]: some text`,
  `${PRE}${HDR}next klog line`,
  '    indented continuation',
  'Aug 21 18:54:45 host systemd[1]: kubelet.service: Succeeded.',
  `{"MESSAGE":"x","_PID":"108430"}`,
];

interface Outcome {
  follows: unknown[];
  records: LineRecord[];
  skipped: number;
}

/** Feed `lines` (each: a candidate line, or a line after one) to both paths. */
function both(lines: Array<{ bytes: Buffer; cont: boolean }>): { fast: Outcome; slow: Outcome } {
  const run = (bytesPath: boolean): Outcome => {
    const records: LineRecord[] = [];
    const follows: unknown[] = [];
    const p = new LineParser('src', (r) => records.push(structuredClone(r)));
    for (const { bytes, cont } of lines) {
      // The line sits inside a larger buffer, as in the scanner: bytes around it must not be read.
      const buf = Buffer.concat([Buffer.from('junk] '), bytes, Buffer.from(' 123]: x\n')]);
      const s = 6;
      const e = s + bytes.length;
      if (cont) follows.push(bytesPath ? p.continuationBytes(buf, s, e) : p.continuation(buf.toString('utf8', s, e)));
      else follows.push(bytesPath ? p.lineBytes(buf, s, e) : p.line(buf.toString('utf8', s, e)));
    }
    return { follows, records, skipped: p.skipped };
  };
  return { fast: run(true), slow: run(false) };
}

const seq = (...items: Array<[string | Buffer, boolean]>) => items.map(([l, cont]) => ({ bytes: Buffer.isBuffer(l) ? l : Buffer.from(l), cont }));

t.test('good and odd lines: the same records both ways', async (t) => {
  for (const line of LINES) {
    for (const next of NEXT) {
      const { fast, slow } = both(seq([line, false], [next, true], [next, true], [line, false]));
      t.same(fast, slow, `${line.slice(0, 60)} / ${next.slice(0, 30)}`);
    }
  }
  const { fast } = both(seq([LINES[0]!, false], [LINES[1]!, false]));
  t.equal(fast.records.length, 2, 'the byte path does find events');
});

t.test('every single-byte damage of a line gives the same outcome both ways', async (t) => {
  const subs = [' ', ':', '[', ']', '.', '0', '9', 'a', 'I', '\0', '\r', '\t', '-', '{', '"', '/', '\xff', '\xe4'];
  let n = 0;
  for (const base of [LINES[0]!, LINES[1]!, LINES[4]!, LINES[5]!]) {
    const b = Buffer.from(base);
    for (let i = 0; i < Math.min(b.length, 110); i++) {
      for (const c of subs) {
        const damaged = Buffer.concat([b.subarray(0, i), Buffer.from(c, 'latin1'), b.subarray(i + 1)]);
        const dropped = Buffer.concat([b.subarray(0, i), b.subarray(i + 1)]);
        const inserted = Buffer.concat([b.subarray(0, i), Buffer.from(c, 'latin1'), b.subarray(i)]);
        for (const d of [damaged, dropped, inserted]) {
          const { fast, slow } = both(seq([LINES[1]!, false], [d, true], [d, false], [d, true]));
          if (JSON.stringify(fast) !== JSON.stringify(slow)) t.same(fast, slow, JSON.stringify(d.toString('latin1')));
          n++;
        }
      }
    }
  }
  t.ok(n > 10_000, `${n} damaged lines`);
});

t.test('random lines around the shape', async (t) => {
  const piece = fc.constantFrom('Aug', 'Mai', 'aug', ' ', '  ', '1', '21', '18:54:45', '.123', ' host', ' kubelet', '[9]', '[1]', ':', ': ', 'I0821', 'E1231', ' 18:54:45.115977', ' 99 ', 'a.go', 'configsync.go', ':1]', '] ', 'kubelet config controller: ', 'starting controller', 'failed to sync: x', '"Kubelet config controller"', ' err="x"', '\0', '\r', '\xff', '\u00e4');
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.array(piece, { maxLength: 24 }), fc.boolean()), { maxLength: 6 }), (items) => {
      const { fast, slow } = both(items.map(([parts, cont]) => ({ bytes: Buffer.from(parts.join('')), cont })));
      t.same(fast, slow);
      return true;
    }),
    { numRuns: 3000, seed: 16 },
  );
});

t.test('the body cache: repeated bodies share one string and one class, differing bodies do not mix', async (t) => {
  const lines = [];
  for (let i = 0; i < 50; i++) lines.push(LINES[i % 2]!, `${PRE}${HDR}kubelet config controller: failed to sync: error ${i % 7}`, LINES[4]!);
  const { fast, slow } = both(lines.map((l) => ({ bytes: Buffer.from(l), cont: false })));
  t.same(fast, slow);
  t.equal(fast.records.length, 150);
  // The same file name either side of configsync.go decides internal-error vs sync-failed.
  const kinds = both(seq([LINES[2]!, false], [LINES[3]!, false], [LINES[2]!, false])).fast.records.map((r) => r.event.kind);
  t.same(kinds, ['sync-failed', 'internal-error', 'sync-failed']);

  const cache = new BodyCache();
  const a = cache.get('kubelet config controller: starting controller', false);
  const b = cache.get('kubelet config controller: starting' + ' controller', false);
  t.equal(a, b, 'the second sight of a body is the first one’s entry');
  t.equal(cache.get('x'.repeat(BODY_CACHE_MAX_CHARS + 1), false).cls, null, 'long bodies are classified, not kept');
  t.equal(cache.size, 1);
  for (let i = 0; i < BODY_CACHE_ENTRIES + 10; i++) cache.get(`kubelet config controller: failed to sync: ${i}`, i % 2 === 0);
  t.ok(cache.size <= BODY_CACHE_ENTRIES, 'bounded');
  t.equal(cache.get('kubelet config controller: failed to sync: 3', false).cls?.kind, 'sync-failed', 'still right after starting over');
});

t.test('the byte index: a body is found only by its exact bytes and caller class', async (t) => {
  const idx = new ByteBodyIndex();
  // Same length, same first/last bytes; they differ at every position in turn (sampled or not).
  const base = Buffer.from('xx kubelet config controller: failed to sync: error 0000000000000000 yy');
  const a = classify(base.toString().slice(2, -2), false);
  idx.remember(base, 2, base.length - 2, false, a);
  t.equal(idx.find(base, 2, base.length - 2, false), a);
  t.equal(idx.find(base, 2, base.length - 2, true), null, 'the configsync.go class is another entry');
  t.equal(idx.find(base, 2, base.length - 3, false), null, 'a prefix of it is not it');
  for (let i = 2; i < base.length - 2; i++) {
    const other = Buffer.from(base);
    other[i] = other[i] === 0x31 ? 0x32 : 0x31;
    t.equal(idx.find(other, 2, other.length - 2, false), null, `differs at ${i}`);
  }
  // Lines whose bodies differ in one late byte, interleaved: the same records both ways.
  const lines = Array.from({ length: 40 }, (_, i) => `${PRE}${HDR}kubelet config controller: failed to sync: failed to download config, error ${'0'.repeat(30)}${i % 4}`);
  const { fast, slow } = both(lines.map((l) => ({ bytes: Buffer.from(l), cont: false })));
  t.same(fast, slow);
  t.same(new Set(fast.records.map((r) => r.event.message.at(-1))), new Set(['0', '1', '2', '3']));
});

t.test('the byte parsers never read past the line', async (t) => {
  const f = shortKlogLine();
  const line = Buffer.from(`${PRE}${HDR}x`);
  // Cut anywhere inside the prefix: the bytes after the cut would complete it, but are not the line's.
  for (let cut = 0; cut < PRE.length - 1; cut++) t.notOk(readShortPrefix(line, 0, cut, f), `prefix cut at ${cut}`);
  t.ok(readShortPrefix(line, 0, line.length, f));
  t.equal(f.pid, 108430);
  for (let cut = PRE.length; cut < PRE.length + HDR.length - 2; cut++) t.notOk(readKlogHeader(line, PRE.length, cut, f), `header cut at ${cut}`);
  t.ok(readKlogHeader(line, PRE.length, line.length, f));
  t.same([f.month, f.day, f.hour, f.minute, f.second, f.micros], [8, 21, 18, 54, 45, 115977]);
  const sync = Buffer.from('a/configsync.go xconfigsync.go configsync.go');
  t.ok(isSyncFileBytes(sync, 0, 15));
  t.notOk(isSyncFileBytes(sync, 16, 30));
  t.ok(isSyncFileBytes(sync, 31, 44));
});

t.test('a line refused as a continuation, then delivered as a line: read once, the same records as read twice', async (t) => {
  // Each line after a continued one: refused (or taken), then, when refused, handed over as a
  // line with `refused` set, in the same buffer, as the scanner does.
  const continued = LINES.slice(1, 4);
  for (const first of continued) {
    for (const next of [...LINES, ...NEXT]) {
      const run = (bytesPath: boolean): Outcome => {
        const records: LineRecord[] = [];
        const follows: unknown[] = [];
        const p = new LineParser('src', (r) => records.push(structuredClone(r)));
        const buf = Buffer.from(`${first}\n${next}\n`);
        const a = first.length + 1;
        const b = a + Buffer.byteLength(next);
        follows.push(bytesPath ? p.lineBytes(buf, 0, first.length) : p.line(first));
        const taken = bytesPath ? p.continuationBytes(buf, a, b) : p.continuation(next);
        follows.push(taken);
        if (!taken) follows.push(bytesPath ? p.lineBytes(buf, a, b, true) : p.line(next));
        return { follows, records, skipped: p.skipped };
      };
      const fast = run(true);
      t.same(fast, run(false), `${first.slice(38, 70)} then ${next.slice(0, 60)}`);
    }
  }
});
