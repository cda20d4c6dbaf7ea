// A dry run exits with the code the real run would have (DESIGN). Found by a write-command
// review: where the real run could not write (a read-only mount, a directory it may not write
// in, a file whose owner only root may give), reset/prune/migrate --dry-run said 0 while the
// real run exited 3, and migrate wrote config.yaml before failing on the unit's directory.
// Read-only mounts are made in a private mount namespace (unshare -m), so root is needed.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { asNobody, cleanEnv, cliPath, copyFixture, isRoot, runCli } from '../helpers.js';

/** Run the CLI with `roDir` bind-mounted read-only, in a mount namespace of its own. */
function withReadOnly(roDir: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const quoted = [process.execPath, cliPath, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `mount --bind '${roDir}' '${roDir}' && mount -o remount,ro,bind '${roDir}' && exec ${quoted}`;
  const r = spawnSync('unshare', ['-m', 'sh', '-c', script], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1' }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file's bytes under `dir`, to show nothing changed. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out[path.relative(dir, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}

const errorOf = (stderr: string) => (JSON.parse(stderr) as { error: { code: string; message: string; exitCode: number } }).error;
const opts = { skip: !isRoot && 'mount namespaces and setpriv need root' };

/**
 * Run `dry` and then `real` with `roDir` read-only: both exit 3, the dry run's wouldRefuse and
 * the real run's error as given, and nothing under `tree` changed.
 */
function bothExit3(t: Tap.Test, roDir: string, under: string, dry: string[], real: string[], wouldRefuse: RegExp | null, error: object): void {
  const before = tree(under);
  const d = withReadOnly(roDir, [...dry, '-o', 'json']);
  t.equal(d.code, 3, d.stdout + d.stderr);
  if (wouldRefuse) t.match(JSON.parse(d.stdout).wouldRefuse.join('\n'), wouldRefuse);
  const r = withReadOnly(roDir, [...real, '-o', 'json']);
  t.equal(r.code, 3, r.stderr);
  t.match(errorOf(r.stderr), error);
  t.same(tree(under), before, 'nothing written, no backup, no file written first');
}

t.test('reset on a read-only meta directory: the dry run says exit 3 as the real run does', opts, async (t) => {
  const dcd = copyFixture('stores/in-trial');
  const ro = /the meta directory cannot be written: read-only file system/;
  bothExit3(t, path.join(dcd, 'store/meta'), dcd, ['--dir', dcd, 'reset', 'all', '--dry-run'], ['--dir', dcd, 'reset', 'all', '--yes'], ro, { code: 'STORE_UNWRITABLE', message: ro });
});

t.test('prune on a read-only checkpoints directory: the dry run says exit 3, the real run removes nothing', opts, async (t) => {
  const dcd = copyFixture('demo/var/lib/kubelet/dynamic-config');
  bothExit3(t, path.join(dcd, 'store/checkpoints'), dcd, ['--dir', dcd, 'prune'], ['--dir', dcd, 'prune', '--yes'], /checkpoints\/[^ ]+\/ cannot be written: read-only file system; nothing is pruned/, { code: 'STORE_UNWRITABLE', message: /nothing is pruned/ });
});

t.test('migrate with the unit directory read-only: the dry run says exit 3, and the real run writes no file first', opts, async (t) => {
  const root = copyFixture('migrate/by-hand');
  bothExit3(t, path.join(root, 'etc/systemd'), root, ['--root', root, 'migrate', '--dry-run', '--force'], ['--root', root, 'migrate', '--yes', '--force'], null, { code: 'STORE_UNWRITABLE', message: /cannot be written: read-only file system; nothing was written/ });
});

t.test('as a user who may write the meta directory but not give root\'s files their owner: exit 3 in both runs', opts, async (t) => {
  const dcd = copyFixture('stores/in-trial');
  // Everything nobody's but the meta files, which stay root's (as the kubelet writes them).
  const chownAll = (d: string) => {
    fs.chownSync(d, 65534, 65534);
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) chownAll(p);
      else fs.chownSync(p, 65534, 65534);
    }
  };
  chownAll(dcd);
  for (const m of ['assigned', 'last-known-good']) fs.chownSync(path.join(dcd, 'store/meta', m), 0, 0);
  for (let d = path.dirname(dcd); d !== '/'; d = path.dirname(d)) fs.chmodSync(d, fs.statSync(d).mode | 0o001);
  const before = tree(dcd);
  const dry = asNobody(['--dir', dcd, 'reset', 'all', '--dry-run', '-o', 'json']);
  t.equal(dry.code, 3, dry.stdout + dry.stderr);
  t.match(JSON.parse(dry.stdout).wouldRefuse.join('\n'), /cannot write meta\/(assigned|last-known-good): it belongs to uid 0 gid 0, and only root can give the new file that owner/);
  const real = asNobody(['--dir', dcd, 'reset', 'all', '--yes', '-o', 'json']);
  t.equal(real.code, 3, real.stderr);
  t.match(errorOf(real.stderr), { code: 'WRITE_FAILED', message: /only root can give the new file that owner/ });
  t.same(tree(dcd), before);
});

t.test('found by review: an audit log that cannot be appended to: the dry run says exit 3 as the real run does', opts, async (t) => {
  const dcd = copyFixture('stores/in-trial');
  t.equal(runCli(['--dir', dcd, 'reset', 'last-known-good', '--yes']).code, 0, 'a first write makes the audit log');
  const log = path.join(dcd, '.kubelet-ckpt/backups/audit.log');
  t.ok(fs.existsSync(log));
  bothExit3(t, log, dcd, ['--dir', dcd, 'reset', 'all', '--dry-run'], ['--dir', dcd, 'reset', 'all', '--yes'], /cannot append to the audit log .*read-only file system/, { code: 'AUDIT_FAILED' });
});
