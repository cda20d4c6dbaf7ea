// `diff` as a whole: one bare UID is a history, anything else a pair; and what the command
// prints for scripts (DESIGN.md JSON), warns about, and exits with. Nothing is printed here.

import { EnvError, UsageError } from '../errors.js';
import type { DiffOptions } from './compare.js';
import { diffHistory, isBareUid, type HistoryReport } from './history.js';
import { diffRefs, type PairReport } from './pair.js';
import type { Change } from './semantic.js';
import { printable, type DiffSource, type Side } from './sides.js';

export { compareDocs, DEFAULT_CONTEXT, type Comparison, type DiffOptions, type FieldChange } from './compare.js';
export { diffHistory, isBareUid, type HistoryReport, type HistoryStep, type StepSide, type UnreadVersion } from './history.js';
export { diffRefs, type PairReport } from './pair.js';

export type DiffReport = PairReport | HistoryReport;

/**
 * The whole command: one bare UID is a history; otherwise REF is compared with the second
 * ref, or with `assigned`.
 */
export function runDiff(src: DiffSource, refs: readonly string[], opts: DiffOptions = {}): DiffReport {
  if (refs.length === 0 || refs.length > 2) throw new UsageError(`diff takes one or two refs, got ${refs.length}`, 'kubelet-ckpt diff REF [REF]');
  if (opts.labels && opts.labels.length > 2) throw new UsageError('--label may be given at most twice (from, then to)');
  if (opts.keys && opts.keys.length > 2) throw new UsageError('--key may be given at most twice (from, then to)');
  if (refs.length === 1 && isBareUid(refs[0]!)) return diffHistory(src, refs[0]!, opts);
  return diffRefs(src, refs[0]!, refs[1] ?? 'assigned', opts);
}

/** The JSON shape of DESIGN.md: sides and changes only, internal fields dropped. */
export function diffJson(r: DiffReport): unknown {
  const side = (s: Side) => ({ ref: s.ref, uid: s.uid, resourceVersion: s.resourceVersion, path: s.path });
  const change = (c: Change) => ({ path: c.path, op: c.op, from: c.from, to: c.to });
  if (r.mode === 'history') {
    return { uid: r.uid, steps: r.steps.map((s) => ({ from: side(s.from), to: side(s.to), changes: s.changes.map(change) })) };
  }
  return { from: side(r.from), to: side(r.to), changes: r.changes.map(change), unified: r.unified };
}

/** Warnings that JSON output carries on stderr (text output prints them inline). */
export function diffNotes(r: DiffReport): string[] {
  if (r.mode === 'pair') return r.notes.map(printable);
  // Steps say why a side could not be read; a history of one has no step to say it.
  if (r.steps.length === 0) return r.unread.map((u) => printable(`${u.resourceVersion} could not be read: ${u.error}`));
  return r.steps.flatMap((s) => s.notes.map((n) => printable(`${s.from.resourceVersion} -> ${s.to.resourceVersion}: ${n}`)));
}

/**
 * The error a history ends with when some resourceVersion could not be read (exit 3), naming
 * each and why; null when every one was read. Under -o json/yaml it is all the run prints
 * (DESIGN: stdout stays empty); text output prints the steps it could compare first.
 */
export function historyFailure(r: DiffReport): EnvError | null {
  if (r.mode !== 'history' || r.unread.length === 0) return null;
  const why = r.unread.map((u) => `${r.uid}/${u.resourceVersion} could not be read: ${u.error}`);
  const message = why.length === 1 ? why[0]! : `${why.length} of the ${r.versions.length} resourceVersions of ${r.uid} could not be read: ${why.join('; ')}`;
  const codes = new Set(r.unread.map((u) => u.code));
  return new EnvError(
    message,
    'kubelet-ckpt verify reports every unreadable file; two readable versions compare with diff UID/RV UID/RV',
    codes.size === 1 ? r.unread[0]!.code : 'UNREADABLE',
  );
}

/** 0 semantically equal, 1 different, 3 when part of a history could not be read. */
export function diffExitCode(r: DiffReport): number {
  if (r.mode === 'history' && r.unreadable) return 3;
  return r.equal ? 0 : 1;
}
