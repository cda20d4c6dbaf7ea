// Bad input never crashes or hangs a read: unrecognised lines are skipped and counted.
import t, { type Test } from 'tap';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { readJournal } from '../../../lib/journal/index.js';
import { CONTINUATION_MAX_CHARS } from '../../../lib/journal/lines.js';

const PRE = 'Aug 21 18:54:45 host kubelet[108430]: ';
const START = `${PRE}I0821 18:54:45.115977  108430 controller.go:101] kubelet config controller: starting controller`;
const LOADERR = `${PRE}E0821 18:54:45.116000  108430 controller.go:151] kubelet config controller: failed to load config, see Kubelet log for details, error: x '{`;

function file(t: Test, name: string, data: string | Buffer): string {
  const dir = t.testdir({});
  const f = path.join(dir, name);
  fs.writeFileSync(f, data);
  return f;
}
const read = (f: string, extra: Parameters<typeof readJournal>[0] = {}) => readJournal({ file: f, year: 2021, utc: true, ...extra });

t.test('binary garbage', async (t) => {
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
  const junk = Buffer.from(Array.from({ length: 1 << 20 }, rnd));
  const r = await read(file(t, 'junk.bin', Buffer.concat([junk, Buffer.from(`\n${START}\n`), junk])));
  t.equal(r.events.filter((e) => e.kind === 'controller-start').length, 1, 'the one real line among the junk');
  const noise = await read(file(t, 'junk2.bin', Buffer.concat([junk, Buffer.from('fig co ystemd ynamic \0\xff\n'), junk])));
  t.same(noise.events, []);
});

t.test('NUL bytes, CRLF, invalid UTF-8', async (t) => {
  const r = await read(file(t, 'x.log', Buffer.concat([Buffer.from(`${START}\0\0\r\n`), Buffer.from(`${PRE}I0821 18:54:46.000000  108430 watch.go:128] kubelet config controller: assigned ConfigMap was upd\xe4ted\n`, 'latin1')])));
  t.equal(r.events[0]?.kind, 'controller-start', 'NULs and CR do not hide a line');
  t.equal(r.events[0]?.message, 'kubelet config controller: starting controller');
  t.equal(r.skipped, 1, 'a line damaged by a bad byte is not recognised, and counted');
});

t.test('1 MB single lines', async (t) => {
  const huge = 'x'.repeat(1 << 20);
  const r = await read(file(t, 'long.log', `${PRE}I0821 18:54:45.115977  108430 a.go:1] kubelet config controller: ${huge}\n${START}\n${huge}\n${START}\n${huge}`));
  t.equal(r.events.length, 2, 'lines around the monsters are read');
  t.equal(r.skipped, 1, 'only the overlong line holding a marker counts');
  const json = await read(file(t, 'long.json', `{"MESSAGE":"kubelet config controller: ${huge}"}\n`));
  t.same(json.events, []);
  t.equal(json.skipped, 1);
});

t.test('truncated and odd JSON', async (t) => {
  const ok = JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085115977', _PID: '108430', MESSAGE: START.slice(PRE.length) });
  const bytes = `{"MESSAGE":[${[...Buffer.from('kubelet config controller: starting controller \xff', 'latin1')].join(',')}],"_PID":"5"}`;
  const lines = [ok.slice(0, ok.length - 30), ok, '{"MESSAGE":null,"x":"fig co"}', bytes, '{"MESSAGE":{"nested":"fig co"}}', ok.slice(0, ok.length - 1), '[1,2,"fig co"]'];
  const r = await read(file(t, 'x.json', lines.join('\n')));
  t.same(r.events.map((e) => e.kind), ['controller-start']);
  t.equal(r.skipped, 5, 'truncated (twice), MESSAGE null, an object MESSAGE, and the byte-array MESSAGE whose bad byte spoils the known text');
});

t.test('a journal with no kubelet lines: empty timeline', async (t) => {
  const r = await read(file(t, 'other.log', 'Aug 21 18:54:45 host sshd[12]: Accepted publickey for root\nAug 21 18:54:45 host systemd[1]: Started Session 5 of user root.\n'));
  t.same(r, { events: [], checkpoints: [], processes: [], restarts: 0, crashLoop: false, skipped: 0, truncated: 0 });
  t.same(await read(file(t, 'empty.log', '')), r);
});

t.test('continuations are capped', async (t) => {
  const body = Array.from({ length: 10_000 }, (_, i) => `${PRE}  "field${i}": "value"`).join('\n');
  const r = await read(file(t, 'cont.log', `${LOADERR}\n${body}\n${START}\n`));
  t.equal(r.events.length, 2);
  t.ok(r.events[0]!.message.length <= CONTINUATION_MAX_CHARS + 300);
});

t.test('damaged gzip: what came before the damage is kept; not gzip at all: exit 3', async (t) => {
  const gz = zlib.gzipSync(Buffer.from(`${START}\n`.repeat(2000) + 'tail\n'.repeat(200_000)));
  const r = await read(file(t, 'cut.log.gz', gz.subarray(0, gz.length - 20)));
  t.equal(r.events.length, 2000);
  await t.rejects(read(file(t, 'fake.gz', Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8]))), { exitCode: 3, message: /gzip/ });
});

t.test('hostile dates and pids do not break time handling', async (t) => {
  const r = await read(file(t, 'dates.log', ['Foo 99 99:99:99 host systemd[1]: kubelet.service: Succeeded.', 'Dec 31 23:59:59 host kubelet[99999999999]: I1231 23:59:59.999999 99999999999 a.go:1] kubelet config controller: starting controller', '9999-12-31T23:59:59+2359 host systemd[1]: Started kubelet.'].join('\n')));
  t.equal(r.events.length, 3);
  t.equal(r.events[0]?.time, null, 'an unknown month word and no line to learn it from: no time');
  for (const e of r.events) t.ok(e.time === null || !Number.isNaN(Date.parse(e.time)));
});

t.test('more events than the cap: the newest are kept', async (t) => {
  const lines = Array.from({ length: 500 }, (_, i) => `${PRE}I0821 18:54:${String(i % 60).padStart(2, '0')}.000000  108430 c.go:1] kubelet config controller: starting controller`);
  const r = await read(file(t, 'many.log', lines.join('\n')), { maxEvents: 100 });
  t.equal(r.events.length, 100);
});

t.test('property: arbitrary lines never throw', async (t) => {
  const fragments = fc.constantFrom(PRE, START, LOADERR, '{"MESSAGE":', '"Kubelet config controller', 'kubelet config controller: ', 'systemd[1]: ', 'kubelet.service: ', '\n', '\r', '\0', '\\x', '"', ' UID: ', ', ResourceVersion: ', '/api/v1/namespaces/', 'ynamic', 'Started ', 'Dec 31 23:59:59 ', 'I1231 23:59:59.999999 1 a.go:1] ');
  const dir = t.testdir({});
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(fragments, fc.string(), fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a).toString('latin1'))), { maxLength: 60 }), async (parts) => {
      const f = path.join(dir, `p${n++}.log`);
      fs.writeFileSync(f, Buffer.from(parts.join(''), 'latin1'));
      const r = await readJournal({ file: f, utc: true });
      return Array.isArray(r.events) && r.skipped >= 0;
    }),
    { numRuns: 150 },
  );
  t.pass('no throw');
});
