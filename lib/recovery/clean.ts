// clean: remove the tmp_* leftovers of interrupted writes that verify reports (TMP_LEFTOVER):
// the kubelet's own (a meta file or a checkpoint it was replacing when it died) and ours.
// Nothing is deleted: each leftover is moved (renamed, so mode, owner and mtime stay) into a
// backup, <dynamic-config-dir>/.kubelet-ckpt/backups/<id>/leftovers/<n>, whose manifest is
// durable before the first move; `undo <id>` moves them back. Under the store lock, with the
// kubelet interlock and the audit log, like the other recovery commands.

import path from 'node:path';
import { CkptError, EnvError, RefusedError, fsReason } from '../errors.js';
import { SafeDir, using } from '../store/safepath.js';
import { placeOf as whereIs, samePlace, type Place } from '../store/mounts.js';
import type { Entry } from '../store/snapshot.js';
import { metaSources } from '../store/refs.js';
import { metaReferences, storeDirsRefusal } from './prune.js';
import { ChangedError, changedOr, hintFor, isOurTemp, tempName, writeBlock } from './atomic.js';
import { appendAudit, auditDone, otherStoreCheck, backupId, backupsDirOf, currentActor, discardBackup, ensureBackupsDir, openBackups, stateDirOf, type Manifest } from './backup.js';
import { guarded } from './guard.js';
import { openSub } from './lock.js';
import { removalInterlocks, removalWriteBlocks, type Overrides, type RecoveryContext } from './plan.js';
import { refusalText, removalStart, type PruneChange, type RecoveryResult } from './result.js';
import type { StepHook } from './steps.js';

/** One leftover: where it is (store-relative) and what it holds. */
export interface Leftover {
  path: string;
  kind: 'file' | 'dir';
  /** The regular files inside a directory leftover. */
  files: string[];
  bytes: number;
  by: 'kubelet' | 'kubelet-ckpt';
  /** Identity seen while planning: apply moves only this very entry. */
  ino: number;
}

/** Where a moved leftover went, inside its backup. */
export interface MovedEntry {
  from: string;
  to: string;
  kind: 'file' | 'dir';
}

export interface LeftoverManifest extends Manifest {
  moved: MovedEntry[];
}

export interface CleanPlan {
  kind: 'clean';
  commandLine: string;
  store: string;
  dynamicConfigDir: string;
  items: Leftover[];
  warnings: string[];
  refusals: CkptError[];
  overrides: Overrides;
}

/** The directory that holds a store-relative entry, opened one component at a time (no link followed). */
function parentOf(store: string, rel: string): { dir: SafeDir; name: string } {
  const parts = rel.split('/');
  const name = parts.pop()!;
  return { dir: using(SafeDir.open(store), (top) => top.walk(parts)), name };
}

/** A leftover's contents; a directory may hold only regular files (what the kubelet writes). */
function inspect(store: string, e: Entry): { item?: Leftover; why?: string } {
  let parent: { dir: SafeDir; name: string };
  try {
    parent = parentOf(store, e.rel);
  } catch (err) {
    return { why: fsReason(err) };
  }
  return using(parent.dir, (d) => {
    const st = d.lstatIfAny(parent.name);
    if (!st) return { why: 'is gone' };
    const by = isOurTemp(e.name) ? 'kubelet-ckpt' : 'kubelet';
    if (st.isFile()) return { item: { path: e.rel, kind: 'file', files: [], bytes: st.size, by, ino: st.ino } };
    if (!st.isDirectory()) return { why: `is ${st.isSymbolicLink() ? 'a symbolic link' : 'a special file'}, which no interrupted write leaves` };
    const files: string[] = [];
    let bytes = 0;
    try {
      const found = using(d.dir(parent.name), (sub) => {
        for (const name of sub.list()) {
          const fst = sub.lstat(name);
          if (!fst.isFile()) return `holds ${JSON.stringify(name)}, which is not a regular file`;
          files.push(name);
          bytes += fst.size;
        }
        return null;
      });
      if (found) return { why: found };
    } catch (err) {
      return { why: `cannot be listed (${fsReason(err)})` };
    }
    return { item: { path: e.rel, kind: 'dir', files: files.sort(), bytes, by, ino: st.ino } };
  });
}

export function planClean(ctx: RecoveryContext, req: Overrides): CleanPlan {
  const snap = ctx.session.snap;
  const entries = [...snap.metaOthers, ...snap.uids.flatMap((u) => u.others)].filter((e) => e.name.startsWith('tmp_'));
  const items: Leftover[] = [];
  const warnings: string[] = [];
  // A checkpoint a meta file names is the kubelet's to load, whatever its resourceVersion
  // looks like (found by review: an RV `tmp_1` read as a leftover, and would have been moved out).
  const sources = metaSources(snap);
  // As prune decides it: a meta file that cannot be decoded, or names a checkpoint through an
  // unsafe key or a link, leaves what it references unclear, and then no tmp_ entry under
  // checkpoints/ is moved (found by review: an RV tmp_2abc that a symlinked meta/assigned named was).
  let unclear: string | null;
  let referenced = new Set<string>();
  try {
    ({ referenced, unclear } = metaReferences(snap));
  } catch (err) {
    unclear = err instanceof CkptError ? err.message : String(err);
  }
  for (const e of entries) {
    const [top, uid, rv] = e.rel.split('/');
    const cp = { uid: uid ?? '', rv: rv ?? '' };
    if (top === 'checkpoints' && (sources.names(cp) || referenced.has(`${cp.uid}/${cp.rv}`))) {
      warnings.push(`not removed: ${e.rel} is the checkpoint ${sources.of(cp) ? `meta/${sources.of(cp)!.name}` : 'a meta file'} names (a resourceVersion that starts with tmp_), which the kubelet loads`);
      continue;
    }
    if (top === 'checkpoints' && unclear !== null) {
      warnings.push(`not removed: ${e.rel}: ${unclear}, and it could be the checkpoint named; repair the meta file first (kubelet-ckpt reset)`);
      continue;
    }
    const r = inspect(snap.storeDir, e);
    if (r.item) items.push(r.item);
    else warnings.push(`not removed: ${e.rel} ${r.why}; inspect it and remove it by hand`);
  }
  const refusals: CkptError[] = [];
  const dirs = storeDirsRefusal(snap, 'the leftovers in it were not looked for; nothing was moved');
  if (dirs) refusals.push(dirs);
  const apart = items.length ? otherFileSystem(snap.storeDir, snap.dynamicConfigDir, items) : null;
  if (apart) refusals.push(new EnvError(`${apart}: clean moves leftovers into its backup by renaming them, which cannot cross file systems; nothing was moved`, 'remove the leftovers by hand (kubelet-ckpt verify lists them), or put the backups on the store\'s file system', 'CROSS_FILESYSTEM'));
  // A running kubelet may be in the middle of the very write whose temp file this is.
  removalInterlocks(ctx, req, refusals, warnings, !items.length);
  removalWriteBlocks(snap.storeDir, items.map((i) => i.path), 'nothing was moved', refusals);
  return { kind: 'clean', commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, items, warnings, refusals, overrides: req };
}

/**
 * Why the leftovers cannot be renamed into the backups directory (a mount on .kubelet-ckpt, on
 * the store or on a directory inside it, a bind mount of the same file system too), or null:
 * the dry run then says so and exits as the real run would (found by review: rename failed with
 * EXDEV after the dry run said 0). Where the backups directory is not made yet, the directory
 * it would be made in decides.
 */
function otherFileSystem(store: string, dynamicConfigDir: string, items: readonly Leftover[]): string | null {
  let into: { path: string; at: Place } | null = null;
  for (const p of [backupsDirOf(dynamicConfigDir), stateDirOf(dynamicConfigDir), dynamicConfigDir]) {
    const at = whereIs(p);
    if (at) {
      into = { path: p, at };
      break;
    }
  }
  if (!into) return null;
  for (const from of new Set(items.map((i) => path.dirname(path.join(store, i.path))))) {
    const at = whereIs(from);
    if (at && !samePlace(at, into.at)) return `${from} and ${into.path} are on different file systems or mounts`;
  }
  return null;
}

function changeOf(i: Leftover): PruneChange {
  const what = i.kind === 'dir' ? `a directory of ${i.files.length} file${i.files.length === 1 ? '' : 's'}, ${i.bytes} bytes` : `${i.bytes} bytes`;
  return { path: i.path, before: i.path, after: null, kind: 'leftover', files: i.files, bytes: i.bytes, note: `${what}, left by ${i.by === 'kubelet' ? 'the kubelet' : 'kubelet-ckpt'}` };
}

export function previewClean(plan: CleanPlan): RecoveryResult {
  const r: RecoveryResult = { dryRun: true, changes: plan.items.map(changeOf), backup: null, warnings: [...plan.warnings], freedBytes: plan.items.reduce((n, i) => n + i.bytes, 0), command: plan.commandLine, store: plan.store };
  if (plan.refusals.length) r.wouldRefuse = plan.refusals.map(refusalText);
  return r;
}

/**
 * Make the (empty) backup the leftovers move into: manifest first, durable, then renamed into
 * place. Its leftovers directory comes back open, reached through the descriptor of the
 * directory made here: no name is looked up again, so a backup swapped for a link (or moved)
 * after it was made cannot lead the moves elsewhere (found by review: a racer's link under
 * backups/ received the store's files).
 */
function makeLeftoverBackup(plan: CleanPlan, now: Date): { id: string; dir: string; leftovers: SafeDir } {
  const backups = ensureBackupsDir(plan.dynamicConfigDir);
  return using(openBackups(plan.dynamicConfigDir, true)!, (d) => {
    let t = now.getTime();
    while (d.lstatIfAny(backupId(new Date(t)))) t += 1;
    const id = backupId(new Date(t));
    const tmp = tempName(id);
    const manifest: LeftoverManifest = {
      id, time: new Date(t).toISOString(), command: plan.commandLine, store: plan.store, user: currentActor(), files: [], after: {},
      moved: plan.items.map((i, n) => ({ from: i.path, to: `leftovers/${n}`, kind: i.kind })),
    };
    let leftovers: SafeDir | null = null;
    try {
      d.mkdir(tmp);
      using(d.dir(tmp), (b) => {
        b.mkdir('leftovers');
        leftovers = b.dir('leftovers');
        b.writeNew('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
        b.sync();
      });
      d.rename(tmp, id);
      d.sync();
    } catch (err) {
      (leftovers as SafeDir | null)?.close();
      // A half-made tmp_ backup is ours: the next recovery command removes it (cleanBackupLeftovers).
      throw new EnvError(`cannot write the backup ${path.join(backups, id)}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'BACKUP_FAILED');
    }
    return { id, dir: path.join(backups, id), leftovers: leftovers! };
  });
}

/**
 * Move one store entry into `dest` (or back): rename(2) between two opened directories, so no
 * link swapped in meanwhile can lead the rename elsewhere; `ino` (when given) must still be
 * the entry planned. Both directories are fsynced.
 */
function moveBetween(from: { dir: SafeDir; name: string }, to: { dir: SafeDir; name: string }, ino: number | null, what: string): void {
  if (ino !== null && from.dir.lstatIfAny(from.name)?.ino !== ino) throw new ChangedError(`${what} changed while cleaning (the kubelet may have written it); stopped`);
  from.dir.rename(from.name, to.name, to.dir);
  from.dir.sync();
  to.dir.sync();
}

/**
 * backups/<id>/leftovers of a clean backup, reached from the dynamic-config directory one name
 * at a time without following links (a backup swapped for a link is refused, never followed).
 */
function leftoversDir(dynamicConfigDir: string, id: string): SafeDir {
  const backups = openBackups(dynamicConfigDir, false);
  if (!backups) throw Object.assign(new Error(`${backupsDirOf(dynamicConfigDir)} is gone`), { code: 'ENOENT' });
  const sub = (d: SafeDir, name: string): SafeDir => {
    const o = openSub(d, name, false);
    if (!o) throw Object.assign(new Error(`${path.join(d.path, name)} is gone`), { code: 'ENOENT' });
    return o;
  };
  return using(backups, (d) => using(sub(d, id), (b) => sub(b, 'leftovers')));
}

export async function applyClean(ctx: RecoveryContext, plan: CleanPlan): Promise<RecoveryResult> {
  const { hook, now, warnings, result } = removalStart(ctx, plan);
  if (!plan.items.length) return result;
  const actor = currentActor();
  const report = await guarded({ ctx, plan, hook, now, warnings }, () => {
    const backup = makeLeftoverBackup(plan, now());
    result.backup = backup.dir;
    const audit = (event: 'begin' | 'done' | 'failed', error?: string) =>
      appendAudit(plan.dynamicConfigDir, { time: now().toISOString(), event, command: plan.commandLine, backup: backup.dir, store: plan.store, user: actor, changes: plan.items.map((i) => ({ path: i.path, before: i.path, after: null })), freedBytes: result.freedBytes ?? 0, ...(error ? { error } : {}) });
    const into = backup.leftovers;
    try {
      audit('begin');
      hook('audit-begin', plan.commandLine);
      plan.items.forEach((item, n) => {
        const src = parentOf(plan.store, item.path);
        try {
          moveBetween(src, { dir: into, name: String(n) }, item.ino, item.path);
        } finally {
          src.dir.close();
        }
        hook('moved-aside', item.path);
        result.changes.push(changeOf(item));
        result.freedBytes = (result.freedBytes ?? 0) + item.bytes;
      });
    } catch (err) {
      const e = err instanceof CkptError ? err : changedOr(err, new EnvError(`clean failed: ${fsReason(err)}`, hintFor(err), 'CLEAN_FAILED'));
      // Nothing moved: its backup holds nothing to put back, and would be the latest undo restores.
      if (!result.changes.length && discardBackup(plan.dynamicConfigDir, backup.id)) result.backup = null;
      try {
        audit('failed', e.message);
      } catch {
        /* keep the first error */
      }
      throw e;
    } finally {
      into.close();
    }
    auditDone(() => audit('done'), result.warnings);
    hook('audit-done', plan.commandLine);
  });
  if (report) result.kubelet = report;
  hook('end', plan.commandLine);
  return result;
}

// ---- undo of a clean ------------------------------------------------------------------------

/** The leftovers a clean backup holds, when `manifest` is one (else null). */
export function movedOf(manifest: Manifest): MovedEntry[] | null {
  const moved = (manifest as Partial<LeftoverManifest>).moved;
  return Array.isArray(moved) ? moved : null;
}

export interface UncleanPlan extends Omit<CleanPlan, 'kind' | 'items'> {
  kind: 'unclean';
  backup: { id: string; path: string };
  /** Entries still in the backup, to go back to their place. */
  moves: MovedEntry[];
}

/** Move a clean's leftovers back; refuses (exit 4) when something now stands in their place. */
export function planUnclean(ctx: RecoveryContext, backup: { id: string; path: string; store?: unknown }, moved: MovedEntry[], req: Overrides): UncleanPlan {
  const snap = ctx.session.snap;
  const moves: MovedEntry[] = [];
  const refusals: CkptError[] = [];
  const warnings: string[] = [];
  // Another store's clean backup, named by its id: its leftovers are not this store's.
  otherStoreCheck(backup, snap.storeDir, req.force, 'putting its leftovers back', warnings, refusals);
  // What the backup still holds, from one opening of it (none when it cannot be opened).
  let held: Set<string>;
  try {
    held = using(leftoversDir(snap.dynamicConfigDir, backup.id), (d) => new Set(moved.map((m) => m.to.split('/').pop()!).filter((n) => d.lstatIfAny(n) !== null)));
  } catch {
    held = new Set();
  }
  const inBackup = (m: MovedEntry) => held.has(m.to.split('/').pop()!);
  for (const m of moved) {
    if (!inBackup(m)) continue; // already back
    const place = placeOf(snap.storeDir, m.from);
    if (place === 'taken') {
      refusals.push(new RefusedError(`${m.from} exists again; it is not overwritten`, 'move it away first, then undo again', 'UNDO_TARGET_EXISTS'));
      continue;
    }
    if (place !== 'free') {
      // Its directory went since the clean (prune removes a UID directory it emptied): making
      // one again is no undo; the leftover stays in the backup.
      const msg = `${m.from} cannot be put back: ${place}`;
      if (req.force) warnings.push(`${msg}; it stays in ${path.join(backup.path, m.to)} (--force: the others are put back)`);
      else refusals.push(new RefusedError(msg, `it stays in ${path.join(backup.path, m.to)}; pass --force to put back the others`, 'UNDO_PLACE_GONE'));
      continue;
    }
    moves.push(m);
  }
  const unsure: string[] = [];
  removalInterlocks(ctx, req, refusals, unsure);
  // Each move renames out of the backup into the store: both directories are written (found by
  // a review: the dry run said 0 where the real run failed, permission denied, exit 3).
  removalWriteBlocks(snap.storeDir, moves.map((m) => m.from), 'nothing was put back', refusals);
  const from = moves.length ? writeBlock(path.dirname(path.join(backup.path, moves[0]!.to)), `the backup ${backup.id}`, 'nothing was put back') : null;
  if (from) refusals.push(from);
  return { kind: 'unclean', commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, backup, moves, warnings: [...unsure, ...warnings], refusals, overrides: req };
}

/** Whether a store-relative entry can be put back: its place is free, taken, or why its directory cannot be opened. */
function placeOf(store: string, rel: string): 'free' | 'taken' | string {
  let p: { dir: SafeDir; name: string };
  try {
    p = parentOf(store, rel);
  } catch (err) {
    return `its directory ${path.dirname(rel)} ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'is gone' : `cannot be opened (${fsReason(err)})`}`;
  }
  return using(p.dir, (d) => (d.lstatIfAny(p.name) !== null ? 'taken' : 'free'));
}

function restoreChange(m: MovedEntry): PruneChange {
  return { path: m.from, before: m.to, after: null, kind: 'leftover', files: [], bytes: 0, note: `back from ${m.to} of the backup` };
}

export function previewUnclean(plan: UncleanPlan): RecoveryResult {
  const r: RecoveryResult = { dryRun: true, changes: plan.moves.map(restoreChange), backup: null, restored: plan.backup.id, warnings: [...plan.warnings], command: plan.commandLine, store: plan.store };
  if (plan.refusals.length) r.wouldRefuse = plan.refusals.map(refusalText);
  return r;
}

export async function applyUnclean(ctx: RecoveryContext, plan: UncleanPlan): Promise<RecoveryResult> {
  if (plan.refusals.length) throw plan.refusals[0]!;
  const hook: StepHook = ctx.hook ?? (() => {});
  const now = ctx.now ?? (() => new Date());
  const warnings = [...plan.warnings];
  const result: RecoveryResult = { dryRun: false, changes: [], backup: null, restored: plan.backup.id, warnings, command: plan.commandLine, store: plan.store };
  const report = await guarded({ ctx, plan, hook, now, warnings }, () => {
    const audit = (event: 'begin' | 'done' | 'failed', changes: { path: string }[], error?: string) =>
      appendAudit(plan.dynamicConfigDir, { time: now().toISOString(), event, command: plan.commandLine, backup: plan.backup.path, store: plan.store, user: currentActor(), changes: changes.map((c) => ({ path: c.path, before: null, after: c.path })), ...(error ? { error } : {}) });
    audit('begin', plan.moves.map((m) => ({ path: m.from })));
    try {
      using(leftoversDir(plan.dynamicConfigDir, plan.backup.id), (from) => {
        for (const m of plan.moves) {
          const dest = parentOf(plan.store, m.from);
          try {
            if (dest.dir.lstatIfAny(dest.name)) throw new ChangedError(`${m.from} appeared while undoing; stopped`);
            moveBetween({ dir: from, name: m.to.split('/').pop()! }, dest, null, m.from);
          } finally {
            dest.dir.close();
          }
          result.changes.push(restoreChange(m));
        }
      });
    } catch (err) {
      const back = result.changes.map((c) => c.path);
      const state = back.length ? `${back.join(', ')} ${back.length === 1 ? 'was' : 'were'} put back, the rest not` : 'nothing was put back';
      const e = err instanceof CkptError ? err : new EnvError(`undo of ${plan.backup.id} failed: ${fsReason(err)}; ${state}`, hintFor(err), 'UNDO_FAILED');
      try {
        audit('failed', result.changes, e.message);
      } catch {
        /* keep the first error */
      }
      throw e;
    }
    auditDone(() => audit('done', result.changes), result.warnings, false);
  });
  if (report) result.kubelet = report;
  return result;
}
