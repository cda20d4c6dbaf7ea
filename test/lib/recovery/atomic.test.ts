import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { atomicRemove, atomicReplace, isOurTemp, readState, tempName, type FileState } from '../../../lib/recovery/atomic.js';
import type { Step } from '../../../lib/recovery/steps.js';

const OLD = Buffer.from('old bytes\n');
const NEW = Buffer.from('new bytes\n');
const state = (dir: string, n = 'assigned'): FileState => readState(path.join(dir, n), `meta/${n}`);

t.test('temp names are ours: tmp_ prefix and kubelet-ckpt', async (t) => {
  const n = tempName('last-known-good');
  t.match(n, /^tmp_last-known-good\.kubelet-ckpt\.\d+\.[0-9a-f]{8}$/);
  t.ok(isOurTemp(n));
  t.notOk(isOurTemp('tmp_assigned123456789'), "the kubelet's own temp files are not ours");
  t.notOk(isOurTemp('kubelet-ckpt'));
});

t.test('replace: exact bytes, mode and owner kept, steps in order, no temp left', async (t) => {
  const dir = t.testdir({ assigned: 'old bytes\n' });
  fs.chmodSync(path.join(dir, 'assigned'), 0o640);
  fs.chownSync(path.join(dir, 'assigned'), 65534, 65534);
  const steps: string[] = [];
  atomicReplace(dir, 'assigned', NEW, { expect: state(dir), what: 'meta/assigned', hook: (s: Step) => steps.push(s) });
  t.same(fs.readFileSync(path.join(dir, 'assigned')), NEW);
  const st = fs.statSync(path.join(dir, 'assigned'));
  t.same([st.mode & 0o7777, st.uid, st.gid], [0o640, 65534, 65534]);
  t.same(steps, ['temp-created', 'after-temp-write', 'after-rename', 'dir-synced']);
  t.same(fs.readdirSync(dir), ['assigned']);
});

t.test('replace: a new file gets the create mode', async (t) => {
  const dir = t.testdir({});
  atomicReplace(dir, 'assigned', NEW, { expect: { kind: 'missing' }, what: 'meta/assigned', create: { mode: 0o600, uid: 0, gid: 0 } });
  t.equal(fs.statSync(path.join(dir, 'assigned')).mode & 0o777, 0o600);
  t.same(fs.readFileSync(path.join(dir, 'assigned')), NEW);
});

t.test('replace: an empty file (local config)', async (t) => {
  const dir = t.testdir({ assigned: 'old bytes\n' });
  atomicReplace(dir, 'assigned', Buffer.alloc(0), { expect: state(dir), what: 'meta/assigned' });
  t.equal(fs.statSync(path.join(dir, 'assigned')).size, 0);
});

t.test('replace refuses a file that changed since the plan, before and after the temp write', async (t) => {
  const dir = t.testdir({ assigned: 'old bytes\n' });
  const expect = state(dir);
  fs.writeFileSync(path.join(dir, 'assigned'), 'kubelet wrote this\n');
  t.throws(() => atomicReplace(dir, 'assigned', NEW, { expect, what: 'meta/assigned' }), { code: 'CHANGED_SINCE_PLAN', exitCode: 4 });
  t.equal(fs.readFileSync(path.join(dir, 'assigned'), 'utf8'), 'kubelet wrote this\n');
  // The kubelet writes while our temp file is being written: re-checked right before the rename.
  fs.writeFileSync(path.join(dir, 'assigned'), OLD);
  const hook = (s: Step) => {
    if (s === 'after-temp-write') fs.writeFileSync(path.join(dir, 'assigned'), 'raced\n');
  };
  t.throws(() => atomicReplace(dir, 'assigned', NEW, { expect: state(dir), what: 'meta/assigned', hook }), { code: 'CHANGED_SINCE_PLAN' });
  t.equal(fs.readFileSync(path.join(dir, 'assigned'), 'utf8'), 'raced\n');
  t.same(fs.readdirSync(dir), ['assigned'], 'the temp file is removed');
});

t.test('never writes through a symlink', async (t) => {
  const dir = t.testdir({ target: 'outside\n', meta: { assigned: t.fixture('symlink', '../target') } });
  const meta = path.join(dir, 'meta');
  t.throws(() => readState(path.join(meta, 'assigned'), 'meta/assigned'), { code: 'META_SYMLINK', exitCode: 4 });
  t.throws(() => atomicReplace(meta, 'assigned', NEW, { expect: { kind: 'missing' }, what: 'meta/assigned' }), { code: 'META_SYMLINK' });
  t.equal(fs.readFileSync(path.join(dir, 'target'), 'utf8'), 'outside\n');
  t.ok(fs.lstatSync(path.join(meta, 'assigned')).isSymbolicLink());
  // nor into a symlinked directory
  const d2 = t.testdir({ real: { assigned: 'x' }, meta: t.fixture('symlink', 'real') });
  t.throws(() => atomicReplace(path.join(d2, 'meta'), 'assigned', NEW, { expect: { kind: 'missing' }, what: 'meta/assigned' }), { code: 'META_SYMLINK' });
  t.equal(fs.readFileSync(path.join(d2, 'real', 'assigned'), 'utf8'), 'x');
});

t.test('a failing temp write (full disk) leaves the target untouched and no temp file', async (t) => {
  const dir = t.testdir({ assigned: 'old bytes\n' });
  t.throws(() => atomicReplace(dir, 'assigned', NEW, { expect: state(dir), what: 'meta/assigned', simulate: { enospc: true } }), {
    code: 'WRITE_FAILED',
    exitCode: 3,
    message: /no space left on device.*meta\/assigned is untouched/,
  });
  t.same(fs.readFileSync(path.join(dir, 'assigned')), OLD);
  t.same(fs.readdirSync(dir), ['assigned']);
});

t.test('remove: re-checked, then unlinked', async (t) => {
  const dir = t.testdir({ assigned: 'old bytes\n' });
  atomicRemove(dir, 'assigned', { expect: state(dir), what: 'meta/assigned' });
  t.same(fs.readdirSync(dir), []);
  atomicRemove(dir, 'assigned', { expect: { kind: 'missing' }, what: 'meta/assigned' });
  fs.writeFileSync(path.join(dir, 'assigned'), 'x');
  t.throws(() => atomicRemove(dir, 'assigned', { expect: { kind: 'missing' }, what: 'meta/assigned' }), { code: 'CHANGED_SINCE_PLAN' });
});
