// The store's recovery lock: <dynamic-config-dir>/.kubelet-ckpt/lock, created exclusively
// (link(2) of a fully written temp file, so a reader never sees a half-written lock),
// holding the holder's pid and process start time. A lock whose holder is gone (a crash,
// a SIGKILL) is stale and is taken over with a warning; the takeover itself is guarded
// by a second exclusive file so two commands cannot both remove the same stale lock.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EnvError, RefusedError, fsReason } from '../errors.js';
import { hintFor } from './atomic.js';

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

function readLock(file: string): { text: string; info: LockInfo | null } | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return { text, info: parseLock(text) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new EnvError(`cannot read the lock ${file}: ${fsReason(err)}`, hintFor(err), 'LOCK_UNREADABLE');
  }
}

/** Who holds the lock now, if anyone alive does (read-only: for --dry-run and planning). */
export function lockHolder(stateDir: string): LockInfo | null {
  const cur = readLock(path.join(stateDir, 'lock'));
  return cur?.info && holderAlive(cur.info) ? cur.info : null;
}

export function lockedError(file: string, info: LockInfo): RefusedError {
  return new RefusedError(
    `another kubelet-ckpt (pid ${info.pid}: ${info.command}, since ${info.time}) holds the store's lock ${file}`,
    `wait for it to finish and re-run; if pid ${info.pid} is not kubelet-ckpt, remove ${file}`,
    'LOCKED',
  );
}

function writeTemp(dir: string, text: string): string {
  const tmp = path.join(dir, `tmp_lock.kubelet-ckpt.${process.pid}.${crypto.randomBytes(4).toString('hex')}`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return tmp;
}

/** mkdir one level (not recursive: Node's recursive mkdir reports ENOENT on a read-only file system). */
export function mkdirOnce(dir: string, mode = 0o700): void {
  try {
    fs.mkdirSync(dir, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

function tryLink(from: string, to: string): boolean {
  try {
    fs.linkSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Take the lock in `stateDir` (created 0700 when absent). Throws RefusedError (exit 4) when
 * a live process holds it, EnvError (exit 3) when it cannot be created (read-only, full).
 */
export function acquireLock(stateDir: string, command: string, now = new Date()): HeldLock {
  const file = path.join(stateDir, 'lock');
  const takeover = path.join(stateDir, 'lock.takeover');
  const info: LockInfo = { pid: process.pid, start: processStart(process.pid), command, time: now.toISOString() };
  const text = `${JSON.stringify(info)}\n`;
  let tmp: string;
  try {
    mkdirOnce(stateDir);
    tmp = writeTemp(stateDir, text);
  } catch (err) {
    throw new EnvError(`cannot create the lock in ${stateDir}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'LOCK_FAILED');
  }
  let warning: string | null = null;
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      if (tryLink(tmp, file)) {
        return {
          path: file,
          info,
          warning,
          release() {
            const cur = readLock(file);
            if (cur?.text === text) fs.rmSync(file, { force: true });
          },
        };
      }
      const cur = readLock(file);
      if (!cur) continue; // released between our link and our read: try again
      if (cur.info && holderAlive(cur.info)) throw lockedError(file, cur.info);
      // Stale: only one taker at a time may remove it.
      if (!tryLink(tmp, takeover)) {
        const other = readLock(takeover);
        if (other?.info && holderAlive(other.info)) throw lockedError(file, other.info);
        fs.rmSync(takeover, { force: true }); // a taker that died mid-takeover
        continue;
      }
      try {
        const again = readLock(file);
        if (again && again.text === cur.text) {
          fs.rmSync(file, { force: true });
          warning = cur.info
            ? `took over a stale lock left by pid ${cur.info.pid} (${cur.info.command}, ${cur.info.time}), which is no longer running; if it was interrupted, check \`kubelet-ckpt verify\` and \`kubelet-ckpt undo --list\``
            : `took over an unreadable lock file ${file}`;
        }
      } finally {
        fs.rmSync(takeover, { force: true });
      }
    }
    throw new RefusedError(`could not take the store's lock ${file}: it keeps changing`, 'another kubelet-ckpt is starting; wait and re-run', 'LOCKED');
  } catch (err) {
    if (err instanceof RefusedError || err instanceof EnvError) throw err;
    throw new EnvError(`cannot take the lock ${file}: ${fsReason(err)}; nothing was changed`, hintFor(err), 'LOCK_FAILED');
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
