// The finding record every check produces (DESIGN.md "Integrity checks").

import { compareText } from '../text-order.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Finding {
  severity: Severity;
  code: string;
  message: string;
  /** Relative to the store, or null. */
  path: string | null;
  /** `UID/RV`, `assigned`, `last-known-good`, or null. */
  ref: string | null;
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function bySeverity(a: Finding, b: Finding): number {
  return RANK[a.severity] - RANK[b.severity] || compareText(a.path ?? '', b.path ?? '') || compareText(a.code, b.code);
}

export function countBySeverity(fs: readonly Finding[]): Record<Severity, number> {
  const c = { error: 0, warning: 0, info: 0 };
  for (const f of fs) c[f.severity]++;
  return c;
}
