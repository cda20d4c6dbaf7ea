// Writes the metrics file into the node exporter's textfile directory atomically: a temp
// file in the same directory whose name does not end in `.prom` (the collector skips it;
// it starts `tmp_` and carries `kubelet-ckpt`, as every temp file of ours), fsync, mode
// 0644 (the exporter runs as another user), rename over, fsync the directory. The directory
// is opened once and both names are reached through it (SafeDir): a directory swapped for a
// link while we write leads nowhere else.

import fs from 'node:fs';
import { EnvError, fsReason } from '../errors.js';
import { openWriteDir, tempName } from '../recovery/atomic.js';
import { safeJoin, writeAllAndClose } from '../store/safepath.js';

export const TEXTFILE_NAME = 'kubelet_ckpt.prom';

export function writeTextfile(dir: string, text: string, name = TEXTFILE_NAME): string {
  const target = safeJoin(dir, name);
  // Opened once, the last name without following a link (META_SYMLINK when it is one).
  // Not the store: an unusable --textfile-dir is said as a failed write of its own.
  const d = openWriteDir(dir, `--textfile-dir ${dir}`, 'WRITE_FAILED');
  const tmp = tempName(name);
  let created = false;
  let renamed = false;
  try {
    const fd = d.create(tmp, 0o644);
    created = true;
    try {
      fs.fchmodSync(fd, 0o644);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    writeAllAndClose(fd, text);
    d.rename(tmp, name);
    renamed = true;
    d.sync();
  } catch (err) {
    if (created && !renamed) {
      try {
        d.unlink(tmp);
      } catch {
        /* already gone */
      }
    }
    throw new EnvError(`cannot write ${target}: ${fsReason(err)}`, 'give a writable directory the node exporter reads (--collector.textfile.directory)', 'WRITE_FAILED');
  } finally {
    d.close();
  }
  return target;
}
