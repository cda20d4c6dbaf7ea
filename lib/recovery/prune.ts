// prune: remove checkpoints no meta file references (with --keep N, keep the N newest
// unreferenced resourceVersions of each UID as well), and our own interrupted leftovers.
// A checkpoint is moved aside (renamed to tmp_<rv>.kubelet-ckpt-prune.<random> in its
// UID directory, which the kubelet never loads) and only then emptied and removed, so an
// interrupted prune leaves whole checkpoints plus, at most, one tmp_ directory that
// verify reports and the next prune removes. A referenced checkpoint is never touched.

import crypto from 'node:crypto';
import path from 'node:path';
import type fs from 'node:fs';
import { CkptError, EnvError, RefusedError, UsageError, fsReason } from '../errors.js';
import { decodeMetaState } from '../store/meta.js';
import { orderRVs } from '../store/order.js';
import { SafeDir, kindWords, unsafeNameReason, using } from '../store/safepath.js';
import type { Checkpoint, Snapshot } from '../store/snapshot.js';
import { META_NAMES, type MetaName } from '../store/types.js';
import { ChangedError, changedOr, hintFor, isOurTemp, sameState, type FileState } from './atomic.js';
import { appendAudit, auditDone, currentActor, ensureBackupsDir } from './backup.js';
import { guarded } from './guard.js';
import { contentOf, readMetaStates, removalInterlocks, removalWriteBlocks, type Overrides, type RecoveryContext } from './plan.js';
import { refusalText, removalStart, type PruneChange, type RecoveryResult } from './result.js';
import type { StepHook } from './steps.js';

export interface PruneRequest extends Overrides {
  /** Keep this many of the newest unreferenced resourceVersions per UID (default 0). */
  keep: number;
}

export interface PruneItem extends PruneChange {
  uid: string;
  /** The entry's name inside checkpoints/<uid>/ (a resourceVersion or a leftover); '' for the UID dir. */
  name: string;
}

export interface PrunePlan {
  kind: 'prune';
  commandLine: string;
  store: string;
  dynamicConfigDir: string;
  states: Record<MetaName, FileState>;
  /** `UID/RV` of every checkpoint a meta file names. */
  referenced: string[];
  items: PruneItem[];
  warnings: string[];
  refusals: CkptError[];
  overrides: Overrides;
}

/**
 * What the meta files reference, from the bytes on disk now (`states`, the same bytes apply
 * re-checks) and from the snapshot, and why that cannot be told when it cannot (`unclear`): a
 * meta file that cannot be decoded, or names an unsafe ref (`x/../UID` can still name a real
 * checkpoint through the kubelet's path join). prune refuses then; clean moves no checkpoint.
 * Throws what reading the meta files throws (a link, an unreadable file).
 */
export function metaReferences(snap: Snapshot): { states: Record<MetaName, FileState>; referenced: Set<string>; unclear: string | null } {
  const states = readMetaStates(snap.storeDir);
  const referenced = new Set<string>();
  const unclear = (why: string) => ({ states, referenced, unclear: why });
  for (const n of META_NAMES) {
    const c = contentOf(states[n]);
    if (c.kind === 'undecodable') return unclear(`meta/${n} cannot be decoded (${c.error.slice(0, 120)}), so what it references is unknown`);
  }
  for (const n of META_NAMES) {
    const d = decodeMetaState(snap.meta[n]);
    if (d.state === 'error' || d.state === 'unreadable') return unclear(`meta/${n} cannot be decoded (${d.error}), so what it references is unknown`);
    if (d.state === 'source' && d.unsafe.length) return unclear(`meta/${n} names ${d.unsafe[0]!.field} ${JSON.stringify(d.source[d.unsafe[0]!.field]).slice(0, 80)}, which ${d.unsafe[0]!.reason}: what it references is unclear`);
    if (d.state === 'source') {
      referenced.add(`${d.source.uid}/${d.source.resourceVersion}`);
      const link = linkOnTheWay(snap, d.source.uid, d.source.resourceVersion);
      if (link) return unclear(`meta/${n} names checkpoint ${d.source.uid}/${d.source.resourceVersion} through ${link}, which the kubelet follows and kubelet-ckpt does not: which checkpoint it references is unclear`);
    }
  }
  return { states, referenced, unclear: null };
}

/**
 * The symbolic link on the way to checkpoints/UID/RV, in words, or null. The kubelet joins
 * the path and follows links, so a meta file naming `alias/RV` loads the directory the link
 * points at, which no name comparison sees as referenced (found by review: prune removed it).
 */
function linkOnTheWay(snap: Snapshot, uid: string, rv: string): string | null {
  const u = snap.uids.find((x) => x.uid === uid);
  const e = u ? (u.checkpoints.find((c) => c.rv === rv)?.entry ?? u.others.find((o) => o.name === rv)) : snap.checkpointsOthers.find((o) => o.name === uid);
  return e?.kind === 'symlink' ? `${e.rel}, a symbolic link to ${e.linkTarget ?? '?'}` : null;
}

/**
 * meta/ or checkpoints/ that is not a directory read in full, or null: a link or another kind
 * is refused (4: a person makes it a directory again); one that could not be listed (no
 * permission, an I/O error) is the environment's (3). Found by review: prune told a user who
 * could not read checkpoints/ to "make it a real directory again", and clean said there were
 * no leftovers in it.
 */
export function storeDirsRefusal(snap: Snapshot, outcome: string): CkptError | null {
  for (const e of [snap.metaDir, snap.checkpointsDir]) {
    if (e.kind === 'dir' || e.kind === 'missing') continue;
    const what = `store/${e.rel || e.name}`;
    // The snapshot marks a checkpoints/ it did not follow or could not list 'unreadable', with why.
    if (e.kind === 'unreadable' && !/^is (a symbolic link|not a directory)/.test(e.error ?? '')) {
      return new EnvError(`${what} cannot be read (${e.error ?? 'unreadable'}): ${outcome}`, hintFor({ code: /permission/i.test(e.error ?? '') ? 'EACCES' : '' }) ?? 'kubelet-ckpt verify shows what cannot be read', 'STORE_UNREADABLE');
    }
    // The snapshot's reason already reads "is …" (found by review: "is is a symbolic link").
    return new RefusedError(`${what} is ${e.kind === 'symlink' ? `a symbolic link to ${e.linkTarget ?? '?'}` : (e.error ?? 'not a directory').replace(/^is /, '')}: ${outcome}`, 'make it a real directory again (kubelet-ckpt verify shows the problem), then re-run', 'STORE_NOT_REAL');
  }
  return null;
}

function asideName(rv: string): string {
  const base = Buffer.byteLength(rv) > 180 ? rv.slice(0, 60) : rv;
  return `tmp_${base}.kubelet-ckpt-prune.${crypto.randomBytes(4).toString('hex')}`;
}

export async function planPrune(ctx: RecoveryContext, req: PruneRequest): Promise<PrunePlan> {
  const snap = ctx.session.snap;
  if (!Number.isInteger(req.keep) || req.keep < 0) throw new UsageError(`--keep must be a whole number ≥ 0, not ${req.keep}`);
  const dirs = storeDirsRefusal(snap, 'what the meta files reference, or what would be removed, is not known; nothing is pruned');
  if (dirs) throw dirs;
  const { states, referenced, unclear } = metaReferences(snap);
  if (unclear) throw new RefusedError(`${unclear}; nothing is pruned`, 'repair the meta file first (kubelet-ckpt reset), then prune', 'REFERENCES_UNKNOWN');
  const items: PruneItem[] = [];
  const warnings: string[] = [];
  let cps: SafeDir | null = null;
  try {
    cps = using(SafeDir.open(snap.storeDir), (d) => d.dir('checkpoints'));
  } catch {
    /* sizes from the snapshot; the real run says what is wrong */
  }
  try {
    planItems(snap, req, referenced, items, warnings, cps);
  } finally {
    cps?.close();
  }
  const refusals: CkptError[] = [];
  removalInterlocks(ctx, req, refusals, warnings, !items.length);
  removalWriteBlocks(snap.storeDir, items.map((i) => i.path), 'nothing is pruned', refusals);
  return { kind: 'prune', commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, states, referenced: [...referenced].sort(), items, warnings, refusals, overrides: req };
}

/** Each UID's removals, in order: resourceVersions, our leftovers, then the UID directory when nothing stays. */
function planItems(snap: Snapshot, req: PruneRequest, referenced: ReadonlySet<string>, items: PruneItem[], warnings: string[], cps: SafeDir | null): void {
  for (const u of snap.uids) {
    const why = unsafeNameReason(u.uid);
    if (why || u.listError) {
      warnings.push(`not pruned: checkpoints/${u.uid.slice(0, 80)}: ${why ? `the name ${why}` : u.listError}`);
      continue;
    }
    // --keep counts resourceVersion directories; a symlink in their place is never one of them.
    // Ordered among all of the UID's resourceVersions (numeric only when all are, DESIGN), as ls
    // orders them, then the referenced ones left out (found by review: ordering the rest alone
    // switched to numeric order when the referenced RV was the only non-numeric one).
    const unref = orderRVs(u.checkpoints).filter((c) => !referenced.has(`${c.uid}/${c.rv}`));
    const dirs = unref.filter((c) => c.entry.kind === 'dir');
    const kept = new Set(dirs.slice(Math.max(0, dirs.length - req.keep)));
    const doomed = unref.filter((c) => !kept.has(c));
    let removedAll = doomed.length === u.checkpoints.length;
    for (const cp of doomed) {
      const bad = notPrunable(cp);
      if (bad) {
        warnings.push(`not pruned: ${cp.rel} ${bad}; inspect it and remove it by hand`);
        removedAll = false;
        continue;
      }
      const bytes = bytesIn(cps, cp.uid, cp.rv, cp.files.reduce((n, f) => n + f.size, 0));
      items.push({ path: cp.rel, before: `${cp.uid}/${cp.rv}`, after: null, kind: 'checkpoint', files: cp.files.map((f) => f.name), bytes, uid: cp.uid, name: cp.rv });
    }
    // A meta file may name even a resourceVersion that looks like our temp name: the kubelet loads it, so it stays (found by review).
    const others = u.others.filter((o) => isOurTemp(o.name) && o.kind === 'dir' && !referenced.has(`${u.uid}/${o.name}`));
    for (const o of u.others) if (isOurTemp(o.name) && referenced.has(`${u.uid}/${o.name}`)) warnings.push(`not pruned: ${o.rel} is a checkpoint a meta file names, although its name looks like a leftover of kubelet-ckpt`);
    for (const o of others) items.push({ path: o.rel, before: o.name, after: null, kind: 'leftover', files: [], bytes: bytesIn(cps, u.uid, o.name, 0), uid: u.uid, name: o.name });
    if (removedAll && u.others.length === others.length && u.checkpoints.length > 0) {
      items.push({ path: u.entry.rel, before: u.uid, after: null, kind: 'uid-dir', files: [], bytes: 0, uid: u.uid, name: '' });
    }
  }
}

function changeOf(i: PruneItem): PruneChange {
  return { path: i.path, before: i.before, after: null, kind: i.kind, files: i.files, bytes: i.bytes };
}

export function previewPrune(plan: PrunePlan): RecoveryResult {
  const r: RecoveryResult = {
    dryRun: true,
    changes: plan.items.map(changeOf),
    backup: null,
    warnings: [...plan.warnings],
    freedBytes: plan.items.reduce((n, i) => n + i.bytes, 0),
    command: plan.commandLine,
    store: plan.store,
  };
  if (plan.refusals.length) r.wouldRefuse = plan.refusals.map(refusalText);
  return r;
}

/**
 * The bytes a file frees when this name goes: its size when it has no other name; a hard link
 * frees nothing (found by review: prune said "freed 3B" of a file linked from outside the
 * store, which stayed there whole).
 */
const freedBy = (st: fs.Stats): number => (st.isFile() && st.nlink === 1 ? st.size : 0);

/** Empty and remove a moved-aside checkpoint; it holds only regular files (checked again here). The bytes freed. */
function removeAside(uidDir: SafeDir, name: string): number {
  let freed = 0;
  using(uidDir.dir(name), (d) => {
    for (const n of d.list()) {
      const st = d.lstat(n);
      if (!st.isFile()) throw new RefusedError(`${path.join(d.path, n)} is ${kindWords(st)}, not a regular file; left in place`, 'inspect it and remove it by hand', 'PRUNE_UNEXPECTED');
      d.unlink(n);
      freed += freedBy(st);
    }
  });
  uidDir.rmdir(name);
  return freed;
}

/**
 * What removing checkpoints/<uid>/<name> would free, for the plan: its regular files that have
 * no other name. A leftover of an interrupted prune holds a whole checkpoint (it counted 0,
 * found by review). `fallback` when it cannot be looked at now (the real run then says).
 */
function bytesIn(cps: SafeDir | null, uid: string, name: string, fallback: number): number {
  if (!cps) return fallback;
  try {
    return using(cps.dir(uid), (u) =>
      using(u.dir(name), (d) => d.list().reduce((n, f) => {
        try {
          return n + freedBy(d.lstat(f));
        } catch {
          return n;
        }
      }, 0)),
    );
  } catch {
    return fallback;
  }
}

export async function applyPrune(ctx: RecoveryContext, plan: PrunePlan): Promise<RecoveryResult> {
  const { hook, now, warnings, result } = removalStart(ctx, plan);
  if (!plan.items.length) return result;
  const actor = currentActor();
  const report = await guarded({ ctx, plan, hook, now, warnings }, (lock) => {
    ensureBackupsDir(plan.dynamicConfigDir);
    const audit = (event: 'begin' | 'done' | 'failed', error?: string) =>
      appendAudit(plan.dynamicConfigDir, {
        time: now().toISOString(),
        event,
        command: plan.commandLine,
        backup: null,
        store: plan.store,
        user: actor,
        changes: (event === 'begin' ? plan.items.map(changeOf) : result.changes).map((c) => ({ path: c.path, before: c.before, after: null })),
        freedBytes: result.freedBytes ?? 0,
        ...(error ? { error } : {}),
      });
    audit('begin');
    hook('audit-begin', plan.commandLine);
    try {
      for (const item of plan.items) {
        // Never remove what a meta file references now: re-read them before every removal.
        const states = readMetaStates(plan.store);
        for (const n of META_NAMES) {
          if (!sameState(states[n], plan.states[n])) throw new ChangedError(`meta/${n} changed while pruning (the kubelet may have written it); stopped`);
        }
        lock.check();
        const freed = removeItem(plan, item, hook);
        if (freed === null) {
          // Found by review: it was reported removed (changes, audit, bytes freed) while it stayed.
          warnings.push(`${item.path} was not removed: something was written into it while pruning (the kubelet may have); it is kept`);
          continue;
        }
        result.changes.push({ ...changeOf(item), bytes: freed });
        result.freedBytes = (result.freedBytes ?? 0) + freed;
      }
    } catch (err) {
      const e = err instanceof CkptError ? err : changedOr(err, new EnvError(`prune failed: ${fsReason(err)}`, hintFor(err), 'PRUNE_FAILED'));
      try {
        audit('failed', e.message);
      } catch {
        /* keep the first error */
      }
      const note = result.changes.length ? ` (${result.changes.length} removed before that, ${result.freedBytes} bytes freed)` : ' (nothing removed)';
      const Cls = e instanceof RefusedError ? RefusedError : EnvError;
      throw e.exitCode === 4 || e.exitCode === 3 ? new Cls(`${e.message}${note}`, e.hint, e.code) : e;
    }
    auditDone(() => audit('done'), result.warnings, false);
    hook('audit-done', plan.commandLine);
  });
  if (report) result.kubelet = report;
  hook('end', plan.commandLine);
  return result;
}

/** Remove one planned item: the bytes it freed; null when a UID directory is no longer empty and stays. */
function removeItem(plan: PrunePlan, item: PruneItem, hook: StepHook): number | null {
  // Each component opened without following a link: a UID directory swapped for a symlink
  // stops the prune instead of removing whatever it points at.
  let cps: SafeDir;
  try {
    cps = using(SafeDir.open(plan.store), (s) => s.dir('checkpoints'));
  } catch (err) {
    throw new ChangedError(`checkpoints/ is no longer a directory (${fsReason(err)}); stopped`);
  }
  return using(cps, (c) => {
    let uidDir: SafeDir;
    try {
      uidDir = c.dir(item.uid);
    } catch (err) {
      throw new ChangedError(`checkpoints/${item.uid} is no longer a directory (${fsReason(err)}); stopped`);
    }
    if (item.kind === 'uid-dir') {
      uidDir.close();
      try {
        c.rmdir(item.uid);
        c.sync();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        return null;
      }
      return 0;
    }
    return using(uidDir, (u) => {
      const s = u.lstatIfAny(item.name);
      if (!s?.isDirectory()) throw new ChangedError(`${item.path} is no longer a directory; stopped`);
      let aside = item.name;
      if (item.kind === 'checkpoint') {
        aside = asideName(item.name);
        u.rename(item.name, aside);
        u.sync();
        hook('moved-aside', item.path);
      }
      const freed = removeAside(u, aside);
      u.sync();
      hook('removed', item.path);
      return freed;
    });
  });
}

/** Why a checkpoint is left for a person to remove (it is not a plain directory of regular files), or null. */
function notPrunable(cp: Checkpoint): string | null {
  const unsafe = unsafeNameReason(cp.rv);
  if (unsafe) return unsafe;
  const e = cp.entry;
  if (e.kind === 'symlink') return `is a symbolic link to ${e.linkTarget ?? '?'}`;
  if (e.kind === 'missing') return 'is gone';
  if (e.kind === 'unreadable') return `is not examined (${e.error ?? 'cannot be read'})`;
  if (e.kind !== 'dir') return 'is not a directory';
  if (cp.listError) return `cannot be listed (${cp.listError})`;
  if (cp.others.length) return `holds ${cp.others.map((o) => `${o.name} (${o.kind})`).join(', ')}, not only regular files`;
  return null;
}
