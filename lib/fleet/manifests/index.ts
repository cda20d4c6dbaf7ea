// `fleet manifest KIND`: the text of a ready-to-use configuration for the engine that runs
// kubelet-ckpt on many nodes.

import { UsageError } from '../../errors.js';
import { npdConfig } from './npd.js';
import { GO_DURATION, type ManifestOptions } from './options.js';

export const MANIFEST_KINDS = ['npd'] as const;
export type ManifestKind = (typeof MANIFEST_KINDS)[number];

function checkOptions(o: ManifestOptions): void {
  for (const [name, v] of [['--interval', o.interval], ['--timeout', o.timeout]] as const) {
    if (!GO_DURATION.test(v)) throw new UsageError(`${name} ${JSON.stringify(v)} is not a Go duration`, 'write it as NPD does: 30s, 1m, 1m30s');
  }
  if (!o.bundle.startsWith('/')) throw new UsageError(`--bundle ${JSON.stringify(o.bundle)} must be an absolute path`, 'NPD resolves relative paths against its own working directory');
}

export function manifest(kind: ManifestKind, o: ManifestOptions): string {
  checkOptions(o);
  switch (kind) {
    case 'npd':
      return `${JSON.stringify(npdConfig(o), null, 2)}\n`;
  }
}
