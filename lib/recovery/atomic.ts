// Atomic file replacement, as the kubelet's own ReplaceFile plus a directory fsync:
// a temp file in the same directory (tmp_<name>.kubelet-ckpt.<pid>.<random>), written,
// owner and mode copied from the file it replaces, fsynced, the target re-checked
// against what the plan saw, renamed over, the directory fsynced, the result re-read.
// Nothing here follows a symlink: a link where a file should be is refused, and every file
// is reached through its already-opened directory (SafeDir), so a directory swapped for a
// link mid-way does not lead the write elsewhere.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { META_CAP } from '../store/snapshot.js';
import { EnvError, InternalError, RefusedError, fsReason } from '../errors.js';
import { SafeDir, kindWords, using } from '../store/safepath.js';
import type { Simulate, StepHook } from './steps.js';

/** What a plan saw at a path: the bytes of a regular file, or nothing there. */
export type FileState = { kind: 'file'; bytes: Buffer; mode: number; uid: number; gid: number; mtimeMs?: number | undefined } | { kind: 'missing' };

/** Raised when a file is no longer what the plan saw (someone, maybe the kubelet, wrote it). */
export class ChangedError extends RefusedError {
  constructor(message: string) {
    super(message, 'nothing more was written; look at the store again (kubelet-ckpt status) and re-run the command', 'CHANGED_SINCE_PLAN');
  }
}

/** A directory swapped since it was read (SafeDir.pin) stops a write as a change, not as a file-system fault. */
export function changedOr<E extends Error>(err: unknown, other: E): ChangedError | E {
  return (err as NodeJS.ErrnoException)?.code === 'ECHANGED' ? new ChangedError(`${(err as Error).message}; stopped`) : other;
}

/** Temp names this process made: in a container every run may be pid 1, so the pid in a name does not say it is ours. */
const madeHere = new Set<string>();

/** Our temp-file name for `name`: starts with tmp_, carries kubelet-ckpt, unique. */
export function tempName(name: string): string {
  const t = `tmp_${name}.kubelet-ckpt.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  madeHere.add(t);
  return t;
}

export function madeByThisProcess(name: string): boolean {
  return madeHere.has(name);
}

/** True for names of temp entries kubelet-ckpt itself leaves (never the kubelet's). */
export function isOurTemp(name: string): boolean {
  return name.startsWith('tmp_') && name.includes('kubelet-ckpt');
}

/**
 * Open the directory at `dir` for writing into: its parent is opened as given, `dir` itself
 * without following a link (META_SYMLINK refusal when it is one).
 */
export function openWriteDir(dir: string | SafeDir, what: string, code = 'STORE_UNWRITABLE'): SafeDir {
  if (typeof dir !== 'string') return dir;
  // `.`, `DIR/.` and `sub/..` name a directory too: resolved first, so the last name is a plain one.
  dir = path.resolve(dir);
  let parent: SafeDir;
  try {
    parent = SafeDir.open(path.dirname(dir));
  } catch (err) {
    throw changedOr(err, new EnvError(`cannot use ${what}: ${fsReason(err)}`, null, code));
  }
  return using(parent, (p) => {
    const name = path.basename(dir);
    const st = p.lstatIfAny(name);
    if (!st) throw new EnvError(`cannot use ${what}: no such file or directory`, null, code);
    if (st.isSymbolicLink()) throw new RefusedError(`${what} is a symbolic link; kubelet-ckpt never writes through a link`, null, 'META_SYMLINK');
    if (!st.isDirectory()) throw new EnvError(`${what} is not a directory`, null, code);
    try {
      return p.dir(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedError(`${what} is a symbolic link; kubelet-ckpt never writes through a link`, null, 'META_SYMLINK');
      throw new EnvError(`cannot use ${what}: ${fsReason(err)}`, null, code);
    }
  });
}

/** Run `fn` on the directory, closing it afterwards when this call opened it. */
function inDir<T>(dir: string | SafeDir, what: string, fn: (d: SafeDir) => T): T {
  const d = openWriteDir(dir, what);
  return d === dir ? fn(d) : using(d, fn);
}

/** The state of `name` in `dir`, without following a symlink; a link or special file is refused. */
/** What a file is to the command reading it: a meta file of the store, or a node file migrate edits (unit, env, --config file). */
export type StateOf = 'meta' | 'node';

export function readStateIn(dir: SafeDir, name: string, what: string, of: StateOf = 'meta'): FileState {
  let st: fs.Stats | null;
  try {
    st = dir.lstatIfAny(name);
  } catch (err) {
    throw new EnvError(`cannot read ${what}: ${fsReason(err)}`, hintFor(err), 'UNREADABLE');
  }
  if (!st) return { kind: 'missing' };
  if (st.isSymbolicLink()) {
    throw new RefusedError(`${what} is a symbolic link; kubelet-ckpt never writes through a link`, `look at where it points (ls -l ${path.join(dir.path, name)}); replace it with a regular file, then re-run`, 'META_SYMLINK');
  }
  if (!st.isFile()) throw new RefusedError(`${what} is not a regular file (${kindWords(st)})`, 'the kubelet writes a regular file here; move it away and re-run', 'META_NOT_REGULAR');
  let r;
  try {
    r = dir.read(name, META_CAP);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP' || code === 'ENOTREG') throw new ChangedError(`${what} was replaced by something that is not a regular file while it was read`);
    throw new EnvError(`cannot read ${what}: ${fsReason(err)}`, hintFor(err), 'UNREADABLE');
  }
  // What cannot be read whole cannot be backed up, so it is never replaced.
  if (r.truncated) {
    // A node file too (found by review: a big EnvironmentFile was refused as "not a meta file", with "move it out of the store").
    if (of === 'node') throw new RefusedError(`${what} is larger than ${META_CAP / 1024 / 1024} MiB: too large to edit and back up`, 'edit the kubelet\'s flags in it by hand (remove --dynamic-config-dir and the DynamicKubeletConfig gate), then re-run', 'NODE_FILE_TOO_LARGE');
    throw new RefusedError(`${what} is larger than ${META_CAP / 1024 / 1024} MiB: not a meta file, and too large to back up`, `move it out of the store (mv ${path.join(dir.path, name)} /root/), then re-run`, 'META_NOT_REGULAR');
  }
  return { kind: 'file', bytes: r.bytes, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, mtimeMs: st.mtimeMs };
}

/** The state of a file given by path (its directory opened without following a link). */
export function readState(file: string, what: string, of: StateOf = 'meta'): FileState {
  // No directory, no file (as lstat of the path said before): a file that is yet to be created.
  if (!fs.lstatSync(path.dirname(file), { throwIfNoEntry: false })) return { kind: 'missing' };
  return inDir(path.dirname(file), path.dirname(what), (d) => readStateIn(d, path.basename(file), what, of));
}

export function sameState(a: FileState, b: FileState): boolean {
  if (a.kind === 'missing' || b.kind === 'missing') return a.kind === b.kind;
  return a.bytes.equals(b.bytes);
}

/** Refuse a directory that is not a real directory (a symlink to elsewhere is never written into). */
export function requireRealDir(dir: string, what: string): void {
  openWriteDir(dir, what).close();
}

/** A real directory this process may write in (not a read-only mount, permission to create). */
export function requireWritable(dir: string, what: string, outcome = 'nothing was changed'): void {
  requireRealDir(dir, what);
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    throw new EnvError(`${what} cannot be written: ${fsReason(err)}; ${outcome}`, hintFor(err), 'STORE_UNWRITABLE');
  }
}

/**
 * What a write in `dir` would meet now, for a plan (a dry run exits as the real run would;
 * found by review: `reset --dry-run` said 0 on a read-only meta directory where the real run
 * exits 3). A directory yet to be made is judged by the nearest one that exists.
 */
export function writeBlock(dir: string, what: string, outcome: string): EnvError | null {
  let d = dir;
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  try {
    requireWritable(d, d === dir ? what : `${d} (where ${what} would be made)`, outcome);
    return null;
  } catch (err) {
    if (err instanceof EnvError) return err;
    // A link or non-directory there is refused when the write opens it: not this check's to say.
    return null;
  }
}

/** An owner and mode for a file written. */
export interface Owner {
  mode: number;
  uid: number;
  gid: number;
}

/** What a file written over `state` gets: `owner` when given (undo), else the file's own, else `create`'s, else ours. */
export function ownerFor(state: FileState, owner?: Owner | null, create?: Owner | null): Owner {
  return owner ?? (state.kind === 'file' ? state : create ?? { mode: 0o644, uid: process.geteuid?.() ?? 0, gid: process.getegid?.() ?? 0 });
}

/**
 * A file keeps its owner when replaced (fchown of the new one), which only root may give to
 * someone else's file: checked before anything is written, by the plan and by the write.
 */
export function ownerBlock(owner: { uid: number; gid: number } | null, what: string): EnvError | null {
  const euid = process.geteuid?.();
  if (!owner || euid === undefined || euid === 0) return null;
  if (owner.uid === euid && (owner.gid === process.getegid?.() || (process.getgroups?.() ?? []).includes(owner.gid))) return null;
  return new EnvError(`cannot write ${what}: it belongs to uid ${owner.uid} gid ${owner.gid}, and only root can give the new file that owner; ${what} is untouched`, 'run kubelet-ckpt as root (sudo)', 'WRITE_FAILED');
}

function writeAll(fd: number, bytes: Buffer, simulate: Simulate): void {
  if (simulate.enospc && bytes.length > 0) {
    const e = new Error('ENOSPC: no space left on device, write (simulated)') as NodeJS.ErrnoException;
    e.code = 'ENOSPC';
    throw e;
  }
  let off = 0;
  while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
}

export interface ReplaceOptions {
  /** What must be at the target right before the rename (re-checked; ChangedError if not). */
  expect: FileState;
  /** Mode, owner and group for a file that does not exist yet. */
  create?: Owner;
  /** Mode, owner and group for the new file whatever is there now (undo puts the old ones back); set before the rename. */
  owner?: Owner;
  /** Give the new file this modification time (undo puts the old one back). */
  mtimeMs?: number | null;
  /** Re-checked right before the rename: throws when the store's lock is no longer ours. */
  lockCheck?: () => void;
  /** Name used in messages (`meta/assigned`). */
  what: string;
  hook?: StepHook;
  simulate?: Simulate;
}

/**
 * Replace `dir/name` with `bytes` atomically. On failure before the rename the target is
 * untouched and the temp file removed; the error says so. Returns once the new bytes are
 * durable and have been read back.
 */
export function atomicReplace(dir: string | SafeDir, name: string, bytes: Buffer, opts: ReplaceOptions): void {
  inDir(dir, `the ${path.dirname(opts.what)} directory`, (d) => replaceIn(d, name, bytes, opts));
}

function replaceIn(d: SafeDir, name: string, bytes: Buffer, opts: ReplaceOptions): void {
  const hook = opts.hook ?? (() => {});
  d.at(name); // a plain name, or UnsafePathError
  const expect = opts.expect;
  const now = readStateIn(d, name, opts.what);
  if (!sameState(now, expect)) throw new ChangedError(`${opts.what} changed since the plan was made; not written`);
  const owner = ownerFor(now, opts.owner, opts.create);
  const denied = ownerBlock(owner, opts.what);
  if (denied) throw denied;
  const tmp = tempName(name);
  let fd: number;
  try {
    fd = d.create(tmp);
  } catch (err) {
    throw new EnvError(`cannot write ${opts.what}: creating a temp file in ${d.path} failed: ${fsReason(err)}; ${opts.what} is untouched`, hintFor(err), 'WRITE_FAILED');
  }
  let renamed = false;
  try {
    hook('temp-created', opts.what);
    try {
      writeAll(fd, bytes, opts.simulate ?? {});
      const st = fs.fstatSync(fd);
      if (st.uid !== owner.uid || st.gid !== owner.gid) fs.fchownSync(fd, owner.uid, owner.gid);
      // Permission bits only: no setuid, setgid or sticky bit on a file we write, whatever a
      // backup's manifest says (found by review: a forged manifest made undo write -rwsrwxrwx).
      fs.fchmodSync(fd, owner.mode & 0o777);
      if (typeof opts.mtimeMs === 'number') fs.futimesSync(fd, Date.now() / 1000, opts.mtimeMs / 1000);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    hook('after-temp-write', opts.what);
    // The kubelet may have written while we were busy, or the lock been broken: look again
    // right before the rename.
    opts.lockCheck?.();
    const again = readStateIn(d, name, opts.what);
    if (!sameState(again, expect)) throw new ChangedError(`${opts.what} changed while it was being replaced (the kubelet may have written it); not written`);
    d.rename(tmp, name);
    renamed = true;
    hook('after-rename', opts.what);
    d.sync();
    hook('dir-synced', opts.what);
  } catch (err) {
    if (!renamed) {
      try {
        d.unlink(tmp);
      } catch {
        /* already gone */
      }
    }
    if (err instanceof RefusedError || err instanceof EnvError) throw err;
    throw new EnvError(`cannot write ${opts.what}: ${fsReason(err)}; ${renamed ? `${opts.what} holds the new bytes but the directory sync failed` : `${opts.what} is untouched`}`, hintFor(err), 'WRITE_FAILED');
  }
  const back = readStateIn(d, name, opts.what);
  if (back.kind !== 'file' || !back.bytes.equals(bytes)) {
    throw new InternalError(`${opts.what} does not hold the bytes just written (read back ${back.kind === 'file' ? `${back.bytes.length} bytes` : 'nothing'})`, 'the file system or another writer interfered; inspect the store and use kubelet-ckpt undo');
  }
}

/** Remove `dir/name` atomically (undo of a file that did not exist), re-checking it first. */
export function atomicRemove(dir: string | SafeDir, name: string, opts: Omit<ReplaceOptions, 'create' | 'owner' | 'simulate' | 'mtimeMs'>): void {
  inDir(dir, `the ${path.dirname(opts.what)} directory`, (d) => {
    const hook = opts.hook ?? (() => {});
    const now = readStateIn(d, name, opts.what);
    if (!sameState(now, opts.expect)) throw new ChangedError(`${opts.what} changed since the plan was made; not removed`);
    if (now.kind === 'missing') return;
    opts.lockCheck?.();
    try {
      d.unlink(name);
      hook('after-rename', opts.what);
      d.sync();
      hook('dir-synced', opts.what);
    } catch (err) {
      throw new EnvError(`cannot remove ${opts.what}: ${fsReason(err)}`, hintFor(err), 'WRITE_FAILED');
    }
  });
}

export function hintFor(err: unknown): string | null {
  switch ((err as NodeJS.ErrnoException)?.code) {
    case 'EROFS':
      return 'the file system is mounted read-only: remount it read-write (mount -o remount,rw …) and re-run';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'free some space on that file system and re-run';
    case 'EACCES':
    case 'EPERM':
      return 'run kubelet-ckpt as root (sudo)';
    default:
      return null;
  }
}
