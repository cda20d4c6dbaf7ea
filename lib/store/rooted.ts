// Reading node files under --root (a mounted node disk): absolute symlinks on that disk
// point at the node's own /, so they are resolved inside the root, never on the host.

import fs from 'node:fs';
import path from 'node:path';
import { isWithin, readFileCapped } from './safepath.js';

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
    if (!st) return path.join(root, ...done, part, ...parts);
    if (!st.isSymbolicLink()) {
      done.push(part);
      continue;
    }
    if (++hops > MAX_LINKS) return null;
    const target = fs.readlinkSync(host);
    const rest = target.split('/').filter((p) => p && p !== '.');
    if (target.startsWith('/')) done.length = 0;
    parts.unshift(...rest);
  }
  return path.join(root, ...done);
}

// Discovery asks for a dozen files and folders a node may not have (units, env files, default
// stores): an absent one is answered without a thrown error, whose stack costs more than the look.

/** The text of a node file, or null when absent or unreadable. */
export function rootedRead(root: string, nodePath: string, cap = 1024 * 1024): string | null {
  const host = resolveInRoot(root, nodePath);
  if (!host || !fs.existsSync(host)) return null;
  try {
    // Regular files only, never blocking on a FIFO, capped (a device must not fill memory).
    const r = readFileCapped(host, cap, { follow: true });
    return r.truncated ? null : r.bytes.toString('utf8');
  } catch {
    return null;
  }
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
