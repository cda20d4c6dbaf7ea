// The node files migrate reads and writes outside the store: the kubelet's unit and
// drop-ins, the env files that carry its flags, and its --config file. Each is addressed by
// its node path and written at a host path found by resolving links inside --root (never
// out of it); the file itself must be a regular file (atomicReplace refuses links).

import fs from 'node:fs';
import path from 'node:path';
import { RefusedError, type CkptError } from '../errors.js';
import { ownerBlock, ownerFor, readState, writeBlock, type FileState, type Owner } from '../recovery/atomic.js';
import { WELL_KNOWN_ENV_FILES } from '../store/discover.js';
import { resolveInRoot } from '../store/rooted.js';
import { readKubeletUnit } from '../store/systemd.js';
import type { FlagFileKind } from './flagedit.js';

export interface NodeFile {
  nodePath: string;
  hostPath: string;
  /** The --root it was read under ('/' on a live node): writes open its directory from there down. */
  root: string;
  kind: FlagFileKind | 'config';
  state: FileState;
}

/** Node files are small; a larger one is not a unit or env file. */
const NODE_FILE_CAP = 1024 * 1024;

/**
 * The host path of a node file: under --root, links are resolved inside the root; on a live
 * node the real path (a unit symlinked into /lib/systemd is edited where it lives).
 */
export function hostFileOf(root: string, nodePath: string): string {
  if (root !== '/') {
    const h = resolveInRoot(root, nodePath);
    if (!h) throw new RefusedError(`${nodePath}: too many symbolic links under --root`, null, 'NODE_FILE_LINKS');
    return h;
  }
  try {
    return fs.realpathSync(nodePath);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(nodePath)), path.basename(nodePath));
    } catch {
      return nodePath;
    }
  }
}

export function readNodeFile(root: string, nodePath: string, kind: NodeFile['kind']): NodeFile {
  const hostPath = hostFileOf(root, nodePath);
  const state = readState(hostPath, nodePath, 'node');
  if (state.kind === 'file' && state.bytes.length > NODE_FILE_CAP) throw new RefusedError(`${nodePath} is larger than 1 MiB: not a kubelet unit, env or config file`, null, 'NODE_FILE_TOO_LARGE');
  return { nodePath, hostPath, root, kind, state };
}

/** Every unit, drop-in and env file that may carry kubelet flags, in the order systemd reads them. */
export function flagFiles(root: string): { nodePath: string; kind: FlagFileKind }[] {
  const out: { nodePath: string; kind: FlagFileKind }[] = [];
  const seen = new Set<string>();
  const add = (p: string, kind: FlagFileKind) => {
    if (seen.has(p)) return;
    seen.add(p);
    out.push({ nodePath: p, kind });
  };
  const unit = readKubeletUnit(root);
  for (const f of unit?.files ?? []) add(f, 'unit');
  for (const f of unit?.environmentFiles ?? []) add(f.path, 'env');
  for (const f of WELL_KNOWN_ENV_FILES) add(f, 'env');
  return out.filter((f) => resolveInRoot(root, f.nodePath) !== null && exists(root, f.nodePath));
}

function exists(root: string, nodePath: string): boolean {
  try {
    fs.lstatSync(hostFileOf(root, nodePath));
    return true;
  } catch {
    return false;
  }
}

/** The text of a file state ('' when missing). */
export function textOf(s: FileState): string {
  return s.kind === 'file' ? s.bytes.toString('utf8') : '';
}

/**
 * What writing these node files would meet, checked by the plan so that a dry run exits as the
 * real run would and no file is written before a later one fails (found by review: on a
 * read-only /etc/systemd, `migrate --dry-run` said 0, and `migrate --yes` wrote config.yaml,
 * then stopped with the unit unchanged): each directory writable (or the nearest that exists,
 * for one to be made), and an owner only root may give.
 */
export function nodeWriteBlocks(writes: readonly { file: NodeFile; after: Buffer | null; owner?: Owner | null }[], refusals: CkptError[]): void {
  for (const w of writes) {
    const what = w.file.nodePath;
    const block = writeBlock(path.dirname(w.file.hostPath), `the directory of ${what}`, 'nothing was written') ?? (w.after === null ? null : ownerBlock(ownerFor(w.file.state, w.owner), what));
    if (block) return void refusals.push(block);
  }
}
