// clean: remove the tmp_* leftovers of interrupted writes that verify reports (TMP_LEFTOVER):
// the kubelet's own (a meta file or a checkpoint it was replacing when it died) and ours.
// Nothing is deleted: each leftover is moved (renamed, so mode, owner and mtime stay) into a
// backup, <dynamic-config-dir>/.kubelet-ckpt/backups/<id>/leftovers/<n>, whose manifest is
// durable before the first move; `undo <id>` moves them back. Under the store lock, with the
// kubelet interlock and the audit log, like the other recovery commands.

import fs from 'node:fs';
import path from 'node:path';
import { CkptError, EnvError, RefusedError, fsReason } from '../errors.js';
import { safeJoin } from '../store/safepath.js';
import type { Entry } from '../store/snapshot.js';
import { ChangedError, hintFor, isOurTemp, syncDir } from './atomic.js';
import { appendAudit, backupId, currentActor, ensureBackupsDir, type Manifest } from './backup.js';
import { guarded } from './guard.js';
import { kubeletsUsing, runningError } from './kubelet.js';
import type { Overrides, RecoveryContext } from './plan.js';
import { refusalText, type PruneChange, type RecoveryResult } from './result.js';
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

/** A leftover's contents; a directory may hold only regular files (what the kubelet writes). */
function inspect(store: string, e: Entry): { item?: Leftover; why?: string } {
  const abs = safeJoin(store, ...e.rel.split('/'));
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch (err) {
    return { why: fsReason(err) };
  }
  const by = isOurTemp(e.name) ? 'kubelet-ckpt' : 'kubelet';
  if (st.isFile()) return { item: { path: e.rel, kind: 'file', files: [], bytes: st.size, by, ino: st.ino } };
  if (!st.isDirectory()) return { why: `is ${st.isSymbolicLink() ? 'a symbolic link' : 'a special file'}, which no interrupted write leaves` };
  const files: string[] = [];
  let bytes = 0;
  try {
    for (const name of fs.readdirSync(abs)) {
      const s = fs.lstatSync(safeJoin(abs, name));
      if (!s.isFile()) return { why: `holds ${JSON.stringify(name)}, which is not a regular file` };
      files.push(name);
      bytes += s.size;
    }
  } catch (err) {
    return { why: `cannot be listed (${fsReason(err)})` };
  }
  return { item: { path: e.rel, kind: 'dir', files: files.sort(), bytes, by, ino: st.ino } };
}

export function planClean(ctx: RecoveryContext, req: Overrides): CleanPlan {
  const snap = ctx.session.snap;
  const entries = [...snap.metaOthers, ...snap.uids.flatMap((u) => u.others)].filter((e) => e.name.startsWith('tmp_'));
  const items: Leftover[] = [];
  const warnings: string[] = [];
  for (const e of entries) {
    const r = inspect(snap.storeDir, e);
    if (r.item) items.push(r.item);
    else warnings.push(`not removed: ${e.rel} ${r.why}; inspect it and remove it by hand`);
  }
  const refusals: CkptError[] = [];
  const k = kubeletsUsing(snap.dynamicConfigDir, ctx.procRoot);
  warnings.push(...k.unsure);
  // A running kubelet may be in the middle of the very write whose temp file this is.
  if (k.using.length && !req.force && !req.restartKubelet) refusals.push(runningError(k.using, snap.storeDir));
  return { kind: 'clean', commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, items, warnings, refusals, overrides: req };
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

/** Make the (empty) backup the leftovers move into: manifest first, durable, then renamed into place. */
function makeLeftoverBackup(plan: CleanPlan, now: Date): { id: string; dir: string } {
  const backups = ensureBackupsDir(plan.dynamicConfigDir);
  let t = now.getTime();
  while (fs.existsSync(path.join(backups, backupId(new Date(t))))) t += 1;
  const id = backupId(new Date(t));
  const tmp = path.join(backups, `tmp_${id}.kubelet-ckpt.${process.pid}`);
  const manifest: LeftoverManifest = {
    id, time: new Date(t).toISOString(), command: plan.commandLine, store: plan.store, user: currentActor(), files: [], after: {},
    moved: plan.items.map((i, n) => ({ from: i.path, to: `leftovers/${n}`, kind: i.kind })),
  };
  try {
    fs.mkdirSync(tmp, { mode: 0o700 });
    fs.mkdirSync(path.join(tmp, 'leftovers'), { mode: 0o700 });
    const fd = fs.openSync(path.join(tmp, 'manifest.json'), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(manifest, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    syncDir(tmp);
    fs.renameSync(tmp, path.join(backups, id));
    syncDir(backups);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new EnvError(`cannot write the backup ${path.join(backups, id)}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'BACKUP_FAILED');
  }
  return { id, dir: path.join(backups, id) };
}

/** Move one entry (a leftover into its backup, or back) with a rename, and make it durable. */
function move(from: string, to: string): void {
  fs.renameSync(from, to);
  syncDir(path.dirname(from));
  syncDir(path.dirname(to));
}

export async function applyClean(ctx: RecoveryContext, plan: CleanPlan): Promise<RecoveryResult> {
  if (plan.refusals.length) throw plan.refusals[0]!;
  const hook: StepHook = ctx.hook ?? (() => {});
  const now = ctx.now ?? (() => new Date());
  const warnings = [...plan.warnings];
  const result: RecoveryResult = { dryRun: false, changes: [], backup: null, warnings, freedBytes: 0, command: plan.commandLine, store: plan.store };
  if (!plan.items.length) return result;
  const actor = currentActor();
  const report = await guarded({ ctx, plan, hook, now, warnings }, () => {
    const backup = makeLeftoverBackup(plan, now());
    result.backup = backup.dir;
    const audit = (event: 'begin' | 'done' | 'failed', error?: string) =>
      appendAudit(plan.dynamicConfigDir, { time: now().toISOString(), event, command: plan.commandLine, backup: backup.dir, store: plan.store, user: actor, changes: plan.items.map((i) => ({ path: i.path, before: i.path, after: null })), freedBytes: result.freedBytes ?? 0, ...(error ? { error } : {}) });
    audit('begin');
    hook('audit-begin', plan.commandLine);
    try {
      plan.items.forEach((item, n) => {
        const src = safeJoin(plan.store, ...item.path.split('/'));
        const st = fs.lstatSync(src, { throwIfNoEntry: false });
        if (!st || st.ino !== item.ino) throw new ChangedError(`${item.path} changed while cleaning (the kubelet may have written it); stopped`);
        move(src, safeJoin(backup.dir, 'leftovers', String(n)));
        hook('moved-aside', item.path);
        result.changes.push(changeOf(item));
        result.freedBytes = (result.freedBytes ?? 0) + item.bytes;
      });
    } catch (err) {
      const e = err instanceof CkptError ? err : new EnvError(`clean failed: ${fsReason(err)}`, hintFor(err), 'CLEAN_FAILED');
      try {
        audit('failed', e.message);
      } catch {
        /* keep the first error */
      }
      throw e;
    }
    audit('done');
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
export function planUnclean(ctx: RecoveryContext, backup: { id: string; path: string }, moved: MovedEntry[], req: Overrides): UncleanPlan {
  const snap = ctx.session.snap;
  const moves: MovedEntry[] = [];
  const refusals: CkptError[] = [];
  for (const m of moved) {
    if (!fs.lstatSync(safeJoin(backup.path, ...m.to.split('/')), { throwIfNoEntry: false })) continue; // already back
    if (fs.lstatSync(safeJoin(snap.storeDir, ...m.from.split('/')), { throwIfNoEntry: false })) {
      refusals.push(new RefusedError(`${m.from} exists again; it is not overwritten`, 'move it away first, then undo again', 'UNDO_TARGET_EXISTS'));
      continue;
    }
    moves.push(m);
  }
  const k = kubeletsUsing(snap.dynamicConfigDir, ctx.procRoot);
  if (k.using.length && !req.force && !req.restartKubelet) refusals.push(runningError(k.using, snap.storeDir));
  return { kind: 'unclean', commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, backup, moves, warnings: [...k.unsure], refusals, overrides: req };
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
    appendAudit(plan.dynamicConfigDir, { time: now().toISOString(), event: 'begin', command: plan.commandLine, backup: plan.backup.path, store: plan.store, user: currentActor(), changes: plan.moves.map((m) => ({ path: m.from, before: null, after: m.from })) });
    for (const m of plan.moves) {
      const dest = safeJoin(plan.store, ...m.from.split('/'));
      if (fs.lstatSync(dest, { throwIfNoEntry: false })) throw new ChangedError(`${m.from} appeared while undoing; stopped`);
      move(safeJoin(plan.backup.path, ...m.to.split('/')), dest);
      result.changes.push(restoreChange(m));
    }
    appendAudit(plan.dynamicConfigDir, { time: now().toISOString(), event: 'done', command: plan.commandLine, backup: plan.backup.path, store: plan.store, user: currentActor(), changes: result.changes.map((c) => ({ path: c.path, before: null, after: c.path })) });
  });
  if (report) result.kubelet = report;
  return result;
}
