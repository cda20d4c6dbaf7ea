// The store's recovery lock: <dynamic-config-dir>/.kubelet-ckpt/lock, created exclusively
// (link(2) of a fully written temp file, so a reader never sees a half-written lock),
// holding the holder's pid, process start time, command and time. A lock whose holder is
// gone (a crash, a SIGKILL) is stale and is taken over with a warning; the takeover itself
// is guarded by a second exclusive file so two commands cannot both remove the same lock.
// The state directory and the lock are reached through SafeDir: a symlink, FIFO or device
// there is refused (exit 3), never followed or waited on.
//
// withStoreLock() is the one entry point for anything that writes the store (reset, rollback,
// undo, prune, migrate, …): take the lock FIRST, then read the state you plan from, plan and
// apply inside the callback. A second command waits up to LOCK_WAIT_MS and then refuses
// (exit 4) naming the holder. Nested calls in one process reuse the held lock.

import fs from 'node:fs';
import path from 'node:path';
import { EnvError, RefusedError, fsReason } from '../errors.js';
import { SafeDir, kindWords, using } from '../store/safepath.js';
import { hintFor, isOurTemp, madeByThisProcess, tempName } from './atomic.js';
import { sleepSync } from './steps.js';

/** How long a second recovery command waits for the lock before it refuses (exit 4). */
export const LOCK_WAIT_MS = 2000;
/** A lock file is one JSON line; anything longer is not ours. */
const LOCK_CAP = 4096;
export const STATE_DIR = '.kubelet-ckpt';

export interface LockInfo {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/PID/stat field 22); null if unknown. */
  start: string | null;
  command: string;
  time: string;
}

export interface HeldLock {
  path: string;
  info: LockInfo;
  /** Set when a stale lock was taken over. */
  warning: string | null;
  /** Our own leftovers removed and others' reported, when the lock was taken. */
  notes: string[];
  /** Throws RefusedError (exit 4) when the lock file no longer holds our line. */
  check(): void;
  release(): void;
}

/** The process start time (field 22 of /proc/PID/stat), which tells a reused pid apart. */
export function processStart(pid: number, procRoot = '/proc'): string | null {
  try {
    const stat = fs.readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19] ?? null; // fields after "(comm)": state is field 3, starttime field 22
  } catch {
    return null;
  }
}

/** Is the process that wrote `info` still running? */
export function holderAlive(info: LockInfo, procRoot = '/proc'): boolean {
  if (!Number.isInteger(info.pid) || info.pid <= 0) return false;
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (info.start === null) return true;
  const now = processStart(info.pid, procRoot);
  return now === null || now === info.start;
}

function parseLock(text: string): LockInfo | null {
  try {
    const o = JSON.parse(text) as Partial<LockInfo>;
    if (typeof o.pid !== 'number') return null;
    return { pid: o.pid, start: typeof o.start === 'string' ? o.start : null, command: String(o.command ?? '?'), time: String(o.time ?? '?') };
  } catch {
    return null;
  }
}

function unsafeState(what: string, why: string): EnvError {
  return new EnvError(`${what} is ${why}: kubelet-ckpt keeps only regular files and real directories there, and follows no links; nothing was changed`, `look at it (ls -l ${what}), move it away, and re-run`, 'STATE_UNSAFE');
}

/** Open the state directory (null when absent and not `create`); a symlink or non-directory is exit 3. */
export function openStateDir(dynamicConfigDir: string, create: boolean): SafeDir | null {
  let top: SafeDir;
  try {
    top = SafeDir.open(dynamicConfigDir);
  } catch (err) {
    throw new EnvError(`cannot open ${dynamicConfigDir}: ${fsReason(err)}`, hintFor(err), 'STATE_UNREADABLE');
  }
  return using(top, (d) => openSub(d, STATE_DIR, create));
}

/** Open `name` in `d` as a real directory (created 0700 when absent and `create`). */
export function openSub(d: SafeDir, name: string, create: boolean): SafeDir | null {
  const what = path.join(d.path, name);
  const st = d.lstatIfAny(name);
  if (!st && !create) return null;
  if (st && !st.isDirectory()) throw unsafeState(what, kindWords(st));
  try {
    return create ? d.ensureDir(name) : d.dir(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw unsafeState(what, code === 'ELOOP' ? 'a symbolic link' : 'not a directory');
    throw err;
  }
}

interface LockRead {
  text: string;
  info: LockInfo | null;
}

function readLock(dir: SafeDir, name = 'lock'): LockRead | null {
  const what = path.join(dir.path, name);
  let r;
  try {
    r = dir.read(name, LOCK_CAP);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP' || code === 'ENOTREG' || code === 'EISDIR') throw unsafeState(what, kindWords(dir.lstat(name)));
    throw new EnvError(`cannot read the lock ${what}: ${fsReason(err)}`, hintFor(err), 'LOCK_UNREADABLE');
  }
  if (r.truncated) throw unsafeState(what, `larger than ${LOCK_CAP} bytes (not a kubelet-ckpt lock)`);
  const text = r.bytes.toString('utf8');
  return { text, info: parseLock(text) };
}

/** Who holds the lock now, if anyone alive does (read-only: for --dry-run and planning). */
export function lockHolder(stateDir: string): LockInfo | null {
  let d: SafeDir | null;
  try {
    d = openStateDir(path.dirname(stateDir), false);
  } catch (err) {
    if (err instanceof EnvError && err.code === 'STATE_UNREADABLE') return null;
    throw err;
  }
  if (!d) return null;
  return using(d, (dir) => {
    const cur = readLock(dir);
    return cur?.info && holderAlive(cur.info) ? cur.info : null;
  });
}

/**
 * What a real run's first write, its lock in DIR/.kubelet-ckpt, would meet now: a read-only
 * mount (a dead node's disk mounted ro) or no write permission, exit 3, so that a dry run exits
 * as the real run would (found by review: 0 against 3). Null when it may write there.
 */
export function lockWriteRefusal(dynamicConfigDir: string): EnvError | null {
  const stateDir = path.join(dynamicConfigDir, STATE_DIR);
  for (const d of [stateDir, dynamicConfigDir]) {
    try {
      fs.accessSync(d, fs.constants.W_OK);
      return null;
    } catch (err) {
      // No state directory yet: the real run makes it in the dynamic-config directory.
      if (d === stateDir && (err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      return new EnvError(`cannot create the lock in ${stateDir}: ${fsReason(err)}; nothing would be changed`, hintFor(err), 'LOCK_FAILED');
    }
  }
  return null;
}

/** The refusal a real run would meet now because another process holds the lock (null: none). */
export function holderRefusal(dynamicConfigDir: string): RefusedError | null {
  const stateDir = path.join(dynamicConfigDir, STATE_DIR);
  const h = lockHolder(stateDir);
  return h && h.pid !== process.pid ? lockedError(path.join(stateDir, 'lock'), h) : null;
}

export function lockedError(file: string, info: LockInfo, waitedMs = 0): RefusedError {
  return new RefusedError(
    `another kubelet-ckpt (pid ${info.pid}: ${info.command}, since ${info.time}) holds the store's lock ${file}${waitedMs ? `; waited ${(waitedMs / 1000).toFixed(1)} s` : ''}`,
    `wait for it to finish and re-run; if pid ${info.pid} is not kubelet-ckpt, remove ${file}`,
    'LOCKED',
  );
}

/** Write the lock text to a temp file; on any failure (a full disk) the temp file is removed. */
function writeTemp(dir: SafeDir, text: string): string {
  const tmp = tempName('lock');
  try {
    dir.writeNew(tmp, text);
  } catch (err) {
    try {
      dir.unlink(tmp);
    } catch {
      /* never created */
    }
    throw err;
  }
  return tmp;
}

function tryLink(dir: SafeDir, from: string, to: string): boolean {
  try {
    dir.link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** The pid in one of our temp names (`tmp_….kubelet-ckpt….PID.RANDOM`), or null. */
export function tempPid(name: string): number | null {
  const m = /\.(\d+)(?:\.[0-9a-f]+)?$/.exec(name);
  return m ? Number(m[1]) : null;
}

/** Older than this, a temp file of ours is no write in progress (they last milliseconds; a locked run, minutes). */
const STALE_MS = 15 * 60 * 1000;

/**
 * Our temp file `name` (modified at `mtimeMs`) whose writer is gone. This process's own are in
 * use. A pid in the name says little across containers (every run may be pid 1, in a namespace
 * of its own): a file of this very pid not made here, or of a pid that runs here, is left alone
 * until it is old; one of a pid that no longer runs here is gone.
 */
export function staleTemp(name: string, mtimeMs: number, now = Date.now()): boolean {
  const pid = tempPid(name);
  if (!isOurTemp(name) || pid === null || madeByThisProcess(name)) return false;
  if (now - mtimeMs > STALE_MS) return true;
  return pid !== process.pid && !pidAlive(pid);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * With the lock held: remove our own temp files in the state directory whose writer is gone
 * (a crash, a full disk), report anything else that does not belong there.
 */
function cleanStateDir(dir: SafeDir): string[] {
  const notes: string[] = [];
  for (const n of dir.list()) {
    if (n === 'lock' || n === 'backups') continue;
    const st = dir.lstatIfAny(n);
    if (!st) continue;
    const pid = tempPid(n);
    if (st.isFile() && staleTemp(n, st.mtimeMs)) {
      try {
        dir.unlink(n);
        notes.push(`removed ${path.join(dir.path, n)}, left by an interrupted kubelet-ckpt (pid ${pid})`);
      } catch (err) {
        notes.push(`could not remove ${path.join(dir.path, n)}, left by an interrupted kubelet-ckpt: ${fsReason(err)}`);
      }
    } else if (!isOurTemp(n) && n !== 'lock.takeover') {
      notes.push(`${path.join(dir.path, n)} (${kindWords(st)}) is not kubelet-ckpt's: left alone`);
    }
  }
  return notes;
}

export interface AcquireOptions {
  /** Wait this long for a live holder to finish (default 0: refuse at once). */
  waitMs?: number;
}

/**
 * Take the lock in `stateDir` (created 0700 when absent, its parent fsynced). Throws
 * RefusedError (exit 4) when a live process holds it past the wait, EnvError (exit 3) when it
 * cannot be created (read-only, full) or the state directory or lock is not a regular entry.
 */
export function acquireLock(stateDir: string, command: string, now = new Date(), opts: AcquireOptions = {}): HeldLock {
  const file = path.join(stateDir, 'lock');
  const info: LockInfo = { pid: process.pid, start: processStart(process.pid), command, time: now.toISOString() };
  const text = `${JSON.stringify(info)}\n`;
  let dir: SafeDir;
  let tmp: string;
  try {
    dir = openStateDir(path.dirname(stateDir), true)!;
  } catch (err) {
    if (err instanceof EnvError && err.code === 'STATE_UNSAFE') throw err;
    throw new EnvError(`cannot create the lock in ${stateDir}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'LOCK_FAILED');
  }
  try {
    tmp = writeTemp(dir, text);
  } catch (err) {
    dir.close();
    throw new EnvError(`cannot create the lock in ${stateDir}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'LOCK_FAILED');
  }
  const started = Date.now();
  const deadline = started + (opts.waitMs ?? 0);
  let warning: string | null = null;
  let taken: HeldLock | null = null;
  try {
    for (let attempt = 0; !taken; attempt++) {
      if (tryLink(dir, tmp, 'lock')) {
        taken = held(dir, file, info, text, warning, cleanStateDir(dir));
        break;
      }
      const cur = readLock(dir);
      if (!cur) continue; // released between our link and our read: try again
      if (cur.info && holderAlive(cur.info)) {
        if (Date.now() >= deadline) throw lockedError(file, cur.info, Date.now() - started);
        sleepSync(50);
        continue;
      }
      if (attempt > 50) throw new RefusedError(`could not take the store's lock ${file}: it keeps changing`, 'another kubelet-ckpt is starting; wait and re-run', 'LOCKED');
      warning = takeOverStale(dir, tmp, file, cur, deadline, started) ?? warning;
    }
  } catch (err) {
    if (err instanceof RefusedError || err instanceof EnvError) throw err;
    throw new EnvError(`cannot take the lock ${file}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'LOCK_FAILED');
  } finally {
    try {
      dir.unlink(tmp);
    } catch {
      /* gone */
    }
    if (!taken) dir.close();
  }
  return taken;
}

/** Remove a stale lock, one taker at a time. Returns the warning when this taker removed it. */
function takeOverStale(dir: SafeDir, tmp: string, file: string, cur: LockRead, deadline: number, started: number): string | null {
  if (!tryLink(dir, tmp, 'lock.takeover')) {
    const other = readLock(dir, 'lock.takeover');
    if (other?.info && holderAlive(other.info)) {
      if (Date.now() >= deadline) throw lockedError(file, other.info, Date.now() - started);
      sleepSync(20);
      return null;
    }
    try {
      dir.unlink('lock.takeover'); // a taker that died mid-takeover
    } catch {
      /* another taker removed it */
    }
    return null;
  }
  try {
    const again = readLock(dir);
    if (!again || again.text !== cur.text) return null;
    dir.unlink('lock');
    dir.sync();
    return cur.info
      ? `took over a stale lock left by pid ${cur.info.pid} (${cur.info.command}, ${cur.info.time}), which is no longer running; if it was interrupted, check \`kubelet-ckpt verify\` and \`kubelet-ckpt undo --list\``
      : `took over an unreadable lock file ${file}`;
  } finally {
    dir.unlink('lock.takeover');
  }
}

function held(dir: SafeDir, file: string, info: LockInfo, text: string, warning: string | null, notes: string[]): HeldLock {
  let released = false;
  return {
    path: file,
    info,
    warning,
    notes,
    check() {
      const cur = readLock(dir);
      if (cur?.text !== text) {
        throw new RefusedError(`the store's lock ${file} is no longer ours (${cur?.info ? `pid ${cur.info.pid}: ${cur.info.command}` : 'removed'}); stopped before the next write`, 'look at the store (kubelet-ckpt status) and re-run', 'LOCK_LOST');
      }
    },
    release() {
      if (released) return;
      released = true;
      try {
        const cur = readLock(dir);
        if (cur?.text === text) {
          dir.unlink('lock');
          dir.sync();
        }
      } finally {
        dir.close();
      }
    },
  };
}

// ---- the shared entry point -----------------------------------------------------------------

const heldHere = new Map<string, HeldLock>();

export interface StoreLockOptions {
  now?: Date;
  /** Default LOCK_WAIT_MS. */
  waitMs?: number;
}

/**
 * Run `work` holding the store's lock: for every command that writes the store. Read the
 * state you plan from INSIDE `work` (never before), plan, apply; re-check what you planned
 * from right before each rename (atomicReplace does, with `lock.check()`). A second command
 * waits up to LOCK_WAIT_MS (2 s) and then throws RefusedError (exit 4) naming the holder's
 * pid, command and start time. A call nested in one already holding the lock reuses it.
 *
 *   await withStoreLock(snap.dynamicConfigDir, 'migrate', async (lock) => { …read, plan, write… });
 */
export async function withStoreLock<T>(dynamicConfigDir: string, command: string, work: (lock: HeldLock) => Promise<T> | T, opts: StoreLockOptions = {}): Promise<T> {
  const key = path.resolve(dynamicConfigDir);
  const mine = heldHere.get(key);
  if (mine) return work(mine);
  const lock = acquireLock(path.join(key, STATE_DIR), command, opts.now ?? new Date(), { waitMs: opts.waitMs ?? LOCK_WAIT_MS });
  heldHere.set(key, lock);
  try {
    return await work(lock);
  } finally {
    heldHere.delete(key);
    lock.release();
  }
}

/** The lock this process holds on the store, if any (for re-checks before a write). */
export function heldLock(dynamicConfigDir: string): HeldLock | null {
  return heldHere.get(path.resolve(dynamicConfigDir)) ?? null;
}
