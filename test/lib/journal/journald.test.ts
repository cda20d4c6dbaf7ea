// Real journald files: built from the fixtures' export format with systemd-journal-remote,
// read back through journalctl (--journal-dir, a .journal given to --file, --root, --boot).
// They must give the same events as the text fixture.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readJournal, type JournalEvent } from '../../../lib/journal/index.js';
import { findOnPath } from '../../../lib/onpath.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
const REMOTE = ['/lib/systemd/systemd-journal-remote', '/usr/lib/systemd/systemd-journal-remote'].find((p) => fs.existsSync(p));
const JOURNALCTL = findOnPath('journalctl');
const skip = !REMOTE ? 'systemd-journal-remote is not installed (Debian package systemd-journal-remote)' : !JOURNALCTL ? 'journalctl is not installed' : false;

const strip = (e: JournalEvent) => ({ ...e, source: null });

/** Write `<dir>/<name>.journal` from an export-format fixture. */
function buildJournal(dir: string, era: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `${era}.journal`);
  const r = spawnSync(REMOTE!, ['-o', out, '-'], { input: fs.readFileSync(path.join(FIX, `${era}.export`)), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`systemd-journal-remote failed: ${r.stderr}`);
  return out;
}

t.test('journald files read back as the text fixture reads', { skip }, async (t) => {
  for (const era of ['legacy-1.13', 'structured-1.22']) {
    const dir = t.testdir({});
    const journal = buildJournal(path.join(dir, 'jd'), era);
    const text = (await readJournal({ file: path.join(FIX, `${era}.short-iso-precise.log`), utc: true })).events.map(strip);
    const viaDir = await readJournal({ dir: path.join(dir, 'jd') });
    t.equal(viaDir.events[0]?.source, path.join(dir, 'jd'));
    t.same(viaDir.events.map(strip), text, `${era}: --journal-dir gives the text fixture's events`);
    t.equal(viaDir.crashLoop, true);
    t.equal(viaDir.restarts, 8);
    const viaFile = await readJournal({ file: journal });
    t.same(viaFile.events.map(strip), text, `${era}: a .journal file given to --file is read through journalctl`);
    // --root: the node's /var/log/journal/<machine-id>/
    const root = path.join(dir, 'root');
    fs.mkdirSync(path.join(root, 'var/log/journal/a1b2c3d4e5f60718293a4b5c6d7e8f90'), { recursive: true });
    fs.copyFileSync(journal, path.join(root, 'var/log/journal/a1b2c3d4e5f60718293a4b5c6d7e8f90/system.journal'));
    const viaRoot = await readJournal({ source: 'auto', root });
    t.same(viaRoot.events.map(strip), text, `${era}: --root reads the node's journal`);
    // --boot: only the second boot (the crash loop)
    const boot2 = await readJournal({ dir: path.join(dir, 'jd'), boot: 'b0000000000000000000000000000002' });
    t.ok(boot2.events.length > 5);
    t.ok(boot2.events.every((e) => e.time! >= '2021-01-01' || e.time!.startsWith('2022-05-22T09')), 'only the crash-loop boot');
    t.equal(boot2.crashLoop, true);
    const fileBoot = await readJournal({ file: journal, boot: 'b0000000000000000000000000000002' });
    t.same(fileBoot.events.map(strip), boot2.events.map(strip), '--boot also works on a .journal given to --file');
  }
});

t.test('found by a journal review: a unit whose name ends in kubelet is read through journalctl, a unit named after it is not', { skip }, async (t) => {
  const dir = t.testdir({});
  const exp = fs.readFileSync(path.join(FIX, 'structured-1.22.export'), 'latin1');
  const text = (await readJournal({ file: path.join(FIX, 'structured-1.22.short-iso-precise.log'), utc: true })).events.map(strip);
  for (const [unit, read] of [['snap.microk8s.daemon-kubelet.service', true], ['kubelet@node.service', true], ['kubelet-monitor.service', false]] as const) {
    const jd = path.join(dir, unit);
    fs.mkdirSync(jd);
    const r = spawnSync(REMOTE!, ['-o', path.join(jd, 'x.journal'), '-'], { input: Buffer.from(exp.replace(/^(_SYSTEMD_UNIT|UNIT)=kubelet\.service$/gm, `$1=${unit}`), 'latin1'), encoding: 'utf8' });
    t.equal(r.status, 0, r.stderr);
    const got = await readJournal({ dir: jd });
    if (read) t.same(got.events.map(strip), text, `${unit}: the same events as kubelet.service`);
    else t.equal(got.events.length, 0, `${unit}: not the kubelet's unit`);
  }
});

t.test('an unreadable journal directory is an environment error', { skip }, async (t) => {
  const dir = t.testdir({});
  await t.rejects(readJournal({ dir: path.join(dir, 'nope') }), { code: 'JOURNALCTL_FAILED', exitCode: 3 });
});

t.test('a journal directory without journal files is nothing read, through the real journalctl (found by review)', { skip: !JOURNALCTL && 'journalctl is not installed' }, async (t) => {
  const dir = t.testdir({ jd: {}, root: { var: { log: { journal: { '0123456789abcdef0123456789abcdef': {} } } } }, store: {} });
  await t.rejects(readJournal({ dir: path.join(dir, 'jd') }), { code: 'JOURNAL_EMPTY', exitCode: 3, message: `journalctl found no journal files in ${path.join(dir, 'jd')}: nothing was read` });
  const cli = path.resolve(import.meta.dirname, '../../../dist/kubelet-ckpt.cjs');
  const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  const j = run('journal', '--journal-dir', path.join(dir, 'jd'));
  t.equal(j.status, 3, j.stderr);
  t.match(j.stderr, /journalctl found no journal files in .*: nothing was read/);
  t.equal(j.stdout, '', 'no "no events" verdict');
  // report on a node disk whose journal directory holds none: the crash loop is not checked.
  fs.cpSync(path.resolve(import.meta.dirname, '../../../fixtures/stores/healthy/store'), path.join(dir, 'root/var/lib/kubelet/dynamic-config/store'), { recursive: true });
  const r = run('--root', path.join(dir, 'root'), '--dir', '/var/lib/kubelet/dynamic-config', 'report');
  const rep = JSON.parse(r.stdout) as { crashLoop: { checked: boolean; detail: string } };
  t.match(rep.crashLoop, { checked: false, detail: /journal not read: journalctl found no journal files/ });
});

t.test('a journal directory whose files are all damaged is nothing read (found by review)', { skip }, async (t) => {
  const dir = t.testdir({});
  const good = buildJournal(path.join(dir, 'good'), 'structured-1.22');
  fs.mkdirSync(path.join(dir, 'cut/0123456789abcdef0123456789abcdef'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'cut/0123456789abcdef0123456789abcdef/system.journal'), fs.readFileSync(good).subarray(0, 100_000));
  fs.mkdirSync(path.join(dir, 'junk'));
  fs.writeFileSync(path.join(dir, 'junk/system.journal'), 'junk\n');
  for (const d of ['cut', 'junk']) await t.rejects(readJournal({ dir: path.join(dir, d) }), { code: 'JOURNAL_DAMAGED', exitCode: 3 }, d);
  // A directory not named as a machine id is not looked into, by journalctl or by us: nothing there.
  fs.mkdirSync(path.join(dir, 'coll/worker-1'), { recursive: true });
  fs.copyFileSync(good, path.join(dir, 'coll/worker-1/system.journal'));
  await t.rejects(readJournal({ dir: path.join(dir, 'coll') }), { code: 'JOURNAL_EMPTY', exitCode: 3 });
  // One good file beside a damaged one is a read.
  fs.copyFileSync(good, path.join(dir, 'junk/good.journal'));
  t.ok((await readJournal({ dir: path.join(dir, 'junk') })).events.length > 0);
});

t.test('journal -f follows a journald directory through the real journalctl: new entries appear', { skip }, async (t) => {
  const { spawn } = await import('node:child_process');
  const { cleanEnv, cliPath } = await import('../../helpers.js');
  const dir = t.testdir({});
  const jd = path.join(dir, 'jd');
  buildJournal(jd, 'structured-1.22');
  const child = spawn(process.execPath, [cliPath, 'journal', '-f', '-n', '3', '--journal-dir', jd, '-o', 'json'], { env: cleanEnv() });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const lines = () => out.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { event: JournalEvent }).event);
  const waitFor = async (pred: () => boolean, what: string) => {
    for (let i = 0; i < 600 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!pred()) throw new Error(`timed out waiting for ${what}; got:\n${out}`);
  };
  await waitFor(() => lines().length >= 3, 'the newest 3 events');
  t.same(lines().map((e) => e.kind), ['feature-gate-off', 'kubelet-exited', 'start-limit-hit']);
  // A kubelet starts again a minute after the last entry: a second journal file in the directory.
  const last = fs.readFileSync(path.join(FIX, 'structured-1.22.export'), 'utf8').trimEnd().split('\n\n').at(-1)!;
  const us = BigInt(/__REALTIME_TIMESTAMP=(\d+)/.exec(last)![1]!) + 60_000_000n;
  const mono = BigInt(/__MONOTONIC_TIMESTAMP=(\d+)/.exec(last)![1]!) + 60_000_000n;
  const boot = /_BOOT_ID=(\w+)/.exec(last)![1]!;
  const entry = [
    `__REALTIME_TIMESTAMP=${us}`,
    `__MONOTONIC_TIMESTAMP=${mono}`,
    `_BOOT_ID=${boot}`,
    '_MACHINE_ID=a1b2c3d4e5f60718293a4b5c6d7e8f90',
    '_HOSTNAME=node-1',
    '_TRANSPORT=stdout',
    'SYSLOG_IDENTIFIER=kubelet',
    '_PID=9999',
    '_COMM=kubelet',
    '_SYSTEMD_UNIT=kubelet.service',
    'MESSAGE=I0522 09:30:00.000000    9999 controller.go:101] "Kubelet config controller starting controller"',
    '',
    '',
  ].join('\n');
  const r = spawnSync(REMOTE!, ['-o', path.join(jd, 'later.journal'), '-'], { input: entry, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  await waitFor(() => lines().some((e) => e.pid === 9999), 'the new entry');
  t.match(lines().at(-1), { kind: 'controller-start', pid: 9999, source: jd });
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  child.kill('SIGTERM');
  t.equal(await exited, 0);
});
