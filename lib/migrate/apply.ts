// Applying a migrate plan, and undoing one. Under the store's lock with the kubelet
// interlock (recovery/guard), every file is re-checked against the plan, copied to a backup
// (<dynamic-config-dir>/.kubelet-ckpt/backups/<id>/ with bytes, mode, owner and mtime in its
// manifest), the change is audited, then each file is replaced atomically. `undo` of such a
// backup puts every file back exactly: bytes, mode, owner and mtime; a file the migration
// created is removed again.

import { sha256Hex } from '../builtins.js';
import fs from 'node:fs';
import path from 'node:path';
import { CkptError, EnvError, RefusedError, fsReason } from '../errors.js';
import { atomicRemove, atomicReplace, ChangedError, readState, sameState, type Owner } from '../recovery/atomic.js';
import { appendAudit, auditDone, cleanBackupLeftovers, openBackups, currentActor, ensureBackupsDir, writeBackupDir, BACKUP_ID, type Actor, type SavedState } from '../recovery/backup.js';
import { guarded } from '../recovery/guard.js';
import { findSystemctl, type RestartReport } from '../recovery/kubelet.js';
import type { Overrides, RecoveryContext } from '../recovery/plan.js';
import { openDirBelow, unsafeNameReason, using, type SafeDir } from '../store/safepath.js';
import { nodePathOf } from '../store/rooted.js';
import { diffFiles } from './diffs.js';
import type { FlagEdit } from './flagedit.js';
import { nodeWriteBlocks, readNodeFile, type NodeFile } from './nodefiles.js';
import type { FileChange, MigratePlan } from './plan.js';
import type { KubeadmCheck } from './kubeadm.js';

export interface MigrateChange {
  /** Node path. */
  path: string;
  role: NodeFile['kind'];
  before: string | null;
  after: string | null;
  beforeSha256: string | null;
  afterSha256: string | null;
  edits: FlagEdit[];
  diff: string;
}

export interface MigrateResult {
  apiVersion: 'kubelet-ckpt/v1';
  kind: 'MigrateResult';
  command: 'migrate' | 'undo';
  dryRun: boolean;
  changes: MigrateChange[];
  backup: string | null;
  warnings: string[];
  nextSteps: string[];
  configPath: string | null;
  source: NonNullable<MigratePlan['export']>['source'] | null;
  kubeadm: KubeadmCheck | null;
  kubelet?: RestartReport | null;
  /** undo: the backup restored. */
  restored?: string;
  wouldRefuse?: string[];
  /** Nothing to migrate, and why (the kubelet never reads the store): no change, exit 0. */
  nothing?: string;
}

/** What a migrate backup records of each file. */
export interface SavedFile extends SavedState {
  path: string;
  role: NodeFile['kind'];
  /** The copy's name in the backup directory, null when there was no file. */
  copy: string | null;
  mtimeMs: number | null;
  /** The mtime in nanoseconds (a decimal string), restored to the microsecond. */
  mtimeNs: string | null;
  /** sha256 of what the command wrote (null: it removed the file). */
  after: string | null;
  /** Directories created for a new file (node paths, outermost first): undo removes them when empty. */
  createdDirs?: string[];
}

export interface MigrateManifest {
  id: string;
  time: string;
  kind: 'migrate';
  command: string;
  store: string;
  user: Actor;
  files: SavedFile[];
}

/** One file of a plan: what it is now and what it becomes. */
interface Write {
  file: NodeFile;
  after: Buffer | null;
  /** For undo: mode, owner and mtime to put back. */
  restore?: SavedFile;
  edits: FlagEdit[];
  diff: string;
}

const textOrNull = (b: Buffer | null): string | null => (b === null ? null : b.toString('utf8'));

function changeOf(w: Write): MigrateChange {
  const before = w.file.state.kind === 'file' ? w.file.state.bytes : null;
  return {
    path: w.file.nodePath,
    role: w.file.kind,
    before: textOrNull(before),
    after: textOrNull(w.after),
    beforeSha256: before ? sha256Hex(before) : null,
    afterSha256: w.after ? sha256Hex(w.after) : null,
    edits: w.edits,
    diff: w.diff,
  };
}

/**
 * A refusal as one string: the hint right after the message's first line, before any detail it
 * carries (a diff), so a dry run's text, which shows first lines, keeps the remedy (found by
 * review: "…differs from the export:" and nothing after it, the "pass --force" lost).
 */
function refusalText(e: CkptError): string {
  if (!e.hint) return e.message;
  const nl = e.message.indexOf('\n');
  if (nl < 0) return `${e.message} (${e.hint})`;
  const first = e.message.slice(0, nl);
  const colon = first.endsWith(':');
  return `${colon ? first.slice(0, -1) : first} (${e.hint})${colon ? ':' : ''}${e.message.slice(nl)}`;
}

function writesOf(plan: MigratePlan): Write[] {
  return plan.changes.map((c: FileChange) => ({ file: c.file, after: c.after, edits: c.edits, diff: c.diff }));
}

export function previewMigrate(plan: MigratePlan): MigrateResult {
  const r = baseResult(plan, writesOf(plan), true);
  if (plan.refusals.length) r.wouldRefuse = plan.refusals.map(refusalText);
  return r;
}

function baseResult(plan: MigratePlan, writes: Write[], dryRun: boolean): MigrateResult {
  return {
    apiVersion: 'kubelet-ckpt/v1',
    kind: 'MigrateResult',
    command: 'migrate',
    dryRun,
    changes: writes.map(changeOf),
    backup: null,
    warnings: [...plan.warnings],
    nextSteps: plan.nextSteps,
    configPath: plan.configPath,
    source: plan.export?.source ?? null,
    kubeadm: plan.kubeadm,
  };
}

// ---- backup -----------------------------------------------------------------------------------

/** Back up every file the migration writes (writeBackupDir: through the opened backups directory). */
function saveBackup(dynamicConfigDir: string, writes: Write[], command: string, store: string, now: Date): { id: string; path: string } {
  ensureBackupsDir(dynamicConfigDir);
  const files: SavedFile[] = writes.map((w, i) => {
    const s = w.file.state;
    const st = s.kind === 'file' ? fs.lstatSync(w.file.hostPath, { bigint: true }) : null;
    return {
      path: w.file.nodePath,
      role: w.file.kind,
      copy: s.kind === 'file' ? `file-${i}` : null,
      state: s.kind,
      size: s.kind === 'file' ? s.bytes.length : null,
      sha256: s.kind === 'file' ? sha256Hex(s.bytes) : null,
      mode: s.kind === 'file' ? s.mode : null,
      uid: s.kind === 'file' ? s.uid : null,
      gid: s.kind === 'file' ? s.gid : null,
      mtimeMs: st ? Number(st.mtimeMs) : null,
      mtimeNs: st ? st.mtimeNs.toString() : null,
      after: w.after ? sha256Hex(w.after) : null,
      createdDirs: s.kind === 'missing' ? missingDirs(w.file) : [],
    };
  });
  const copies = writes.flatMap((w, i) => (w.file.state.kind === 'file' ? [{ name: `file-${i}`, bytes: w.file.state.bytes }] : []));
  return writeBackupDir(dynamicConfigDir, now, copies, (id, time): MigrateManifest => ({ id, time, kind: 'migrate', command, store, user: currentActor(), files }));
}

/** The ancestors of a new file that do not exist yet (node paths, outermost first). */
function missingDirs(f: NodeFile): string[] {
  const out: string[] = [];
  let host = path.dirname(f.hostPath);
  let node = path.posix.dirname(f.nodePath);
  while (node !== '/' && !fs.existsSync(host)) {
    out.unshift(node);
    host = path.dirname(host);
    node = path.posix.dirname(node);
  }
  return out;
}

/** A migrate backup: its manifest and the copies it holds (read once, through descriptors). */
export interface MigrateBackup {
  manifest: MigrateManifest;
  path: string;
  copies: ReadonlyMap<string, Buffer>;
}

/**
 * The manifest of a migrate backup, or null when `id` (default: the latest) is another kind.
 * Its manifest names node files that undo writes, so the backup must be one only root (or this
 * user) could have written, and every name in it must be what migrate writes: a plain copy name,
 * a normalised absolute node path (found by review: `../` in a copy name read a host file).
 */
export function migrateBackup(dynamicConfigDir: string, id: string | null): MigrateBackup | null {
  let backups: SafeDir | null;
  try {
    backups = openBackups(dynamicConfigDir, false);
  } catch {
    return null;
  }
  if (!backups) return null;
  return using(backups, (all) => {
    const names = all.list().filter((n) => BACKUP_ID.test(n)).sort();
    const pick = id ?? names[names.length - 1];
    if (!pick || !names.includes(pick)) return null;
    let dir: SafeDir;
    try {
      dir = all.dir(pick);
    } catch {
      return null;
    }
    return using(dir, (d) => readMigrateBackup(all, d, pick));
  });
}

/** One backup directory, opened: its manifest when it is a migrate backup, checked, with its copies. */
function readMigrateBackup(all: SafeDir, dir: SafeDir, id: string): MigrateBackup | null {
  let m: MigrateManifest;
  try {
    m = JSON.parse(dir.read('manifest.json', 1024 * 1024).bytes.toString('utf8')) as MigrateManifest;
  } catch {
    return null;
  }
  if (m?.kind !== 'migrate' || !Array.isArray(m.files)) return null;
  const where = path.join(all.path, id);
  for (const [what, st] of [['the backups directory', all.stat()], [`backup ${id}`, dir.stat()], [`backup ${id}'s manifest`, dir.lstat('manifest.json')]] as const) {
    const why = untrusted(st);
    if (why) throw new RefusedError(`${what} (${where}) ${why}: its manifest names files undo would write, so it is not used`, 'restore from a backup only root wrote, or put the files back by hand', 'BACKUP_UNTRUSTED');
  }
  const damaged = (why: string) => new RefusedError(`backup ${id} is damaged: ${why}`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
  const copies = new Map<string, Buffer>();
  for (const f of m.files) {
    const bad = badSavedFile(f);
    if (bad) throw damaged(bad);
    if (f.copy === null || f.state === 'missing') continue;
    try {
      copies.set(f.copy, dir.read(f.copy, 1024 * 1024).bytes);
    } catch (err) {
      throw damaged(`${f.path}: ${fsReason(err)}`);
    }
  }
  return { manifest: m, path: where, copies };
}

/** Why a backup directory or file cannot be trusted: another user's, or writable by others. */
function untrusted(st: fs.Stats): string | null {
  const me = process.geteuid?.() ?? 0;
  if (st.uid !== 0 && st.uid !== me) return `belongs to uid ${st.uid}, neither root nor you`;
  if (st.mode & 0o022) return `can be written by others (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')})`;
  return null;
}

const ROLES: ReadonlySet<string> = new Set<NodeFile['kind']>(['unit', 'env', 'config']);

/** What is wrong with one file of a manifest, or null. */
function badSavedFile(f: SavedFile): string | null {
  const nodePath = (p: unknown) => typeof p === 'string' && p.startsWith('/') && !p.includes('\0') && path.posix.normalize(p) === p && p !== '/';
  if (!nodePath(f.path)) return `it names ${JSON.stringify(f.path)}, which is not a plain absolute path`;
  if (!ROLES.has(f.role)) return `${f.path} has the role ${JSON.stringify(f.role)}`;
  if (f.copy !== null && (typeof f.copy !== 'string' || unsafeNameReason(f.copy) !== null || f.copy === 'manifest.json')) return `the copy of ${f.path} is named ${JSON.stringify(f.copy)}, not a plain file name`;
  if (f.createdDirs !== undefined && (!Array.isArray(f.createdDirs) || !f.createdDirs.every(nodePath))) return `${f.path} lists directories that are not plain absolute paths`;
  return null;
}

// ---- apply ------------------------------------------------------------------------------------

function applyWrites(ctx: RecoveryContext, plan: { dynamicConfigDir: string; store: string; commandLine: string }, writes: Write[], result: MigrateResult, daemonReload: boolean): void {
  const now = ctx.now ?? (() => new Date());
  // Every file must still be what the plan saw.
  for (const w of writes) {
    const again = readState(w.file.hostPath, w.file.nodePath, 'node');
    if (!sameState(again, w.file.state)) throw new ChangedError(`${w.file.nodePath} changed since the plan was made; nothing was changed`);
  }
  const backup = saveBackup(plan.dynamicConfigDir, writes, plan.commandLine, plan.store, now());
  result.backup = backup.path;
  const actor = currentActor();
  const audit = (event: 'begin' | 'done' | 'failed', error?: string) =>
    appendAudit(plan.dynamicConfigDir, {
      time: now().toISOString(), event, command: plan.commandLine, backup: backup.id, store: plan.store, user: actor,
      changes: writes.map((w) => ({ path: w.file.nodePath, before: w.file.state.kind === 'file' ? sha256Hex(w.file.state.bytes) : null, after: w.after ? sha256Hex(w.after) : null })),
      ...(error ? { error } : {}),
    });
  audit('begin');
  const done: string[] = [];
  try {
    for (const w of writes) {
      writeOne(w);
      done.push(w.file.nodePath);
    }
  } catch (err) {
    const e = err instanceof CkptError ? err : new EnvError(String((err as Error)?.message ?? err));
    const state = done.length ? `${done.join(', ')} written, the rest not` : 'nothing was written';
    try {
      audit('failed', `${e.message} (${state})`);
    } catch {
      /* the original error matters more */
    }
    throw new EnvError(`${e.message} — ${state}; backup ${backup.id} holds the old files`, `restore them with \`kubelet-ckpt undo ${backup.id}\``, e.code);
  }
  auditDone(() => audit('done'), result.warnings);
  if (daemonReload) {
    const r = findSystemctl(ctx.envPath).run(['daemon-reload']);
    if (r.code !== 0) result.warnings.push(`systemctl daemon-reload failed (exit ${r.code}): ${r.stderr.trim()}`);
  }
}

function writeOne(w: Write): void {
  const name = path.basename(w.file.hostPath);
  if (w.after === null) {
    using(openNodeDir(w.file, path.dirname(w.file.hostPath), false), (dir) => atomicRemove(dir, name, { expect: w.file.state, what: w.file.nodePath }));
    removeCreatedDirs(w);
    return;
  }
  const after = w.after;
  // undo: exactly the old mode, owner and mtime, given to the new file before it is renamed in.
  const owner = restoredOwner(w);
  const restore = owner ? { owner, mtimeMs: mtimeMsOf(w.restore!) } : {};
  using(openNodeDir(w.file, path.dirname(w.file.hostPath), true), (dir) => atomicReplace(dir, name, after, { expect: w.file.state, what: w.file.nodePath, ...restore }));
}

/**
 * A node file's directory (or an ancestor), opened from the root down: no link is followed
 * below --root (links there were resolved inside it when the plan was made: one now is a swap),
 * and on a live node only the links the node's paths already had. `create`: missing
 * directories are made on the way (0755), each through its opened parent.
 */
function openNodeDir(f: NodeFile, hostDir: string, create: boolean): SafeDir {
  const live = f.root === '/';
  try {
    return openDirBelow(live ? '/' : f.root, hostDir, { create: create ? { mode: 0o755 } : undefined, resolveExisting: live }).dir;
  } catch (err) {
    const where = nodePathOf(f.root, hostDir);
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedError(`${where}: a directory on the way is a symbolic link that leads nowhere or was put there after the plan; kubelet-ckpt never writes through a link`, 'look at what is there, then plan again', 'META_SYMLINK');
    if (err instanceof CkptError) throw err;
    throw new EnvError(`cannot use ${where}: ${fsReason(err)}`, null, 'STORE_UNWRITABLE');
  }
}

/** undo: the directories the migration created for a new file go too, when empty (innermost first). */
function removeCreatedDirs(w: Write): void {
  const dirs = w.restore?.createdDirs ?? [];
  let host = path.dirname(w.file.hostPath);
  for (let i = dirs.length - 1; i >= 0; i--) {
    try {
      using(openNodeDir(w.file, path.dirname(host), false), (parent) => parent.rmdir(path.basename(host)));
    } catch {
      return;
    }
    host = path.dirname(host);
  }
}

/** Apply a migrate plan: refusals first, then under the lock. */
export async function applyMigrate(ctx: RecoveryContext, plan: MigratePlan): Promise<MigrateResult> {
  if (plan.refusals.length) throw plan.refusals[0]!;
  const writes = writesOf(plan);
  const result = baseResult(plan, writes, false);
  if (!writes.length) return result;
  const report = await guarded(guardOf(ctx, plan, result), () => applyWrites(ctx, plan, writes, result, plan.overrides.restartKubelet));
  if (report) result.kubelet = report;
  return result;
}

function guardOf(ctx: RecoveryContext, plan: { dynamicConfigDir: string; store: string; commandLine: string; overrides: Overrides }, result: MigrateResult) {
  return {
    ctx,
    plan: { dynamicConfigDir: plan.dynamicConfigDir, store: plan.store, commandLine: plan.commandLine, overrides: plan.overrides },
    hook: ctx.hook ?? (() => {}),
    now: ctx.now ?? (() => new Date()),
    warnings: result.warnings,
    afterLock: () => void cleanBackupLeftovers(plan.dynamicConfigDir),
  };
}

// ---- undo -------------------------------------------------------------------------------------

export interface MigrateUndoPlan {
  id: string;
  /** --root ('/' on a live node). */
  root: string;
  commandLine: string;
  store: string;
  dynamicConfigDir: string;
  writes: Write[];
  warnings: string[];
  refusals: CkptError[];
  overrides: Overrides;
}

function savedBytes(copies: ReadonlyMap<string, Buffer>, f: SavedFile, id: string): Buffer | null {
  if (f.state === 'missing' || !f.copy) return null;
  const bytes = copies.get(f.copy);
  if (!bytes) throw new RefusedError(`backup ${id} is damaged: ${f.path}: its copy was not read`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
  if (sha256Hex(bytes) !== f.sha256) throw new RefusedError(`backup ${id} is damaged: the copy of ${f.path} does not match its recorded sha256`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
  return bytes;
}

export function planMigrateUndo(ctx: RecoveryContext, backup: MigrateBackup, o: Overrides): MigrateUndoPlan {
  const m = backup.manifest;
  const snap = ctx.session.snap;
  const warnings: string[] = [];
  const refusals: CkptError[] = [];
  const writes: Write[] = [];
  const changed: string[] = [];
  for (const f of m.files) {
    const old = savedBytes(backup.copies, f, m.id);
    const file = readNodeFile(ctx.root, f.path, f.role);
    const now = file.state.kind === 'file' ? sha256Hex(file.state.bytes) : null;
    if (now !== f.after && now !== f.sha256) changed.push(f.path);
    const same = (old === null && file.state.kind === 'missing') || (old !== null && file.state.kind === 'file' && file.state.bytes.equals(old) && metaSame(file, f));
    if (same) continue;
    writes.push({ file, after: old, restore: f, edits: [], diff: diffFiles(f.path, file.state, old) });
  }
  if (changed.length) {
    const msg = `changed since backup ${m.id} (${m.command}): ${changed.join(', ')}`;
    if (o.force) warnings.push(`${msg}; restoring anyway (--force)`);
    else refusals.push(new RefusedError(msg, 'look at those files; pass --force to restore the backup anyway', 'CHANGED_SINCE_BACKUP'));
  }
  nodeWriteBlocks(writes.map((w) => ({ ...w, owner: restoredOwner(w) })), refusals);
  return { id: m.id, root: ctx.root, commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, writes, warnings, refusals, overrides: o };
}

/** The mode and owner an undo gives the file back (as its backup recorded them), or null when it recorded none. */
function restoredOwner(w: Write): Owner | null {
  const r = w.restore;
  return r && r.mode !== null ? { mode: r.mode, uid: r.uid ?? 0, gid: r.gid ?? 0 } : null;
}

/** Milliseconds to microsecond precision, for utimes (a double cannot carry nanoseconds this far from 1970). */
function mtimeMsOf(f: SavedFile): number | null {
  // Half a microsecond more: the kernel call truncates, and the double is a little off.
  if (f.mtimeNs) return (Number(BigInt(f.mtimeNs) / 1000n) + 0.5) / 1000;
  return f.mtimeMs;
}

const micros = (ns: bigint) => ns / 1000n;

function metaSame(file: NodeFile, f: SavedFile): boolean {
  if (file.state.kind !== 'file') return false;
  let same = false;
  try {
    same = f.mtimeNs !== null && micros(fs.lstatSync(file.hostPath, { bigint: true }).mtimeNs) === micros(BigInt(f.mtimeNs));
  } catch {
    /* compared as different */
  }
  return same && file.state.mode === f.mode && file.state.uid === f.uid && file.state.gid === f.gid;
}

function undoResult(p: MigrateUndoPlan, dryRun: boolean): MigrateResult {
  return {
    apiVersion: 'kubelet-ckpt/v1', kind: 'MigrateResult', command: 'undo', dryRun, changes: p.writes.map(changeOf), backup: null, warnings: [...p.warnings],
    nextSteps: !p.writes.length ? [] : p.root !== '/' ? ['put the disk back and boot the node: its kubelet runs with its restored flags and files again'] : ['systemctl daemon-reload && systemctl restart kubelet: the kubelet runs with its restored flags and files again'], configPath: null, source: null, kubeadm: null, restored: p.id,
  };
}

export function previewMigrateUndo(p: MigrateUndoPlan): MigrateResult {
  const r = undoResult(p, true);
  if (p.refusals.length) r.wouldRefuse = p.refusals.map(refusalText);
  return r;
}

export async function applyMigrateUndo(ctx: RecoveryContext, p: MigrateUndoPlan): Promise<MigrateResult> {
  if (p.refusals.length) throw p.refusals[0]!;
  const result = undoResult(p, false);
  if (!p.writes.length) return result;
  const report = await guarded(guardOf(ctx, p, result), () => applyWrites(ctx, p, p.writes, result, p.overrides.restartKubelet));
  if (report) result.kubelet = report;
  return result;
}
