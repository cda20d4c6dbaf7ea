// Host paths and node paths under --root: files are read and written at host paths, but
// what the kubelet sees (and what goes into its config and unit files) are node paths.

import path from 'node:path';
import { isWithin } from '../store/safepath.js';

/** The node path of a host path under `root` (unchanged on a live node, root '/'). */
export function nodePathOf(root: string, hostPath: string): string {
  if (root === '/' || root === '') return hostPath;
  const r = path.resolve(root);
  const h = path.resolve(hostPath);
  if (!isWithin(r, h)) return hostPath;
  return `/${path.relative(r, h)}`.replace(/\/$/, '') || '/';
}
