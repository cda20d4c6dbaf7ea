// Where a directory lies (clean's cross-mount check): its device, and its mount from fdinfo.
import t from 'tap';
import path from 'node:path';
import { placeOf, samePlace } from '../../../lib/store/mounts.js';

t.test('the device and mnt_id of the opened directory; null when it cannot be opened', async (t) => {
  const dir = t.testdir({ 'dir-ü': {} });
  const p = placeOf(dir)!;
  t.type(p.mnt, 'number', 'this machine reports mnt_id');
  t.same(placeOf(path.join(dir, 'dir-ü')), p, 'a non-ASCII name: the same place as its parent');
  t.equal(placeOf(path.join(dir, 'nope')), null, 'not there');
  t.same(placeOf(dir, () => 'pos:\t0\nflags:\t0100000\n'), { dev: p.dev, mnt: null }, 'a kernel without mnt_id');
  t.same(placeOf(dir, () => 'pos:\t0\nmnt_id:\t42\n'), { dev: p.dev, mnt: 42 });
  t.ok(samePlace({ dev: 1, mnt: 2 }, { dev: 1, mnt: null }), 'an unknown mount: the device decides');
  t.notOk(samePlace({ dev: 1, mnt: 2 }, { dev: 1, mnt: 3 }), 'a bind mount: same device, another mount');
  t.notOk(samePlace({ dev: 1, mnt: 2 }, { dev: 4, mnt: 2 }));
});
