// File-system trouble: read-only and full file systems (real tmpfs mounts in a private
// mount namespace when this process may mount; a simulated ENOSPC always), permissions
// (as an unprivileged user via setpriv), and meta files that change between plan and apply.

import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliPath, isRoot, runCli } from '../helpers.js';
import { UID, canMount, makeStore, metaFor, read, treeHash } from '../lib/recovery/fixtures/index.js';

const A = metaFor('120200');
const L = metaFor('119980');
const mountable = isRoot && canMount();

/** Run a shell script in a private mount namespace; the CLI is `$CLI`. */
function inNamespace(script: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('unshare', ['-m', 'sh', '-c', `set -u\nCLI="${process.execPath} ${cliPath}"\n${script}`], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Everything the script prints after `## state` describes the meta dir as seen inside the namespace. */
const STATE = 'echo "## state"; for f in "$D"/store/meta/*; do echo "$(basename "$f") $(sha256sum < "$f" | cut -c1-64)"; done';
const sha = (s: string) => (spawnSync('sha256sum', { input: s, encoding: 'utf8' }).stdout as string).slice(0, 64);

t.test('a read-only meta directory: exit 3, nothing written, no backup made', { skip: !mountable && 'cannot mount here' }, async (t) => {
  const dcd = makeStore(t.testdir({}));
  fs.cpSync(path.join(dcd, 'store/meta'), path.join(dcd, 'meta-src'), { recursive: true });
  const r = inNamespace(`D=${dcd}
mount -t tmpfs -o size=64k,mode=755 tmpfs "$D/store/meta" && cp -a "$D/meta-src/." "$D/store/meta/" && mount -o remount,ro "$D/store/meta" || exit 99
$CLI --dir "$D" reset all --yes; echo "rc=$?"
${STATE}`);
  t.match(r.stdout, /^rc=3$/m);
  t.match(r.stderr, /error: the meta directory cannot be written: read-only file system; nothing was changed\nhint: the file system is mounted read-only/);
  t.match(r.stdout, new RegExp(`## state\\nassigned ${sha(A)}\\nlast-known-good ${sha(L)}\\n$`));
  t.notOk(fs.existsSync(path.join(dcd, '.kubelet-ckpt/backups')), 'no backup for a command that could not start');
});

t.test('a read-only dynamic-config-dir: exit 3 before anything (the lock cannot be made)', { skip: !mountable && 'cannot mount here' }, async (t) => {
  const dcd = makeStore(t.testdir({}));
  const before = treeHash(dcd);
  const r = inNamespace(`D=${dcd}
mount --bind "$D" "$D" && mount -o remount,bind,ro "$D" || exit 99
$CLI --dir "$D" rollback --yes; echo "rc=$?"`);
  t.match(r.stdout, /^rc=3$/m);
  t.match(r.stderr, /cannot create the lock in .*\.kubelet-ckpt: read-only file system; nothing was changed/);
  t.same(treeHash(dcd), before);
});

t.test('a full disk: the temp write fails, the target is untouched, no temp file is left', { skip: !mountable && 'cannot mount here' }, async (t) => {
  const dcd = makeStore(t.testdir({}));
  fs.cpSync(path.join(dcd, 'store/meta'), path.join(dcd, 'meta-src'), { recursive: true });
  // 8 KiB of tmpfs: two pages, both used by the two meta files.
  const r = inNamespace(`D=${dcd}
mount -t tmpfs -o size=8k,mode=755 tmpfs "$D/store/meta" && cp -a "$D/meta-src/." "$D/store/meta/" || exit 99
$CLI --dir "$D" reset assigned --to lkg --yes; echo "rc=$?"
ls -a "$D/store/meta" | tr '\\n' ' '; echo
${STATE}`);
  t.match(r.stdout, /^rc=3$/m);
  t.match(r.stderr, /error: cannot write meta\/assigned: no space left on device; meta\/assigned is untouched\nhint: free some space/);
  t.match(r.stdout, /^\. \.\. assigned last-known-good $/m);
  t.match(r.stdout, new RegExp(`## state\\nassigned ${sha(A)}\\nlast-known-good ${sha(L)}\\n$`));
  const audit = fs.readFileSync(path.join(dcd, '.kubelet-ckpt/backups/audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(audit.map((a) => a.event), ['begin', 'failed']);
  t.match(audit[1].error, /no space left on device.*nothing was written/);
});

t.test('a full disk, simulated (KUBELET_CKPT_FAULT=enospc): same outcome on any machine', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const files = () => Object.fromEntries(Object.entries(treeHash(path.join(dcd, 'store'))).filter(([, v]) => !v.startsWith('dir')));
  const store = files();
  const r = runCli(['--dir', dcd, 'reset', 'all', '--to', 'assigned', '--yes'], { env: { KUBELET_CKPT_FAULT: 'enospc' } });
  t.equal(r.code, 3);
  t.match(r.stderr, /cannot write meta\/last-known-good: no space left on device; meta\/last-known-good is untouched/);
  t.same(files(), store, 'every file byte-identical (mtimes too), no temp file');
});

/** The CLI as uid/gid 65534 (CI runs as root: drop privileges to test permissions). */
function asNobody(args: string[]) {
  const { NODE_OPTIONS: _o, NODE_EXTRA_CA_CERTS: _c, ...env } = process.env;
  // env -u: tap's process-info hook puts its NODE_OPTIONS back into every child's environment.
  const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'env', '-u', 'NODE_OPTIONS', process.execPath, cliPath, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...env, NO_COLOR: '1', OPENSSL_CONF: '/dev/null' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function chownR(p: string, uid: number): void {
  fs.lchownSync(p, uid, uid);
  if (fs.lstatSync(p).isDirectory()) for (const n of fs.readdirSync(p)) chownR(path.join(p, n), uid);
}

t.test('permissions, as an unprivileged user', { skip: !isRoot && 'needs root to set up owners' }, async (t) => {
  const base = fs.mkdtempSync('/tmp/kckpt-perm-');
  fs.chmodSync(base, 0o755);
  t.teardown(() => fs.rmSync(base, { recursive: true, force: true }));

  await t.test('a backup directory that is not writable: refused before changing anything (exit 3)', async (t) => {
    const dcd = makeStore(path.join(base, 'a'));
    chownR(dcd, 65534);
    fs.mkdirSync(path.join(dcd, '.kubelet-ckpt/backups'), { recursive: true });
    fs.chownSync(path.join(dcd, '.kubelet-ckpt'), 65534, 65534);
    fs.chmodSync(path.join(dcd, '.kubelet-ckpt/backups'), 0o755); // root's
    const before = treeHash(path.join(dcd, 'store'));
    const r = asNobody(['--dir', dcd, 'reset', 'all', '--yes']);
    t.equal(r.code, 3, r.stderr);
    t.equal(r.stderr, `error: the backup directory ${dcd}/.kubelet-ckpt/backups cannot be written: permission denied; nothing was changed\nhint: run kubelet-ckpt as root (sudo)\n`);
    t.same(treeHash(path.join(dcd, 'store')), before, 'the store is byte-identical');
    t.same(fs.readdirSync(path.join(dcd, '.kubelet-ckpt')), ['backups'], 'no lock or temp file left');
  });

  await t.test('a meta directory the user cannot write: exit 3 before the backup', async (t) => {
    const dcd = makeStore(path.join(base, 'b'));
    chownR(dcd, 65534);
    chownR(path.join(dcd, 'store/meta'), 0);
    const before = treeHash(path.join(dcd, 'store'));
    const r = asNobody(['--dir', dcd, 'rollback', '--yes']);
    t.equal(r.code, 3, r.stderr);
    t.match(r.stderr, /the meta directory cannot be written: permission denied; nothing was changed/);
    t.same(treeHash(path.join(dcd, 'store')), before);
  });

  await t.test('a store the user owns: written, owner kept', async (t) => {
    const dcd = makeStore(path.join(base, 'c'));
    chownR(dcd, 65534);
    const r = asNobody(['--dir', dcd, 'rollback', '--yes']);
    t.equal(r.code, 0, r.stderr);
    t.equal(read(dcd, 'assigned'), L);
    t.equal(fs.statSync(path.join(dcd, 'store/meta/assigned')).uid, 65534);
  });
});

t.test('meta files that change between plan and apply are re-checked: exit 4, nothing written', async (t) => {
  const dcd = makeStore(t.testdir({}));
  // Each step of the apply is slowed to 400 ms; the "kubelet" writes assigned meanwhile.
  const { NODE_OPTIONS: _, ...env } = process.env;
  const child = spawn(process.execPath, [cliPath, '--dir', dcd, 'reset', 'all', '--yes'], { env: { ...env, KUBELET_CKPT_FAULT: 'delay:400' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => {
    err += String(d);
    if (err.includes('apply begins') && !err.includes('(written)')) {
      err += '(written)';
      fs.writeFileSync(path.join(dcd, 'store/meta/assigned'), L);
    }
  });
  const code = await new Promise((r) => child.once('exit', r));
  t.equal(code, 4);
  t.match(err, /error: meta\/assigned changed since the plan was made \(the kubelet may have written it\); nothing was changed/);
  t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], [L, L], 'last-known-good untouched too');
});

t.test('a reset that fails before writing leaves no backup: a plain undo then undoes the change before it (found by review)', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const original = fs.readFileSync(path.join(dcd, 'store/meta/assigned'));
  t.equal(runCli(['--dir', dcd, 'rollback', '--yes']).code, 0);
  const failed = runCli(['--dir', dcd, 'reset', 'assigned', '--to', `${UID}/120200`, '--yes'], { env: { KUBELET_CKPT_FAULT: 'enospc' } });
  t.equal(failed.code, 3, failed.stderr);
  t.match(failed.stderr, /no space left on device; meta\/assigned is untouched/);
  const list = runCli(['--dir', dcd, 'undo', '--list', '-o', 'json']);
  t.same((JSON.parse(list.stdout) as { backups: { command: string }[] }).backups.map((b) => b.command), ['rollback'], "only the rollback's backup is left");
  const audit = fs.readFileSync(path.join(dcd, '.kubelet-ckpt/backups/audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; error?: string });
  t.match(audit.at(-1), { event: 'failed', error: /nothing was written; backup \S+ removed/ });
  const u = runCli(['--dir', dcd, 'undo', '--yes']);
  t.equal(u.code, 0, u.stderr);
  t.same(fs.readFileSync(path.join(dcd, 'store/meta/assigned')), original, 'the rollback is undone');
});

t.test('clean with the backups on another file system: its dry run and the real run exit 3, nothing moved (found by review)', { skip: !mountable && 'cannot mount here' }, async (t) => {
  const dcd = makeStore(t.testdir({}), { extra: { 'store/meta/tmp_assigned123': 'x' } });
  fs.mkdirSync(path.join(dcd, '.kubelet-ckpt'), { mode: 0o700 });
  const r = inNamespace(`D=${dcd}
mount -t tmpfs -o size=1m,mode=700 tmpfs "$D/.kubelet-ckpt" || exit 99
$CLI --dir "$D" clean -o json > /dev/null; echo "dry=$?"
$CLI --dir "$D" clean --yes; echo "rc=$?"
ls -a "$D/.kubelet-ckpt" | tr '\\n' ' '; echo`);
  t.match(r.stdout, /^dry=3$/m);
  t.match(r.stdout, /^rc=3$/m);
  t.match(r.stderr, /error: .*\/store\/meta and .*\/\.kubelet-ckpt are on different file systems or mounts: clean moves leftovers into its backup by renaming them, which cannot cross file systems; nothing was moved/);
  t.match(r.stdout, /^\. \.\. $/m, 'no backup made');
  t.ok(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned123')), 'the leftover is where it was');
});

t.test('found by review: clean with the backups on a bind mount of the same file system (st_dev alike): refused in the dry run too', { skip: !mountable && 'cannot mount here' }, async (t) => {
  const dcd = makeStore(t.testdir({ elsewhere: {} }), { extra: { 'store/meta/tmp_assigned123': 'x' } });
  fs.mkdirSync(path.join(dcd, '.kubelet-ckpt'), { mode: 0o700 });
  const r = inNamespace(`D=${dcd}
mount --bind "$D/elsewhere" "$D/.kubelet-ckpt" || exit 99
$CLI --dir "$D" clean -o json > /dev/null; echo "dry=$?"
$CLI --dir "$D" clean --yes; echo "rc=$?"`);
  t.match(r.stdout, /^dry=3$/m);
  t.match(r.stdout, /^rc=3$/m);
  t.match(r.stderr, /are on different file systems or mounts/);
  t.ok(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned123')), 'the leftover is where it was');
});

t.test('found by a hostile-store review: an audit log with a second name (a hard link) or a FIFO is refused in the dry run and the real run alike, nothing written, no backup left', async (t) => {
  const dir = t.testdir({ outside: { precious: 'OUTSIDE\n' } });
  const dcd = makeStore(path.join(dir, 'node'));
  fs.mkdirSync(path.join(dcd, '.kubelet-ckpt/backups'), { recursive: true, mode: 0o700 });
  const log = path.join(dcd, '.kubelet-ckpt/backups/audit.log');
  fs.linkSync(path.join(dir, 'outside/precious'), log);
  const before = treeHash(path.join(dcd, 'store'));
  for (const args of [['rollback', '--dry-run'], ['rollback', '--yes']]) {
    const r = runCli(['--dir', dcd, ...args]);
    t.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
    t.match(r.stderr, /audit\.log is a file with 2 names \(hard links\), one of which may be outside/);
  }
  t.equal(fs.readFileSync(path.join(dir, 'outside/precious'), 'utf8'), 'OUTSIDE\n', 'the outside file is unchanged');
  t.same(fs.readdirSync(path.join(dcd, '.kubelet-ckpt/backups')), ['audit.log'], 'no backup made');
  t.same(treeHash(path.join(dcd, 'store')), before);
  fs.rmSync(log);
  spawnSync('mkfifo', [log]);
  const f = runCli(['--dir', dcd, 'rollback', '--dry-run']);
  t.equal(f.code, 3, f.stderr);
  t.match(f.stderr, /audit\.log is a FIFO/);
});

t.test('found by review: prune and clean with nothing to remove exit 0 even when the audit log has a second name (nothing is logged then)', async (t) => {
  const dir = t.testdir({ outside: { precious: '' } });
  const dcd = makeStore(path.join(dir, 'node'));
  fs.mkdirSync(path.join(dcd, '.kubelet-ckpt/backups'), { recursive: true, mode: 0o700 });
  fs.linkSync(path.join(dir, 'outside/precious'), path.join(dcd, '.kubelet-ckpt/backups/audit.log'));
  for (const cmd of ['prune', 'clean']) t.match(runCli(['--dir', dcd, cmd, '--yes']), { code: 0, stdout: /nothing to (prune|remove)/ }, cmd);
});
