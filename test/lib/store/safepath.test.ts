import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { isWithin, readFileCapped, realDirEscape, safeJoin, unsafeNameReason } from '../../../lib/store/safepath.js';

t.test('unsafeNameReason', async (t) => {
  const table: [string, string | null][] = [
    ['kubelet', null],
    ['5808539f-48e3-4e47-8ce6-c261c48fa1d9', null],
    ['12345', null],
    ['..foo', null],
    ['', 'is empty'],
    ['.', 'is "."'],
    ['..', 'is ".."'],
    ['a/b', 'contains "/"'],
    ['/etc', 'contains "/"'],
    ['a\0b', 'contains a NUL byte'],
    ['x'.repeat(255), null],
    ['x'.repeat(256), 'is longer than 255 bytes'],
    ['é'.repeat(128), 'is longer than 255 bytes'],
  ];
  for (const [name, want] of table) t.equal(unsafeNameReason(name), want, JSON.stringify(name).slice(0, 40));
});

t.test('safeJoin refuses escapes', async (t) => {
  t.equal(safeJoin('/s', 'checkpoints', 'u', '1'), '/s/checkpoints/u/1');
  for (const bad of ['..', '../x', 'a/../../b', '', '\0']) t.throws(() => safeJoin('/s', bad), { code: 'UNSAFE_PATH', exitCode: 2 });
});

t.test('isWithin', async (t) => {
  t.ok(isWithin('/a/b', '/a/b'));
  t.ok(isWithin('/a/b', '/a/b/c'));
  t.notOk(isWithin('/a/b', '/a/bc'));
  t.notOk(isWithin('/a/b', '/a'));
});

t.test('readFileCapped: caps, refuses symlinks and FIFOs without blocking', async (t) => {
  const dir = t.testdir({ big: 'x'.repeat(100), small: 'abc', link: t.fixture('symlink', 'small') });
  const r = readFileCapped(path.join(dir, 'big'), 10);
  t.same([r.bytes.toString(), r.size, r.truncated], ['x'.repeat(10), 100, true]);
  const s = readFileCapped(path.join(dir, 'small'), 10);
  t.same([s.bytes.toString(), s.truncated], ['abc', false]);
  t.throws(() => readFileCapped(path.join(dir, 'link'), 10), { code: 'ELOOP' });
  t.throws(() => readFileCapped(dir, 10), { code: 'ENOTREG' });
  const fifo = path.join(dir, 'fifo');
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [fifo]);
  t.throws(() => readFileCapped(fifo, 10), { code: 'ENOTREG' }, 'a FIFO is refused, not waited on');
});

t.test('realDirEscape', async (t) => {
  const dir = t.testdir({ store: { inside: {} }, outside: {} });
  fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, 'store', 'out'));
  const real = fs.realpathSync(path.join(dir, 'store'));
  t.equal(realDirEscape(real, path.join(dir, 'store', 'inside')), null);
  t.match(realDirEscape(real, path.join(dir, 'store', 'out')), /outside the store/);
});
