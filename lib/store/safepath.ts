// The one helper for paths built from on-disk data (meta files, directory names, refs).
// A name read from the store is joined only after it passes `unsafeNameReason`; files are
// opened without following symlinks and never block (FIFOs, devices); a directory is only
// trusted after its real path is confirmed to lie inside the store.

import fs from 'node:fs';
import path from 'node:path';
import { CkptError, EXIT } from '../errors.js';

/** The longest file name Linux (and the kubelet's own key check) accepts, in bytes. */
export const NAME_MAX = 255;

export class UnsafePathError extends CkptError {
  constructor(message: string) {
    super('UNSAFE_PATH', EXIT.USAGE, message, 'names taken from the store must be plain base names');
  }
}

/** Why `name` may not be used as one path component, or null when it may. */
export function unsafeNameReason(name: string | Buffer): string | null {
  // A name as bytes (one that is not UTF-8: SafeDir.lstatBytes) is checked byte for byte.
  const bytes = typeof name === 'string' ? Buffer.byteLength(name, 'utf8') : name.length;
  const s = typeof name === 'string' ? name : name.toString('latin1');
  if (s === '') return 'is empty';
  if (s === '.' || s === '..') return `is "${s}"`;
  if (s.includes('/')) return 'contains "/"';
  if (s.includes('\0')) return 'contains a NUL byte';
  if (bytes > NAME_MAX) return `is longer than ${NAME_MAX} bytes`;
  return null;
}

/** Join plain names under `base`, refusing any that could leave it. */
export function safeJoin(base: string, ...names: string[]): string {
  for (const name of names) {
    const why = unsafeNameReason(name);
    if (why) throw new UnsafePathError(`refusing to use ${JSON.stringify(name)} as a path component: it ${why}`);
  }
  return path.join(base, ...names);
}

/** True when `child` is `root` or lies below it (both already absolute and normalised). */
export function isWithin(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Confirm that the real path of `dir` (symlinks resolved) is inside `realRoot`.
 * Returns null when it is, else a reason. Used before reading files in a directory
 * found by a walk, so a directory swapped for a symlink does not lead outside.
 */
export function realDirEscape(realRoot: string, dir: string): string | null {
  let real: string;
  try {
    // realpath(3): one system call, where fs.realpathSync lstats every component in JS
    // (a tenth of verify's time on a 10,000-checkpoint store).
    real = fs.realpathSync.native(dir);
  } catch (err) {
    return `cannot resolve ${dir}: ${(err as Error).message}`;
  }
  return isWithin(realRoot, real) ? null : `${dir} resolves to ${real}, outside the store`;
}

export interface CappedRead {
  bytes: Buffer;
  /** Size reported by fstat of the opened file. */
  size: number;
  /** True when the file is longer than the cap and only `cap` bytes were kept. */
  truncated: boolean;
  /** The opened file's mtime (a link's target's, where a link was followed). */
  mtimeMs: number;
}

const O_READ = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/**
 * Read a regular file without following a final symlink and without blocking on a FIFO,
 * keeping at most `cap` bytes. Throws the fs error (ELOOP for a symlink) or an error
 * with code ENOTREG for anything that is not a regular file.
 */
export function readFileCapped(file: string, cap: number, opts: { follow?: boolean } = {}): CappedRead {
  // `follow`: for files the operator names (--kubelet-config), whose links are theirs; the
  // opened file must still be a regular one, and nothing blocks.
  const fd = fs.openSync(file, opts.follow ? O_READ & ~fs.constants.O_NOFOLLOW : O_READ);
  try {
    return readOpened(fd, fs.fstatSync(fd), file, cap);
  } finally {
    fs.closeSync(fd);
  }
}

/** readFileCapped's reading, for a descriptor the caller opened and fstat'ed (and closes). */
export function readOpened(fd: number, st: fs.Stats, file: string, cap: number): CappedRead {
  if (!st.isFile()) {
    const e = new Error(`${file} is not a regular file`) as NodeJS.ErrnoException;
    e.code = 'ENOTREG';
    throw e;
  }
  // One extra byte tells a grown file from a capped one. A file that says it is empty
  // (procfs, sysfs) is read in pieces up to the cap.
  const want = (st.size > 0 ? Math.min(st.size, cap) : cap) + 1;
  let buf = Buffer.allocUnsafe(st.size > 0 ? want : Math.min(want, 64 * 1024));
  let got = 0;
  while (got < want) {
    if (got === buf.length) {
      const bigger = Buffer.allocUnsafe(Math.min(want, buf.length * 2));
      buf.copy(bigger, 0, 0, got);
      buf = bigger;
    }
    const n = fs.readSync(fd, buf, got, buf.length - got, null);
    if (n === 0) break;
    got += n;
    // All fstat promised and under the cap: a file still growing is read as fstat saw it,
    // without one more read(2) to meet EOF (10,000 of them on a large store).
    if (st.size > 0 && got === st.size && st.size <= cap) break;
  }
  const truncated = got > cap;
  const kept = Math.min(got, cap);
  // A file that said it was empty (or shrank) leaves most of its 64 KiB buffer unused: the
  // caller may hold the bytes (verify holds 10,000 payloads), so they get a buffer of their size.
  const bytes = kept * 2 < buf.length ? Buffer.from(buf.subarray(0, kept)) : buf.subarray(0, kept);
  return { bytes, size: st.size, truncated, mtimeMs: st.mtimeMs };
}

// ---- directories opened once, entries reached through them ---------------------------------
// Node has no openat(2). `/proc/self/fd/<dirfd>/<name>` is the same thing: the kernel jumps
// to the directory the descriptor holds (not to a path that could have been swapped since)
// and looks up one plain name there; O_NOFOLLOW refuses a symlink in that last place. Every
// read and write of the store and of kubelet-ckpt's state directory goes through a SafeDir.

const FD_DIR = '/proc/self/fd';
const O_DIR = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NONBLOCK;
/** Linux's O_PATH (Node has no constant): a descriptor that only names a directory; search permission is enough to get one. */
const O_PATH = 0o10000000;

/**
 * The descriptor directory to reach entries through: `/proc/<pid>/fd` when `/proc/self` names
 * this process's pid, else `/proc/self/fd`. Both are this process's descriptor table, but the
 * first spares the kernel resolving the `self` link on every lookup: a tenth of reading a
 * 10,000-checkpoint store, two lookups per checkpoint. A /proc whose `self` says another pid
 * (mounted from another pid namespace) keeps `/proc/self/fd`: there `/proc/<our pid>` could be
 * someone else.
 */
let fdDir: string | null = null;

/** Set after requireProc; exported for tests. */
export function descriptorDir(): string {
  requireProc();
  return fdDir!;
}

export function pickDescriptorDir(self: () => string, pid: number): string {
  try {
    return self() === String(pid) ? `/proc/${pid}/fd` : FD_DIR;
  } catch {
    return FD_DIR;
  }
}

function requireProc(): void {
  if (fdDir !== null) return;
  try {
    fs.statSync(FD_DIR);
  } catch {
    throw new CkptError('NO_PROC', EXIT.ENV, `${FD_DIR} is not available: kubelet-ckpt reaches files in the store through it so that no swapped path leads outside`, 'mount /proc (mount -t proc proc /proc) and re-run');
  }
  fdDir = pickDescriptorDir(() => fs.readlinkSync('/proc/self'), process.pid);
}

function notDirError(p: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${p} is not a directory`), { code: 'ENOTDIR' });
}

/** Paths pinned to the directory they named when first opened (SafeDir.pin). */
const pins = new Map<string, { dev: number; ino: number }>();

/** An open directory; names inside it are plain names, never paths. */
export class SafeDir {
  private closed = false;
  /** path.join(base, leaf), made when a message first asks (10,000 directories are opened to read a store). */
  private joined: string | null;

  private constructor(
    readonly fd: number,
    private readonly base: string,
    private readonly leaf: string | null = null,
    /** Opened with O_PATH (lookupDir): names below it can be reached, but it cannot be listed, and sync() reopens it. */
    private readonly pathOnly = false,
  ) {
    this.joined = leaf === null ? base : null;
  }

  /** The directory's path, for messages only: never used to reach anything. */
  get path(): string {
    return (this.joined ??= path.join(this.base, this.leaf!));
  }

  /**
   * The descriptor, while this is open. After close() its number may already name another
   * file (the next open reuses it): anything still holding this object (a checkpoint whose
   * entry or listing is read late) gets EBADF instead of a path through someone else's file.
   */
  private get live(): number {
    if (this.closed) throw Object.assign(new Error(`${this.path}: the directory was closed before it was read`), { code: 'EBADF' });
    return this.fd;
  }

  /**
   * Open a directory the operator named (`--dir`, the store found by discovery): symlinks in
   * that path are the operator's choice and are followed. Everything below is reached with
   * `dir()`, which follows none.
   */
  static open(abs: string): SafeDir {
    requireProc();
    const fd = fs.openSync(abs, O_DIR);
    const pin = pins.get(path.resolve(abs));
    if (pin) {
      let st: fs.Stats;
      try {
        st = fs.fstatSync(fd);
      } catch (err) {
        fs.closeSync(fd);
        throw err;
      }
      if (st.dev !== pin.dev || st.ino !== pin.ino) {
        fs.closeSync(fd);
        throw Object.assign(new Error(`${abs} is no longer the directory kubelet-ckpt read (it was replaced or moved while it ran)`), { code: 'ECHANGED' });
      }
    }
    return new SafeDir(fd, abs);
  }

  /**
   * Remember which directory this path names now: a later open() of the same path (a command
   * reopens the store for each step of a write) must reach this very directory, so that a
   * store swapped for a link or another directory meanwhile is refused, never written into.
   */
  pin(key: string = this.path): this {
    const st = fs.fstatSync(this.live);
    pins.set(path.resolve(key), { dev: st.dev, ino: st.ino });
    return this;
  }

  /** Pin `abs` to no directory: every later open() of it is refused (ECHANGED), as for a swapped one. */
  static pinNothing(abs: string): void {
    pins.set(path.resolve(abs), { dev: -1, ino: -1 });
  }

  /** Open a directory afresh and pin it (a new reading of the store: what it names now is what counts). */
  static openAndPin(abs: string): SafeDir {
    pins.delete(path.resolve(abs));
    const d = SafeDir.open(abs);
    try {
      return d.pin();
    } catch (err) {
      d.close();
      throw err;
    }
  }

  /** The path that reaches `name` through this descriptor. Throws UnsafePathError for a non-name. */
  at(name: string): string {
    const why = unsafeNameReason(name);
    if (why) throw new UnsafePathError(`refusing to use ${JSON.stringify(name.slice(0, 80))} as a path component: it ${why}`);
    return `${fdDir}/${this.live}/${name}`;
  }

  /** Where this directory is now, as the kernel names the descriptor (no path is looked up again). */
  realPath(): string {
    return fs.readlinkSync(`${fdDir}/${this.live}`);
  }

  /** Open the subdirectory `name`: a real directory only (ELOOP for a symlink, ENOTDIR otherwise). */
  dir(name: string): SafeDir {
    return this.sub(name, O_DIR, false);
  }

  /**
   * Open the subdirectory `name` only to reach what is below it (O_PATH): search permission is
   * enough, as for `mkdir -p`, where dir() needs read permission too. Never a symlink (ELOOP).
   */
  lookupDir(name: string): SafeDir {
    return this.sub(name, O_PATH | fs.constants.O_DIRECTORY, true);
  }

  private sub(name: string, flags: number, pathOnly: boolean): SafeDir {
    const p = this.at(name);
    let fd: number;
    try {
      fd = fs.openSync(p, flags | fs.constants.O_NOFOLLOW);
    } catch (err) {
      // O_DIRECTORY|O_NOFOLLOW on a symlink says ENOTDIR: say what it is.
      if ((err as NodeJS.ErrnoException).code === 'ENOTDIR' && this.lstatIfAny(name)?.isSymbolicLink()) {
        throw Object.assign(new Error(`${path.join(this.path, name)} is a symbolic link`), { code: 'ELOOP' });
      }
      throw err;
    }
    return new SafeDir(fd, this.path, name, pathOnly);
  }

  /** Open a path of plain names below this directory, one component at a time. */
  walk(names: readonly string[]): SafeDir {
    let cur: SafeDir = this;
    for (const n of names) {
      const next = cur.dir(n);
      if (cur !== this) cur.close();
      cur = next;
    }
    return cur === this ? SafeDir.dup(this) : cur;
  }

  private static dup(d: SafeDir): SafeDir {
    return new SafeDir(fs.openSync(`${fdDir}/${d.live}`, O_DIR), d.path);
  }

  list(): string[] {
    return fs.readdirSync(`${fdDir}/${this.live}`);
  }

  /** The entries with the types the directory records (d_type; `isFile()` etc. false when it records none). */
  listTyped(): fs.Dirent[] {
    return fs.readdirSync(`${fdDir}/${this.live}`, { withFileTypes: true });
  }

  /**
   * Names here that are not valid UTF-8, as their bytes. readdir's strings carry U+FFFD for
   * such bytes, and that string names nothing on disk: only the bytes reach the entry.
   */
  undecodableNames(): Buffer[] {
    return fs.readdirSync(`${fdDir}/${this.live}`, { encoding: 'buffer' }).filter((b) => !Buffer.from(b.toString('utf8'), 'utf8').equals(b));
  }

  /** lstat an entry by the bytes of its name (see undecodableNames); the same refusals as at(). */
  lstatBytes(name: Buffer): fs.Stats {
    const why = unsafeNameReason(name);
    if (why) throw new UnsafePathError(`refusing to use the bytes ${name.subarray(0, 80).toString('hex')} as a path component: it ${why}`);
    return fs.lstatSync(Buffer.concat([Buffer.from(`${fdDir}/${this.live}/`), name]));
  }

  /** Open `name` for reading: never a symlink (ELOOP), never blocking (FIFOs); the caller fstats and closes. */
  openRead(name: string): number {
    return fs.openSync(this.at(name), O_READ);
  }

  lstat(name: string): fs.Stats {
    return fs.lstatSync(this.at(name));
  }

  /** lstat, or null when there is no such entry. */
  lstatIfAny(name: string): fs.Stats | null {
    try {
      return this.lstat(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  readlink(name: string): string {
    return fs.readlinkSync(this.at(name));
  }

  /** A regular file, capped; never follows a symlink, never blocks (see readFileCapped). */
  read(name: string, cap: number): CappedRead {
    this.refuseSpecial(name);
    return readFileCapped(this.at(name), cap);
  }

  /**
   * Throw (ENOTREG, EISDIR) when `name` is there and is no regular file, before anything opens
   * it: a device acts when opened (a watchdog arms, a tape rewinds; found by review, a device
   * reached through a meta file's link). A link is left to the open, which refuses it.
   */
  private refuseSpecial(name: string, dirCode = 'EISDIR'): void {
    const st = fs.lstatSync(this.at(name), { throwIfNoEntry: false });
    if (st && !st.isFile() && !st.isSymbolicLink()) throw Object.assign(new Error(`${path.join(this.path, name)} is ${kindWords(st)}`), { code: st.isDirectory() ? dirCode : 'ENOTREG' });
  }

  /** Create `name` exclusively (O_EXCL|O_NOFOLLOW) for writing; returns the descriptor. */
  create(name: string, mode = 0o600): number {
    return fs.openSync(this.at(name), fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
  }

  /** Open `name` for appending (created when absent); a symlink or special file is refused. */
  append(name: string, mode = 0o600): number {
    this.refuseSpecial(name, 'ENOTREG');
    const fd = fs.openSync(this.at(name), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK, mode);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.nlink > 1) {
      fs.closeSync(fd);
      // A second name (a hard link) may be a file outside: written in place, it would change too (found by review).
      throw Object.assign(new Error(`${path.join(this.path, name)} is ${st.isFile() ? `a regular file with ${st.nlink} names (hard links): one may be outside, and it is not written through` : 'not a regular file'}`), { code: 'ENOTREG' });
    }
    return fd;
  }

  /** Write a whole new file exclusively and fsync it. */
  writeNew(name: string, bytes: Buffer | string, mode = 0o600): void {
    writeAllAndClose(this.create(name, mode), bytes);
  }

  /** rename(2) `from` here to `to` in `dest` (this directory by default); neither is followed. */
  rename(from: string, to: string, dest: SafeDir = this): void {
    fs.renameSync(this.at(from), dest.at(to));
  }

  /** link(2): `from` here gets the second name `to`; EEXIST when `to` exists. */
  link(from: string, to: string): void {
    fs.linkSync(this.at(from), this.at(to));
  }

  unlink(name: string): void {
    fs.unlinkSync(this.at(name));
  }

  rmdir(name: string): void {
    fs.rmdirSync(this.at(name));
  }

  /** mkdir `name` (EEXIST when there) and make the new entry durable: fsync this directory. */
  mkdir(name: string, mode = 0o700): void {
    fs.mkdirSync(this.at(name), { mode });
    this.sync();
  }

  /** The subdirectory `name`, created (and its entry fsynced) when absent; a real directory only. */
  ensureDir(name: string, mode = 0o700): SafeDir {
    try {
      this.mkdir(name, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return this.dir(name);
  }

  stat(): fs.Stats {
    return fs.fstatSync(this.live);
  }

  sync(): void {
    if (!this.pathOnly) return fs.fsyncSync(this.live);
    // An O_PATH descriptor cannot be fsynced: reopen it for reading, which takes read
    // permission; without that the new entry is left to the kernel's own writeback, as `mkdir -p` leaves it.
    let fd: number;
    try {
      fd = fs.openSync(`${fdDir}/${this.live}`, O_DIR);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EACCES') return;
      throw err;
    }
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    fs.closeSync(this.fd);
  }
}

/** A directory opened by openDirBelow, and the ones it made on the way (host paths, outermost first). */
export interface OpenedBelow {
  dir: SafeDir;
  created: string[];
}

/**
 * Open the directory `abs` from `top` down, one plain name at a time, never following a link
 * below `top` (a link there is ELOOP: a directory swapped for one since the caller resolved the
 * path leads nowhere). `top` itself is opened as given. With `create`, each missing directory is
 * made on the way through its opened parent (mkdir, then fsync of the parent). With
 * `resolveExisting` the part of `abs` that exists is first resolved with realpath(3): on a live
 * node, links in the node's own paths are the node's (/etc/kubernetes may be one). Throws the fs
 * error, or ENOTDIR-like errors naming the path; `abs` outside `top` is an UnsafePathError.
 */
export function openDirBelow(top: string, abs: string, opts: { create?: { mode: number }; resolveExisting?: boolean } = {}): OpenedBelow {
  const target = opts.resolveExisting ? realExisting(abs) : path.resolve(abs);
  const rel = path.relative(top, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new UnsafePathError(`${target} is not below ${top}`);
  const names = rel === '' ? [] : rel.split(path.sep);
  const created: string[] = [];
  let cur = SafeDir.open(top);
  try {
    for (const [i, name] of names.entries()) {
      if (opts.create && !cur.lstatIfAny(name)) {
        try {
          cur.mkdir(name, opts.create.mode);
          created.push(path.join(cur.path, name));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
      }
      const next = i === names.length - 1 ? cur.dir(name) : searchOnly(cur, name);
      cur.close();
      cur = next;
    }
    return { dir: cur, created };
  } catch (err) {
    cur.close();
    throw err;
  }
}

/** A directory on the way: opened for reading when we may (its new entries are then fsynced), else for lookups only. */
function searchOnly(parent: SafeDir, name: string): SafeDir {
  try {
    return parent.dir(name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES') throw err;
    return parent.lookupDir(name);
  }
}

/** `abs` with its deepest existing ancestor replaced by that ancestor's real path. */
export function realExisting(abs: string): string {
  let head = path.resolve(abs);
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(head), ...tail);
    } catch (err) {
      const parent = path.dirname(head);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || parent === head) throw err;
      tail.unshift(path.basename(head));
      head = parent;
    }
  }
}

/** Write every byte to `fd`, fsync it, and close it (also when a write fails). */
export function writeAllAndClose(fd: number, bytes: Buffer | string): void {
  try {
    const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
    let off = 0;
    while (off < b.length) off += fs.writeSync(fd, b, off, b.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Run `fn` with a SafeDir, closing it afterwards. */
export function using<T>(d: SafeDir, fn: (d: SafeDir) => T): T {
  try {
    return fn(d);
  } finally {
    d.close();
  }
}

/** What an entry is, in words, from lstat (for refusals). */
export function kindWords(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'a regular file';
}

export { notDirError };
