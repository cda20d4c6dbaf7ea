// The result of reset / rollback / undo / prune, in the JSON shape of DESIGN.md:
// {"dryRun", "changes": [{"path","before","after"}], "backup", "warnings"} (+ "freedBytes"
// for prune). Extra fields are additions, never renames.

import type { CkptError } from '../errors.js';
import { bytesContent, contentOf, describeContent, digest, type MetaPlan } from './plan.js';
import type { RestartReport } from './kubelet.js';
import type { StepHook } from './steps.js';

export interface MetaChange {
  /** Relative to the store: `meta/assigned`. */
  path: string;
  /** The file's text before (null: no file). */
  before: string | null;
  /** The exact text written (null: the file is removed). */
  after: string | null;
  beforeSha256: string | null;
  afterSha256: string | null;
  /** For people: what each side means to the kubelet. */
  from: string;
  to: string;
}

export interface PruneChange {
  /** Relative to the store: `checkpoints/UID/RV`. */
  path: string;
  /** `UID/RV` for a checkpoint; the entry name for a leftover or an emptied UID directory. */
  before: string;
  after: null;
  kind: 'checkpoint' | 'leftover' | 'uid-dir';
  files: string[];
  bytes: number;
  /** For people, when the kind alone does not say it (clean: who left the leftover). */
  note?: string;
}

export interface RecoveryResult {
  dryRun: boolean;
  changes: (MetaChange | PruneChange)[];
  /** The backup made before writing (null: dry run, nothing to do, or prune). */
  backup: string | null;
  warnings: string[];
  /** prune only */
  freedBytes?: number;
  command: string;
  store: string;
  /** undo: the backup restored. */
  restored?: string | null;
  /** --restart-kubelet: what systemctl did. */
  kubelet?: RestartReport | null;
  /** Set when the real run would refuse (dry run only): the refusals, as messages. */
  wouldRefuse?: string[];
}

export function metaChanges(plan: MetaPlan): MetaChange[] {
  return plan.writes.map((w) => {
    const before = w.before.kind === 'file' ? w.before.bytes : null;
    return {
      path: w.rel,
      before: before === null ? null : before.toString('utf8'),
      after: w.after === null ? null : w.after.toString('utf8'),
      beforeSha256: digest(before),
      afterSha256: digest(w.after),
      from: describeContent(contentOf(w.before)),
      to: describeContent(bytesContent(w.after)),
    };
  });
}

export function refusalText(e: CkptError): string {
  return `${e.message}${e.hint ? ` (${e.hint})` : ''}`;
}

/** What --dry-run prints for a meta plan: the exact bytes, and what the real run would refuse. */
export function previewMeta(plan: MetaPlan): RecoveryResult {
  const r: RecoveryResult = {
    dryRun: true,
    changes: metaChanges(plan),
    backup: null,
    warnings: [...plan.warnings],
    command: plan.commandLine,
    store: plan.store,
  };
  if (plan.restore) r.restored = plan.restore.id;
  if (plan.refusals.length) r.wouldRefuse = plan.refusals.map(refusalText);
  return r;
}

/** What prune and clean start their apply with: the result to fill in, and the context's hooks. */
export function removalStart(ctx: { hook?: StepHook | undefined; now?: (() => Date) | undefined }, plan: { refusals: CkptError[]; warnings: string[]; commandLine: string; store: string }): { hook: StepHook; now: () => Date; warnings: string[]; result: RecoveryResult } {
  if (plan.refusals.length) throw plan.refusals[0]!;
  const warnings = [...plan.warnings];
  return {
    hook: ctx.hook ?? (() => {}),
    now: ctx.now ?? (() => new Date()),
    warnings,
    result: { dryRun: false, changes: [], backup: null, warnings, freedBytes: 0, command: plan.commandLine, store: plan.store },
  };
}
