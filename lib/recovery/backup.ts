// Backups of the meta files and the audit log, under <dynamic-config-dir>/.kubelet-ckpt/:
//   backups/<id>/assigned, backups/<id>/last-known-good, backups/<id>/manifest.json
//   backups/audit.log   one JSON object per line: who, when, what, hashes before/after
// A backup is written into backups/tmp_<id>.kubelet-ckpt…, synced, then renamed to <id>,
// so a listed backup is always whole. The id is its UTC time, compact: 20261122T080000.123Z.

import { sha256Hex } from '../builtins.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { META_CAP } from '../store/snapshot.js';
import { EnvError, RefusedError, UsageError, fsReason, type CkptError } from '../errors.js';
import { SafeDir, kindWords, unsafeNameReason, using } from '../store/safepath.js';
import type { MetaName } from '../store/types.js';
import { hintFor, isOurTemp, tempName, type FileState } from './atomic.js';
import { STATE_DIR, holderRefusal, lockWriteRefusal, openStateDir, openSub, staleTemp } from './lock.js';

export { STATE_DIR };
export const BACKUP_ID = /^[0-9]{8}T[0-9]{6}\.[0-9]{3}Z$/;

export function stateDirOf(dynamicConfigDir: string): string {
  return path.join(dynamicConfigDir, STATE_DIR);
}
export function backupsDirOf(dynamicConfigDir: string): string {
  return path.join(stateDirOf(dynamicConfigDir), 'backups');
}
export function auditLogOf(dynamicConfigDir: string): string {
  return path.join(backupsDirOf(dynamicConfigDir), 'audit.log');
}

/**
 * Why a real run would fail at the backups directory or the audit log (a link, a special file,
 * a file with a second name), as an environment error, or null: the plan says it, so that the
 * dry run exits as the real run and the real run stops before it writes a backup (found by
 * review: the dry run said 0, the real run failed after writing one).
 */
export function stateFilesRefusal(dynamicConfigDir: string): EnvError | null {
  const at = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false });
  try {
    const backups = at(backupsDirOf(dynamicConfigDir));
    if (backups && !backups.isDirectory()) return new EnvError(`${backupsDirOf(dynamicConfigDir)} is ${kindWords(backups)}, not a directory kubelet-ckpt made: no backup can be written there; nothing would be changed`, 'remove it (or move it aside) and re-run', 'STATE_UNSAFE');
    const log = backups && at(auditLogOf(dynamicConfigDir));
    if (log && (!log.isFile() || log.nlink > 1)) return new EnvError(`${auditLogOf(dynamicConfigDir)} is ${log.isFile() ? `a file with ${log.nlink} names (hard links), one of which may be outside` : kindWords(log)}: the audit log is not written through it; nothing would be changed`, 'remove it (or move it aside) and re-run', 'STATE_UNSAFE');
    // The real run appends to it before it writes anything and stops (3) when it cannot (found
    // by review: the dry runs said 0). A read-only mount or no permission shows here.
    if (log) {
      try {
        fs.accessSync(auditLogOf(dynamicConfigDir), fs.constants.W_OK);
      } catch (err) {
        return new EnvError(`cannot append to the audit log ${auditLogOf(dynamicConfigDir)}: ${fsReason(err)}`, hintFor(err), 'AUDIT_FAILED');
      }
    }
  } catch {
    return null; // unreadable: the lock's own check says so
  }
  return null;
}

/**
 * What a real run would meet before it writes, for its plan to say: another command holding
 * the lock, a lock it cannot make, and, when it logs (`logs`), unsafe state files.
 */
export function writeRefusal(dynamicConfigDir: string, logs = true): CkptError | null {
  return holderRefusal(dynamicConfigDir) ?? lockWriteRefusal(dynamicConfigDir) ?? (logs ? stateFilesRefusal(dynamicConfigDir) : null);
}

/** 2026-11-22T08:00:00.123Z → 20261122T080000.123Z */
export function backupId(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '');
}

/** 20261122T080000.123Z → 2026-11-22T08:00:00.123Z */
export function backupTime(id: string): string {
  return `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 11)}:${id.slice(11, 13)}:${id.slice(13)}`;
}

/** What a backup records of a file as it was (recovery's meta files, migrate's node files). */
export interface SavedState {
  /** `missing`: there was no file. */
  state: 'file' | 'missing';
  size: number | null;
  sha256: string | null;
  mode: number | null;
  uid: number | null;
  gid: number | null;
}

/** A meta file in a backup; a missing one the kubelet would have created empty. */
export interface ManifestFile extends SavedState {
  name: MetaName;
  /** Modification time (ms since the epoch): undo puts it back, so assigned's trial is not restarted. */
  mtimeMs?: number | null;
}

export interface Manifest {
  id: string;
  time: string;
  command: string;
  store: string;
  user: Actor;
  files: ManifestFile[];
  /** sha256 of each meta file after the command, null for no file. */
  after: Partial<Record<MetaName, string | null>>;
}

export interface Actor {
  uid: number;
  gid: number;
  name: string | null;
  sudoUser: string | null;
  pid: number;
  host: string;
}

export function currentActor(env: Record<string, string | undefined> = process.env): Actor {
  let name: string | null = null;
  try {
    name = os.userInfo().username;
  } catch {
    name = env.USER ?? null;
  }
  return { uid: process.geteuid?.() ?? -1, gid: process.getegid?.() ?? -1, name, sudoUser: env.SUDO_USER ?? null, pid: process.pid, host: os.hostname() };
}

export function hashOf(s: FileState): string | null {
  return s.kind === 'file' ? sha256Hex(s.bytes) : null;
}

/** The backups directory (null when absent and not `create`); symlinks and non-directories are exit 3. */
export function openBackups(dynamicConfigDir: string, create: boolean): SafeDir | null {
  const state = openStateDir(dynamicConfigDir, create);
  if (!state) return null;
  return using(state, (d) => openSub(d, 'backups', create));
}


/**
 * Make sure the backups directory exists and can be written (a probe file is created and
 * removed). Throws EnvError before anything in the store is changed.
 */
export function ensureBackupsDir(dynamicConfigDir: string): string {
  const dir = backupsDirOf(dynamicConfigDir);
  try {
    using(openBackups(dynamicConfigDir, true)!, (d) => {
      // A unique name: a probe left by a killed run (in a container every run may be pid 1) never blocks the next.
      const probe = tempName('probe');
      d.writeNew(probe, '');
      d.unlink(probe);
    });
  } catch (err) {
    if (err instanceof EnvError) throw err;
    throw new EnvError(`the backup directory ${dir} cannot be written: ${fsReason(err)}; nothing was changed`, hintFor(err) ?? 'fix its permissions and re-run', 'BACKUP_UNWRITABLE');
  }
  return dir;
}

/** Empty and remove a directory of regular files (our own interrupted backup); nothing is followed. */
function removeFlatDir(parent: SafeDir, name: string): void {
  using(parent.dir(name), (d) => {
    for (const n of d.list()) {
      const st = d.lstat(n);
      if (!st.isFile()) throw Object.assign(new Error(`${path.join(d.path, n)} is ${kindWords(st)}`), { code: 'ENOTREG' });
      d.unlink(n);
    }
  });
  parent.rmdir(name);
  parent.sync();
}

/**
 * Remove our own interrupted backups (tmp_*kubelet-ckpt*) whose writer is gone; call only while
 * holding the lock. Returns what was removed and what was left (others', or not removable).
 */
export function cleanBackupLeftovers(dynamicConfigDir: string): string[] {
  const d = openBackups(dynamicConfigDir, false);
  if (!d) return [];
  return using(d, (dir) => {
    const notes: string[] = [];
    for (const n of dir.list()) {
      if (n === 'audit.log' || BACKUP_ID.test(n)) continue;
      const at = path.join(dir.path, n);
      if (!isOurTemp(n)) {
        notes.push(`${at} is not kubelet-ckpt's: left alone`);
        continue;
      }
      try {
        const st = dir.lstat(n);
        if (!staleTemp(n, st.mtimeMs)) continue;
        if (st.isDirectory()) removeFlatDir(dir, n);
        else if (st.isFile()) dir.unlink(n);
        else throw Object.assign(new Error(`is ${kindWords(st)}`), { code: 'ENOTREG' });
        notes.push(`removed ${at}, left by an interrupted kubelet-ckpt`);
      } catch (err) {
        notes.push(`could not remove ${at}, left by an interrupted kubelet-ckpt: ${fsReason(err)}`);
      }
    }
    return notes;
  });
}

/**
 * Remove a backup this very run made, when its command failed before changing anything: left
 * in place, it would be the "latest" that a plain `undo` restores, a no-op that exits 0 while
 * the change before it stays (found by review). Its files, an empty `leftovers/` (clean's),
 * then the directory; nothing is followed. False when it could not be removed.
 */
export function discardBackup(dynamicConfigDir: string, id: string): boolean {
  try {
    const d = openBackups(dynamicConfigDir, false);
    if (!d) return false;
    return using(d, (dir) => {
      using(dir.dir(id), (b) => {
        if (b.lstatIfAny('leftovers')?.isDirectory()) {
          if (using(b.dir('leftovers'), (l) => l.list().length) > 0) throw new Error('it holds leftovers');
          b.rmdir('leftovers');
        }
      });
      removeFlatDir(dir, id);
      return true;
    });
  } catch {
    return false;
  }
}

export interface WrittenBackup {
  id: string;
  path: string;
}

/** Write a backup of the meta files' current states; returns once it is durable. */
export function writeBackup(
  dynamicConfigDir: string,
  states: Record<MetaName, FileState>,
  m: Omit<Manifest, 'id' | 'time' | 'files'>,
  now: Date,
  hook: (step: 'backup-written' | 'backup-renamed', detail: string) => void = () => {},
): WrittenBackup {
  const files: ManifestFile[] = (['last-known-good', 'assigned'] as const).map((name) => {
    const s = states[name];
    return s.kind === 'file'
      ? { name, state: 'file', size: s.bytes.length, sha256: sha256Hex(s.bytes), mode: s.mode, uid: s.uid, gid: s.gid, mtimeMs: s.mtimeMs ?? null }
      : { name, state: 'missing', size: null, sha256: null, mode: null, uid: null, gid: null, mtimeMs: null };
  });
  return writeBackupDir(
    dynamicConfigDir,
    now,
    (['last-known-good', 'assigned'] as const).flatMap((name) => {
      const st = states[name];
      return st.kind === 'file' ? [{ name, bytes: st.bytes }] : [];
    }),
    (id, time): Manifest => ({ id, time, command: m.command, store: m.store, user: m.user, files, after: m.after }),
    hook,
  );
}

/**
 * A new backup directory in the backups directory, written through its opened descriptor: an
 * id from `now` (the next free millisecond), `files` and manifest.json in a temp directory,
 * synced, then renamed into place. On failure the temp directory is removed and nothing else
 * was touched. Recovery's meta backups and migrate's backups of node files alike.
 */
export function writeBackupDir(
  dynamicConfigDir: string,
  now: Date,
  files: readonly { name: string; bytes: Buffer | string }[],
  manifestFor: (id: string, time: string) => object,
  hook: (step: 'backup-written' | 'backup-renamed', detail: string) => void = () => {},
): WrittenBackup {
  const dirPath = backupsDirOf(dynamicConfigDir);
  let dir: SafeDir;
  try {
    dir = openBackups(dynamicConfigDir, true)!;
  } catch (err) {
    if (err instanceof EnvError) throw err;
    throw new EnvError(`cannot write a backup in ${dirPath}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'BACKUP_FAILED');
  }
  return using(dir, (d) => {
    let t = now.getTime();
    while (d.lstatIfAny(backupId(new Date(t)))) t += 1;
    const id = backupId(new Date(t));
    const tmp = tempName(id);
    const final = path.join(dirPath, id);
    const manifest = manifestFor(id, new Date(t).toISOString());
    try {
      d.mkdir(tmp);
      using(d.dir(tmp), (b) => {
        for (const f of files) b.writeNew(f.name, f.bytes);
        b.writeNew('manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
        b.sync();
      });
      hook('backup-written', path.join(dirPath, tmp));
      d.rename(tmp, id);
      d.sync();
      hook('backup-renamed', final);
    } catch (err) {
      try {
        removeFlatDir(d, tmp);
      } catch {
        /* the next run removes it */
      }
      throw new EnvError(`cannot write the backup ${final}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'BACKUP_FAILED');
    }
    return { id, path: final };
  });
}

export interface AuditEntry {
  time: string;
  event: 'begin' | 'done' | 'failed';
  command: string;
  backup: string | null;
  store: string;
  user: Actor;
  changes: { path: string; before: string | null; after: string | null }[];
  error?: string;
  freedBytes?: number;
}

/** Append one JSON line (a single write, so a crash cannot interleave half a line). */
export function appendAudit(dynamicConfigDir: string, entry: AuditEntry): void {
  const file = auditLogOf(dynamicConfigDir);
  try {
    using(openBackups(dynamicConfigDir, true)!, (d) => {
      const fd = d.append('audit.log');
      try {
        fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    });
  } catch (err) {
    if (err instanceof EnvError) throw err;
    throw new EnvError(`cannot append to the audit log ${file}: ${fsReason(err)}`, hintFor(err), 'AUDIT_FAILED');
  }
}

/**
 * The audit log's closing line, written after the change was made: a log that can no longer be
 * written then (swapped for a link, a full disk) is a warning, not the command's failure,
 * whose message would say nothing was changed (found by review: reset wrote both meta files
 * and exited 3 saying "nothing was changed", with no backup id to undo with).
 */
export function auditDone(write: () => void, warnings: string[], backedUp = true): void {
  try {
    write();
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/; nothing (was|would be) changed$/, '') : String(err);
    // prune keeps no backup, and an undo restores one: "backed up" only where there is one (found by review).
    warnings.push(`the change is made${backedUp ? ' and backed up' : ''}, but the audit log's closing line could not be written: ${why}`);
  }
}

/** The audit log is read whole, up to this much. */
const AUDIT_CAP = 16 * 1024 * 1024;

/** The audit log's entries; a torn last line (a crash) is skipped. */
export function readAudit(dynamicConfigDir: string): AuditEntry[] {
  let text: string;
  try {
    const d = openBackups(dynamicConfigDir, false);
    if (!d) return [];
    text = using(d, (b) => b.read('audit.log', AUDIT_CAP).bytes.toString('utf8'));
  } catch {
    return [];
  }
  const out: AuditEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as AuditEntry);
    } catch {
      /* torn line */
    }
  }
  return out;
}

export interface BackupSummary {
  id: string;
  time: string;
  command: string;
  /** Store-relative paths of the files the backup holds (or records as absent). */
  files: string[];
  path: string;
  /** The store the backup was made for, as the command named it. */
  store: string | null;
}

/**
 * Whether a backup made for `recorded` belongs to the store `store`: the backups directory is
 * the dynamic-config directory's, shared by what lies in it, so the store's own name in it
 * decides (`store` in a kubelet's layout; two flat stores side by side share one backups
 * directory: found by a TUI review, a plain undo picked the other's newest backup). The name,
 * not the whole path, so that a disk mounted at another --root later still finds its backups.
 */
export function sameStore(recorded: string | null, store: string): boolean {
  return recorded === null || path.basename(recorded) === path.basename(store);
}

/** A backup named by its id that another store made: refused, or with --force a warning (`anyway` says what is done then). */
export function otherStoreCheck(b: { id: string; store?: unknown }, store: string, force: boolean, anyway: string, warnings: string[], refusals: CkptError[]): void {
  if (sameStore(typeof b.store === 'string' ? b.store : null, store)) return;
  const msg = `backup ${b.id} was made for ${String(b.store)}, not for this store (${store})`;
  if (force) warnings.push(`${msg}; ${anyway} anyway (--force)`);
  else refusals.push(new RefusedError(msg, 'pick a backup of this store (kubelet-ckpt undo --list), or pass --force if it is this store under another name', 'BACKUP_OTHER_STORE'));
}

export interface LoadedBackup {
  manifest: Manifest;
  path: string;
  states: Partial<Record<MetaName, FileState>>;
}

/** Every whole backup, oldest first. Entries that are not backups are ignored. */
export function listBackups(dynamicConfigDir: string): BackupSummary[] {
  return scanBackups(dynamicConfigDir).backups;
}

/** The backups that can be read, and the names of every entry with a backup id's form (sorted; damaged ones too). */
function scanBackups(dynamicConfigDir: string): { ids: string[]; backups: BackupSummary[] } {
  const dir = backupsDirOf(dynamicConfigDir);
  let d: SafeDir | null;
  let names: string[];
  try {
    d = openBackups(dynamicConfigDir, false);
    if (!d) return { ids: [], backups: [] };
    names = d.list();
  } catch (err) {
    if (err instanceof EnvError) throw err;
    throw new EnvError(`cannot read ${dir}: ${fsReason(err)}`, hintFor(err), 'BACKUP_UNREADABLE');
  }
  const ids = names.filter((n) => BACKUP_ID.test(n)).sort();
  return using(d, (b) => {
    const out: BackupSummary[] = [];
    for (const id of ids) {
      const m = readManifest(b, id);
      if (!m) continue;
      // clean's backups hold the leftovers it moved aside (`moved`), not meta files.
      const moved = (m as { moved?: unknown }).moved;
      const aside = Array.isArray(moved) ? moved.map((x) => (x as { from?: unknown }).from).filter((x): x is string => typeof x === 'string') : [];
      out.push({ id, time: m.time, command: m.command, files: [...m.files.map((f) => (f as { path?: string }).path ?? `meta/${f.name}`), ...aside], path: path.join(dir, id), store: typeof m.store === 'string' ? m.store : null });
    }
    return { ids, backups: out };
  });
}

/** A backup directory's manifest; null when the entry is not a real directory holding one. */
function readManifest(backups: SafeDir, id: string): Manifest | null {
  try {
    return using(backups.dir(id), (d) => {
      const m = JSON.parse(d.read('manifest.json', 1024 * 1024).bytes.toString('utf8')) as Manifest;
      return wellFormed(m) ? m : null;
    });
  } catch {
    return null;
  }
}

/**
 * A manifest of the shape kubelet-ckpt writes: its time and command strings, each file an object
 * with a name or a path, and a clean's moved entries objects with a `from`; anything else is a damaged
 * backup, skipped by the list and refused by undo (found by review: `{"files":[null]}` was exit 5).
 */
function wellFormed(m: unknown): m is Manifest {
  const obj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!obj(m) || typeof m.time !== 'string' || typeof m.command !== 'string' || !Array.isArray(m.files)) return false;
  // Meta backups name their files; a migration's give node paths.
  const num = (v: unknown) => v === undefined || v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0);
  if (!m.files.every((f) => obj(f) && (typeof f.name === 'string' || typeof f.path === 'string') && (f.path === undefined || typeof f.path === 'string') && num(f.mode) && num(f.uid) && num(f.gid))) return false;
  return m.moved === undefined || (Array.isArray(m.moved) && m.moved.every((x) => obj(x) && typeof x.from === 'string' && typeof x.to === 'string'));
}

/** Load one backup (the latest when `id` is null), checking every file against its manifest. */
export function loadBackup(dynamicConfigDir: string, id: string | null, store: string | null = null): LoadedBackup {
  if (id !== null && !BACKUP_ID.test(id)) {
    throw new UsageError(`bad backup id "${id}": expected the form 20261122T080000.123Z`, 'list them with `kubelet-ckpt undo --list`', 'UNKNOWN_BACKUP');
  }
  const scanned = scanBackups(dynamicConfigDir);
  const ids = scanned.ids;
  // Without an id, the newest of this store's backups (by id, a named one is the caller's to check).
  const all = id === null && store !== null ? scanned.backups.filter((b) => sameStore(b.store, store)) : scanned.backups;
  // The newest backup directory, damaged, is refused rather than passed over for an older one (found by review).
  if (id === null) {
    const newest = ids.at(-1);
    if (newest !== undefined && !scanned.backups.some((b) => b.id === newest)) throw new RefusedError(`backup ${newest}, the newest, is damaged: its manifest cannot be read`, `name the backup to restore (kubelet-ckpt undo --list), or move ${newest} aside`, 'BACKUP_DAMAGED');
  }
  const pick = id === null ? all[all.length - 1] : all.find((b) => b.id === id);
  if (!pick) {
    if (id === null) throw new RefusedError(`there is no backup to restore in ${backupsDirOf(dynamicConfigDir)}`, 'backups are made by reset, rollback and undo', 'NO_BACKUP');
    // There, but not listed: its manifest is not one kubelet-ckpt writes.
    if (ids.includes(id)) throw new RefusedError(`backup ${id} is damaged: its manifest cannot be read`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
    throw new UsageError(`no backup "${id}"${all.length ? `; there are: ${all.map((b) => b.id).join(', ')}` : ''}`, 'list them with `kubelet-ckpt undo --list`', 'UNKNOWN_BACKUP');
  }
  const damaged = (what: string) => new RefusedError(`backup ${pick.id} is damaged: ${what}`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
  return using(openBackups(dynamicConfigDir, false)!, (backups) => {
    const manifest = readManifest(backups, pick.id);
    if (!manifest) throw damaged('its manifest cannot be read');
    let dir: SafeDir;
    try {
      dir = backups.dir(pick.id);
    } catch (err) {
      throw damaged(fsReason(err));
    }
    return using(dir, (d) => {
      const states: Partial<Record<MetaName, FileState>> = {};
      for (const f of manifest.files) {
        if (f.name !== 'assigned' && f.name !== 'last-known-good') continue;
        if (f.state === 'missing') {
          states[f.name] = { kind: 'missing' };
          continue;
        }
        if (unsafeNameReason(f.name)) throw damaged(`a file name ${JSON.stringify(f.name)}`);
        let bytes: Buffer;
        try {
          const r = d.read(f.name, META_CAP);
          if (r.truncated) throw damaged(`${f.name} is larger than ${META_CAP} bytes`);
          bytes = r.bytes;
        } catch (err) {
          if (err instanceof RefusedError) throw err;
          throw damaged(`${f.name}: ${(err as NodeJS.ErrnoException).code === 'ENOTREG' ? 'not a regular file' : fsReason(err)}`);
        }
        if (sha256Hex(bytes) !== f.sha256) throw damaged(`${f.name} does not match its recorded sha256`);
        states[f.name] = { kind: 'file', bytes, mode: f.mode ?? 0o644, uid: f.uid ?? 0, gid: f.gid ?? 0, mtimeMs: typeof f.mtimeMs === 'number' ? f.mtimeMs : undefined };
      }
      return { manifest, path: pick.path, states };
    });
  });
}
