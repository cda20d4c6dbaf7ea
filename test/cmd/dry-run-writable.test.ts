// A dry run exits with the code the real run would have (DESIGN). Found by a write-command
// review: where the real run could not write (a read-only mount, a directory it may not write
// in, a file whose owner only root may give), reset/prune/migrate --dry-run said 0 while the
// real run exited 3, and migrate wrote config.yaml before failing on the unit's directory.
// Read-only mounts are made in a private mount namespace (unshare -m), so root is needed.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { asNobody, cleanEnv, cliPath, copyFixture, isRoot } from '../helpers.js';

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

t.test('reset on a read-only meta directory: the dry run says exit 3 as the real run does', opts, async (t) => {
  const dcd = copyFixture('stores/in-trial');
  const meta = path.join(dcd, 'store/meta');
  const before = tree(dcd);
  const dry = withReadOnly(meta, ['--dir', dcd, 'reset', 'all', '--dry-run', '-o', 'json']);
  t.equal(dry.code, 3, dry.stdout + dry.stderr);
  t.match(JSON.parse(dry.stdout).wouldRefuse.join('\n'), /the meta directory cannot be written: read-only file system/);
  const real = withReadOnly(meta, ['--dir', dcd, 'reset', 'all', '--yes', '-o', 'json']);
  t.equal(real.code, 3, real.stderr);
  t.match(errorOf(real.stderr), { code: 'STORE_UNWRITABLE', message: /the meta directory cannot be written: read-only file system/ });
  t.same(tree(dcd), before, 'nothing written, no backup');
});

t.test('prune on a read-only checkpoints directory: the dry run says exit 3, the real run removes nothing', opts, async (t) => {
  const dcd = copyFixture('demo/var/lib/kubelet/dynamic-config');
  const cps = path.join(dcd, 'store/checkpoints');
  const before = tree(dcd);
  const dry = withReadOnly(cps, ['--dir', dcd, 'prune', '-o', 'json']);
  t.equal(dry.code, 3, dry.stdout + dry.stderr);
  t.match(JSON.parse(dry.stdout).wouldRefuse.join('\n'), /checkpoints\/[^ ]+\/ cannot be written: read-only file system; nothing is pruned/);
  const real = withReadOnly(cps, ['--dir', dcd, 'prune', '--yes', '-o', 'json']);
  t.equal(real.code, 3, real.stderr);
  t.match(errorOf(real.stderr), { code: 'STORE_UNWRITABLE', message: /nothing is pruned/ });
  t.same(tree(dcd), before);
});

t.test('migrate with the unit directory read-only: the dry run says exit 3, and the real run writes no file first', opts, async (t) => {
  const root = copyFixture('migrate/by-hand');
  const units = path.join(root, 'etc/systemd');
  const before = tree(root);
  const dry = withReadOnly(units, ['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json']);
  t.equal(dry.code, 3, dry.stdout + dry.stderr);
  const real = withReadOnly(units, ['--root', root, 'migrate', '--yes', '--force', '-o', 'json']);
  t.equal(real.code, 3, real.stderr);
  t.match(errorOf(real.stderr), { code: 'STORE_UNWRITABLE', message: /cannot be written: read-only file system; nothing was written/ });
  t.same(tree(root), before, 'no config.yaml written before the unit failed');
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
