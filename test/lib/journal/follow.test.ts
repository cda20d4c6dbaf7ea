// followJournal: the newest events, then each new one; journalctl is followed from the cursor
// of the last entry it printed (a stand-in journalctl here; the real one in journald.test.ts).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { followJournal } from '../../../lib/journal/follow.js';
import type { JournalEvent } from '../../../lib/journal/events.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');

/** Resolves when `pred` holds for the events so far (polled), or fails after 20 s. */
async function until(events: JournalEvent[], pred: (e: JournalEvent[]) => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (pred(events)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${events.map((e) => e.kind).join(', ')}`);
}

t.test('journalctl: the backlog, then --follow --after-cursor=<last entry> and its new entries', async (t) => {
  const dir = t.testdir({});
  const lines = fs.readFileSync(path.join(FIX, 'structured-1.22.json'), 'utf8').trimEnd().split('\n');
  fs.writeFileSync(path.join(dir, 'backlog.json'), lines.join('\n') + '\n'); // journalctl's export: each entry has its __CURSOR
  const lastCursor = (JSON.parse(lines.at(-1)!) as { __CURSOR: string }).__CURSOR;
  const live = JSON.stringify({ __CURSOR: 's=abc;i=999', __REALTIME_TIMESTAMP: '1653300000000000', _PID: '9999', MESSAGE: 'I0523 10:00:00.000000    9999 controller.go:101] "Kubelet config controller starting controller"' });
  fs.writeFileSync(path.join(dir, 'live.json'), live + '\n');
  const bin = path.join(dir, 'journalctl');
  // Plain read: the backlog. --follow: record the argv, print one new entry, then wait as journalctl does.
  fs.writeFileSync(bin, `#!/bin/sh\ncase "$*" in *--follow*) printf '%s\\n' "$@" > '${dir}/follow-argv'; cat '${dir}/live.json'; exec sleep 60;; esac\ncat '${dir}/backlog.json'\n`, { mode: 0o755 });
  const events: JournalEvent[] = [];
  const stop = new AbortController();
  const done = followJournal({ source: 'auto', journalctl: bin, maxEvents: 3, signal: stop.signal }, (e) => events.push(e));
  await until(events, (e) => e.some((x) => x.pid === 9999), 'the live entry');
  stop.abort();
  await done;
  t.same(events.map((e) => e.kind), ['feature-gate-off', 'kubelet-exited', 'start-limit-hit', 'controller-start'], 'the newest 3, then the new one');
  t.equal(events[3]!.time, '2022-05-23T10:00:00.000Z');
  const argv = fs.readFileSync(path.join(dir, 'follow-argv'), 'utf8').trimEnd().split('\n');
  t.ok(argv.includes('--follow'));
  t.ok(argv.includes(`--after-cursor=${lastCursor}`), `followed from just after the last entry read: ${argv.join(' ')}`);
});

t.test('a growing file: appended lines become events; a truncated file is read again', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  const src = fs.readFileSync(path.join(FIX, 'legacy-1.13.short.log'), 'utf8').split('\n');
  fs.writeFileSync(file, src.slice(0, 30).join('\n') + '\n');
  const events: JournalEvent[] = [];
  const stop = new AbortController();
  const done = followJournal({ file, year: 2020, utc: true, maxEvents: 1, pollMs: 20, signal: stop.signal }, (e) => events.push(e));
  await until(events, (e) => e.length === 1, 'the newest event');
  const line = 'Aug 21 19:00:00 host kubelet[5555]: I0821 19:00:00.000000    5555 controller.go:101] kubelet config controller: starting controller\n';
  fs.appendFileSync(file, line.slice(0, 40));
  await new Promise((r) => setTimeout(r, 100));
  t.equal(events.length, 1, 'half a line is not an event yet');
  fs.appendFileSync(file, line.slice(40));
  await until(events, (e) => e.length === 2, 'the appended line');
  t.match(events[1], { kind: 'controller-start', pid: 5555, time: /-08-21T19:00:00.000Z$/ });
  fs.writeFileSync(file, line.replace(/5555/g, '6666')); // copytruncate
  await until(events, (e) => e.length === 3, 'the line of the truncated file');
  t.equal(events[2]!.pid, 6666);
  stop.abort();
  await done;
});

t.test('found by a journal review: a file cut short while its last line was half written; the new first line is not glued to it', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  const line = (pid: number) => `Aug 21 19:00:00 host kubelet[${pid}]: I0821 19:00:00.000000    ${pid} controller.go:101] kubelet config controller: starting controller\n`;
  fs.writeFileSync(file, line(1111));
  const events: JournalEvent[] = [];
  const stop = new AbortController();
  const done = followJournal({ file, year: 2020, utc: true, maxEvents: 1, pollMs: 20, signal: stop.signal }, (e) => events.push(e));
  await until(events, (e) => e.length === 1, 'the first event');
  fs.appendFileSync(file, line(2222).slice(0, 50)); // half a line, then copytruncate
  await new Promise((r) => setTimeout(r, 100));
  fs.writeFileSync(file, line(3333));
  await until(events, (e) => e.length === 2, 'the first line of the new content');
  t.equal(events[1]!.pid, 3333);
  // Rotation (a new file under the name) with a half line left in the old one: the same.
  fs.appendFileSync(file, line(4444).slice(0, 50));
  await new Promise((r) => setTimeout(r, 100));
  fs.renameSync(file, `${file}.1`);
  fs.writeFileSync(file, line(5555));
  await until(events, (e) => e.length === 3, 'the first line of the rotated-in file');
  t.equal(events[2]!.pid, 5555);
  stop.abort();
  await done;
});

t.test('-f refuses what cannot grow or end', async (t) => {
  const stop = new AbortController();
  await t.rejects(followJournal({ file: path.join(FIX, 'legacy-1.13.short.log.gz'), signal: stop.signal }, () => {}), { exitCode: 2, message: /compressed/ });
  await t.rejects(followJournal({ file: path.join(FIX, 'legacy-1.13.short.log'), until: 'now', signal: stop.signal }, () => {}), { exitCode: 2, message: /--until/ });
});

t.test('a followed event keeps its continuation lines: in the backlog, and when appended', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  const src = fs.readFileSync(path.join(FIX, 'legacy-1.13.short.log'), 'utf8');
  // Up to and with the load failure and its continuation lines, and nothing after them.
  const lines = src.split('\n');
  const at = lines.findIndex((l) => l.includes('failed to load config'));
  let end = at + 1;
  while (end < lines.length && !/\] /.test(lines[end]!) && lines[end] !== '') end++;
  t.ok(end > at + 1, 'the fixture has continuation lines');
  fs.writeFileSync(file, lines.slice(0, end).join('\n') + '\n');
  const events: JournalEvent[] = [];
  const stop = new AbortController();
  const done = followJournal({ file, year: 2020, utc: true, maxEvents: 1, pollMs: 20, signal: stop.signal }, (e) => events.push({ ...e }));
  await until(events, (e) => e.length === 1, 'the backlog event');
  const whole = "kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{\n  \"apiVersion\": \"kubelet.config.k8s.io/v1beta1\",\n  \"healthzPort\ufffd\": 10248\n}'";
  t.equal(events[0]!.message, whole, 'the backlog event, whole');
  // The same lines again from another process, appended in one write.
  fs.appendFileSync(file, lines.slice(at, end).join('\n').replace(/2264/g, '7777') + '\n');
  await until(events, (e) => e.length === 2, 'the appended event');
  t.equal(events[1]!.pid, 7777);
  t.equal(events[1]!.message, whole, 'the appended event, whole');
  stop.abort();
  await done;
  t.equal(events.length, 2);
});

t.test('journalctl slow to exit after its backlog: the newest backlog event still comes; a failing follow delivers what it held', async (t) => {
  const dir = t.testdir({});
  const lines = fs.readFileSync(path.join(FIX, 'structured-1.22.json'), 'utf8').trimEnd().split('\n');
  fs.writeFileSync(path.join(dir, 'backlog.json'), lines.join('\n') + '\n');
  const live = JSON.stringify({ __CURSOR: 's=abc;i=999', __REALTIME_TIMESTAMP: '1653300000000000', _PID: '9999', MESSAGE: 'I0523 10:00:00.000000    9999 controller.go:101] "Kubelet config controller starting controller"' });
  fs.writeFileSync(path.join(dir, 'live.json'), live + '\n');
  // The plain read prints the backlog and exits only 0.5 s later; --follow then prints nothing.
  const slow = path.join(dir, 'journalctl-slow');
  fs.writeFileSync(slow, `#!/bin/sh\ncase "$*" in *--follow*) exec sleep 60;; esac\ncat '${dir}/backlog.json'; sleep 0.5\n`, { mode: 0o755 });
  const events: JournalEvent[] = [];
  const stop = new AbortController();
  const done = followJournal({ source: 'auto', journalctl: slow, maxEvents: 3, pollMs: 50, signal: stop.signal }, (e) => events.push(e));
  await until(events, (e) => e.length === 3, 'the whole backlog');
  t.same(events.map((e) => e.kind), ['feature-gate-off', 'kubelet-exited', 'start-limit-hit']);
  stop.abort();
  await done;
  // --follow prints one entry, then fails: the entry comes, then the error.
  const failing = path.join(dir, 'journalctl-failing');
  fs.writeFileSync(failing, `#!/bin/sh\ncase "$*" in *--follow*) cat '${dir}/live.json'; sleep 0.3; echo 'Bad message' >&2; exit 1;; esac\ncat '${dir}/backlog.json'\n`, { mode: 0o755 });
  const got: JournalEvent[] = [];
  await t.rejects(followJournal({ source: 'auto', journalctl: failing, maxEvents: 1, pollMs: 5000, signal: new AbortController().signal }, (e) => got.push(e)), { message: /Bad message/ });
  t.same(got.map((e) => e.pid), [got[0]!.pid, 9999], 'the live entry held back is delivered before the error');
});
