// The interlock sees every form a kubelet takes (real processes, each pointed at this test's
// own store, since tap runs test files in parallel): named kubelet, `hyperkube kubelet …`, a
// renamed binary, a kubelet in another mount namespace (a container) seen through /proc/PID/root.

import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { kubeletsUsing } from '../../../lib/recovery/kubelet.js';
import { cliPath, cleanEnv, isRoot } from '../../helpers.js';
import { canMount, kubeletBin, makeStore, staticKubeletBin } from './fixtures/index.js';

/** A real process with this argv; ready once /proc shows the flag (after every exec). */
async function run(t: Tap.Test, file: string, args: string[], argv0?: string): Promise<ChildProcess> {
  const child = spawn(file, args, { stdio: 'ignore', argv0 });
  t.teardown(() => {
    try {
      child.kill('SIGKILL');
    } catch {
      /* gone */
    }
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  for (let i = 0; i < 500; i++) {
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8');
    } catch {
      /* not yet */
    }
    if (cmd.includes('--dynamic-config-dir') && !cmd.startsWith('unshare') && !cmd.startsWith('sh\0') && !cmd.startsWith('chroot\0')) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return child;
}

/** A copy of the fake kubelet under another name. */
function binNamed(dir: string, name: string): string {
  const src = kubeletBin(path.join(dir, 'src'));
  const p = path.join(dir, name);
  fs.copyFileSync(src, p);
  fs.chmodSync(p, 0o755);
  return p;
}

t.test('hyperkube kubelet … is a kubelet', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  const bin = binNamed(dir, 'hyperkube');
  t.same(kubeletsUsing(dcd).using, []);
  const k = await run(t, bin, ['kubelet', '--v=2', '--dynamic-config-dir', dcd]);
  t.same(kubeletsUsing(dcd).using.map((x) => x.pid), [k.pid]);
});

t.test('a binary named kubelet-v1.22.4 is a kubelet', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  const bin = binNamed(dir, 'kubelet-v1.22.4');
  const k = await run(t, bin, [`--dynamic-config-dir=${dcd}/`]);
  t.equal(fs.readFileSync(`/proc/${k.pid}/comm`, 'utf8').trim(), 'kubelet-v1.22.4');
  t.same(kubeletsUsing(dcd).using.map((x) => x.pid), [k.pid]);
});

t.test('a relative --dynamic-config-dir resolves against the process\'s cwd', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  const bin = binNamed(dir, 'node-agent');
  const child = spawn(bin, ['-dynamic-config-dir', 'dcd'], { cwd: dir, stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  await new Promise((r) => child.once('spawn', r));
  t.same(kubeletsUsing(dcd).using.map((x) => x.pid), [child.pid]);
});

t.test('a process on another store, or without the flag, is not ours', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  const other = makeStore(path.join(dir, 'other'));
  const bin = binNamed(dir, 'kubelet');
  await run(t, bin, [`--dynamic-config-dir=${other}`]);
  const plain = spawn(bin, ['--config', dcd], { stdio: 'ignore' });
  t.teardown(() => plain.kill('SIGKILL'));
  await new Promise((r) => plain.once('spawn', r));
  t.same(kubeletsUsing(dcd).using, []);
});

t.test('a kubelet in another mount namespace, seen through /proc/PID/root', { skip: canMount() ? false : 'cannot unshare a mount namespace here' }, async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  // In its namespace the store is mounted at /…/inside; on the host that path is an empty directory.
  const inside = path.join(dir, 'inside');
  fs.mkdirSync(inside);
  const bin = binNamed(dir, 'kubelet');
  const k = await run(t, 'unshare', ['-m', '--propagation', 'private', 'sh', '-c', `mount --bind "$0" "$1" && exec "$2" --dynamic-config-dir="$1"`, dcd, inside, bin]);
  t.ok(fs.readFileSync(`/proc/${k.pid}/cmdline`, 'utf8').includes(`--dynamic-config-dir=${inside}`), 'the kubelet runs');
  t.equal(fs.readdirSync(inside).length, 0, 'on the host the flag names an empty directory');
  t.same(kubeletsUsing(dcd).using.map((x) => x.pid), [k.pid]);
});

t.test('reset refuses (exit 4) while hyperkube kubelet runs on the store', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  const before = fs.readFileSync(path.join(dcd, 'store/meta/assigned'));
  const k = await run(t, binNamed(dir, 'hyperkube'), ['kubelet', `--dynamic-config-dir=${dcd}`]);
  const r = spawnSync(process.execPath, [cliPath, '--dir', dcd, 'reset', 'all', '--yes'], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1' } });
  t.equal(r.status, 4, r.stderr);
  t.match(r.stderr, `a kubelet using this store is running (pid ${k.pid})`);
  t.same(fs.readFileSync(path.join(dcd, 'store/meta/assigned')), before);
});

const chrootable = isRoot && spawnSync('sh', ['-c', 'command -v chroot && command -v setpriv && command -v cc'], { encoding: 'utf8' }).status === 0;

t.test('found by a recovery review: a kubelet in a chroot passing the same path, which there is another directory, is not ours', { skip: !chrootable && 'needs root, chroot, setpriv and cc' }, async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  // The container's root holds its own store at the very same path.
  const croot = path.join(dir, 'croot');
  makeStore(path.join(croot, dcd));
  const bin = staticKubeletBin(croot);
  if (!bin) return t.skip('cc -static failed');
  const k = await run(t, 'chroot', [croot, '/kubelet', `--dynamic-config-dir=${dcd}`]);
  t.not(fs.statSync(`/proc/${k.pid}/root${dcd}`).ino, fs.statSync(dcd).ino, 'in its root the path is another directory');
  t.same(kubeletsUsing(dcd), { using: [], unsure: [] }, 'its own view decides: not this store');
  const r = spawnSync(process.execPath, [cliPath, '--dir', dcd, 'rollback', '--yes'], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1' } });
  t.equal(r.status, 0, r.stderr);
});

t.test('found by a recovery review: a kubelet whose root cannot be looked at (no CAP_SYS_PTRACE) is matched by its path under --root', { skip: !chrootable && 'needs root, chroot, setpriv and cc' }, async (t) => {
  const dir = t.testdir({});
  const root = path.join(dir, 'node');
  const dcd = makeStore(path.join(root, 'var/lib/kubelet/dynamic-config'));
  const bin = staticKubeletBin(root);
  if (!bin) return t.skip('cc -static failed');
  const k = await run(t, 'chroot', [root, '/kubelet', '--dynamic-config-dir=/var/lib/kubelet/dynamic-config']);
  const before = fs.readFileSync(path.join(dcd, 'store/meta/assigned'));
  // uid 0 without capabilities, as a debug pod's root with the host at --root.
  const r = spawnSync('setpriv', ['--inh-caps=-all', '--bounding-set=-all', '--', 'env', '-u', 'NODE_OPTIONS', process.execPath, cliPath, '--root', root, 'rollback', '--yes'], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1', OPENSSL_CONF: '/dev/null' } });
  t.equal(r.status, 4, r.stderr);
  t.match(r.stderr, `a kubelet using this store is running (pid ${k.pid})`);
  t.same(fs.readFileSync(path.join(dcd, 'store/meta/assigned')), before, 'nothing written under it');
});

t.test('found by a diff review: without CAP_SYS_PTRACE a process on another store is neither ours nor a doubt', { skip: !chrootable && 'needs root, chroot, setpriv and cc' }, async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'dcd'));
  const other = makeStore(path.join(dir, 'other'));
  await run(t, binNamed(dir, 'kubelet'), [`--dynamic-config-dir=${other}`]);
  const r = spawnSync('setpriv', ['--inh-caps=-all', '--bounding-set=-all', '--', 'env', '-u', 'NODE_OPTIONS', process.execPath, cliPath, '--dir', dcd, 'rollback', '--dry-run', '-o', 'json'], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1', OPENSSL_CONF: '/dev/null' } });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout).warnings, [], 'the host sees the other store: no warning');
});
