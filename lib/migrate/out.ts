// --out PATH for export: written atomically (temp file beside it, fsync, rename, dir fsync),
// never through a symlink, and never over an existing file that differs unless --force;
// the refusal carries the unified diff so the operator sees what would be lost.

import fs from 'node:fs';
import path from 'node:path';
import { RefusedError } from '../errors.js';
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
  fs.mkdirSync(dir, { recursive: true });
  atomicReplace(dir, path.basename(abs), bytes, { expect: state, what: abs, create: { mode: 0o644, uid: process.geteuid?.() ?? 0, gid: process.getegid?.() ?? 0 } });
  return 'written';
}
