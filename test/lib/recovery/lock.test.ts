import t from 'tap';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { acquireLock, holderAlive, lockHolder, processStart } from '../../../lib/recovery/lock.js';

t.test('acquire, refuse a second holder, release', async (t) => {
  const dir = path.join(t.testdir({}), '.kubelet-ckpt');
  const a = acquireLock(dir, 'reset all');
  t.equal(a.warning, null);
  const info = JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8'));
  t.equal(info.pid, process.pid);
  t.equal(info.command, 'reset all');
  t.equal(info.start, processStart(process.pid));
  t.equal(fs.statSync(dir).mode & 0o777, 0o700);
  t.same(lockHolder(dir)?.pid, process.pid);
  // The same process asking again is a second command as far as the lock goes.
  t.throws(() => acquireLock(dir, 'prune'), { code: 'LOCKED', exitCode: 4, message: /pid \d+: reset all/ });
  a.release();
  t.same(fs.readdirSync(dir), [], 'no lock, no temp files');
  acquireLock(dir, 'again').release();
});

t.test('a live holder (another real process) refuses; once it is gone the stale lock is taken over with a warning', async (t) => {
  const dir = path.join(t.testdir({}), '.kubelet-ckpt');
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  await new Promise((r) => child.once('spawn', r));
  fs.mkdirSync(dir);
  const lock = { pid: child.pid, start: processStart(child.pid!), command: 'rollback', time: '2026-11-22T08:00:00.000Z' };
  fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify(lock));
  t.throws(() => acquireLock(dir, 'reset all'), { code: 'LOCKED', message: new RegExp(`pid ${child.pid}: rollback, since 2026-11-22T08:00:00.000Z`) });
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
  const h = acquireLock(dir, 'reset all');
  t.match(h.warning, new RegExp(`took over a stale lock left by pid ${child.pid} \\(rollback`));
  t.equal(JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8')).pid, process.pid);
  h.release();
  t.same(fs.readdirSync(dir), []);
});

t.test('a reused pid (start time differs) is not the holder', async (t) => {
  t.notOk(holderAlive({ pid: process.pid, start: 'not-my-start-time', command: 'x', time: 'x' }));
  t.ok(holderAlive({ pid: process.pid, start: processStart(process.pid), command: 'x', time: 'x' }));
  t.notOk(holderAlive({ pid: 0, start: null, command: 'x', time: 'x' }));
});

t.test('an unreadable lock file is taken over; a read-only place is exit 3', async (t) => {
  const dir = path.join(t.testdir({}), '.kubelet-ckpt');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'lock'), 'garbage');
  const h = acquireLock(dir, 'prune');
  t.match(h.warning, /unreadable lock file/);
  h.release();
  const file = path.join(t.testdir({ f: 'x' }), 'f');
  t.throws(() => acquireLock(path.join(file, 'sub'), 'x'), { code: 'LOCK_FAILED', exitCode: 3 });
});

t.test('staleTemp: ours, and its writer gone; a pid reused by this very process counts as gone', async (t) => {
  const { staleTemp } = await import('../../../lib/recovery/lock.js');
  const { tempName } = await import('../../../lib/recovery/atomic.js');
  const { spawnSync } = await import('node:child_process');
  const now = Date.now();
  const old = now - 60 * 60 * 1000;
  t.equal(staleTemp(tempName('assigned'), old, now), false, 'made by this process: in use, however old');
  t.equal(staleTemp(`tmp_assigned.kubelet-ckpt.${process.pid}.00c0ffee`, now, now), false, 'this pid, not made here, fresh: maybe another container\'s pid 1 at work');
  t.equal(staleTemp(`tmp_assigned.kubelet-ckpt.${process.pid}.00c0ffee`, old, now), true, 'this pid, not made here, old: a previous run under the same pid');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  t.equal(staleTemp(`tmp_assigned.kubelet-ckpt.${dead}.00c0ffee`, now, now), true, 'a pid no longer running');
  t.equal(staleTemp(`tmp_assigned.kubelet-ckpt.${process.ppid}.00c0ffee`, now, now), false, 'a pid still running');
  t.equal(staleTemp(`tmp_assigned.kubelet-ckpt.${process.ppid}.00c0ffee`, old, now), true, 'a running pid, old: a pid reused since');
  t.equal(staleTemp('tmp_assigned123', old, now), false, 'the kubelet\'s own: never ours to remove');
});
