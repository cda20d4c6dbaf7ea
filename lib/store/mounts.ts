// Which mount a directory lies on: rename(2) fails with EXDEV between two mounts even of one
// file system (a bind mount keeps st_dev), so a device compare is not enough. Read from the
// opened directory's /proc/self/fdinfo (`mnt_id:`, Linux 3.15+): no path matching against
// /proc/self/mountinfo, whose escapes, encodings and overmounts each misled a first version
// (found by review: a non-ASCII path, and a mount hidden by a later one).

import fs from 'node:fs';
import { SafeDir, using } from './safepath.js';

/** The mount id of the directory at `dir` (opened as SafeDir opens a store), or null when it cannot be told. */
export function mountIdOf(dir: string, fdinfo = (fd: number) => fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1')): number | null {
  try {
    return using(SafeDir.open(dir), (d) => {
      const m = /^mnt_id:\s*(\d+)$/m.exec(fdinfo(d.fd));
      return m ? Number(m[1]) : null;
    });
  } catch {
    return null;
  }
}
