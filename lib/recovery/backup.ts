// Backups of the meta files and the audit log, under <dynamic-config-dir>/.kubelet-ckpt/:
//   backups/<id>/assigned, backups/<id>/last-known-good, backups/<id>/manifest.json
//   backups/audit.log   one JSON object per line: who, when, what, hashes before/after
// A backup is written into backups/tmp_<id>.kubelet-ckpt…, synced, then renamed to <id>,
// so a listed backup is always whole. The id is its UTC time, compact: 20261122T080000.123Z.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EnvError, RefusedError, UsageError, fsReason } from '../errors.js';
import { readFileCapped, safeJoin } from '../store/safepath.js';
import type { MetaName } from '../store/types.js';
import { hintFor, isOurTemp, syncDir, type FileState } from './atomic.js';
import { mkdirOnce } from './lock.js';

export const STATE_DIR = '.kubelet-ckpt';
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

/** 2026-11-22T08:00:00.123Z → 20261122T080000.123Z */
export function backupId(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '');
}

/** 20261122T080000.123Z → 2026-11-22T08:00:00.123Z */
export function backupTime(id: string): string {
  return `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 11)}:${id.slice(11, 13)}:${id.slice(13)}`;
}

export const sha256 = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

export interface ManifestFile {
  name: MetaName;
  /** `missing`: there was no file (the kubelet would have created it empty). */
  state: 'file' | 'missing';
  size: number | null;
  sha256: string | null;
  mode: number | null;
  uid: number | null;
  gid: number | null;
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
  return s.kind === 'file' ? sha256(s.bytes) : null;
}

export function writeSynced(file: string, bytes: Buffer | string, mode = 0o600): void {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
  try {
    const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
    let off = 0;
    while (off < b.length) off += fs.writeSync(fd, b, off, b.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Make sure the backups directory exists and can be written (a probe file is created and
 * removed). Throws EnvError before anything in the store is changed.
 */
export function ensureBackupsDir(dynamicConfigDir: string): string {
  const dir = backupsDirOf(dynamicConfigDir);
  try {
    mkdirOnce(path.dirname(dir));
    mkdirOnce(dir);
    const st = fs.lstatSync(dir);
    if (!st.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    const probe = path.join(dir, `tmp_probe.kubelet-ckpt.${process.pid}`);
    writeSynced(probe, '');
    fs.unlinkSync(probe);
  } catch (err) {
    throw new EnvError(`the backup directory ${dir} cannot be written: ${fsReason(err)}; nothing was changed`, hintFor(err) ?? 'fix its permissions and re-run', 'BACKUP_UNWRITABLE');
  }
  return dir;
}

/** Remove our own interrupted backups (tmp_*kubelet-ckpt*); call only while holding the lock. */
export function cleanBackupLeftovers(dynamicConfigDir: string): string[] {
  const dir = backupsDirOf(dynamicConfigDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const n of names.filter(isOurTemp)) {
    fs.rmSync(path.join(dir, n), { recursive: true, force: true });
    removed.push(n);
  }
  return removed;
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
  const dir = backupsDirOf(dynamicConfigDir);
  let t = now.getTime();
  while (fs.existsSync(path.join(dir, backupId(new Date(t))))) t += 1;
  const id = backupId(new Date(t));
  const tmp = path.join(dir, `tmp_${id}.kubelet-ckpt.${process.pid}`);
  const final = path.join(dir, id);
  const files: ManifestFile[] = (['last-known-good', 'assigned'] as const).map((name) => {
    const s = states[name];
    return s.kind === 'file'
      ? { name, state: 'file', size: s.bytes.length, sha256: sha256(s.bytes), mode: s.mode, uid: s.uid, gid: s.gid }
      : { name, state: 'missing', size: null, sha256: null, mode: null, uid: null, gid: null };
  });
  const manifest: Manifest = { id, time: new Date(t).toISOString(), command: m.command, store: m.store, user: m.user, files, after: m.after };
  try {
    fs.mkdirSync(tmp, { mode: 0o700 });
    for (const name of ['last-known-good', 'assigned'] as const) {
      const s = states[name];
      if (s.kind === 'file') writeSynced(path.join(tmp, name), s.bytes);
    }
    writeSynced(path.join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    syncDir(tmp);
    hook('backup-written', tmp);
    fs.renameSync(tmp, final);
    syncDir(dir);
    hook('backup-renamed', final);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new EnvError(`cannot write the backup ${final}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'BACKUP_FAILED');
  }
  return { id, path: final };
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
    const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    throw new EnvError(`cannot append to the audit log ${file}: ${fsReason(err)}`, hintFor(err), 'AUDIT_FAILED');
  }
}

/** The audit log's entries; a torn last line (a crash) is skipped. */
export function readAudit(dynamicConfigDir: string): AuditEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(auditLogOf(dynamicConfigDir), 'utf8');
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
}

export interface LoadedBackup {
  manifest: Manifest;
  path: string;
  states: Partial<Record<MetaName, FileState>>;
}

/** Every whole backup, oldest first. Entries that are not backups are ignored. */
export function listBackups(dynamicConfigDir: string): BackupSummary[] {
  const dir = backupsDirOf(dynamicConfigDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new EnvError(`cannot read ${dir}: ${fsReason(err)}`, hintFor(err), 'BACKUP_UNREADABLE');
  }
  const out: BackupSummary[] = [];
  for (const id of names.filter((n) => BACKUP_ID.test(n)).sort()) {
    const m = readManifest(path.join(dir, id));
    if (!m) continue;
    // A migrate backup names node files by their path; a meta backup by the meta file's name.
    out.push({ id, time: m.time, command: m.command, files: m.files.map((f) => (f as { path?: string }).path ?? `meta/${f.name}`), path: path.join(dir, id) });
  }
  return out;
}

function readManifest(dir: string): Manifest | null {
  try {
    const r = readFileCapped(path.join(dir, 'manifest.json'), 1024 * 1024);
    const m = JSON.parse(r.bytes.toString('utf8')) as Manifest;
    return Array.isArray(m.files) ? m : null;
  } catch {
    return null;
  }
}

/** Load one backup (the latest when `id` is null), checking every file against its manifest. */
export function loadBackup(dynamicConfigDir: string, id: string | null): LoadedBackup {
  const all = listBackups(dynamicConfigDir);
  if (id !== null && !BACKUP_ID.test(id)) {
    throw new UsageError(`bad backup id "${id}": expected the form 20261122T080000.123Z`, 'list them with `kubelet-ckpt undo --list`', 'UNKNOWN_BACKUP');
  }
  const pick = id === null ? all[all.length - 1] : all.find((b) => b.id === id);
  if (!pick) {
    if (id === null) throw new RefusedError(`there is no backup to restore in ${backupsDirOf(dynamicConfigDir)}`, 'backups are made by reset, rollback and undo', 'NO_BACKUP');
    throw new UsageError(`no backup "${id}"${all.length ? `; there are: ${all.map((b) => b.id).join(', ')}` : ''}`, 'list them with `kubelet-ckpt undo --list`', 'UNKNOWN_BACKUP');
  }
  const manifest = readManifest(pick.path)!;
  const states: Partial<Record<MetaName, FileState>> = {};
  for (const f of manifest.files) {
    if (f.name !== 'assigned' && f.name !== 'last-known-good') continue;
    if (f.state === 'missing') {
      states[f.name] = { kind: 'missing' };
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = readFileCapped(safeJoin(pick.path, f.name), 64 * 1024).bytes;
    } catch (err) {
      throw new RefusedError(`backup ${pick.id} is damaged: ${f.name}: ${fsReason(err)}`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
    }
    if (sha256(bytes) !== f.sha256) throw new RefusedError(`backup ${pick.id} is damaged: ${f.name} does not match its recorded sha256`, 'pick another backup (kubelet-ckpt undo --list)', 'BACKUP_DAMAGED');
    states[f.name] = { kind: 'file', bytes, mode: f.mode ?? 0o644, uid: f.uid ?? 0, gid: f.gid ?? 0 };
  }
  return { manifest, path: pick.path, states };
}
