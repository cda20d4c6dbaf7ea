// Which mount a directory lies on (clean's cross-mount check), from its fdinfo.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { mountIdOf } from '../../../lib/store/mounts.js';

t.test('the mnt_id of the opened directory; null when it cannot be told', async (t) => {
  const dir = t.testdir({ 'dir-ü': {} });
  const id = mountIdOf(dir);
  t.type(id, 'number', 'this machine reports mnt_id');
  t.equal(mountIdOf(path.join(dir, 'dir-ü')), id, 'a non-ASCII name: the same mount as its parent');
  t.equal(mountIdOf(path.join(dir, 'nope')), null, 'not there');
  t.equal(mountIdOf(dir, () => 'pos:\t0\nflags:\t0100000\n'), null, 'a kernel without mnt_id');
  t.equal(mountIdOf(dir, () => 'pos:\t0\nmnt_id:\t42\n'), 42);
});
