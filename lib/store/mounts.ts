// Which mount a path lies on, from /proc/self/mountinfo: rename(2) fails with EXDEV between two
// mounts even of one file system (a bind mount keeps st_dev), so a device compare is not enough.

import fs from 'node:fs';
import path from 'node:path';

interface Mount {
  id: string;
  point: string;
}

/** The mounts of this process's namespace, in mount order; null when /proc cannot tell. */
export function readMounts(file = '/proc/self/mountinfo'): Mount[] | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch {
    return null;
  }
  const out: Mount[] = [];
  for (const l of text.split('\n')) {
    const f = l.split(' ');
    // `ID PARENT MAJ:MIN ROOT POINT …`; the point's blanks and backslashes are octal escapes.
    if (f.length > 4) out.push({ id: f[0]!, point: f[4]!.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))) });
  }
  return out;
}

/** The id of the mount `p` lies on (the last mount over the longest point containing it), or null. */
export function mountIdOf(p: string, mounts: readonly Mount[]): string | null {
  let real: string;
  try {
    real = fs.realpathSync(p);
  } catch {
    return null;
  }
  let best: Mount | null = null;
  for (const m of mounts) {
    const inside = m.point === '/' || real === m.point || real.startsWith(m.point.endsWith(path.sep) ? m.point : `${m.point}${path.sep}`);
    if (inside && (!best || m.point.length >= best.point.length)) best = m;
  }
  return best?.id ?? null;
}
