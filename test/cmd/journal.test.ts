// The journal command as a user runs it: files, stdin, filters, JSON shape, bad input.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import os from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { cleanEnv, cliPath, json, repoRoot, runCli } from '../helpers.js';

const J = (f: string) => path.join(repoRoot, 'fixtures/journals', f);
const DEMO_ROOT = path.join(repoRoot, 'fixtures/demo');

interface Out {
  events: { time: string; pid: number | null; kind: string; uid: string | null; resourceVersion: string | null; source: string }[];
  checkpoints: { uid: string; resourceVersion: string; onDisk: boolean | null }[];
  processes: unknown[];
  restarts: number;
  crashLoop: boolean;
  skipped: number;
  truncated: number;
}

t.test('JSON shape and the same events from text, gz, JSON export and stdin', async (t) => {
  const runs = ['structured-1.22.short.log', 'structured-1.22.short.log.gz', 'structured-1.22.json'].map((f) => json<Out>(runCli(['--dir', DEMO_ROOT + '/var/lib/kubelet/dynamic-config', 'journal', '--file', J(f), '-o', 'json'])));
  const first = runs[0]!;
  t.same(Object.keys(first), ['apiVersion', 'kind', 'events', 'checkpoints', 'processes', 'restarts', 'crashLoop', 'skipped', 'truncated']);
  t.equal(first.truncated, 0);
  t.ok(first.events.length > 20);
  t.same(Object.keys(first.events[0]!), ['time', 'pid', 'kind', 'uid', 'resourceVersion', 'apiPath', 'key', 'exitStatus', 'message', 'source']);
  const kinds = (o: Out) => o.events.map((e) => `${e.kind}:${e.uid ?? ''}/${e.resourceVersion ?? ''}`);
  for (const r of runs.slice(1)) t.same(kinds(r), kinds(first));
  const stdin = runCli(['journal', '--file', '-', '-o', 'json'], { input: fs.readFileSync(J('structured-1.22.short.log')) });
  t.equal(stdin.code, 1, 'the fixture ends in a crash loop: a finding');
  t.same(kinds(json<Out>(stdin)), kinds(first));
  t.equal(json<Out>(stdin).events[0]!.source, '-');
});

t.test('--uid filters; onDisk is judged against the store', async (t) => {
  const r = json<Out>(runCli(['--root', DEMO_ROOT, 'journal', '--file', J('structured-1.22.short.log'), '--uid', '7a0c', '-o', 'json']));
  t.ok(r.events.length > 0);
  t.ok(r.events.every((e) => e.uid === null || e.uid.startsWith('7a0c')));
  t.ok(r.checkpoints.every((c) => c.onDisk === false), 'the demo store holds none of these UIDs');
});

t.test('text timeline marks failures; a crash loop is a finding (exit 1)', async (t) => {
  const r = runCli(['journal', '--file', J('structured-1.22.short.log')]);
  t.equal(r.code, 1, 'the fixture ends in a crash loop');
  t.match(r.stdout, /\nCRASH LOOP: 3 or more failed starts within 10 minutes\n$/);
  t.match(r.stdout, /^Timeline/);
  t.match(r.stdout, /\n! .*load-failed/);
});

t.test('bad input: missing file exit 3, no kubelet lines exit 0, binary garbage survives', async (t) => {
  const missing = runCli(['journal', '--file', '/nonexistent/journal.log']);
  t.equal(missing.code, 3);
  t.match(missing.stderr, /nonexistent/);
  const empty = runCli(['journal', '--file', '-', '-o', 'json'], { input: 'Nov 22 08:00:00 host sshd[1]: hello\n' });
  t.equal(empty.code, 0);
  t.match(json<Out>(empty), { events: [], restarts: 0, crashLoop: false });
  const garbage = Buffer.concat([Buffer.from([0, 255, 254, 10, 0, 0]), Buffer.alloc(200_000, 0x41), Buffer.from('\n')]);
  const g = runCli(['journal', '--file', '-', '-o', 'json'], { input: garbage });
  t.equal(g.code, 0, g.stderr);
  t.same(json<Out>(g).events, []);
});

/** A kubelet whose ConfigMap is gone, for `hours`: a sync failure every second, a restart onto local config every 10 min. */
function longJournal(file: string, hours: number): number {
  const fd = fs.openSync(file, 'w');
  const p2 = (n: number) => String(n).padStart(2, '0');
  let events = 0;
  let pid = 1000;
  const t0 = Date.UTC(2021, 7, 1);
  for (let s = 0; s < hours * 3600; s++) {
    const d = new Date(t0 + s * 1000);
    let text = '';
    const pre = `Aug ${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} node kubelet[${pid}]: `;
    const k = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.000000 ${pid} `;
    text += `${pre}E${k}configsync.go:89] kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: configmaps "node-config-b" not found\n`;
    events++;
    if (s % 600 === 0) {
      text += `${pre}I${k}configsync.go:205] kubelet config controller: Kubelet restarting to use local config\n`;
      pid++;
      events++;
    }
    fs.writeSync(fd, text);
  }
  fs.closeSync(fd);
  return events;
}

t.test('a day and a half of a failing sync (~130k events): text exits 0, lists the newest 20000, summarises all', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  const total = longJournal(file, 36);
  t.equal(total, 36 * 3600 + 216, 'a sync failure a second, a restart every 10 minutes');
  const big = { maxBuffer: 256 * 1024 * 1024 };
  const text = runCli(['journal', '--file', file, '--year', '2021', '--utc'], big);
  t.equal(text.code, 0, text.stderr);
  // Short strings only: a failed match on megabytes makes tap's diff crawl.
  t.match(text.stdout.slice(-200), new RegExp(`\\n${total} events \\(the newest 20000 listed, ${total - 20000} older ones summarised\\), 216 restarts, 0 lines skipped, no crash loop\\n$`));
  t.match(text.stderr.slice(0, 300), /warning: listed the newest 20000 events; \d+ older ones are summarised/);
  const j = json<Out>(runCli(['journal', '--file', file, '--year', '2021', '--utc', '-o', 'json'], big));
  t.equal(j.events.length, 20_000);
  t.equal(j.truncated, total - 20_000);
  t.equal(j.restarts, 216, 'restarts counted over every event');
  t.equal(j.events.at(-1)!.time, '2021-08-02T11:59:59.000Z', 'the newest are listed');
  const n = json<Out>(runCli(['journal', '--file', file, '--year', '2021', '--utc', '-o', 'json', '-n', '3']));
  t.equal(n.events.length, 3);
  t.equal(n.truncated, total - 3);
  t.equal(n.restarts, 216);
  const yaml = runCli(['journal', '--file', file, '--year', '2021', '--utc', '-o', 'yaml', '-n', '2']);
  t.equal(yaml.code, 0);
  t.match(yaml.stdout.slice(-100), new RegExp(`\\ntruncated: ${total - 2}\\n`));
});

t.test('-n must be a count', async (t) => {
  for (const bad of ['0', '-3', 'abc', '1.5']) {
    const r = runCli(['journal', '--file', J('structured-1.22.short.log'), '-n', bad]);
    t.equal(r.code, 2, `-n ${bad}`);
  }
});

t.test('special files are refused at once (exit 3); stdin stays allowed', async (t) => {
  const dir = t.testdir({});
  const fifo = path.join(dir, 'fifo');
  spawnSync('mkfifo', [fifo]);
  // A socket's path must stay under 108 bytes: a short temp dir of its own.
  const sockDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kc-sock-'));
  t.teardown(() => fs.rmSync(sockDir, { recursive: true, force: true }));
  const sock = path.join(sockDir, 's');
  const server = net.createServer().listen(sock);
  await new Promise((r) => server.once('listening', r));
  try {
    for (const [f, what] of [['/dev/zero', 'a character device'], ['/dev/null', 'a character device'], [fifo, 'a FIFO'], [sock, 'a socket']] as const) {
      const r = runCli(['journal', '--file', f], { timeout: 10_000 });
      t.equal(r.code, 3, `${f}: exit 3`);
      t.match(r.stderr, `error: ${f} is ${what}, not a regular file: refused`);
      t.match(r.stderr, /--file -/);
    }
  } finally {
    server.close();
  }
  const stdin = runCli(['journal', '--file', '-', '-o', 'json'], { input: fs.readFileSync(J('structured-1.22.short.log')) });
  t.equal(stdin.code, 1, 'stdin is read (and its crash loop found)');
});

/** Lines of the running CLI's stdout as they come; resolves when `pred` holds for the text so far. */
function waitFor(child: ReturnType<typeof spawn>, pred: (out: string) => boolean, what: string): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got:\n${out}`)), 30_000);
    const on = (d: Buffer) => {
      out += d.toString();
      if (pred(out)) {
        clearTimeout(timer);
        child.stdout!.off('data', on);
        resolve(out);
      }
    };
    child.stdout!.on('data', on);
  });
}

t.test('-f on a growing file: the last events, then each appended one; a rotated file is reopened', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  const lines = fs.readFileSync(J('structured-1.22.short.log'), 'utf8').split('\n');
  fs.writeFileSync(file, lines.slice(0, 40).join('\n') + '\n');
  const child = spawn(process.execPath, [cliPath, 'journal', '-f', '-n', '2', '--file', file, '--year', '2022', '--utc'], { env: { ...cleanEnv(), NO_COLOR: '1' } });
  t.teardown(() => child.kill('SIGKILL'));
  const first = await waitFor(child, (o) => o.split('\n').length > 2, 'the backlog');
  t.equal(first.trim().split('\n').length, 2, 'the newest 2 events first');
  const loadLine = 'May 22 09:30:00 node-1 kubelet[9999]: I0522 09:30:00.000000    9999 controller.go:101] "Kubelet config controller starting controller"\n';
  fs.appendFileSync(file, loadLine);
  const more = await waitFor(child, (o) => o.includes('9999'), 'the appended event');
  t.match(more, /^ {2}2022-05-22 09:30:00 {5}9999 {2}controller-start {4}- {22}starting controller$/m);
  // Rotation: the file is moved away and a new one written under the name.
  fs.renameSync(file, `${file}.1`);
  fs.writeFileSync(file, loadLine.replace(/9999/g, '7777'));
  await waitFor(child, (o) => o.includes('7777'), 'the event of the new file');
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'SIGTERM ends the follow cleanly');
});

t.test('-f: an appended error is printed with its continuation lines', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  fs.writeFileSync(file, fs.readFileSync(J('structured-1.22.short.log')));
  const child = spawn(process.execPath, [cliPath, 'journal', '-f', '-n', '1', '-o', 'json', '--file', file, '--year', '2022', '--utc'], { env: cleanEnv() });
  t.teardown(() => child.kill('SIGKILL'));
  await waitFor(child, (o) => o.split('\n').length > 1, 'the backlog');
  const p = 'May 22 09:31:00 node-1 kubelet[4242]: ';
  fs.appendFileSync(file, `${p}E0522 09:31:00.000000    4242 controller.go:151] kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{\n${p}  "port": 10250\n${p}}'\n`);
  const out = await waitFor(child, (o) => o.includes('4242'), 'the appended event');
  const ev = out.trim().split('\n').map((l) => (JSON.parse(l) as { event: { pid: number; kind: string; message: string } }).event).find((e) => e.pid === 4242)!;
  t.equal(ev.kind, 'load-failed');
  t.equal(ev.message, `kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{\n  "port": 10250\n}'`, 'the whole message');
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  t.equal(await exited, 0);
});

t.test('-f -o json: one JSON line per event; --until conflicts', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  fs.writeFileSync(file, fs.readFileSync(J('structured-1.22.json')));
  const child = spawn(process.execPath, [cliPath, 'journal', '-f', '-o', 'json', '--file', file], { env: cleanEnv() });
  t.teardown(() => child.kill('SIGKILL'));
  const out = await waitFor(child, (o) => o.split('\n').length > 10, 'ten events');
  const docs = out.trim().split('\n').map((l) => JSON.parse(l) as { apiVersion: string; kind: string; event: { kind: string } });
  t.equal(docs.length, 10, 'the newest 10 by default');
  t.same(docs.map((d) => [d.apiVersion, d.kind]), docs.map(() => ['kubelet-ckpt/v1', 'JournalEvent']));
  t.equal(docs.at(-1)!.event.kind, 'start-limit-hit');
  child.kill('SIGTERM');
  const r = runCli(['journal', '-f', '--until', 'now', '--file', file]);
  t.equal(r.code, 2);
});

t.test('JSON exports of every journalctl: spaced (older systemd), json-seq, json-sse; json-pretty refused', async (t) => {
  const dir = t.testdir({});
  const run = (file: string) => runCli(['journal', '--file', file, '-o', 'json']);
  const kinds = (o: Out) => o.events.map((e) => `${e.kind}:${e.pid ?? ''}:${e.uid ?? ''}/${e.resourceVersion ?? ''}`);
  for (const base of ['structured-1.22.json', 'legacy-1.13.json']) {
    const entries = fs.readFileSync(J(base), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const compact = run(J(base));
    const want = json<Out>(compact);
    t.ok(want.events.some((e) => e.kind === 'kubelet-exited'), `${base}: systemd's lines are there to lose`);
    // systemd before ~v240: `{ "KEY" : "value", … }` (logs-show.c's own printing).
    const spaced = `${entries.map((o) => `{ ${Object.entries(o).map(([k, v]) => `${JSON.stringify(k)} : ${JSON.stringify(v)}`).join(', ')} }`).join('\n')}\n`;
    const seq = entries.map((o) => `\x1e${JSON.stringify(o)}\n`).join('');
    const sse = entries.map((o) => `data: ${JSON.stringify(o)}\n\n`).join('');
    for (const [name, text] of [['spaced', spaced], ['json-seq', seq], ['json-sse', sse]] as const) {
      const f = path.join(dir, `${base}.${name}`);
      fs.writeFileSync(f, text);
      const r = run(f);
      t.equal(r.code, compact.code, `${base} ${name}: exit ${compact.code}, as compact JSON`);
      const got = json<Out>(r);
      t.same(kinds(got), kinds(want), `${base} ${name}: the same events`);
      t.same([got.restarts, got.crashLoop, got.skipped], [want.restarts, want.crashLoop, want.skipped], `${base} ${name}: the same restarts, crash loop and skipped lines`);
    }
  }
  const pretty = path.join(dir, 'pretty.json');
  fs.writeFileSync(pretty, `${JSON.stringify(JSON.parse(fs.readFileSync(J('structured-1.22.json'), 'utf8').split('\n')[0]!), null, '\t')}\n`);
  const r = runCli(['journal', '--file', pretty]);
  t.equal(r.code, 2, 'json-pretty: refused, not read as nothing');
  t.match(r.stderr, /journalctl -o json-pretty output .* which kubelet-ckpt does not read\nhint: export it with journalctl -o json/);
  // Found by review: export format and RFC 5424 read as "no events", exit 0.
  for (const file of [J('legacy-1.13.export'), '-']) {
    const e = runCli(['journal', '--file', file], file === '-' ? { input: fs.readFileSync(J('legacy-1.13.export')) } : {});
    t.equal(e.code, 2, `export format (${file}): refused`);
    t.match(e.stderr, /journalctl -o export output \(one field per line\), which kubelet-ckpt does not read\nhint: export it with journalctl -o json/);
  }
  const rfc = path.join(dir, 'rfc5424.log');
  fs.writeFileSync(rfc, [
    '<30>1 2021-08-24T13:16:00.000001+09:00 node-1 systemd 1 - - Started kubelet: The Kubernetes Node Agent.',
    '<30>1 2021-08-24T13:16:04.368361+09:00 node-1 kubelet 278409 - [meta sequenceId="1"] \uFEFFI0824 13:16:04.368361  278409 controller.go:101] kubelet config controller: starting controller',
    '',
  ].join('\n'));
  const k = runCli(['journal', '--file', rfc, '-o', 'json']);
  t.equal(k.code, 0, k.stderr);
  t.match(JSON.parse(k.stdout).events, [{ time: '2021-08-24T04:16:00.000Z', kind: 'kubelet-started' }, { time: '2021-08-24T04:16:04.368Z', pid: 278409, kind: 'controller-start' }]);
});

t.test('units named after the kubelet are not the kubelet: no phantom starts, exits or crash loop', async (t) => {
  const dir = t.testdir({});
  const monitor = [
    'Aug 24 13:00:00 n1 systemd[1]: Started kubelet: The Kubernetes Node Agent.',
    'Aug 24 13:00:01 n1 kubelet[500]: I0824 13:00:01.000001     500 controller.go:101] kubelet config controller: starting controller',
    ...[1, 2, 3].flatMap((n) => [
      `Aug 24 13:0${n}:00 n1 systemd[1]: Started Kubernetes health monitoring for kubelet.`,
      `Aug 24 13:0${n}:05 n1 systemd[1]: kubelet-monitor.service: Main process exited, code=exited, status=1/FAILURE`,
      `Aug 24 13:0${n}:15 n1 systemd[1]: kubelet-monitor.service: Scheduled restart job, restart counter is at ${n}.`,
    ]),
    'Aug 24 13:05:00 n1 systemd[1]: start request repeated too quickly for kubelet-monitor.service',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'syslog'), `${monitor}\n`);
  const text = json<Out>(runCli(['journal', '--file', path.join(dir, 'syslog'), '--year', '2021', '--utc', '-o', 'json']));
  t.same(text.events.map((e) => e.kind), ['kubelet-started', 'controller-start']);
  t.same([text.restarts, text.crashLoop], [0, false]);
  // The same through journald's JSON, where UNIT= names the unit.
  const entry = (us: number, message: string, unit: string | null, pid = 1) => JSON.stringify({ __REALTIME_TIMESTAMP: String(us), _PID: String(pid), SYSLOG_IDENTIFIER: pid === 1 ? 'systemd' : 'kubelet', ...(unit ? { UNIT: unit } : {}), MESSAGE: message });
  const t0 = Date.UTC(2021, 7, 24, 13) * 1000;
  const lines = [
    entry(t0, 'Started kubelet: The Kubernetes Node Agent.', 'kubelet.service'),
    ...[1, 2, 3].flatMap((n) => [
      entry(t0 + n * 60e6, 'Started Kubernetes health monitoring for kubelet.', 'kubelet-monitor.service'),
      entry(t0 + n * 60e6 + 5e6, 'kubelet-monitor.service: Main process exited, code=exited, status=1/FAILURE', 'kubelet-monitor.service'),
      entry(t0 + n * 60e6 + 15e6, `kubelet-monitor.service: Scheduled restart job, restart counter is at ${n}.`, 'kubelet-monitor.service'),
    ]),
  ];
  fs.writeFileSync(path.join(dir, 'j.json'), `${lines.join('\n')}\n`);
  const j = runCli(['journal', '--file', path.join(dir, 'j.json'), '-o', 'json']);
  t.equal(j.code, 0, 'no crash loop: exit 0');
  t.same(json<Out>(j).events.map((e) => e.kind), ['kubelet-started']);
  // And the kubelet's own unit still counts, whatever it is called.
  for (const unit of ['kubelet.service', 'snap.microk8s.daemon-kubelet.service', 'kubelet@main.service']) {
    fs.writeFileSync(path.join(dir, 'k.log'), `Aug 24 13:00:05 n1 systemd[1]: ${unit}: Main process exited, code=exited, status=1/FAILURE\n`);
    t.same(json<Out>(runCli(['journal', '--file', path.join(dir, 'k.log'), '--year', '2021', '--utc', '-o', 'json'])).events.map((e) => e.kind), ['kubelet-exited'], unit);
  }
});

t.test('--uid shorter than a prefix may be: a usage error (exit 2), not an empty journal', async (t) => {
  for (const extra of [[], ['-f']]) {
    const r = runCli(['journal', '--file', J('structured-1.22.short.log'), '--uid', '7a0', ...extra], { timeout: 10_000 });
    t.equal(r.code, 2, `${extra.join(' ')}: exit 2`);
    t.match(r.stderr, /^error: --uid "7a0": a UID prefix needs at least 4 characters/);
  }
  t.ok(json<Out>(runCli(['journal', '--file', J('structured-1.22.short.log'), '--uid', '7a0c', '-o', 'json'])).events.length > 0, 'four characters still filter');
});

t.test('--source that contradicts --file or --journal-dir: exit 2, nothing else read', async (t) => {
  for (const [src, other, opt] of [['auto', '--file', J('structured-1.22.short.log')], ['journal-dir', '--file', J('structured-1.22.short.log')], ['auto', '--journal-dir', '/nonexistent'], ['file', '--journal-dir', '/nonexistent']] as const) {
    const r = runCli(['journal', '--source', src, other, opt]);
    t.equal(r.code, 2, `--source ${src} ${other}: ${r.stderr}`);
    t.equal(r.stdout, '');
    t.match(r.stderr, `--source ${src} contradicts ${other}: give one source`);
  }
  const agree = runCli(['journal', '--source', 'file', '--file', J('structured-1.22.short.log'), '--utc', '-o', 'json']);
  t.equal(agree.code, 1, 'the file is read: its crash loop exits 1');
  t.equal(json<Out>(agree).crashLoop, true);
});

t.test('text: a continued message is folded with ⏎, and what a log hides in a line is shown escaped', async (t) => {
  const legacy = runCli(['journal', '--file', J('legacy-1.13.short.log'), '--year', '2020', '--utc']);
  t.match(legacy.stdout, /^! 2020-12-31 23:11:20 +2264 +load-failed +- +failed to decode: Object 'Kind' is missing in '\{ ⏎ "apiVersion": "kubelet\.config\.k8s\.io\/v1beta1", ⏎ /m);
  t.notMatch(legacy.stdout, '\\x0a', 'the newline of a continued message is not shown as an escape');
  const evil = 'May 22 08:00:00 node-1 kubelet[2301]: E0522 08:00:00.000001    2301 configsync.go:89] kubelet config controller: failed to sync: \x1b[2J\x1b]0;pwned\x07\u202eevil\r\n';
  const r = runCli(['journal', '--file', '-', '--year', '2022', '--utc'], { input: evil });
  t.match(r.stdout, /sync-failed +- +\\x1b\[2J\\x1b\]0;pwned\\x07\\u202eevil\n/);
  t.notMatch(r.stdout, /[\x00-\x08\x0b-\x1f\x7f\u202e]/, 'nothing raw reaches the terminal');
});

t.test('found by review: crash loops the correlation missed, and dates that do not exist', async (t) => {
  const dir = t.testdir({});
  // A containerised kubelet keeps its pid: each "starting controller" is a process of its own.
  const samePid = ['00', '10', '20'].map((s) => `I0310 10:00:${s}.000001       7 controller.go:101] kubelet config controller: starting controller\nF0310 10:00:${s}.100001       7 server.go:262] failed to determine a valid configuration, error: failed to decode, error: x\n`).join('');
  fs.writeFileSync(path.join(dir, 'same-pid.log'), samePid);
  const a = runCli(['journal', '--file', path.join(dir, 'same-pid.log'), '--year', '2026', '--utc', '-o', 'json']);
  t.equal(a.code, 1, 'a crash loop');
  t.match(json(a), { restarts: 2, crashLoop: true, processes: [{ pid: 7 }, { pid: 7 }, { pid: 7 }] });
  // The same lines read twice (a journal and a forwarded copy): no restart.
  fs.writeFileSync(path.join(dir, 'twice.log'), samePid.split('\n').slice(0, 2).join('\n').repeat(1) + '\n' + samePid.split('\n').slice(0, 2).join('\n') + '\n');
  t.match(json(runCli(['journal', '--file', path.join(dir, 'twice.log'), '--year', '2026', '--utc', '-o', 'json'])), { restarts: 0, crashLoop: false, processes: [{ pid: 7 }] });
  // Three failed starts in three minutes over New Year, with no --year: the year steps are one year apart.
  const ny = [['Dec 31 23:58:00', '1231 23:58:00', 100], ['Dec 31 23:59:30', '1231 23:59:30', 200], ['Jan 01 00:01:00', '0101 00:01:00', 300]]
    .map(([p, k, pid]) => `${p} n1 systemd[1]: Started kubelet: The Kubernetes Node Agent.\n${p} n1 kubelet[${pid}]: I${k}.000001     ${pid} controller.go:101] kubelet config controller: starting controller\n${p} n1 kubelet[${pid}]: F${k}.100000     ${pid} server.go:262] failed to determine a valid configuration, error: failed to decode, error: x\n${p} n1 systemd[1]: kubelet.service: Main process exited, code=exited, status=255/n/a\n`).join('');
  const f = path.join(dir, 'new-year.log');
  fs.writeFileSync(f, ny);
  fs.utimesSync(f, new Date('2026-01-01T00:05:00Z'), new Date('2026-01-01T00:05:00Z'));
  for (const year of [[], ['--year', '2025']]) {
    const r = runCli(['journal', '--file', f, '--utc', ...year, '-o', 'json'], { env: { ...cleanEnv(), TZ: 'UTC' } });
    t.equal(r.code, 1, `crash loop ${year.join(' ') || 'without --year'}`);
    t.equal(json<{ crashLoop: boolean }>(r).crashLoop, true);
  }
  for (const bad of ['2026-02-30', '2026-13-01', '2026-03-01T12:00:60', '2026-03-01 24:00', '2025-02-29T00:00:00Z']) {
    const r = runCli(['journal', '--file', f, '--since', bad]);
    t.equal(r.code, 2, `${bad}: not a time`);
    t.match(r.stderr, /is not a time/);
  }
  t.equal(runCli(['journal', '--file', f, '--since', '2024-02-29', '--year', '2025']).code === 2, false, 'Feb 29 of a leap year is a date');
});

t.test('found by review: a line of Dec 31 stored just after one of Jan 1 does not step the year twice', async (t) => {
  const dir = t.testdir({});
  const f = path.join(dir, 'kubelet.log');
  fs.writeFileSync(f, [
    'Dec 31 23:50:00 n1 kubelet[100]: I1231 23:50:00.000001     100 controller.go:101] kubelet config controller: starting controller',
    'Dec 31 23:59:59 n1 kubelet[100]: I1231 23:59:59.900000     100 watch.go:128] kubelet config controller: assigned ConfigMap was updated',
    'Jan 01 00:00:00 n1 systemd[1]: kubelet.service: Deactivated successfully.',
    'Jan 01 00:00:00 n1 kubelet[100]: I1231 23:59:59.999000     100 configsync.go:205] kubelet config controller: Kubelet restarting to use /api/v1/namespaces/kube-system/configmaps/a, UID: aaaa-1, ResourceVersion: 2, KubeletConfigKey: kubelet',
    'Jan 01 00:00:10 n1 kubelet[200]: I0101 00:00:10.000001     200 controller.go:101] kubelet config controller: starting controller',
  ].join('\n') + '\n');
  const r = json<{ events: { time: string }[] }>(runCli(['journal', '--file', f, '--year', '2025', '--utc', '-o', 'json']));
  t.same(r.events.map((e) => e.time.slice(0, 10)), ['2025-12-31', '2025-12-31', '2026-01-01', '2025-12-31', '2026-01-01']);
});

t.test('found by a journal review: a crash loop across a DST change or a common year\'s February end is one without --year too', async (t) => {
  const dir = t.testdir({});
  const loop = (file: string, starts: [string, string, string][], mtime: string) => {
    let pid = 2000;
    const lines: string[] = [];
    for (const [md, hm, k] of starts) {
      pid += 111;
      const p = String(pid).padStart(7);
      lines.push(
        `${md} ${hm}:00 n1 systemd[1]: Started kubelet: The Kubernetes Node Agent.`,
        `${md} ${hm}:01 n1 kubelet[${pid}]: I${k} ${hm}:01.000001 ${p} controller.go:101] kubelet config controller: starting controller`,
        `${md} ${hm}:01 n1 kubelet[${pid}]: F${k} ${hm}:01.000200 ${p} server.go:271] failed to determine a valid configuration, error: no checkpoint for source /api/v1/namespaces/kube-system/configmaps/cfg-b, UID: bbbb-2222, ResourceVersion: 7`,
        `${md} ${hm}:01 n1 systemd[1]: kubelet.service: Main process exited, code=exited, status=255/n/a`,
      );
    }
    const f = path.join(dir, file);
    fs.writeFileSync(f, `${lines.join('\n')}\n`);
    fs.utimesSync(f, new Date(mtime), new Date(mtime));
    return f;
  };
  // 01:58 EST, then 03:02 and 03:06 EDT: four minutes apart each.
  const spring = loop('spring.log', [['Mar 14', '01:58', '0314'], ['Mar 14', '03:02', '0314'], ['Mar 14', '03:06', '0314']], '2021-03-14T09:00:00Z');
  const feb = loop('feb.log', [['Feb 28', '23:58', '0228'], ['Mar 01', '00:02', '0301'], ['Mar 01', '00:06', '0301']], '2021-03-01T00:10:00Z');
  for (const [f, tz] of [[spring, 'America/New_York'], [feb, 'UTC']] as const) {
    for (const year of [[], ['--year', '2021']]) {
      const r = runCli(['journal', '--file', f, ...year, '-o', 'json'], { env: { TZ: tz } });
      t.equal(r.code, 1, `${path.basename(f)} ${year.join(' ')}: ${r.stderr}`);
      t.equal(JSON.parse(r.stdout).crashLoop, true, `${path.basename(f)} ${year.join(' ') || 'without --year'}`);
    }
  }
  // The hour a fall-back repeats (found by review): 01:56 and 01:58 EDT, then 01:01 EST — five
  // minutes in all. The lines' order says the last is the second 01:01, not an hour back.
  const fall = loop('fall.log', [['Nov 07', '01:56', '1107'], ['Nov 07', '01:58', '1107'], ['Nov 07', '01:01', '1107']], '2021-11-07T07:00:00Z');
  const r = runCli(['journal', '--file', fall, '--year', '2021', '-o', 'json'], { env: { TZ: 'America/New_York' } });
  t.equal(r.code, 1, r.stderr);
  const j = JSON.parse(r.stdout) as { crashLoop: boolean; events: { kind: string; time: string }[] };
  t.equal(j.crashLoop, true, 'three failed starts in five minutes');
  t.same(j.events.filter((e) => e.kind === 'controller-start').map((e) => e.time), ['2021-11-07T05:56:01.000Z', '2021-11-07T05:58:01.000Z', '2021-11-07T06:01:01.000Z'], 'in order, the last in EST');
  // The first pass through that hour stays the first reading: 01:10 EDT after 00:50 EDT.
  const first = loop('first.log', [['Nov 07', '00:50', '1107'], ['Nov 07', '01:10', '1107']], '2021-11-07T07:00:00Z');
  const f1 = JSON.parse(runCli(['journal', '--file', first, '--year', '2021', '-o', 'json'], { env: { TZ: 'America/New_York' } }).stdout) as { events: { kind: string; time: string }[] };
  t.same(f1.events.filter((e) => e.kind === 'controller-start').map((e) => e.time), ['2021-11-07T04:50:01.000Z', '2021-11-07T05:10:01.000Z']);
});
