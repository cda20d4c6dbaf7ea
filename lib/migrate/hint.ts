// status's upgrade hint: cheap, from what status already holds (the kubelet's command line
// and the next boot); `upgrade-check` has the detail.

import type { BootSource } from '../integrity/nextboot.js';
import { flagValue } from '../store/proc.js';

/**
 * status's one-line hint, from what status already holds (the command line and the next
 * boot): a node still on --dynamic-config-dir breaks at 1.24, loudly or silently.
 */
export function upgradeHint(argv: readonly string[], source: BootSource): string | null {
  if (flagValue(['kubelet', ...argv], 'dynamic-config-dir') === null) return null;
  const silent = source === 'assigned' || source === 'last-known-good' ? '; without the flag it silently drops the checkpoint' : '';
  return `1.24+ exits on --dynamic-config-dir${silent} (kubelet-ckpt upgrade-check)`;
}
