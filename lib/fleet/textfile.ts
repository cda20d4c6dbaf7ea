// Writes the metrics file into the node exporter's textfile directory atomically: a temp
// file in the same directory whose name does not end in `.prom` (the collector skips it;
// it starts `tmp_` and carries `kubelet-ckpt`, as every temp file of ours), fsync, mode
// 0644 (the exporter runs as another user), rename over, fsync the directory.

import fs from 'node:fs';
import { EnvError, fsReason } from '../errors.js';
import { requireRealDir, syncDir, tempName } from '../recovery/atomic.js';
import { safeJoin } from '../store/safepath.js';

export const TEXTFILE_NAME = 'kubelet_ckpt.prom';

export function writeTextfile(dir: string, text: string, name = TEXTFILE_NAME): string {
  requireRealDir(dir, `--textfile-dir ${dir}`);
  const target = safeJoin(dir, name);
  const tmp = safeJoin(dir, tempName(name));
  let renamed = false;
  try {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o644);
    try {
      fs.writeSync(fd, text);
      fs.fchmodSync(fd, 0o644);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
    renamed = true;
    syncDir(dir);
  } catch (err) {
    if (!renamed) fs.rmSync(tmp, { force: true });
    throw new EnvError(`cannot write ${target}: ${fsReason(err)}`, 'give a writable directory the node exporter reads (--collector.textfile.directory)', 'WRITE_FAILED');
  }
  return target;
}
