// Reading node files under --root (a mounted node disk): absolute symlinks on that disk
// point at the node's own /, so they are resolved inside the root, never on the host.

import fs from 'node:fs';
import path from 'node:path';
import { isWithin, openDirBelow, readFileCapped, using, type CappedRead } from './safepath.js';

const MAX_LINKS = 40;

/** The node path of a host path under `root` (unchanged on a live node, root '/', or outside the root). */
export function nodePathOf(root: string, hostPath: string): string {
  if (root === '/' || root === '') return hostPath;
  const r = path.resolve(root);
  const h = path.resolve(hostPath);
  if (!isWithin(r, h)) return hostPath;
  return `/${path.relative(r, h)}`.replace(/\/$/, '') || '/';
}

/** Resolve a node-absolute path to a host path inside `root`, following links within it. */
export function resolveInRoot(root: string, nodePath: string): string | null {
  if (root === '/' || root === '') return nodePath;
  const parts = nodePath.split('/').filter((p) => p && p !== '.');
  const done: string[] = [];
  let hops = 0;
  while (parts.length) {
    const part = parts.shift()!;
    if (part === '..') {
      done.pop();
      continue;
    }
    const host = path.join(root, ...done, part);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(host, { throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    // Missing here: so is everything below it, `..` or not (the node's kernel stops at this
    // name with ENOENT). Kept below it, never joined past it: path.join would resolve a `..`
    // after it lexically, out of the root (found by review: a link to /nope/../../etc read the host's).
    if (!st) return path.join(root, ...done, part, ...parts.filter((p) => p !== '..'));
    if (!st.isSymbolicLink()) {
      done.push(part);
      continue;
    }
    if (++hops > MAX_LINKS) return null;
    let target: string;
    try {
      target = fs.readlinkSync(host);
    } catch (err) {
      // Swapped since the lstat (found by review: EINVAL, "internal error", exit 5): look again.
      if ((err as NodeJS.ErrnoException).code === 'EINVAL' || (err as NodeJS.ErrnoException).code === 'ENOENT') {
        parts.unshift(part);
        continue;
      }
      return null;
    }
    const rest = target.split('/').filter((p) => p && p !== '.');
    if (target.startsWith('/')) done.length = 0;
    parts.unshift(...rest);
  }
  return path.join(root, ...done);
}

/**
 * A node path as a host path under `root`: resolved as the node would (resolveInRoot), else (a
 * link loop) the path's own names under the root, `..` dropped, which a later open from the root
 * down then fails on as the node would. Never joined lexically past a `..` (found by review: a
 * loop, then `..`, read a host file).
 */
export function hostPathUnder(root: string, nodePath: string): string {
  return resolveInRoot(root, nodePath) ?? path.join(root, ...nodePath.split('/').filter((p) => p && p !== '.' && p !== '..'));
}

// Discovery asks for a dozen files and folders a node may not have (units, env files, default
// stores): an absent one is answered without a thrown error, whose stack costs more than the look.

/** The text of a node file, or null when absent or unreadable. */
/**
 * What systemd reads of a unit or environment file at most (READ_FULL_BYTES_MAX: 64 MiB since
 * v251, 4 MiB before): a larger one it refuses. Read up to that, a big EnvironmentFile is read
 * as systemd reads it (found by review: one over 1 MiB was taken as absent, and migrate said
 * "nothing to do" of a node whose kubelet carries --dynamic-config-dir from it).
 */
export const SYSTEMD_READ_MAX = 64 * 1024 * 1024 - 1;

export function rootedRead(root: string, nodePath: string, cap = SYSTEMD_READ_MAX): string | null {
  const host = resolveInRoot(root, nodePath);
  if (!host || !fs.existsSync(host)) return null;
  try {
    // Regular files only, never blocking on a FIFO, capped (a device must not fill memory).
    const r = readResolved(root, host, cap);
    return r.truncated ? null : r.bytes.toString('utf8');
  } catch {
    return null;
  }
}

/**
 * Read `host`, a path resolveInRoot gave (links already followed inside the root): on a live
 * node as it is; under --root one name at a time from the root, following no link, so that an
 * entry swapped for a link since it was resolved leads nowhere (ELOOP), never to a host file
 * (found by review: a config.yaml or /etc/hostname swapped for a link to /etc/shadow was read
 * and printed).
 */
export function readResolved(root: string, host: string, cap: number): CappedRead {
  if (root === '/' || root === '' || !isWithin(path.resolve(root), host)) return readFileCapped(host, cap, { follow: true });
  const { dir } = openDirBelow(path.resolve(root), path.dirname(host));
  return using(dir, (d) => d.read(path.basename(host), cap));
}

export function rootedList(root: string, nodeDir: string): string[] {
  const host = resolveInRoot(root, nodeDir);
  if (!host || !fs.existsSync(host)) return [];
  try {
    return fs.readdirSync(host);
  } catch {
    return [];
  }
}

/** True only when the node path certainly holds no directory (absent, or something else); false when it cannot be looked at (EACCES). */
export function rootedNoDir(root: string, nodePath: string): boolean {
  const host = resolveInRoot(root, nodePath);
  if (!host) return false;
  try {
    const st = fs.statSync(host, { throwIfNoEntry: false });
    return !st || !st.isDirectory();
  } catch {
    return false;
  }
}

export function rootedIsDir(root: string, nodePath: string): boolean {
  const host = resolveInRoot(root, nodePath);
  if (!host) return false;
  try {
    return fs.statSync(host, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
