// status's one line of journal evidence: a bounded read, and a free no-op without a journal.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { evidenceOf, lastEvidence } from '../../../lib/journal/evidence.js';
import { readJournal } from '../../../lib/journal/index.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');

function fake(dir: string, body: string): string {
  const bin = path.join(dir, 'journalctl');
  fs.writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$@" > '${dir}/argv'\n${body}\n`, { mode: 0o755 });
  return bin;
}

t.test('no journalctl, no journal: nothing, at once, without spawning', async (t) => {
  const dir = t.testdir({ empty: {} });
  const t0 = performance.now();
  t.match(await lastEvidence({ journalctl: path.join(dir, 'journalctl') }), { lastEvent: null, summary: null, reason: 'journalctl not found' });
  const bin = fake(dir, 'touch ran; exit 0');
  t.match(await lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'nope')] }), { lastEvent: null, reason: 'no journal readable' });
  t.match(await lastEvidence({ journalctl: bin, root: path.join(dir, 'empty') }), { lastEvent: null, reason: 'no journal readable' });
  t.notOk(fs.existsSync(path.join(dir, 'ran')), 'journalctl was never started');
  t.ok(performance.now() - t0 < 200, 'fast');
});

t.test('a bounded read of the newest entries: the last relevant event', async (t) => {
  const dir = t.testdir({ journal: {} });
  const bin = fake(dir, `cat '${path.join(FIX, 'legacy-1.13.json')}'`);
  // Read a minute after the journal's last entry: the crash loop is current.
  const ev = await lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'journal')], now: Date.parse('2021-01-01T00:21:41Z') });
  t.match(fs.readFileSync(path.join(dir, 'argv'), 'utf8'), /--lines=5000/);
  t.match(ev.lastEvent, { kind: 'start-limit-hit' });
  t.equal(ev.crashLoop, true);
  t.match(ev.summary, /^2021-01-01 00:20:41Z start-limit-hit: Start request repeated too quickly\. — crash loop$/);
});

t.test('a crash loop that ended long before now is no current crash loop (live journal); under --root it counts', async (t) => {
  const dir = t.testdir({ journal: {}, root: { var: { log: { journal: {} } } } });
  const bin = fake(dir, `cat '${path.join(FIX, 'legacy-1.13.json')}'`);
  const end = Date.parse('2021-01-01T00:20:41Z');
  const at = (now: number) => lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'journal')], now });
  t.equal((await at(end + 9 * 60_000)).crashLoop, true, 'nine minutes after its last entry');
  const later = await at(end + 11 * 60_000);
  t.equal(later.crashLoop, false, 'eleven minutes after');
  t.match(later.lastEvent, { kind: 'start-limit-hit' }, 'the last event is still told');
  t.equal(later.summary, '2021-01-01 00:20:41Z start-limit-hit: Start request repeated too quickly.');
  t.equal((await at(Date.parse('2026-11-27T00:00:00Z'))).crashLoop, false, 'years later');
  const root = await lastEvidence({ journalctl: bin, root: path.join(dir, 'root') });
  t.equal(root.crashLoop, true, "a dead node's disk: the loop its journal ended in");
  // check --npd on a live node mounted at /host gives the time (found by review: an ended loop held the NPD condition).
  const live = await lastEvidence({ journalctl: bin, root: path.join(dir, 'root'), now: Date.parse('2026-11-27T00:00:00Z') });
  t.equal(live.crashLoop, false, 'a live node under --root, with now: only a current loop');
});

t.test('found by review: a journalctl slower than the bound is "not checked", never "no events, no crash loop"', async (t) => {
  const dir = t.testdir({ journal: {} });
  const bin = fake(dir, `sleep 2; cat '${path.join(FIX, 'legacy-1.13.json')}'`);
  const ev = await lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'journal')], timeoutMs: 200, now: Date.parse('2021-01-01T00:21:41Z') });
  t.match(ev, { lastEvent: null, summary: null, crashLoop: false, reason: 'journal not read: journalctl did not finish within 200 ms, so events and crash loops were not checked' });
});

t.test('the summary says what the kubelet restarted to', async (t) => {
  const r = await readJournal({ file: path.join(FIX, 'seed-blog.short.log'), year: 2020, utc: true });
  const upToRestart = { ...r, events: r.events.slice(0, 3), crashLoop: false };
  t.match(evidenceOf(upToRestart).summary, '2020-08-21 18:54:34Z kubelet restarted to use kube-system/k8s-worker16 (5808539f/437429)');
  t.match(evidenceOf(r), { lastEvent: { kind: 'load-failed' }, summary: /load-failed: failed to decode: Object 'Kind' is missing/ });
  t.match(evidenceOf({ ...r, events: r.events.filter((e) => e.kind === 'source-updated') }), { lastEvent: null, summary: null, reason: /no kubelet config events/ });
});

t.test('status\'s Journal line shows escapes as every other command does (\\x1b, \\u202e)', async (t) => {
  const ev = { time: '2025-12-31T22:58:01.000Z', pid: 1042, kind: 'sync-failed' as const, uid: null, resourceVersion: null, apiPath: null, key: null, exitStatus: null, message: 'kubelet config controller: failed to sync: bad \x1b[2J\u202e thing', source: 'x' };
  const r = { events: [ev], checkpoints: [], processes: [], restarts: 0, crashLoop: false, skipped: 0, truncated: 0 };
  t.equal(evidenceOf(r).summary, '2025-12-31 22:58:01Z sync-failed: bad \\x1b[2J\\u202e thing');
});

t.test('a journalctl that hangs is cut off by the time limit', async (t) => {
  const dir = t.testdir({ journal: {} });
  const line = fs.readFileSync(path.join(FIX, 'legacy-1.13.json'), 'utf8').split('\n').find((l) => l.includes('loading Kubelet configuration checkpoint'))!;
  fs.writeFileSync(path.join(dir, 'line.json'), line + '\n');
  const bin = fake(dir, `cat '${dir}/line.json'; exec sleep 10`);
  const t0 = performance.now();
  const ev = await lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'journal')], timeoutMs: 300 });
  t.ok(performance.now() - t0 < 3000, 'returned soon after the limit');
  t.match(ev.lastEvent, { kind: 'checkpoint-load', resourceVersion: '100' });
  t.match(ev.summary, /kubelet \(pid 1042\) loaded kube-system\/node-config-a \(7a0c1f4e\/100\)/);
});

t.test('a journalctl that ignores SIGTERM, or whose child holds its output, is cut off too', async (t) => {
  // Found by review: only SIGTERM was sent, and the read waited for the pipes to close: 20 s for an 800 ms bound.
  const dir = t.testdir({ journal: {} });
  const line = fs.readFileSync(path.join(FIX, 'legacy-1.13.json'), 'utf8').split('\n').find((l) => l.includes('loading Kubelet configuration checkpoint'))!;
  fs.writeFileSync(path.join(dir, 'line.json'), line + '\n');
  for (const body of [`trap '' TERM; cat '${dir}/line.json'; sleep 10; sleep 10`, `cat '${dir}/line.json'; sleep 20 & wait`]) {
    const bin = fake(dir, body);
    const t0 = performance.now();
    const ev = await lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'journal')], timeoutMs: 300 });
    t.ok(performance.now() - t0 < 3000, `returned soon after the limit (${Math.round(performance.now() - t0)} ms)`);
    t.match(ev.lastEvent, { kind: 'checkpoint-load', resourceVersion: '100' }, 'what was read stands');
  }
});

t.test('a failing journalctl gives no evidence, never an error', async (t) => {
  const dir = t.testdir({ journal: {} });
  const bin = fake(dir, 'echo nope >&2; exit 1');
  t.match(await lastEvidence({ journalctl: bin, journalDirs: [path.join(dir, 'journal')] }), { lastEvent: null, reason: /journal not read/ });
});

t.test('after a restart, the summary joins the restart and the new process\'s load', async (t) => {
  const r = await readJournal({ file: path.join(FIX, 'legacy-1.13.short.log'), year: 2020, utc: true });
  const upToC = r.events.slice(0, r.events.findIndex((e) => e.kind === 'checkpoint-load' && e.resourceVersion === '400') + 1);
  t.equal(evidenceOf({ ...r, events: upToC, crashLoop: false }).summary, '2020-12-31 23:19:55Z kubelet restarted to use kube-system/node-config-c (9e8d7c6b/400), loaded by pid 4097');
});
