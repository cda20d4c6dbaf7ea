// readJournal over the fixture journals: every input format gives the same events as the
// exact one (short-iso-precise), the stories correlate as told, and bad sources fail clearly.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { CkptError } from '../../../lib/errors.js';
import { readJournal, type JournalEvent, type JournalResult } from '../../../lib/journal/index.js';
import { isSystemdKind } from '../../../lib/journal/events.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
const ERAS = [
  { era: 'legacy-1.13', year: 2020 },
  { era: 'structured-1.22', year: 2022 },
] as const;

const read = (file: string, extra: Parameters<typeof readJournal>[0] = {}) => readJournal({ file: path.join(FIX, file), utc: true, ...extra });
const strip = (e: JournalEvent) => ({ ...e, source: null });
const sec = (iso: string | null) => iso?.slice(0, 19) ?? null;

t.test('every text and JSON format gives the events of the exact format', async (t) => {
  for (const { era, year } of ERAS) {
    const exact = (await read(`${era}.short-iso-precise.log`)).events.map(strip);
    t.ok(exact.length > 80, `${era}: ${exact.length} events`);
    const formats: Array<[string, 'exact' | 'second' | 'none']> = [
      ['json', 'exact'],
      ['short-precise.log', 'exact'],
      ['short.log', 'second'],
      ['short.log.gz', 'second'],
      ['short-iso.log', 'second'],
      ['short-full.log', 'second'],
      ['cat.log', 'none'],
    ];
    if (era.startsWith('structured')) formats.push(['short-de.log', 'second']);
    for (const [fmt, systemdTime] of formats) {
      const got = (await read(`${era}.${fmt}`, { year })).events.map(strip);
      t.equal(got.length, exact.length, `${era}.${fmt}: as many events`);
      // Lines without a klog header (systemd's, pflag's) have only the prefix's time.
      const fix = (e: ReturnType<typeof strip>) => {
        if (!isSystemdKind(e.kind) && e.kind !== 'deprecated-flag') return e;
        const time = systemdTime === 'exact' ? e.time : systemdTime === 'second' ? sec(e.time) : null;
        return { ...e, time, pid: systemdTime === 'none' ? null : e.pid };
      };
      t.same(got.map(fix), exact.map(fix), `${era}.${fmt}: same events`);
    }
    // the kubelet's own log file (klog lines only): the kubelet's events, no systemd
    const klog = (await read(`${era}.klog.log`, { year })).events.map(strip);
    const noPrefix = (e: ReturnType<typeof strip>) => (e.kind === 'deprecated-flag' ? { ...e, time: null, pid: null } : e);
    t.same(klog.map(noPrefix), exact.filter((e) => !isSystemdKind(e.kind)).map(noPrefix), `${era}.klog.log: the kubelet's events`);
  }
});

t.test('events carry the source they came from', async (t) => {
  const r = await read('legacy-1.13.short.log', { year: 2020 });
  t.equal(r.events[0]?.source, path.join(FIX, 'legacy-1.13.short.log'));
});

t.test('legacy: continuation lines are part of the error; the non-UTF-8 byte decodes as U+FFFD', async (t) => {
  for (const f of ['short.log', 'json', 'cat.log']) {
    const r = await read(`legacy-1.13.${f}`, { year: 2020 });
    const e = r.events.find((x) => x.kind === 'load-failed')!;
    t.equal(e.message, "kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{\n  \"apiVersion\": \"kubelet.config.k8s.io/v1beta1\",\n  \"healthzPort\ufffd\": 10248\n}'", f);
    const f255 = r.events.find((x) => x.kind === 'bootstrap-failed')!;
    t.notMatch(f255.message, /goroutine/, `${f}: a stack dump is not part of the message`);
  }
});

t.test('year inference across New Year: --year, the mtime, or now', async (t) => {
  const exact = (await read('legacy-1.13.short-iso-precise.log')).events.map((e) => e.time);
  t.equal(exact[0], '2020-12-31T22:58:00.000Z');
  t.equal(exact.at(-1)?.slice(0, 10), '2021-01-01');
  const dir = t.testdir({});
  const copy = path.join(dir, 'kubelet.log');
  fs.copyFileSync(path.join(FIX, 'legacy-1.13.short.log'), copy);
  fs.utimesSync(copy, new Date('2021-01-01T06:00:00Z'), new Date('2021-01-01T06:00:00Z'));
  const byMtime = (await readJournal({ file: copy, utc: true })).events.filter((e) => !isSystemdKind(e.kind)).map((e) => e.time);
  t.same(byMtime, (await read('legacy-1.13.short-iso-precise.log')).events.filter((e) => !isSystemdKind(e.kind)).map((e) => e.time), 'mtime in January: the December lines are the year before');
  const stdin = Readable.from([fs.readFileSync(copy)]);
  const byNow = await readJournal({ file: '-', stdin, utc: true, now: new Date('2021-03-01T00:00:00Z') });
  t.equal(byNow.events[1]?.time, '2020-12-31T22:58:00.000Z', 'stdin: the year of now, stepped back over the New Year');
  const byYear = await read('legacy-1.13.short.log', { year: 2030 });
  t.equal(byYear.events[1]?.time, '2030-12-31T22:58:00.000Z', '--year is the first line\'s year');
  t.equal(byYear.events.at(-1)?.time?.slice(0, 4), '2031');
});

t.test('found by review: --since/--until judge year-less lines by the year the whole file gives them', async (t) => {
  const U = '705ab4f5-6393-11e8-b7cc-42010a800002';
  const P = '/api/v1/namespaces/kube-system/configmaps/cm1';
  const line = (mon: string, day: string, pid: number, rv: string) =>
    `${mon} ${day} 10:00:01 n1 kubelet[${pid}]: I0${mon === 'Feb' ? 2 : 1}${day} 10:00:01.000000     ${pid} fsstore.go:116] kubelet config controller: loading Kubelet configuration checkpoint for source ${P}, UID: ${U}, ResourceVersion: ${rv}\n`;
  const file = path.join(t.testdir(), 'wrap.log');
  // Feb, then Jan: the year steps between them; the file was last written in March 2022.
  fs.writeFileSync(file, line('Feb', '10', 100, '5') + line('Jan', '05', 200, '6'));
  fs.utimesSync(file, new Date('2022-03-15T12:00:00Z'), new Date('2022-03-15T12:00:00Z'));
  const times = (r: JournalResult) => r.events.map((e) => [e.time?.slice(0, 10), e.resourceVersion]);
  t.same(times(await readJournal({ file, utc: true })), [['2021-02-10', '5'], ['2022-01-05', '6']]);
  t.same(times(await readJournal({ file, utc: true, since: '2022-01-01 00:00:00 UTC' })), [['2022-01-05', '6']], 'the 2021 event is outside');
  t.same(times(await readJournal({ file, utc: true, until: '2021-12-31 00:00:00 UTC' })), [['2021-02-10', '5']], 'the 2021 event is inside');
  const windowed = await readJournal({ file, utc: true, since: '2022-01-01 00:00:00 UTC' });
  t.same(windowed.checkpoints.map((c) => c.resourceVersion), ['6'], 'and only what is inside is correlated');
  t.same(times(await readJournal({ file, utc: true, year: 2021, since: '2022-01-01 00:00:00 UTC' })), [['2022-01-05', '6']], '--year agrees');
});

t.test('found by a review of the mends: a log whose first line carries its year and later ones do not (concatenated): --since agrees with --year', async (t) => {
  const file = path.join(t.testdir(), 'mixed.log');
  const started = (stamp: string) => `${stamp} node-1 systemd[1]: Started kubelet: The Kubernetes Node Agent.\n`;
  const pad = Array.from({ length: 4000 }, (_, i) => `Jan 02 08:00:30 node-1 sshd[9]: padding line number ${i} to make the file larger than one read\n`).join('');
  fs.writeFileSync(file, started('2025-01-02T07:59:00+00:00') + started('Jan 02 08:00:00') + pad + started('Dec 31 08:00:00') + started('Jan 02 08:00:00'));
  fs.utimesSync(file, new Date('2026-01-03T12:00:00Z'), new Date('2026-01-03T12:00:00Z'));
  const times = async (extra: object) => (await readJournal({ file, utc: true, ...extra })).events.map((e) => e.time);
  const withYear = await times({ since: '2025-06-01 00:00:00 UTC', year: 2025 });
  t.same(withYear, ['2025-12-31T08:00:00.000Z', '2026-01-02T08:00:00.000Z']);
  t.same(await times({ since: '2025-06-01 00:00:00 UTC' }), withYear);
});

t.test('local time zone unless utc', async (t) => {
  const utc = await read('structured-1.22.short.log', { year: 2022 });
  const local = await read('structured-1.22.short.log', { year: 2022, utc: false });
  const offset = new Date(2022, 4, 22).getTimezoneOffset() * 60_000;
  t.equal(Date.parse(local.events[1]!.time!) - Date.parse(utc.events[1]!.time!), offset);
});

t.test('the stories correlate: restarts, processes, crash loop, checkpoints', async (t) => {
  const A = '7a0c1f4e-5b2d-4c3e-9f10-1a2b3c4d5e6f';
  const B = '3f9d2b1a-0c4e-4d5f-8a6b-7c8d9e0f1a2b';
  const C = '9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b';
  for (const { era, year } of ERAS) {
    const r: JournalResult = await read(`${era}.short.log`, {
      year,
      store: { onDisk: [{ uid: A, resourceVersion: '200' }, { uid: C, resourceVersion: '400' }, { uid: 'ffffffff-0000-0000-0000-000000000000', resourceVersion: '1' }], metaSources: [] },
    });
    t.equal(r.restarts, 8, `${era}: 5 restarts before the reboot, 3 in the crash loop`);
    t.equal(r.crashLoop, true, `${era}: crash loop`);
    t.equal(r.processes.length, 10);
    t.match(
      r.processes.map((p) => [p.loaded?.resourceVersion ?? null, p.ended]),
      [
        ['100', 'restart-for-config'],
        ['200', 'restart-for-config'],
        ['200', 'restart-for-config'], // B/300 rejected: fell back to A/200
        ['200', 'restart-for-local'], // B/310 rejected: fell back to A/200
        [null, 'restart-for-config'], // local
        ['400', null], // C/400 until the reboot
        [null, era.startsWith('legacy') ? 'bootstrap-failed' : 'bootstrap-failed'],
        [null, 'bootstrap-failed'],
        [null, era.startsWith('legacy') ? 'bootstrap-failed' : 'feature-gate-off'],
        [null, era.startsWith('legacy') ? 'bootstrap-failed' : 'feature-gate-off'],
      ],
      `${era}: what each process loaded and how it ended`,
    );
    const ck = Object.fromEntries(r.checkpoints.map((c) => [`${c.uid.slice(0, 1)}/${c.resourceVersion}`, c]));
    t.same(Object.keys(ck).sort(), ['3/300', '3/310', '7/100', '7/200', '9/400', 'f/1']);
    t.match(ck['7/200'], { onDisk: true, apiPath: '/api/v1/namespaces/kube-system/configmaps/node-config-a' });
    t.match(ck['3/300'], { onDisk: false, uid: B });
    t.ok(ck['3/300']!.events >= 4, 'downloaded, restart, load, load-failed (attributed), exists');
    t.match(ck['f/1'], { onDisk: true, events: 0, firstSeen: null, lastSeen: null, apiPath: null });
    t.ok(r.skipped > 0, 'other controller lines are counted as skipped');
  }
});

t.test('--uid filters events and checkpoints (a prefix of 4+ characters is enough)', async (t) => {
  const all = await read('legacy-1.13.short.log', { year: 2020 });
  const r = await read('legacy-1.13.short.log', { year: 2020, uid: '3f9d' });
  t.ok(r.events.length > 0);
  t.ok(r.events.every((e) => e.uid === null || e.uid.startsWith('3f9d')));
  t.ok(r.events.some((e) => e.kind === 'load-failed' && e.uid === null), 'the rejection after its load is kept');
  t.ok(r.checkpoints.every((c) => c.uid.startsWith('3f9d')));
  t.equal(r.restarts, all.restarts, 'restarts and crash loops are about the kubelet, not one UID');
  // Kubernetes UIDs are 36 characters: a shorter filter than a prefix may be is a mistake, said so.
  await t.rejects(read('legacy-1.13.short.log', { year: 2020, uid: '3f9' }), { code: 'BAD_UID', exitCode: 2 }, 'shorter than 4: a usage error');
});

t.test('--since/--until on files', async (t) => {
  const r = await read('legacy-1.13.short.log', { year: 2020, since: '2021-01-01T00:00:00Z', until: '2021-01-01T00:20:38Z' });
  t.ok(r.events.length > 3);
  t.ok(r.events.every((e) => e.time! >= '2021-01-01T00:00:00.000Z' && e.time! <= '2021-01-01T00:20:38.000Z'));
  t.equal(r.crashLoop, false, 'two failed starts in the window');
  await t.rejects(read('legacy-1.13.short.log', { since: 'next blue moon' }), { code: 'USAGE', exitCode: 2 });
});

t.test('stdin, gzip on stdin', async (t) => {
  const data = fs.readFileSync(path.join(FIX, 'structured-1.22.short.log'));
  const plain = await readJournal({ file: '-', stdin: Readable.from([data]), year: 2022, utc: true });
  const gz = await readJournal({ file: '-', stdin: Readable.from([zlib.gzipSync(data)]), year: 2022, utc: true });
  t.equal(plain.events[0]?.source, '-');
  t.same(gz.events, plain.events);
  t.same(plain.events.map(strip), (await read('structured-1.22.short.log', { year: 2022 })).events.map(strip));
  const empty = await readJournal({ file: '-', stdin: Readable.from([]), utc: true });
  t.same(empty, { events: [], checkpoints: [], processes: [], restarts: 0, crashLoop: false, skipped: 0, truncated: 0 });
});

t.test('the seed material: the blog post\'s journal', async (t) => {
  const r = await read('seed-blog.short.log', { year: 2020 });
  t.same(
    r.events.map((e) => e.kind),
    ['source-updated', 'downloaded', 'restart-for-config', 'kubelet-exited', 'restart-scheduled', 'kubelet-started', 'controller-start', 'store-init', 'load-failed'],
  );
  t.match(r.events[0], { time: '2020-08-21T18:54:30.679Z', pid: 107800, message: 'kubelet config controller: assigned ConfigMap was updated' });
  t.match(r.events[2], { pid: 107800, uid: '5808539f-48e3-4e47-8ce6-c261c48fa1d9', resourceVersion: '437429', apiPath: '/api/v1/namespaces/kube-system/configmaps/k8s-worker16', key: 'kubelet' });
  t.equal(r.skipped, 3, 'download.go:181 "checking in-memory store", "ensuring filesystem", systemd "Stopped"');
  t.equal(r.restarts, 1);
  t.same(r.processes.map((p) => [p.pid, p.ended]), [[107800, 'restart-for-config'], [108430, null], [278409, null]]);
});

t.test('sources that cannot be read: exit 3 with a hint', async (t) => {
  const dir = t.testdir({ 'a-dir': {} });
  await t.rejects(readJournal({ file: path.join(dir, 'missing.log') }), { exitCode: 3, code: 'JOURNAL_UNREADABLE', message: /no such file/ });
  await t.rejects(readJournal({ file: path.join(dir, 'a-dir') }), { code: 'JOURNAL_UNREADABLE', exitCode: 3, hint: /--journal-dir/ });
  if (process.getuid?.() !== 0) {
    const f = path.join(dir, 'secret.log');
    fs.writeFileSync(f, 'x');
    fs.chmodSync(f, 0);
    await t.rejects(readJournal({ file: f }), { exitCode: 3, message: /permission denied/ });
  }
  const err = await readJournal({ source: 'auto', journalctl: path.join(dir, 'no-journalctl') }).catch((e: unknown) => e);
  t.ok(err instanceof CkptError);
  t.match(err, { exitCode: 3, code: 'JOURNALCTL_MISSING', message: /not found/, hint: /--file/ });
  t.match(err, { hint: /--journal-dir/ });
  await t.rejects(readJournal({ dir, journalctl: path.join(dir, 'no-journalctl') }), { code: 'JOURNALCTL_MISSING', exitCode: 3, hint: /--file/ });
  await t.rejects(readJournal({ file: path.join(FIX, 'seed-blog.short.log'), boot: true }), { code: 'USAGE', exitCode: 2 });
  await t.rejects(readJournal({ file: path.join(FIX, 'seed-blog.short.log'), year: 99 }), { code: 'USAGE', exitCode: 2 });
});

t.test('progress is reported with the total size', async (t) => {
  const seen: Array<{ bytes: number; total: number | null }> = [];
  await read('legacy-1.13.short.log', { year: 2020 }, );
  await readJournal({ file: path.join(FIX, 'legacy-1.13.short.log'), year: 2020 }, (p) => seen.push(p));
  const size = fs.statSync(path.join(FIX, 'legacy-1.13.short.log')).size;
  t.match(seen.at(-1), { bytes: size, total: size });
});

t.test('kubelet lines only (journalctl -t kubelet): a 1.22 gate-off loop is still seen', async (t) => {
  const dir = t.testdir({});
  const f = path.join(dir, 'k.log');
  const start = (pid: number, s: number) => [
    `May 22 09:22:${s} n1 kubelet[${pid}]: Flag --dynamic-config-dir has been deprecated, Feature DynamicKubeletConfig is deprecated in 1.22 and will not move to GA.`,
    `May 22 09:22:${s} n1 kubelet[${pid}]: E0522 09:22:${s}.100000 ${String(pid).padStart(7)} server.go:194] "Failed to validate kubelet flags" err="the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag"`,
  ];
  fs.writeFileSync(f, [...start(790, 30), ...start(821, 32), ...start(852, 34)].join('\n') + '\n');
  const r = await readJournal({ file: f, year: 2022, utc: true });
  t.same(r.events.map((e) => e.kind), ['deprecated-flag', 'feature-gate-off', 'deprecated-flag', 'feature-gate-off', 'deprecated-flag', 'feature-gate-off']);
  t.equal(r.restarts, 2, 'without systemd lines: pid changes');
  t.same(r.processes.map((p) => p.ended), ['feature-gate-off', 'feature-gate-off', 'feature-gate-off']);
});

t.test('a FIFO given to --file is refused at once, writer or not; the same bytes on stdin are read', async (t) => {
  const { spawn } = await import('node:child_process');
  const dir = t.testdir({});
  const fifo = path.join(dir, 'pipe');
  const mk = spawn('mkfifo', [fifo]);
  await new Promise((r) => mk.on('close', r));
  await t.rejects(readJournal({ file: fifo }), { code: 'JOURNAL_NOT_REGULAR', exitCode: 3, message: /is a FIFO, not a regular file/, hint: /--file -/ }, 'no writer: no wait');
  const writer = spawn('sh', ['-c', `cat '${path.join(FIX, 'structured-1.22.short.log.gz')}' > '${fifo}'`]);
  t.teardown(() => writer.kill('SIGKILL'));
  await t.rejects(readJournal({ file: fifo }), { code: 'JOURNAL_NOT_REGULAR' }, 'a writer changes nothing');
  const r = await readJournal({ file: '-', stdin: fs.createReadStream(path.join(FIX, 'structured-1.22.short.log.gz')), year: 2022, utc: true });
  t.equal(r.events.length, (await read('structured-1.22.short.log', { year: 2022 })).events.length);
});

t.test('a long journal: the newest 20000 events listed, every one summarised', async (t) => {
  const dir = t.testdir({});
  // ~45 MB, ~126k events, 14000 kubelet processes.
  const one = fs.readFileSync(path.join(FIX, 'structured-1.22.short.log'));
  const big = path.join(dir, 'big.log');
  fs.writeFileSync(big, Buffer.concat(Array.from({ length: 1400 }, () => one)));
  const small = await read('structured-1.22.short.log', { year: 2022 });
  const progress: number[] = [];
  const r = await readJournal({ file: big, year: 2022, utc: true }, (p) => progress.push(p.bytes));
  t.equal(r.events.length, 20_000);
  t.ok(r.truncated > 100_000);
  t.equal(r.restarts, small.restarts * 1400, 'restarts are counted over every event, listed or not');
  t.equal(r.processes.length, 10_000, 'the newest 10000 processes are listed (14000 ran)');
  t.ok(progress.length > 1);
});

t.test('syslog file: other daemons\' lines between a message\'s lines are passed over, within a bound', async (t) => {
  const head = "May 22 08:00:01 node-1 kubelet[500]: E0522 08:00:01.000000     500 controller.go:151] kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{";
  const other = (i: number) => `May 22 08:00:01 node-1 containerd[900]: time="x" level=info msg="hello ${i}"`;
  const tail = ['May 22 08:00:01 node-1 kubelet[500]:   "a": 1', "May 22 08:00:01 node-1 kubelet[500]: }'"];
  const whole = "kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{\n  \"a\": 1\n}'";
  const dir = t.testdir({});
  const run = async (lines: string[]) => {
    const f = path.join(dir, `j${Math.random().toString(36).slice(2)}.log`);
    fs.writeFileSync(f, `${lines.join('\n')}\n`);
    return (await readJournal({ file: f, utc: true, year: 2021 })).events;
  };
  t.equal((await run([head, other(1), tail[0]!, other(2), other(3), tail[1]!]))[0]?.message, whole, 'interleaved lines of containerd');
  const many = Array.from({ length: 17 }, (_, i) => other(i));
  t.equal((await run([head, ...many, ...tail]))[0]?.message, head.slice(head.indexOf('kubelet config')), 'past 16 foreign lines in a row the message ends');
  // A line the scanner wants ends the message and is read as itself: systemd's, a new kubelet's.
  const restart = await run([head, 'May 22 08:00:02 node-1 systemd[1]: kubelet.service: Main process exited, code=exited, status=255/EXCEPTION', ...tail]);
  t.same(restart.map((e) => e.kind), ['load-failed', 'kubelet-exited']);
  t.equal(restart[0]?.message, head.slice(head.indexOf('kubelet config')));
  const next = await run([head, 'May 22 08:00:03 node-1 kubelet[600]: I0522 08:00:03.000000     600 controller.go:101] kubelet config controller: starting controller', ...tail]);
  t.same(next.map((e) => [e.kind, e.pid]), [['load-failed', 500], ['controller-start', 600]]);
  // Another process that talks about the config controller is not swallowed.
  const chatty = await run([head, 'May 22 08:00:02 node-1 myscript[700]: kubelet config controller: starting controller', ...tail]);
  t.equal(chatty[0]?.message, head.slice(head.indexOf('kubelet config')));
});

t.test('found by a journal review: in cat output, systemd\'s job lines about the kubelet end a message, never continue it', async (t) => {
  const dir = t.testdir({});
  const f = path.join(dir, 'cat.log');
  fs.writeFileSync(f, ['I0824 13:00:01.000001     700 configsync.go:205] kubelet config controller: Kubelet restarting to use local config', 'Stopping kubelet: The Kubernetes Node Agent...', 'Stopped Kubernetes Kubelet.', 'kubelet.service: Deactivated successfully.', ''].join('\n'));
  const r = await readJournal({ file: f, year: 2021 });
  t.equal(r.events[0]!.message, 'kubelet config controller: Kubelet restarting to use local config');
});
