// ResourceVersion order within one UID: numeric when every RV is a decimal integer,
// else by mtime, then by name (DESIGN.md "Refs").

import type { Checkpoint } from './snapshot.js';

const DECIMAL = /^[0-9]+$/;

function numericCompare(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** Decimal RVs short enough to be exact as doubles (< 2^53): compared as numbers, no BigInt. */
const SHORT_DECIMAL = /^[0-9]{1,15}$/;

function shortCompare(a: string, b: string): number {
  const d = Number(a) - Number(b);
  return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
}

/** A new array of the checkpoints (all of one UID), oldest first. */
export function orderRVs(cps: readonly Checkpoint[]): Checkpoint[] {
  // The etcd revisions RVs are fit in 15 digits; ordering 10,000 of them through BigInt was a
  // tenth of the TUI's first screen. Same order either way (the test holds them equal).
  if (cps.every((c) => SHORT_DECIMAL.test(c.rv))) return [...cps].sort((a, b) => shortCompare(a.rv, b.rv));
  const numeric = cps.every((c) => DECIMAL.test(c.rv));
  return [...cps].sort((a, b) => {
    if (numeric) return numericCompare(a.rv, b.rv);
    const t = a.entry.mtimeMs - b.entry.mtimeMs;
    if (t !== 0) return t;
    return a.rv < b.rv ? -1 : a.rv > b.rv ? 1 : 0;
  });
}
