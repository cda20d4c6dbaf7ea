// Which kubelet release's rules apply (--kubelet-version X.Y|auto).

import { execFileSync } from 'node:child_process';
import { UsageError } from './errors.js';

export const DEFAULT_KUBELET_VERSION = '1.23';
export const KNOWN_MINORS = ['1.11', '1.12', '1.13', '1.14', '1.15', '1.16', '1.17', '1.18', '1.19', '1.20', '1.21', '1.22', '1.23'];

/** `v1.22.3`, `1.22`, `Kubernetes v1.22.17` → `1.22`; null when not a version. */
export function minorOf(s: string): string | null {
  const m = /v?(\d+)\.(\d+)(?:\.\d+)?/.exec(s);
  return m ? `${Number(m[1])}.${Number(m[2])}` : null;
}

export interface ResolvedVersion {
  version: string;
  note: string | null;
}

/** Resolve the option; `auto` asks `kubelet --version` (falls back to the default with a note). */
export function resolveKubeletVersion(opt: string | undefined, kubeletBinary = 'kubelet'): ResolvedVersion {
  if (!opt) return { version: DEFAULT_KUBELET_VERSION, note: null };
  if (opt === 'auto') {
    try {
      const out = execFileSync(kubeletBinary, ['--version'], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] });
      const v = minorOf(out);
      if (v) return clamp(v);
      return { version: DEFAULT_KUBELET_VERSION, note: `could not read a version from \`kubelet --version\` (${out.trim()}); using ${DEFAULT_KUBELET_VERSION}` };
    } catch {
      return { version: DEFAULT_KUBELET_VERSION, note: `\`kubelet --version\` did not run; using the ${DEFAULT_KUBELET_VERSION} rules` };
    }
  }
  const v = minorOf(opt);
  if (!v || !/^v?\d+\.\d+(\.\d+)?$/.test(opt)) throw new UsageError(`--kubelet-version ${JSON.stringify(opt)} is not X.Y or auto`, 'for example --kubelet-version 1.22');
  return clamp(v);
}

function clamp(v: string): ResolvedVersion {
  if (KNOWN_MINORS.includes(v)) return { version: v, note: null };
  const [maj, min] = v.split('.').map(Number) as [number, number];
  if (maj === 1 && min > 23) return { version: '1.23', note: `kubelet ${v} has no dynamic config (removed in 1.24); using the 1.23 rules` };
  return { version: '1.11', note: `kubelet ${v} predates the store/ layout (1.11); using the 1.11 rules` };
}
