// The search-ahead worker (lib/journal/ahead.ts): what it lists, what jump() allows, and the
// one property that matters: reading with it gives exactly the result of reading without it,
// whatever the journal, wherever the worker's part starts, however far ahead it is.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { AHEAD_MAX_LINES, startAhead } from '../../../lib/journal/ahead.js';
import { readJournal, type ReadJournalOptions } from '../../../lib/journal/index.js';
import { BUF_SIZE, MAX_LINE, READ_SIZE, WATCH_LINES } from '../../../lib/journal/scan.js';
import { wasmFinder } from '../../../lib/journal/wasm-find.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kckpt-ahead-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A small deterministic generator (the same files on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const search = () => {
  const w = wasmFinder(['fig co', 'ystemd', 'ynamic'].map((m) => Buffer.from(m)), BUF_SIZE, [Buffer.from('valid configuration')]);
  if (!w) throw new Error('no WebAssembly SIMD here');
  return w;
};

t.test('the worker lists the lines holding a marker, then how far it searched', async (t) => {
  const lines = ['quiet', 'a fig co line', 'quiet', 'quiet', 'a valid configuration line', 'quiet', 'ystemd and ynamic', 'last, no newline fig co'];
  const file = path.join(dir, 'list.log');
  fs.writeFileSync(file, lines.join('\n'));
  const starts = lines.map((_, i) => lines.slice(0, i).join('\n').length + (i ? 1 : 0));
  const fd = fs.openSync(file, 'r');
  t.teardown(() => fs.closeSync(fd));
  const size = fs.fstatSync(fd).size;
  const a = startAhead({ fd, from: 0, to: size, module: search().module, readSize: READ_SIZE * 2 })!;
  a.settle();
  // The first line holds nothing: go to the second, which holds a marker (stay).
  t.equal(a.jump(0, 3), starts[1], 'a quiet line: to the next marker line');
  t.equal(a.jump(starts[1]!, starts[1]! + 2), starts[1]! + 2, 'a marker line: no jump');
  t.equal(a.jump(starts[2]!, starts[2]!), starts[4], 'watch markers count too');
  t.equal(a.jump(starts[5]!, starts[5]!), starts[6]);
  // The last line never ended: the worker leaves it (and it holds a marker).
  t.equal(a.jump(starts[7]!, starts[7]! + 1), starts[7]! + 1, 'a line with no newline is the main thread\'s');
  t.equal(a.jump(size + 10, size + 10), size + 10, 'past everything: no jump');
  a.stop();
});

t.test('before its part, or before it has searched, there is no jump', async (t) => {
  const file = path.join(dir, 'early.log');
  fs.writeFileSync(file, 'quiet\n'.repeat(1000));
  const fd = fs.openSync(file, 'r');
  t.teardown(() => fs.closeSync(fd));
  const a = startAhead({ fd, from: 600, to: 6000, module: search().module, readSize: READ_SIZE * 2 })!;
  t.equal(a.jump(0, 6), 6, 'a line before its part');
  a.settle();
  t.equal(a.jump(0, 6), 6, 'still before its part');
  t.equal(a.jump(600, 606), 6000, 'all of its part searched and quiet: to its end');
  a.stop();
  // Stopped before it began: it never reads.
  const b = startAhead({ fd, from: 0, to: 6000, module: search().module, readSize: READ_SIZE * 2 })!;
  b.stop();
  t.equal(b.jump(0, 6), 6, 'a stopped worker lists nothing');
});

t.test('marker lines, then a quiet tail: from the first quiet line to the end', async (t) => {
  const file = path.join(dir, 'dense.log');
  fs.writeFileSync(file, 'fig co\n'.repeat(5000) + 'quiet\n'.repeat(5000));
  const fd = fs.openSync(file, 'r');
  t.teardown(() => fs.closeSync(fd));
  const a = startAhead({ fd, from: 0, to: fs.fstatSync(fd).size, module: search().module, readSize: READ_SIZE * 2 })!;
  a.settle();
  t.equal(a.jump(0, 3), 3, 'a marker line');
  t.equal(a.jump(7 * 4999, 7 * 4999), 7 * 4999, 'the last marker line');
  t.equal(a.jump(7 * 5000, 7 * 5000 + 2), 7 * 5000 + 6 * 5000, 'the quiet tail: to the end');
  a.stop();
});

t.test('a full list stops at the first line it could not list', async (t) => {
  const file = path.join(dir, 'full.log');
  const listed = AHEAD_MAX_LINES - 2; // room is kept for the frontier
  fs.writeFileSync(file, 'fig co\n'.repeat(listed + 10) + 'quiet\n'.repeat(10));
  const fd = fs.openSync(file, 'r');
  t.teardown(() => fs.closeSync(fd));
  const a = startAhead({ fd, from: 0, to: fs.fstatSync(fd).size, module: search().module, readSize: READ_SIZE * 2 })!;
  a.settle();
  t.equal(a.jump(7 * (listed - 1), 7 * (listed - 1) + 1), 7 * (listed - 1) + 1, 'the last listed line: no jump');
  t.equal(a.jump(7 * listed, 7 * listed + 1), 7 * listed + 1, 'the first line not listed (it holds a marker): no jump');
  t.equal(a.jump(7 * (listed + 10), 7 * (listed + 10)), 7 * (listed + 10), 'the quiet tail was never searched: no jump');
  a.stop();
});

/**
 * Read a journal with and without the worker (from several starting points, the worker done
 * before the main thread gets there, then racing it); all equal. Returns the jumps taken.
 */
async function sameWithAhead(t: { same(found: unknown, wanted: unknown, message?: string): boolean }, file: string, extra: Partial<ReadJournalOptions> = {}): Promise<number> {
  const base: ReadJournalOptions = { file, utc: true, year: 2021, now: new Date('2021-12-31T00:00:00Z'), ...extra };
  const alone = await readJournal({ ...base, ahead: false });
  let jumps = 0;
  for (const share of [0.9, 0.5, 0.23, 0.01]) {
    const stats = { jumps: 0, bytes: 0 };
    const split = await readJournal({ ...base, ahead: { minBytes: 1, share, probeBytes: 0, wait: true, stats } });
    t.same(split, alone, `${path.basename(file)}: the worker from ${share} of the end (${stats.jumps} jumps) gives the same result`);
    jumps += stats.jumps;
  }
  t.same(await readJournal({ ...base, ahead: { minBytes: 1, share: 0.5, probeBytes: 0 } }), alone, `${path.basename(file)}: racing the worker, the same`);
  t.same(await readJournal({ ...base, ahead: { minBytes: 1, share: 0.5, probeBytes: 200_000 } }), alone, `${path.basename(file)}: deciding after 200 KB, the same`);
  return jumps;
}

t.test('every fixture journal, each format, reads the same with the worker', async (t) => {
  for (const f of fs.readdirSync(FIX).filter((f) => !f.endsWith('.gz') && !f.endsWith('.export'))) {
    // Repeated, with quiet stretches between, so the worker has lines to find and lines to pass over.
    const text = fs.readFileSync(path.join(FIX, f), 'utf8');
    const file = path.join(dir, `fixture-${f}`);
    const quiet = f.includes('json') ? '{"MESSAGE":"nothing here","_PID":"77"}\n' : 'Aug 01 00:00:00 worker-1 containerd[77]: nothing here\n';
    fs.writeFileSync(file, [text, quiet.repeat(3000), text, quiet.repeat(50), text].join(''));
    t.ok((await sameWithAhead(t, file)) > 0, `${f}: the reads jumped`);
  }
});

const UID = '7a0c1f4e-5b2d-4c3e-9f10-1a2b3c4d5e6f';
const API = '/api/v1/namespaces/kube-system/configmaps/node-config-a';

/** Quiet lines of other daemons, random lengths: what the worker lets the main thread jump over. */
function quiet(r: () => number, n: number, at: string): string[] {
  return Array.from({ length: n }, () => `${at} worker-1 containerd[77]: level=info msg="quiet ${'x'.repeat(Math.floor(r() * 300))}"`);
}

/**
 * A random kubelet journal (syslog `short`): quiet stretches of random length between stories
 * that each exercise a piece of the scanner's state: watch windows ending just before or after
 * a `valid configuration` line, multi-line messages with other daemons' lines inside, overlong
 * and huge lines, CRLF, blank lines, a last line with or without a newline.
 */
function randomJournal(seed: number, stories: number): string {
  const r = rng(seed);
  const out: string[] = [];
  let pid = 1000;
  const at = 'Aug 01 10:00:00';
  const pre = (ident: string, p: number) => `${at} worker-1 ${ident}[${p}]: `;
  const k = (sev: string, file: string) => `${sev}0801 10:00:00.123456 ${String(pid).padStart(7)} ${file}] `;
  for (let i = 0; i < stories; i++) {
    out.push(...quiet(r, r() < 0.3 ? Math.floor(r() * 5) : Math.floor(r() * 1500), at));
    const x = r();
    if (x < 0.2) out.push(pre('kubelet', pid) + k('E', 'configsync.go:89') + 'kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: configmaps "x" not found');
    else if (x < 0.3) out.push(pre('kubelet', pid) + k('I', 'fsstore.go:116') + `kubelet config controller: loading Kubelet configuration checkpoint for source ${API}, UID: ${UID}, ResourceVersion: ${Math.floor(r() * 5)}`);
    else if (x < 0.5) {
      // A start opens a window of WATCH_LINES lines; the bootstrap failure comes inside it or just outside.
      pid++;
      out.push(`${at} worker-1 systemd[1]: Started kubelet: The Kubernetes Node Agent.`);
      out.push(pre('kubelet', pid) + k('I', 'controller.go:101') + 'kubelet config controller: starting controller');
      out.push(...quiet(r, WATCH_LINES - 3 + Math.floor(r() * 6), at));
      out.push(pre('kubelet', pid) + k('F', 'server.go:262') + 'failed to run Kubelet: failed to determine a valid configuration');
    } else if (x < 0.65) {
      // A legacy multi-line error: its body on the lines after it, other daemons' lines in between.
      out.push(pre('kubelet', pid) + k('E', 'fsstore.go:120') + `kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{`);
      for (let j = 0; j < 1 + Math.floor(r() * 4); j++) {
        out.push(...quiet(r, Math.floor(r() * 20), at));
        out.push(pre('kubelet', pid) + `  "maxPods": ${j},`);
      }
      out.push(pre('kubelet', pid) + `}'`);
    } else if (x < 0.7) out.push(pre('kubelet', pid) + 'W' + '-'.repeat(MAX_LINE + Math.floor(r() * 1000)) + (r() < 0.5 ? ' fig co' : ''));
    else if (x < 0.72) out.push(pre('kubelet', pid) + 'huge ' + 'y'.repeat(BUF_SIZE + Math.floor(r() * 1000)) + (r() < 0.5 ? ' ynamic' : ''));
    else if (x < 0.8) out.push(pre('kubelet', pid) + 'a valid configuration, said out of a window');
    else if (x < 0.9) out.push(pre('kubelet', pid) + k('W', 'server.go:200') + 'DynamicKubeletConfig is deprecated\r');
    else out.push('', '   ', pre('sshd', 90) + 'Accepted publickey');
  }
  return out.join('\n') + (r() < 0.5 ? '\n' : '');
}

t.test('random journals read the same with the worker', async (t) => {
  let jumps = 0;
  for (let seed = 1; seed <= 12; seed++) {
    const file = path.join(dir, `random-${seed}.log`);
    fs.writeFileSync(file, randomJournal(seed, 20 + seed * 10));
    jumps += await sameWithAhead(t, file);
  }
  t.ok(jumps > 300, `the reads jumped (${jumps} times)`);
});

t.test('a jump is never taken inside a line being dropped (overlong) or a message being continued', async (t) => {
  const r = rng(7);
  const at = 'Aug 01 10:00:00';
  const kubelet = `${at} worker-1 kubelet[1000]: `;
  const sync = `${kubelet}E0801 10:00:00.123456    1000 configsync.go:89] kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: x`;
  const file = path.join(dir, 'dropped.log');
  fs.writeFileSync(
    file,
    [
      ...quiet(r, 2000, at),
      // Overlong, with a marker: dropped (and counted as skipped); the line after it is an event.
      `${kubelet}W${'-'.repeat(MAX_LINE + 70_000)} fig co`,
      sync,
      ...quiet(r, 2000, at),
      `${kubelet}E0801 10:00:00.123456    1000 fsstore.go:120] kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{`,
      ...quiet(r, 10, at),
      `${kubelet}  "maxPods": 1,`,
      `${kubelet}}'`,
      sync,
      ...quiet(r, 2000, at),
      '',
    ].join('\n'),
  );
  t.ok((await sameWithAhead(t, file)) > 0);
  const got = await readJournal({ file, utc: true, year: 2021, ahead: { minBytes: 1, share: 0.99, probeBytes: 0, wait: true } });
  t.same(got.events.map((e) => e.kind), ['sync-failed', 'load-failed', 'sync-failed'].map(String), 'every event');
  t.equal(got.skipped, 1, 'the overlong line, counted');
  t.match(got.events[1]?.message, /"maxPods": 1,\n}'$/, 'the continued message whole');
});

t.test('the first bytes decide: a worker for a quiet journal, none where a watch window is always open', async (t) => {
  const r = rng(11);
  const at = 'Aug 01 10:00:00';
  const start = (pid: number) => [
    `${at} worker-1 systemd[1]: Started kubelet: The Kubernetes Node Agent.`,
    `${at} worker-1 kubelet[${pid}]: I0801 10:00:00.123456 ${pid} controller.go:101] kubelet config controller: starting controller`,
  ];
  const sparse = path.join(dir, 'sparse.log');
  const dense = path.join(dir, 'dense-starts.log');
  const sparseLines: string[] = [];
  const denseLines: string[] = [];
  for (let i = 0; i < 40; i++) sparseLines.push(...start(1000 + i), ...quiet(r, 3000, at));
  for (let i = 0; i < 4000; i++) denseLines.push(...start(1000 + i), ...quiet(r, 30, at));
  fs.writeFileSync(sparse, sparseLines.join('\n') + '\n');
  fs.writeFileSync(dense, denseLines.join('\n') + '\n');
  for (const [file, wanted] of [[sparse, true], [dense, false]] as const) {
    const stats = { jumps: 0, bytes: 0 };
    const opened: (number | null)[] = [];
    const got = await readJournal({ file, utc: true, year: 2021, onOpen: (size) => opened.push(size), ahead: { minBytes: 1, share: 0.5, probeBytes: 2 * READ_SIZE, wait: true, stats } });
    t.same(got, await readJournal({ file, utc: true, year: 2021, ahead: false }), `${path.basename(file)}: the same result`);
    t.equal(stats.jumps > 0, wanted, `${path.basename(file)}: ${wanted ? 'a worker, and jumps' : 'no worker'} (${stats.jumps} jumps)`);
    t.same(opened, [fs.statSync(file).size], `${path.basename(file)}: onOpen once`);
  }
});

/** The same bytes through stdin in chunks of random sizes: the scanner's buffers fall elsewhere. */
async function sameInChunks(t: { same(found: unknown, wanted: unknown, message?: string): boolean }, file: string, seed: number): Promise<void> {
  const base: ReadJournalOptions = { utc: true, year: 2021, now: new Date('2021-12-31T00:00:00Z'), ahead: false };
  const whole = await readJournal({ ...base, file });
  const bytes = fs.readFileSync(file);
  const r = rng(seed);
  for (const biggest of [3000, 70_000, 300_000]) {
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + Math.floor(r() * biggest);
      chunks.push(bytes.subarray(at, at + n));
      at += n;
    }
    const got = await readJournal({ ...base, file: '-', stdin: Readable.from(chunks) });
    t.same({ ...got, events: got.events.map((e) => ({ ...e, source: null })) }, { ...whole, events: whole.events.map((e) => ({ ...e, source: null })) }, `${path.basename(file)}: in chunks of up to ${biggest} bytes, the same`);
  }
}

t.test('where reads end does not matter: a line of exactly MAX_LINE bytes, a marker cut by a read inside a dropped line', async (t) => {
  const at = 'Aug 01 10:00:00';
  const q = (n: number) => `${at} worker-1 containerd[77]: level=info msg="quiet ${'x'.repeat(n)}"\n`;
  /** Quiet lines filling `text` up to exactly `to` bytes. */
  const fill = (text: string, to: number) => {
    while (to - text.length > 300) text += q(60);
    return text + q(to - text.length - q(0).length);
  };
  const sync = `${at} worker-1 kubelet[1000]: E0801 10:00:00.123456    1000 configsync.go:89] kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: `;
  for (const offset of [0, 1, 100, READ_SIZE - 1, 3 * READ_SIZE, 3 * READ_SIZE + 17]) {
    // A kubelet line of exactly MAX_LINE bytes is an event, wherever the reads around it end.
    const exact = path.join(dir, `exact-${offset}.log`);
    fs.writeFileSync(exact, fill(fill('', 4 * READ_SIZE + offset) + sync + 'x'.repeat(MAX_LINE - sync.length) + '\n', 4 * READ_SIZE + offset + MAX_LINE + 1 + 3_000_000));
    const got = await readJournal({ file: exact, utc: true, year: 2021, ahead: false });
    t.same([got.events.map((e) => e.kind), got.skipped], [['sync-failed'], 0], `a line of exactly MAX_LINE at ${offset}: an event`);
    await sameWithAhead(t, exact);
    // One byte longer: dropped, and counted (it holds a marker).
    const over = path.join(dir, `over-${offset}.log`);
    fs.writeFileSync(over, fill(fill('', 4 * READ_SIZE + offset) + sync + 'x'.repeat(MAX_LINE + 1 - sync.length) + '\n', 4 * READ_SIZE + offset + MAX_LINE + 2 + 3_000_000));
    const dropped = await readJournal({ file: over, utc: true, year: 2021, ahead: false });
    t.same([dropped.events.length, dropped.skipped], [0, 1], `one byte longer at ${offset}: dropped and counted`);
    await sameWithAhead(t, over);
  }
  // The only marker of a dropped line, cut by every read boundary in turn: still counted.
  for (let cut = 1; cut < 6; cut++) {
    const split = path.join(dir, `split-${cut}.log`);
    const head = `${at} worker-1 kubelet[1000]: W`;
    const before = fill('', 24 * READ_SIZE);
    const pad = 3 * READ_SIZE - cut - head.length;
    fs.writeFileSync(split, fill(before + head + '-'.repeat(pad) + 'fig co' + '-'.repeat(MAX_LINE) + '\n', 24 * READ_SIZE + 4 * MAX_LINE + 3_000_000));
    const got = await readJournal({ file: split, utc: true, year: 2021, ahead: false });
    t.equal(got.skipped, 1, `a marker cut ${cut} bytes in at a read boundary: the dropped line is counted`);
    await sameWithAhead(t, split);
    await sameInChunks(t, split, cut);
  }
});

t.test('random journals read the same in chunks of any size', async (t) => {
  for (let seed = 1; seed <= 4; seed++) await sameInChunks(t, path.join(dir, `random-${seed}.log`), seed);
});

t.test('a tail read (--tail-bytes) and a time window read the same with the worker', async (t) => {
  const file = path.join(dir, 'tail.log');
  fs.writeFileSync(file, randomJournal(99, 60));
  t.ok((await sameWithAhead(t, file, { tailBytes: 2_000_000 })) > 0);
  t.ok((await sameWithAhead(t, file, { since: '2021-08-01 06:00:00', until: '2021-08-02 00:00:00' })) > 0);
});
