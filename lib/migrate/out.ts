// --out PATH for export: written atomically (temp file beside it, fsync, rename, dir fsync),
// never through a symlink, and never over an existing file that differs unless --force;
// the refusal carries the unified diff so the operator sees what would be lost.

import path from 'node:path';
import { CkptError, EnvError, RefusedError, fsReason } from '../errors.js';
import { openDirBelow, using, type SafeDir } from '../store/safepath.js';
import { atomicReplace, readState } from '../recovery/atomic.js';
import { diffBytes } from './diffs.js';

export type OutOutcome = 'written' | 'unchanged';

export function writeOut(out: string, bytes: Buffer, force: boolean): OutOutcome {
  const abs = path.resolve(out);
  const dir = path.dirname(abs);
  const state = readState(abs, abs);
  if (state.kind === 'file') {
    if (state.bytes.equals(bytes)) return 'unchanged';
    if (!force) {
      throw new RefusedError(`${abs} exists and differs from the export:\n${diffBytes(abs, state.bytes, bytes)}`, 'pass --force to replace it, or choose another --out', 'OUT_EXISTS');
    }
  }
  // Missing directories are made as `mkdir -p` would (0777 less the umask), each through its
  // opened parent; links already on the path are the operator's, a link swapped in on the way is not followed.
  let opened: SafeDir;
  try {
    opened = openDirBelow('/', dir, { create: { mode: 0o777 }, resolveExisting: true }).dir;
  } catch (err) {
    if (err instanceof CkptError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedError(`cannot write ${abs}: ${fsReason(err)} that leads nowhere or was put there while kubelet-ckpt worked; not followed`, 'check the path, or choose another --out', 'META_SYMLINK');
    throw new EnvError(`cannot write ${abs}: ${dir}: ${fsReason(err)}`, null, 'OUT_UNWRITABLE');
  }
  using(opened, (d) => atomicReplace(d, path.basename(abs), bytes, { expect: state, what: abs }));
  return 'written';
}
