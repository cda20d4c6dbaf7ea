// ResourceVersion order within one UID: numeric when every RV is a decimal integer,
// else by mtime, then by name (DESIGN.md "Refs").

import type { Checkpoint } from './snapshot.js';

const DECIMAL = /^[0-9]+$/;

function numericCompare(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** A new array of the checkpoints (all of one UID), oldest first. */
export function orderRVs(cps: readonly Checkpoint[]): Checkpoint[] {
  const numeric = cps.every((c) => DECIMAL.test(c.rv));
  return [...cps].sort((a, b) => {
    if (numeric) return numericCompare(a.rv, b.rv);
    const t = a.entry.mtimeMs - b.entry.mtimeMs;
    if (t !== 0) return t;
    return a.rv < b.rv ? -1 : a.rv > b.rv ? 1 : 0;
  });
}
