// Where a directory lies: its device and its mount. rename(2) fails with EXDEV between two
// mounts even of one file system (a bind mount keeps st_dev), so a device compare is not
// enough. The mount is read from the opened directory's /proc/self/fdinfo (`mnt_id:`, Linux
// 3.15+): no path matching against /proc/self/mountinfo, whose escapes, encodings and
// overmounts each misled a first version (found by review: a non-ASCII path, and a mount
// hidden by a later one).

import fs from 'node:fs';
import { SafeDir, using } from './safepath.js';

export interface Place {
  dev: number;
  /** The mount id; null when the kernel does not say. */
  mnt: number | null;
}

const readFdinfo = (fd: number) => fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1');

/** The device and mount of the directory at `dir` (opened once, as SafeDir opens a store), or null when it cannot be opened. */
export function placeOf(dir: string, fdinfo = readFdinfo): Place | null {
  try {
    return using(SafeDir.open(dir), (d) => {
      let mnt: number | null = null;
      try {
        const m = /^mnt_id:\s*(\d+)$/m.exec(fdinfo(d.fd));
        mnt = m ? Number(m[1]) : null;
      } catch {
        /* no fdinfo: the device decides alone */
      }
      return { dev: d.stat().dev, mnt };
    });
  } catch {
    return null;
  }
}

/** Whether a rename between the two places can cross no mount: same device and, where both are known, same mount. */
export function samePlace(a: Place, b: Place): boolean {
  return a.dev === b.dev && (a.mnt === null || b.mnt === null || a.mnt === b.mnt);
}
