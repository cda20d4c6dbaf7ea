// Before → after of one node file, as a unified diff (diff's engine), for --dry-run and refusals.

import { asText, unifiedDiff } from '../diff/unified.js';
import type { FileState } from '../recovery/atomic.js';

export function diffBytes(label: string, before: Buffer | null, after: Buffer | null): string {
  const a = before ?? Buffer.alloc(0);
  const b = after ?? Buffer.alloc(0);
  const text = unifiedDiff({ label: before ? label : '/dev/null', bytes: a, text: asText(a) }, { label: after ? label : '/dev/null', bytes: b, text: asText(b) }, 3).text;
  return text;
}

export function diffFiles(label: string, before: FileState, after: Buffer | null): string {
  return diffBytes(label, before.kind === 'file' ? before.bytes : null, after);
}
