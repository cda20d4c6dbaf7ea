// Which mount a path lies on (clean's cross-mount check), from a mountinfo file.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { mountIdOf, readMounts } from '../../../lib/store/mounts.js';

t.test('the longest mount point holding the path decides; the last mount over one point wins; escapes read', async (t) => {
  const dir = t.testdir({ a: { b: {} }, 'with space': {} });
  const info = path.join(dir, 'mountinfo');
  fs.writeFileSync(info, [
    '1 0 8:1 / / rw - ext4 /dev/sda1 rw',
    `2 1 8:1 /x ${dir}/a rw - ext4 /dev/sda1 rw`,
    `3 1 0:5 / ${dir}/a rw - tmpfs tmpfs rw`,
    `4 1 8:1 /y ${dir.replaceAll(' ', '\\040')}/with\\040space rw - ext4 /dev/sda1 rw`,
    '',
  ].join('\n'));
  const m = readMounts(info)!;
  t.equal(mountIdOf(dir, m), '1');
  t.equal(mountIdOf(path.join(dir, 'a/b'), m), '3', 'the later mount over the same point');
  t.equal(mountIdOf(path.join(dir, 'with space'), m), '4');
  t.equal(mountIdOf(path.join(dir, 'nope'), m), null, 'a path that is not there');
  t.equal(readMounts(path.join(dir, 'missing')), null);
});
