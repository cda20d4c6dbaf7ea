// Special files are never read as files, and store/meta or store/checkpoints as a symlink is an
// error finding (never "missing → local"): each case with the built CLI, each bounded by a timeout
// so a hang fails the test instead of stalling it.

import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, isRoot, json, runCli } from '../helpers.js';
import { UID, makeStore, treeHash } from '../lib/recovery/fixtures/index.js';

const cli = (args: string[]) => runCli(args, { timeout: 20_000 });
const mkfifo = (p: string) => execFileSync('mkfifo', [p]);

t.test('a FIFO, a socket-free device link and a FIFO payload are refused at once', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const cp = path.join(dcd, 'store/checkpoints', UID, '120200');
  fs.rmSync(path.join(cp, 'kubelet'));
  mkfifo(path.join(cp, 'kubelet'));
  for (const args of [['verify', '-o', 'json'], ['show', 'assigned', '--raw'], ['status', '--no-journal', '-o', 'json']]) {
    const r = cli(['--dir', dcd, ...args]);
    t.not(r.code, null, `${args.join(' ')} did not hang`);
    t.ok(r.code! <= 3, `${args.join(' ')}: exit ${r.code}`);
  }
  const v = json<{ findings: { code: string; path: string }[] }>(cli(['--dir', dcd, 'verify', '-o', 'json']));
  t.ok(v.findings.some((f) => f.code === 'CHECKPOINT_ENTRY' && f.path === `checkpoints/${UID}/120200/kubelet`), 'the FIFO payload is reported');
});

t.test('a meta file that is a FIFO: reported, not waited on', async (t) => {
  const dcd = makeStore(t.testdir({}));
  fs.rmSync(path.join(dcd, 'store/meta/last-known-good'));
  mkfifo(path.join(dcd, 'store/meta/last-known-good'));
  const v = cli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(v.code, 1, v.stderr);
  const codes = (json(v) as { findings: { code: string; path: string | null }[] }).findings.map((f) => `${f.code} ${f.path}`);
  t.ok(codes.includes('META_NOT_REGULAR meta/last-known-good'), codes.join('; '));
  // The kubelet's store initialisation fails on it too, so it will not start.
  t.ok(codes.includes('NEXT_BOOT_FAILS null'), codes.join('; '));
  const r = cli(['--dir', dcd, 'reset', 'all', '--dry-run']);
  t.equal(r.code, 4, r.stderr);
  t.match(r.stderr, /meta\/last-known-good is not a regular file \(a FIFO\)/);
});

t.test('the local --config as a FIFO or a device: status answers, reading nothing from it', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'), { assigned: '', lkg: '' });
  const fifo = path.join(dir, 'config.fifo');
  mkfifo(fifo);
  for (const cfg of [fifo, '/dev/zero', '/dev/urandom']) {
    // On the kubelet's command line: the kubelet will not start.
    const r = cli(['--dir', dcd, `--kubelet-flags=--config=${cfg}`, 'status', '--no-journal', '-o', 'json']);
    t.not(r.code, null, `${cfg}: no hang`);
    t.match(json(r), { nextBoot: { source: 'none', willStart: false, reason: /not a regular file/ } }, cfg);
    // Named with --kubelet-config: bad input, exit 3, as show local has it.
    const k = cli(['--dir', dcd, '--kubelet-config', cfg, 'status', '--no-journal']);
    t.equal(k.code, 3, `${cfg}: ${k.stderr}`);
    t.match(k.stderr, /given with --kubelet-config: it is not a regular file/);
  }
});

t.test('the local --config under --root as a FIFO: no hang', async (t) => {
  const root = t.testdir({ 'var/lib/kubelet': {} });
  const dcd = makeStore(path.join(root, 'var/lib/kubelet/dynamic-config'), { assigned: '', lkg: '' });
  mkfifo(path.join(root, 'var/lib/kubelet/config.yaml'));
  const r = cli(['--root', root, '--dir', dcd, '--kubelet-flags=--config=/var/lib/kubelet/config.yaml', 'status', '--no-journal', '-o', 'json']);
  t.not(r.code, null);
  t.match(json(r), { nextBoot: { willStart: false } });
});

t.test('store/meta as a symlink (even inside the store): an error, next boot unknown, prune refuses', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const store = path.join(dcd, 'store');
  fs.renameSync(path.join(store, 'meta'), path.join(store, 'real-meta'));
  fs.symlinkSync('real-meta', path.join(store, 'meta'));
  const s = json<{ nextBoot: { source: string; reason: string } }>(cli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
  t.equal(s.nextBoot.source, 'unknown');
  t.match(s.nextBoot.reason, /meta is a symbolic link to real-meta/);
  t.notMatch(JSON.stringify(s), /missing/);
  const v = cli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(v.code, 1);
  t.match(json(v), { ok: false, findings: [{ severity: 'error', path: 'meta/assigned', message: /meta is a symbolic link/ }] });
  const before = treeHash(dcd);
  const p = cli(['--dir', dcd, 'prune', '--yes']);
  t.equal(p.code, 4, p.stderr);
  t.match(p.stderr, /store\/meta is a symbolic link to real-meta.*nothing is pruned/);
  t.same(treeHash(dcd), before, 'both checkpoints still there');
});

t.test('store/checkpoints as a symlink: an error finding, next boot unknown, prune refuses', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const store = path.join(dcd, 'store');
  fs.renameSync(path.join(store, 'checkpoints'), path.join(dcd, 'elsewhere'));
  fs.symlinkSync(path.join(dcd, 'elsewhere'), path.join(store, 'checkpoints'));
  const s = json<{ nextBoot: { source: string } }>(cli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
  t.equal(s.nextBoot.source, 'unknown');
  const v = json<{ findings: { code: string; path: string; message: string }[] }>(cli(['--dir', dcd, 'verify', '-o', 'json']));
  t.ok(v.findings.some((f) => f.code === 'UNREADABLE' && f.path === 'checkpoints' && /symbolic link/.test(f.message)), JSON.stringify(v.findings));
  const p = cli(['--dir', dcd, 'prune', '--yes']);
  t.equal(p.code, 4, p.stderr);
});

t.test('a UID directory that is a symbolic link: CHECKPOINT_ENTRY, not CHECKPOINT_MISSING; show says why, as for a linked RV (found by review)', async (t) => {
  const dir = t.testdir({ elsewhere: {} });
  const dcd = makeStore(path.join(dir, 'node'));
  const real = path.join(dir, 'elsewhere', UID);
  fs.renameSync(path.join(dcd, 'store/checkpoints', UID), real);
  fs.symlinkSync(real, path.join(dcd, 'store/checkpoints', UID));
  const v = cli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(v.code, 1);
  const codes = json<{ findings: { code: string; path: string }[] }>(v).findings.map((f) => `${f.code} ${f.path}`);
  t.same(codes, [`CHECKPOINT_ENTRY checkpoints/${UID}`], 'the link is the finding; the checkpoint is not said to be missing');
  const s = cli(['--dir', dcd, 'show', 'assigned']);
  t.equal(s.code, 3);
  t.match(s.stderr, new RegExp(`error: checkpoints/${UID} is a symbolic link to ${real.replaceAll('/', '\\/')}, which kubelet-ckpt does not follow`));
  const st = json<{ nextBoot: { source: string } }>(cli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
  t.equal(st.nextBoot.source, 'unknown');
});

const hasStrace = spawnSyncOk('strace', ['-V']);
function spawnSyncOk(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

t.test('found by a hostile-store review: a device node as a payload is never opened, by any read-only command', { skip: !(isRoot && hasStrace) && 'needs root (mknod) and strace' }, async (t) => {
  const dir = t.testdir({});
  // One checkpoint: any open of a file named kubelet is of the device.
  const dcd = makeStore(path.join(dir, 'node'), { rvs: ['119980'], assigned: '119980', lkg: '' });
  const payload = path.join(dcd, 'store/checkpoints', UID, '119980', 'kubelet');
  fs.rmSync(payload);
  execFileSync('mknod', [payload, 'c', '1', '3']);
  for (const args of [['status', '--no-journal'], ['verify'], ['ls'], ['show', 'lkg'], ['diff', 'lkg']]) {
    const trace = path.join(dir, 'trace.txt');
    spawnSync('strace', ['-f', '-e', 'trace=openat', '-o', trace, process.execPath, cliPath, '--dir', dcd, ...args], { env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 });
    const opened = fs.readFileSync(trace, 'utf8').split('\n').filter((l) => /openat\(.*\/kubelet", /.test(l) && !l.includes('O_PATH') && !l.includes('ENOENT'));
    t.same(opened, [], `${args.join(' ')}: not opened`);
  }
});
