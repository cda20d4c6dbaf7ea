// `diff REF [REF]`: two configs, semantic changes plus the unified text diff.

import { DEFAULT_CONTEXT, compareDocs, type DiffOptions, type FieldChange } from './compare.js';
import { loadSide, printable, resolveForDiff, sameSource, type DiffSource, type LoadedSide } from './sides.js';
import { unifiedDiff } from './unified.js';

export interface PairReport {
  mode: 'pair';
  from: LoadedSide;
  to: LoadedSide;
  changes: FieldChange[];
  unified: string;
  semantic: boolean;
  equal: boolean;
  /** The two files hold the same bytes. */
  identicalBytes: boolean;
  /** Both refs name the same file (e.g. `diff 5808539f/42315` when that is assigned). */
  sameSource: boolean;
  defaults: boolean;
  notes: string[];
}

/** `diff REF [REF]`: from the first ref to the second (default `assigned`). */
export function diffRefs(src: DiffSource, fromRef: string, toRef: string, opts: DiffOptions = {}): PairReport {
  const keys = opts.keys ?? [];
  const ra = resolveForDiff(src, fromRef, keys[0] ?? null);
  const rb = resolveForDiff(src, toRef, keys[keys.length - 1] ?? null);
  const from = loadSide(src, ra, opts.labels?.[0]);
  const to = loadSide(src, rb, opts.labels?.[1]);
  const identicalBytes = from.bytes.equals(to.bytes);
  const cmp = compareDocs(from, to, identicalBytes, opts);
  const u = unifiedDiff(from, to, opts.context ?? DEFAULT_CONTEXT);
  const same = sameSource(ra, rb);
  const notes = [...(same ? [`both refs name the same file (${printable(from.path)}): nothing to compare`] : []), ...cmp.notes, ...(u.note ? [u.note] : [])];
  return {
    mode: 'pair',
    from,
    to,
    changes: cmp.changes,
    unified: u.text,
    semantic: cmp.semantic,
    equal: cmp.equal,
    identicalBytes,
    sameSource: same,
    defaults: !!opts.defaults,
    notes,
  };
}

