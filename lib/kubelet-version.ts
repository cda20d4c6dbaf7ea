// Which kubelet release's rules apply (--kubelet-version X.Y|auto).

import { childProcess } from './builtins.js';
import { DEFAULT_VERSION, resolveKubeletVersion as resolveRelease, type KubeletVersion } from './config/version.js';

export interface ResolvedVersion {
  version: KubeletVersion;
  note: string | null;
}

function fromText(text: string, from: string): ResolvedVersion {
  const r = resolveRelease(text);
  return { version: r.version, note: r.exact ? null : `${from} ${r.requested} predates the 1.20 rules kubelet-ckpt models; using the 1.20 rules` };
}

/** Resolve the option; `auto` asks `kubelet --version` and falls back to the default with a note. */
export function resolveKubeletVersion(opt: string | undefined, kubeletBinary = 'kubelet'): ResolvedVersion {
  if (!opt) return { version: DEFAULT_VERSION, note: null };
  if (opt !== 'auto') return fromText(opt, 'kubelet');
  let out: string;
  try {
    out = childProcess().execFileSync(kubeletBinary, ['--version'], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return { version: DEFAULT_VERSION, note: `\`kubelet --version\` did not run; using the ${DEFAULT_VERSION} rules` };
  }
  try {
    return fromText(out.trim(), '`kubelet --version` says');
  } catch (err) {
    return { version: DEFAULT_VERSION, note: `${(err as Error).message}; using the ${DEFAULT_VERSION} rules` };
  }
}
