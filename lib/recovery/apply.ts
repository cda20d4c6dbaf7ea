// Apply a meta plan: the only code that writes meta files. Under the store's lock it
// re-checks the interlocks and the meta files against the plan, proves the backup
// directory writable, writes the backup and an audit line, then replaces the files in
// the plan's order (last-known-good before assigned) with atomicReplace.

import { SafeDir, using } from '../store/safepath.js';
import { CkptError, EnvError, RefusedError, fsReason } from '../errors.js';
import { atomicRemove, atomicReplace, hintFor, openWriteDir, requireWritable, sameState, ChangedError } from './atomic.js';
import { appendAudit, auditDone, cleanBackupLeftovers, currentActor, discardBackup, ensureBackupsDir, hashOf, writeBackup, type AuditEntry } from './backup.js';
import { findSystemctl, type Systemctl } from './kubelet.js';
import { guarded } from './guard.js';
import type { HeldLock } from './lock.js';
import { staleTemp } from './lock.js';
import { metaDirOf, readMetaStates, type MetaPlan, type RecoveryContext } from './plan.js';
import { metaChanges, type RecoveryResult } from './result.js';
import type { StepHook } from './steps.js';
import { META_NAMES, type MetaName } from '../store/types.js';
import { digest } from './plan.js';

/** Throw the first refusal found while planning (before any prompt or write). */
export function assertAllowed(plan: { refusals: CkptError[] }): void {
  if (plan.refusals.length) throw plan.refusals[0]!;
}

/** With --restart-kubelet: find systemctl first (exit 3 when absent), before anything is done. */
export function systemctlFor(ctx: RecoveryContext, restart: boolean): Systemctl | null {
  return restart ? findSystemctl(ctx.envPath) : null;
}

/**
 * Remove temp files an interrupted kubelet-ckpt left in meta/ (ours only, and only when the
 * process that made them is gone; we hold the lock). The kubelet's own are verify's to report.
 */
function cleanMetaLeftovers(store: string): string[] {
  const out: string[] = [];
  let dir: SafeDir;
  try {
    dir = openWriteDir(metaDirOf(store), 'the meta directory');
  } catch {
    return out;
  }
  return using(dir, (d) => {
    for (const n of d.list()) {
      try {
        const st = d.lstat(n);
        if (!st.isFile() || !staleTemp(n, st.mtimeMs)) continue;
        d.unlink(n);
        out.push(`removed meta/${n}, left by an interrupted kubelet-ckpt`);
      } catch {
        /* verify will keep reporting it */
      }
    }
    if (out.length) d.sync();
    return out;
  });
}

/** The meta files still hold what the plan saw (a failed write changed nothing). */
function unchanged(plan: MetaPlan): boolean {
  try {
    const now = readMetaStates(plan.store);
    return META_NAMES.every((n) => sameState(now[n], plan.states[n]));
  } catch {
    return false;
  }
}

/** Create meta/ when absent (the kubelet would), and make its entry durable. */
function ensureMetaDir(store: string): void {
  try {
    using(SafeDir.open(store), (s) => {
      try {
        s.mkdir('meta', 0o755);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    });
  } catch (err) {
    throw new EnvError(`cannot create ${metaDirOf(store)}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'STORE_UNWRITABLE');
  }
}

/** Apply a meta plan. Throws the first refusal, or a typed error naming what was and was not written. */
export async function applyMetaPlan(ctx: RecoveryContext, plan: MetaPlan): Promise<RecoveryResult> {
  assertAllowed(plan);
  const hook: StepHook = ctx.hook ?? (() => {});
  const now = ctx.now ?? (() => new Date());
  const warnings = [...plan.warnings];
  const result: RecoveryResult = { dryRun: false, changes: metaChanges(plan), backup: null, warnings, command: plan.commandLine, store: plan.store };
  if (plan.restore) result.restored = plan.restore.id;
  if (!plan.writes.length) return result;
  const afterLock = () => {
    warnings.push(...cleanBackupLeftovers(plan.dynamicConfigDir));
    warnings.push(...cleanMetaLeftovers(plan.store));
  };
  const report = await guarded({ ctx, plan, hook, now, warnings, afterLock }, (lock) => writeAll(ctx, plan, result, hook, now, lock));
  if (report) result.kubelet = report;
  hook('end', plan.commandLine);
  return result;
}

async function writeAll(ctx: RecoveryContext, plan: MetaPlan, result: RecoveryResult, hook: StepHook, now: () => Date, lock: HeldLock): Promise<void> {
  // The files must still be what the plan saw (the kubelet may have written since).
  const states = readMetaStates(plan.store);
  for (const n of META_NAMES) {
    if (!sameState(states[n], plan.states[n])) throw new ChangedError(`meta/${n} changed since the plan was made (the kubelet may have written it); nothing was changed`);
  }
  ensureMetaDir(plan.store);
  requireWritable(metaDirOf(plan.store), 'the meta directory');
  ensureBackupsDir(plan.dynamicConfigDir);
  const after = Object.fromEntries(META_NAMES.map((n) => [n, hashOf(states[n])])) as Partial<Record<MetaName, string | null>>;
  for (const w of plan.writes) after[w.name] = digest(w.after);
  const actor = currentActor();
  const backup = writeBackup(plan.dynamicConfigDir, plan.states, { command: plan.commandLine, store: plan.store, user: actor, after }, now(), hook);
  result.backup = backup.path;
  const audit = (event: AuditEntry['event'], error?: string): void =>
    appendAudit(plan.dynamicConfigDir, {
      time: now().toISOString(),
      event,
      command: plan.commandLine,
      backup: backup.id,
      store: plan.store,
      user: actor,
      changes: plan.writes.map((w) => ({ path: w.rel, before: hashOf(w.before), after: digest(w.after) })),
      ...(error ? { error } : {}),
    });
  audit('begin');
  hook('audit-begin', backup.id);
  const done: string[] = [];
  try {
    using(openWriteDir(metaDirOf(plan.store), 'the meta directory'), (dir) => {
      plan.writes.forEach((w, i) => {
        if (i > 0) hook('between-files', w.rel);
        const lockCheck = () => lock.check();
        if (w.after === null) atomicRemove(dir, w.name, { expect: w.before, what: w.rel, hook, lockCheck });
        else atomicReplace(dir, w.name, w.after, { expect: w.before, what: w.rel, hook, simulate: ctx.simulate, create: w.create, owner: w.owner, mtimeMs: w.mtimeMs ?? null, lockCheck });
        done.push(w.rel);
      });
    });
  } catch (err) {
    const e = err instanceof CkptError ? err : new EnvError(String((err as Error)?.message ?? err));
    const left = plan.writes.map((w) => w.rel).filter((r) => !done.includes(r));
    // Nothing written, as the bytes on disk say: its backup would only make a plain undo a no-op.
    const untouched = !done.length && unchanged(plan);
    const discarded = untouched && discardBackup(plan.dynamicConfigDir, backup.id);
    if (discarded) result.backup = null;
    const state = done.length ? `${done.join(' and ')} ${done.length === 1 ? 'was' : 'were'} written, ${left.join(' and ')} not` : `nothing was written${discarded ? `; backup ${backup.id} removed` : ''}`;
    try {
      audit('failed', `${e.message} (${state})`);
    } catch {
      /* the original error matters more */
    }
    const message = done.length ? `${e.message} — ${state}; backup ${backup.id} holds the old files` : e.message;
    const hint = done.length ? `restore them with \`kubelet-ckpt undo ${backup.id}\`, or re-run the command` : e.hint;
    const Cls = e instanceof RefusedError ? RefusedError : EnvError;
    const wrapped = new Cls(message, hint, e.code);
    throw e.exitCode === wrapped.exitCode ? wrapped : e;
  }
  auditDone(() => audit('done'), result.warnings);
  hook('audit-done', backup.id);
}
