// status's upgrade hint: cheap, from what status already holds (the kubelet's command line
// and the next boot); `upgrade-check` has the detail.

import type { BootSource } from '../integrity/nextboot.js';
import { flagValue } from '../store/proc.js';

/**
 * status's one-line hint, from what status already holds (the command line and the next
 * boot): a node still on --dynamic-config-dir breaks at 1.24, loudly or silently.
 */
export function upgradeHint(argv: readonly string[], source: BootSource): string | null {
  if (flagValue(['kubelet', ...argv], 'dynamic-config-dir') === null) {
    // The gate alone: 1.24/1.25 refuse it set to true, 1.26+ refuse it at all.
    const gates = argv.filter((a, i) => /^--feature[-_]gates(=|$)/.test(a) && /DynamicKubeletConfig/.test(a.includes('=') ? a : argv[i + 1] ?? ''));
    return gates.length ? '--feature-gates still names DynamicKubeletConfig: 1.26+ (1.24+ if true) exits (kubelet-ckpt upgrade-check)' : null;
  }
  const silent = source === 'assigned' || source === 'last-known-good' ? '; without the flag it silently drops the checkpoint' : '';
  return `1.24+ exits on --dynamic-config-dir${silent} (kubelet-ckpt upgrade-check)`;
}
