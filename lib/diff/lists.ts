// Element-level view of a changed list, for text output: which elements went, which came,
// which stayed (a list is still one change in the report; this only helps people read it).

import { diffArrays } from 'diff';
import { deepEqual, type Value } from './value.js';

export interface ListEdit {
  op: 'same' | 'added' | 'removed';
  value: Value;
}

/** Beyond this many edits the LCS search costs more than it helps: show all out, all in. */
const MAX_EDITS = 2000;

export function listEdits(from: readonly Value[], to: readonly Value[]): ListEdit[] {
  const parts = diffArrays<Value>([...from], [...to], { comparator: deepEqual, maxEditLength: MAX_EDITS });
  if (!parts) return [...from.map((value) => ({ op: 'removed' as const, value })), ...to.map((value) => ({ op: 'added' as const, value }))];
  const out: ListEdit[] = [];
  for (const p of parts) {
    const op = p.added ? 'added' : p.removed ? 'removed' : 'same';
    for (const value of p.value) out.push({ op, value });
  }
  return out;
}
