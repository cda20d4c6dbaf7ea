// The node's name as the kubelet registers it: --node-name when given, else the kubelet's
// --hostname-override, else the host name (under --root: the node disk's /etc/hostname, and
// when that has none, unknown: the rescue machine's own name is never the node's).

import os from 'node:os';
import { flagValue } from '../store/proc.js';
import { rootedRead } from '../store/rooted.js';
import type { NameSource } from './types.js';

export interface NodeNameInput {
  /** --node-name. */
  given?: string | undefined;
  /** The kubelet's command line, when discovery found one. */
  kubeletArgv: readonly string[];
  /** --root ('/' on a live node). */
  root: string;
  /** This machine's host name (os.hostname() unless a test passes one). */
  hostname?: string;
}

/** The kubelet trims and lower-cases the name it registers (nodeutil.GetHostname); so do we. */
export const kubeletHostname = (s: string): string => s.trim().toLowerCase();
const clean = kubeletHostname;

/** Why the name is unknown (nameFrom `unknown`), for the warning the command prints. */
export const UNKNOWN_NAME_WHY = "under --root the node's name comes from its /etc/hostname, which names none here; give --node-name (this machine's host name is not the node's)";

export function nodeName(i: NodeNameInput): { name: string | null; nameFrom: NameSource } {
  if (i.given && i.given.trim()) return { name: i.given.trim(), nameFrom: 'flag' };
  const override = flagValue(i.kubeletArgv, 'hostname-override');
  if (override && clean(override)) return { name: clean(override), nameFrom: 'hostname-override' };
  if (i.root !== '/') {
    const text = rootedRead(i.root, '/etc/hostname', 4096);
    const first = text?.split('\n').map(clean).find((l) => l && !l.startsWith('#'));
    if (first) return { name: first, nameFrom: 'hostname' };
    return { name: null, nameFrom: 'unknown' };
  }
  return { name: clean(i.hostname ?? os.hostname()), nameFrom: 'hostname' };
}
