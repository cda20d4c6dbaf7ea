// `diff UID`: the history of one ConfigMap, each resourceVersion against the one before,
// oldest first — the `git log -p` of a checkpoint UID.

import { CkptError, UsageError } from '../errors.js';
import { resolveUid } from '../store/refs.js';
import { DEFAULT_CONTEXT, compareDocs, type DiffOptions, type FieldChange } from './compare.js';
import type { Decoded } from './decode.js';
import { configMapOf, loadSide, printable, resolveForDiff, withCandidates, type DiffSource, type Side } from './sides.js';
import { unifiedDiff } from './unified.js';

export interface StepSide extends Side {
  label: string;
  /** Why this resourceVersion could not be read, or null. */
  error: string | null;
}

export interface HistoryStep {
  from: StepSide;
  to: StepSide;
  changes: FieldChange[];
  semantic: boolean;
  equal: boolean;
  /** The text diff: kept where the semantic diff could not be made, or for every step with `stepText`. */
  unified: string | null;
  notes: string[];
}

export interface HistoryReport {
  mode: 'history';
  uid: string;
  /** `namespace/name` when a meta file records it. */
  configMap: string | null;
  /** Oldest first, with `assigned`/`last-known-good` markers. */
  versions: { resourceVersion: string; assigned: boolean; lastKnownGood: boolean }[];
  steps: HistoryStep[];
  equal: boolean;
  /** Some resourceVersion could not be read: the run ends with historyFailure's error (exit 3). */
  unreadable: boolean;
  /** Each resourceVersion that could not be read, why, and the code of the error that said so. */
  unread: UnreadVersion[];
  defaults: boolean;
}

export interface UnreadVersion {
  resourceVersion: string;
  error: string;
  code: string;
}

/** A ref that names a UID (or a prefix) alone: not an alias, a path or `UID/RV`. */
export function isBareUid(ref: string): boolean {
  if (['assigned', 'last-known-good', 'lkg', 'local'].includes(ref)) return false;
  return ref !== '' && !ref.includes('/');
}

interface StepInput {
  side: StepSide;
  /** The code of the error that made this resourceVersion unreadable, or null. */
  code: string | null;
  decoded: Decoded;
  bytes: Buffer | null;
  text: string | null;
}

/** Read one resourceVersion for the history; an unreadable one is recorded, not fatal. */
function loadStep(src: DiffSource, uid: string, rv: string, key: string | null): StepInput {
  const ref = `${uid}/${rv}`;
  try {
    const s = loadSide(src, resolveForDiff(src, ref, key));
    return { side: { ref, uid, resourceVersion: rv, path: s.path, label: printable(rv), error: null }, code: null, decoded: s.decoded, bytes: s.bytes, text: s.text };
  } catch (err) {
    if (!(err instanceof CkptError) || err.exitCode === 5) throw err;
    const error = err.message;
    const cp = src.snap.uids.find((u) => u.uid === uid)?.checkpoints.find((c) => c.rv === rv);
    return { side: { ref, uid, resourceVersion: rv, path: cp?.rel ?? ref, label: printable(rv), error }, code: err.code, decoded: { ok: false, error }, bytes: null, text: null };
  }
}

/** `diff UID`: each resourceVersion against the one before it, oldest first. */
export function diffHistory(src: DiffSource, uidRef: string, opts: DiffOptions = {}): HistoryReport {
  const { uid, checkpoints } = withCandidates(src.snap, () => resolveUid(src.snap, uidRef));
  if ((opts.keys?.length ?? 0) > 1) throw new UsageError('a history takes one --key, for all its resourceVersions');
  const key = opts.keys?.[0] ?? null;
  const metaRV = (name: 'assigned' | 'last-known-good'): string | null => {
    try {
      const r = resolveForDiff(src, name, null);
      return r.kind === 'checkpoint' && r.checkpoint.uid === uid ? r.checkpoint.rv : null;
    } catch {
      return null; // a broken meta file only costs the marker here; verify reports it
    }
  };
  const assigned = metaRV('assigned');
  const lkg = metaRV('last-known-good');
  const steps: HistoryStep[] = [];
  const unread: UnreadVersion[] = [];
  // Only two payloads are held at a time, so a long history stays within a few MiB.
  let prev: StepInput | null = null;
  for (const cp of checkpoints) {
    const cur = loadStep(src, uid, cp.rv, key);
    if (cur.side.error) unread.push({ resourceVersion: cp.rv, error: cur.side.error, code: cur.code ?? 'UNREADABLE' });
    if (prev) {
      const sameBytes = !!prev.bytes && !!cur.bytes && prev.bytes.equals(cur.bytes);
      const cmp = compareDocs(
        { label: printable(prev.side.ref), decoded: prev.decoded, readError: prev.side.error },
        { label: printable(cur.side.ref), decoded: cur.decoded, readError: cur.side.error },
        sameBytes,
        opts,
      );
      let unified: string | null = null;
      const notes = [...cmp.notes];
      if ((opts.stepText || !cmp.semantic) && prev.bytes && cur.bytes) {
        const u = unifiedDiff({ label: printable(prev.side.ref), bytes: prev.bytes, text: prev.text }, { label: printable(cur.side.ref), bytes: cur.bytes, text: cur.text }, opts.context ?? DEFAULT_CONTEXT);
        unified = u.text;
        if (u.note) notes.push(u.note);
      }
      steps.push({ from: prev.side, to: cur.side, changes: cmp.changes, semantic: cmp.semantic, equal: cmp.equal, unified, notes });
    }
    prev = cur;
  }
  return {
    mode: 'history',
    uid,
    configMap: configMapOf(src.snap, uid),
    versions: checkpoints.map((c) => ({ resourceVersion: c.rv, assigned: c.rv === assigned, lastKnownGood: c.rv === lkg })),
    steps,
    equal: steps.every((s) => s.equal),
    unreadable: unread.length > 0,
    unread,
    defaults: !!opts.defaults,
  };
}

