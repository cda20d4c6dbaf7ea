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
  // An empty file is read into a 64 KiB buffer (procfs files say they are empty): what is
  // returned holds none of it (verify holds every payload: 10,000 empty ones held 625 MiB).
  fs.writeFileSync(path.join(dir, 'empty'), '');
  const e = readFileCapped(path.join(dir, 'empty'), 1024 * 1024);
  t.same([e.bytes.length, e.size, e.truncated], [0, 0, false]);
  t.ok(e.bytes.buffer.byteLength <= 8192, `the bytes of an empty file hold ${e.bytes.buffer.byteLength} bytes`);
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

t.test('SafeDir: names only, no symlink followed, writes land where the descriptor is', async (t) => {
  const { SafeDir } = await import('../../../lib/store/safepath.js');
  const dir = t.testdir({ a: { b: { f: 'hi' } }, outside: { secret: 'x' } });
  fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, 'a', 'l'));
  fs.symlinkSync(path.join(dir, 'outside', 'secret'), path.join(dir, 'a', 'b', 'fl'));
  const d = SafeDir.open(dir);
  t.teardown(() => d.close());
  const a = d.dir('a');
  t.same(a.list().sort(), ['b', 'l']);
  t.throws(() => a.dir('l'), { code: 'ELOOP' }, 'a symlinked directory is refused');
  t.throws(() => a.at('../outside'), { code: 'UNSAFE_PATH' });
  const b = a.dir('b');
  t.equal(b.read('f', 10).bytes.toString(), 'hi');
  t.throws(() => b.read('fl', 10), { code: 'ELOOP' }, 'a symlinked file is refused');
  b.writeNew('g', 'x');
  b.rename('g', 'moved', a);
  t.equal(fs.readFileSync(path.join(dir, 'a', 'moved'), 'utf8'), 'x');
  // The descriptor holds the directory, not its path: swap the path for a link to outside.
  fs.renameSync(path.join(dir, 'a', 'b'), path.join(dir, 'a', 'b-old'));
  fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, 'a', 'b'));
  b.writeNew('after-swap', 'y');
  t.equal(fs.readFileSync(path.join(dir, 'a', 'b-old', 'after-swap'), 'utf8'), 'y');
  t.same(fs.readdirSync(path.join(dir, 'outside')), ['secret'], 'nothing written outside');
  t.same(b.list().sort(), ['after-swap', 'f', 'fl']);
  const n = a.ensureDir('new');
  t.ok(fs.lstatSync(path.join(dir, 'a', 'new')).isDirectory());
  n.close();
  const w = d.walk(['a', 'b-old']);
  t.equal(w.read('f', 10).bytes.toString(), 'hi');
  w.close();
  t.throws(() => d.walk(['a', 'b']), { code: 'ELOOP' });
  b.close();
  a.close();
});

t.test('the descriptor directory: /proc/<pid>/fd only when /proc/self is this process', async (t) => {
  const { pickDescriptorDir, descriptorDir } = await import('../../../lib/store/safepath.js');
  t.equal(pickDescriptorDir(() => '4242', 4242), '/proc/4242/fd', '/proc/self names this pid');
  t.equal(pickDescriptorDir(() => '17', 4242), '/proc/self/fd', 'a /proc of another pid namespace: /proc/4242 may be someone else');
  t.equal(
    pickDescriptorDir(() => {
      throw new Error('EINVAL');
    }, 4242),
    '/proc/self/fd',
    '/proc/self unreadable',
  );
  const d = descriptorDir();
  t.ok(d === `/proc/${process.pid}/fd` || d === '/proc/self/fd', d);
  const fd = fs.openSync(process.cwd(), 'r');
  try {
    t.equal(fs.readlinkSync(`${d}/${fd}`), fs.realpathSync(process.cwd()), 'this process\'s descriptor table');
  } finally {
    fs.closeSync(fd);
  }
});

t.test('openDirBelow: makes what is missing through opened parents, follows no link below the top', async (t) => {
  const { openDirBelow } = await import('../../../lib/store/safepath.js');
  const top = t.testdir({ a: { file: 'x' }, elsewhere: {} });
  fs.symlinkSync(path.join(top, 'elsewhere'), path.join(top, 'a', 'link'));
  // Existing, then made on the way.
  const made = openDirBelow(top, path.join(top, 'a', 'b', 'c'), { create: { mode: 0o755 } });
  t.same(made.created, [path.join(top, 'a', 'b'), path.join(top, 'a', 'b', 'c')]);
  t.equal(fs.fstatSync(made.dir.fd).ino, fs.statSync(path.join(top, 'a', 'b', 'c')).ino, 'the directory opened is the one made');
  made.dir.close();
  const again = openDirBelow(top, path.join(top, 'a', 'b', 'c'), { create: { mode: 0o755 } });
  t.same(again.created, [], 'nothing made twice');
  again.dir.close();
  // A link below the top is never followed, not even to make a directory in it.
  t.throws(() => openDirBelow(top, path.join(top, 'a', 'link', 'd'), { create: { mode: 0o755 } }), { code: 'ELOOP' });
  t.same(fs.readdirSync(path.join(top, 'elsewhere')), [], 'nothing made through the link');
  t.throws(() => openDirBelow(top, path.join(top, 'a', 'file')), { code: 'ENOTDIR' });
  t.throws(() => openDirBelow(top, path.join(top, 'a', 'nope')), { code: 'ENOENT' });
  t.throws(() => openDirBelow(path.join(top, 'a'), top), { code: 'UNSAFE_PATH' });
  // resolveExisting: the links of the part that exists are resolved first (a live node's own).
  const via = openDirBelow('/', path.join(top, 'a', 'link', 'new'), { create: { mode: 0o700 }, resolveExisting: true });
  t.same(via.created, [path.join(fs.realpathSync(top), 'elsewhere', 'new')]);
  via.dir.close();
});
