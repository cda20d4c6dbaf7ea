// Reads the store once into an immutable snapshot: every entry's type, mode, owner, size
// and mtime, what is a symlink (never followed), and the raw bytes of the two meta files.
// Checkpoint payloads are not read here (a store may hold 10,000 of them, or a 50 MB
// hostile file); `PayloadReader` reads them on demand, capped and without following links.
// Everything below the store directory is reached through SafeDir (an opened directory and
// one plain name at a time, no link followed), so a directory swapped for a symlink while
// we read never leads outside the store.

import fs from 'node:fs';
import path from 'node:path';
import { EnvError, fsReason } from '../errors.js';
import { SafeDir, isWithin, openDirBelow, readOpened, unsafeNameReason, using } from './safepath.js';
import { nodePathOf, resolveInRoot } from './rooted.js';
import { META_NAMES, type MetaName } from './types.js';
import { decodeMetaState } from './meta.js';
import { metaSourcesOf, type MetaSources } from './refs.js';

/** The API server's ConfigMap size limit: nothing larger can have come from a ConfigMap. */
export const PAYLOAD_CAP = 1024 * 1024;
/**
 * The most of a meta file that is read. The kubelet reads one whole, and one it wrote is a few
 * hundred bytes, but a hand-edited one may carry long comments and still decode: past this
 * nothing real lies, and one that large is not read (its next boot is unknown).
 */
export const META_CAP = 1024 * 1024;

export type EntryKind = 'file' | 'dir' | 'symlink' | 'other' | 'missing' | 'unreadable';

export interface Entry {
  /** Path relative to the store directory, `/`-separated; '' is the store itself. */
  readonly rel: string;
  readonly name: string;
  readonly kind: EntryKind;
  readonly mode: number;
  /** The file type bits of st_mode (S_IFMT), for Go's FileMode text; 0 when missing. */
  readonly type: number;
  readonly uid: number;
  readonly gid: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Target of a symlink, as stored in the link. */
  readonly linkTarget: string | null;
  /** Why the entry could not be examined (lstat or readdir failed). */
  readonly error: string | null;
}

export type ContentRead =
  /** `sha256`: the bytes' lower-case hex SHA-256 when the reader already knows it. */
  | { readonly ok: true; readonly bytes: Buffer; readonly size: number; readonly truncated: boolean; readonly sha256?: string; readonly mtimeMs?: number }
  | { readonly ok: false; readonly code: 'missing' | 'symlink' | 'not-regular' | 'unreadable' | 'escapes'; readonly error: string };

export interface MetaState {
  readonly name: MetaName;
  readonly entry: Entry;
  /** Bytes of the meta file; null when it is missing or not a regular file we may read. */
  readonly content: ContentRead | null;
}

export interface Checkpoint {
  readonly uid: string;
  readonly rv: string;
  readonly rel: string;
  readonly entry: Entry;
  /** Regular files: the ConfigMap's keys. */
  readonly files: readonly Entry[];
  /** Anything else inside: subdirectories, symlinks, devices, unreadable entries. */
  readonly others: readonly Entry[];
  readonly listError: string | null;
}

export interface UidDir {
  readonly uid: string;
  readonly entry: Entry;
  readonly checkpoints: readonly Checkpoint[];
  /** `tmp_*` directories left by an interrupted checkpoint write, and non-directories. */
  readonly others: readonly Entry[];
  readonly listError: string | null;
}

export interface Snapshot {
  /** The --dynamic-config-dir (parent of the store). */
  readonly dynamicConfigDir: string;
  readonly storeDir: string;
  readonly realStoreDir: string;
  readonly takenAt: Date;
  /** Effective uid of the reader (ownership checks only make sense as root). */
  readonly euid: number;
  readonly store: Entry;
  readonly metaDir: Entry;
  readonly checkpointsDir: Entry;
  readonly meta: Readonly<Record<MetaName, MetaState>>;
  /** Other entries in meta/ (`tmp_*` leftovers and strays). */
  readonly metaOthers: readonly Entry[];
  readonly uids: readonly UidDir[];
  /** Non-directory entries directly in checkpoints/. */
  readonly checkpointsOthers: readonly Entry[];
  /** Entries directly in the store other than meta/ and checkpoints/. */
  readonly storeOthers: readonly Entry[];
  /**
   * kubelet-ckpt's own state beside the store (`rel` starts with `../.kubelet-ckpt`): the
   * directory, and inside it the lock, backups/, audit.log and leftovers. Absent in literals.
   */
  readonly stateEntries?: readonly Entry[];
}

const MISSING = (rel: string, name: string): Entry => ({
  rel, name, kind: 'missing', mode: 0, type: 0, uid: -1, gid: -1, size: 0, mtimeMs: 0, linkTarget: null, error: null,
});

function kindOf(st: fs.Stats): EntryKind {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

function statsEntry(rel: string, name: string, st: fs.Stats, linkTarget: string | null): Entry {
  return { rel, name, kind: kindOf(st), mode: st.mode & 0o7777, type: st.mode & fs.constants.S_IFMT, uid: st.uid, gid: st.gid, size: st.size, mtimeMs: st.mtimeMs, linkTarget, error: null };
}

/** What an entry that is no directory is, for a message. */
export function entryWords(e: Entry): string {
  if (e.kind === 'symlink') return `a symbolic link to ${e.linkTarget ?? '?'}, which kubelet-ckpt does not follow`;
  if (e.kind === 'unreadable' || e.error) return `unreadable (${e.error ?? 'cannot be read'})`;
  return e.kind === 'missing' ? 'missing' : 'not a directory';
}

/** lstat into an Entry through `lstat`/`readlink` of one entry; never follows a symlink, never throws. */
function entryOf(rel: string, name: string, lstat: () => fs.Stats, readlink: () => string): Entry {
  try {
    const st = lstat();
    let linkTarget: string | null = null;
    if (st.isSymbolicLink()) {
      try {
        linkTarget = readlink();
      } catch {
        linkTarget = null;
      }
    }
    return statsEntry(rel, name, st, linkTarget);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return MISSING(rel, name);
    return { ...MISSING(rel, name), kind: 'unreadable', error: fsReason(err) };
  }
}

/** lstat one path into an Entry; never follows a symlink, never throws. */
export function statEntry(abs: string, rel: string, name: string): Entry {
  return entryOf(rel, name, () => fs.lstatSync(abs), () => fs.readlinkSync(abs));
}

/** lstat `name` inside an opened directory into an Entry; never follows a symlink, never throws. */
export function statIn(dir: SafeDir, rel: string, name: string): Entry {
  return entryOf(rel, name, () => dir.lstat(name), () => dir.readlink(name));
}

/** Name order (UTF-16 code units; a store's names are ASCII, where that is byte order). */
const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function joinRel(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

interface Listing {
  entries: Entry[];
  error: string | null;
}

/** List an opened directory (sorted by name) into lstat'ed entries; `role`: what its names stand for. */
function list(dir: SafeDir, rel: string, role: NameRole = 'name'): Listing {
  let names: string[];
  try {
    names = dir.list();
  } catch (err) {
    return { entries: [], error: fsReason(err) };
  }
  names.sort();
  const raws = undecodableByName(dir, names);
  return {
    entries: names.map((n) => {
      const bytes = raws?.take(n);
      return bytes ? undecodableEntry(dir, joinRel(rel, n), n, bytes, role) : statIn(dir, joinRel(rel, n), n);
    }),
    error: null,
  };
}

/**
 * `list`, reading the regular file `want` on the way: opened (never following a link, never
 * blocking), its entry made from the descriptor's fstat instead of an lstat, and read up to
 * PAYLOAD_CAP. Only a name the directory records as a regular file is opened (no device or
 * FIFO is opened because of its name); when the open fails (a link swapped in, no permission)
 * the entry is an lstat as in `list` and `read` is null, so the caller's read says why.
 */
function listReading(dir: SafeDir, rel: string, want: string): { listing: Listing; read: ContentRead | null } {
  let ents: fs.Dirent[];
  try {
    ents = dir.listTyped();
  } catch (err) {
    return { listing: { entries: [], error: fsReason(err) }, read: null };
  }
  ents.sort(byName);
  let read: ContentRead | null = null;
  const raws = undecodableByName(dir, ents);
  const entries = ents.map((d) => {
    const r = joinRel(rel, d.name);
    const bytes = raws?.take(d.name);
    if (bytes) return undecodableEntry(dir, r, d.name, bytes, 'ConfigMap key');
    const opened = d.name === want && d.isFile() ? openedEntry(dir, r, d.name) : null;
    if (!opened) return statIn(dir, r, d.name);
    read = opened.read;
    return opened.entry;
  });
  return { listing: { entries, error: null }, read };
}

/** A file's entry from its opened descriptor, and its bytes when it is a regular file within the cap; null when it cannot be opened. */
function openedEntry(dir: SafeDir, rel: string, name: string): { entry: Entry; read: ContentRead | null } | null {
  let fd: number;
  try {
    fd = dir.openRead(name);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    const entry = statsEntry(rel, name, st, null);
    if (!st.isFile() || st.size > PAYLOAD_CAP) return { entry, read: null };
    try {
      const r = readOpened(fd, st, rel, PAYLOAD_CAP);
      return { entry, read: { ok: true, bytes: r.bytes, size: r.size, truncated: r.truncated } };
    } catch {
      return { entry, read: null };
    }
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Open the subdirectory an Entry names and list it; a swap since the lstat is an error, not a follow. */
function listSub(parent: SafeDir, e: Entry): Listing {
  let d: SafeDir;
  try {
    d = parent.dir(e.name);
  } catch (err) {
    return { entries: [], error: fsReason(err) };
  }
  return using(d, (x) => list(x, e.rel));
}

function readMeta(store: SafeDir, meta: SafeDir | null, metaDir: Entry, realStore: string, name: MetaName, root: string | undefined): MetaState {
  const rel = `meta/${name}`;
  if (!meta) {
    if (metaDir.kind === 'missing') return { name, entry: MISSING(rel, name), content: null };
    // meta/ itself is a link or special file: the kubelet would follow a link; we do not.
    const why = metaDir.kind === 'symlink' ? `meta is a symbolic link to ${metaDir.linkTarget ?? '?'}, which kubelet-ckpt does not follow` : `meta is ${metaDir.kind === 'unreadable' ? `unreadable (${metaDir.error})` : 'not a directory'}`;
    return { name, entry: { ...MISSING(rel, name), kind: 'unreadable', error: why }, content: { ok: false, code: metaDir.kind === 'symlink' ? 'escapes' : 'unreadable', error: why } };
  }
  const entry = statIn(meta, rel, name);
  return { name, entry, content: metaContent(store, meta, realStore, entry, root) };
}

/**
 * The bytes the kubelet would read for a meta file. A symlink is followed only when its
 * target is a regular file inside the store (the kubelet follows links; we refuse to
 * follow one out of the store), and then by opening each component from the store down.
 */
function metaContent(store: SafeDir, meta: SafeDir, realStore: string, entry: Entry, root: string | undefined): ContentRead | null {
  if (entry.kind === 'missing') return null;
  if (entry.kind === 'unreadable') return { ok: false, code: 'unreadable', error: entry.error ?? 'cannot stat' };
  if (entry.kind === 'dir') return { ok: false, code: 'not-regular', error: 'is a directory' };
  if (entry.kind === 'other') return { ok: false, code: 'not-regular', error: 'is not a regular file' };
  if (entry.kind === 'symlink') {
    let real: string;
    try {
      real = fs.realpathSync(meta.at(entry.name));
    } catch (err) {
      // fsStore.Initialize's EnsureFile: Stat (through the link) says "does not exist", so it
      // creates the file, and open(O_CREAT) follows the link: an empty file appears where the
      // link points, and the kubelet reads that (= no file). It fails only where it cannot.
      // Under --root the link's host path is what maps into the root (a descriptor path would not).
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && createsThroughLink(root ? path.join(meta.path, entry.name) : meta.at(entry.name), root)) return null;
      return { ok: false, code: 'symlink', error: `is a dangling symbolic link (${fsReason(err)})` };
    }
    if (!isWithin(realStore, real) || real === realStore) return { ok: false, code: 'escapes', error: `is a symbolic link to ${real}, outside the store` };
    const parts = path.relative(realStore, real).split(path.sep);
    const base = parts.pop()!;
    try {
      return using(store.walk(parts), (d) => readCapped(d, base, META_CAP));
    } catch (err) {
      return { ok: false, code: 'escapes', error: `is a symbolic link to ${real}, which changed while it was read (${fsReason(err)})` };
    }
  }
  return readCapped(meta, entry.name, META_CAP);
}

/**
 * Whether open(O_CREAT) through the dangling link `link` would create a file: the links are
 * followed as the kernel follows them (at most 40) to a name that does not exist, in a
 * directory that does. Only names and directories are looked at, never a file's bytes.
 */
export function createsThroughLink(link: string, root?: string): boolean {
  if (root && root !== '/') {
    // On a mounted node, links resolve inside its root (an absolute target means the node's /).
    const p = resolveInRoot(root, nodePathOf(root, link));
    return p !== null && p !== link && missingIn(path.dirname(p), path.basename(p));
  }
  let p = link;
  for (let hops = 0; hops < 40; hops++) {
    let target: string;
    try {
      target = fs.readlinkSync(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      return missingIn(p.slice(0, p.lastIndexOf('/')) || '/', p.slice(p.lastIndexOf('/') + 1));
    }
    // Not normalised here: `..` after a linked directory is the kernel's to resolve (realpath in missingIn).
    p = target.startsWith('/') ? target : `${p.slice(0, p.lastIndexOf('/'))}/${target}`;
  }
  return false;
}

/** `name` is a plain name that does not exist in `dir`, a directory that does. */
function missingIn(dir: string, name: string): boolean {
  if (name === '' || name === '.' || name === '..') return false;
  try {
    const real = fs.realpathSync.native(dir);
    return fs.statSync(real).isDirectory() && fs.lstatSync(path.join(real, name), { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/** The mtime the kubelet sees of a meta file (its Stat follows a link: the target's, where we read it). */
export function metaModifiedMs(m: MetaState): number {
  return m.entry.kind === 'symlink' && m.content?.ok && m.content.mtimeMs !== undefined ? m.content.mtimeMs : m.entry.mtimeMs;
}

function readCapped(dir: SafeDir, name: string, cap: number): ContentRead {
  try {
    const r = dir.read(name, cap);
    return { ok: true, bytes: r.bytes, size: r.size, truncated: r.truncated, mtimeMs: r.mtimeMs };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, code: 'symlink', error: 'is a symbolic link' };
    if (code === 'ENOENT') return { ok: false, code: 'missing', error: 'no such file or directory' };
    if (code === 'ENOTREG' || code === 'EISDIR') return { ok: false, code: 'not-regular', error: 'is not a regular file' };
    return { ok: false, code: 'unreadable', error: fsReason(err) };
  }
}

/** The opened store directory behind a snapshot taken from disk (closed when the snapshot is collected). */
const storeDirs = new WeakMap<Snapshot, SafeDir>();
/** Closes what it holds when its owner is collected (a snapshot's open directories). */
const closer = new FinalizationRegistry<{ close(): void }>((d) => {
  try {
    d.close();
  } catch {
    /* already closed */
  }
});

/** The store directory of a snapshot, opened (its own when taken from disk). */
function storeOf(snap: Snapshot): SafeDir {
  let d = storeDirs.get(snap);
  if (!d) {
    d = SafeDir.open(snap.storeDir);
    storeDirs.set(snap, d);
    closer.register(snap, d);
  }
  return d;
}

/**
 * Checkpoint directories opened from the store down (no link followed), keeping checkpoints/,
 * the last UID directory and the last checkpoint directory open: listing a checkpoint and then
 * reading its payload, UID by UID, costs one directory open instead of five (each open goes
 * through /proc/self/fd, a tenth of `ls` on a 10,000-checkpoint store). A directory swapped
 * after it was opened is still read as it was opened: the old one, never a link's target.
 */
class CheckpointDirs {
  private cps: SafeDir | null = null;
  private uidDir: { uid: string; dir: SafeDir } | null = null;
  private cpDir: { uid: string; rv: string; dir: SafeDir } | null = null;

  constructor(private readonly store: SafeDir) {}

  /** Run `fn` in checkpoints/<uid>/<rv> (names already known to be safe); throws the fs error. */
  within<T>(uid: string, rv: string, fn: (d: SafeDir) => T): T {
    if (this.cpDir?.uid !== uid || this.cpDir.rv !== rv) {
      this.cpDir?.dir.close();
      this.cpDir = null;
      this.cpDir = { uid, rv, dir: this.openUid(uid).dir(rv) };
    }
    return fn(this.cpDir.dir);
  }

  /** Run `fn` in checkpoints/<uid> (a name already known to be safe); throws the fs error. */
  inUid<T>(uid: string, fn: (d: SafeDir) => T): T {
    return fn(this.openUid(uid));
  }

  private openUid(uid: string): SafeDir {
    if (this.uidDir?.uid === uid) return this.uidDir.dir;
    this.uidDir?.dir.close();
    this.uidDir = null;
    this.cps ??= this.store.dir('checkpoints');
    this.uidDir = { uid, dir: this.cps.dir(uid) };
    return this.uidDir.dir;
  }

  close(): void {
    for (const d of [this.cpDir?.dir, this.uidDir?.dir, this.cps]) d?.close();
    this.cpDir = null;
    this.uidDir = null;
    this.cps = null;
  }
}

/** The directory cache of a snapshot taken from disk (the lister's and the on-disk reader's). */
const checkpointDirs = new WeakMap<Snapshot, CheckpointDirs>();

function dirsOf(snap: Snapshot): CheckpointDirs {
  let d = checkpointDirs.get(snap);
  if (!d) {
    d = new CheckpointDirs(storeOf(snap));
    checkpointDirs.set(snap, d);
    closer.register(snap, d);
  }
  return d;
}

/**
 * A checkpoint directory whose entries are listed the first time anyone asks for them:
 * `status` and the TUI's first screen open two of 10,000 checkpoints, and listing the others
 * up front was a third of their time. Everything else was read when the snapshot was taken.
 */
class ListedLater implements Checkpoint {
  private listing: { files: Entry[]; others: Entry[]; listError: string | null } | null = null;
  private stat: Entry | null;

  /** `entry` null: the UID directory's listing recorded a directory here; it is examined when first asked (lazyEntry). */
  constructor(
    readonly uid: string,
    readonly rv: string,
    readonly rel: string,
    entry: Entry | null,
    private readonly dirs: CheckpointDirs,
  ) {
    this.stat = entry;
  }

  get entry(): Entry {
    return (this.stat ??= lazyEntry(this.dirs, this.uid, this.rv, this.rel));
  }

  private get l(): { files: Entry[]; others: Entry[]; listError: string | null } {
    if (!this.listing) {
      let l: Listing;
      try {
        l = this.dirs.within(this.uid, this.rv, (d) => list(d, this.rel, 'ConfigMap key'));
      } catch (err) {
        l = { entries: [], error: fsReason(err) };
      }
      this.keep(l);
    }
    return this.listing!;
  }

  private keep(l: Listing): void {
    // (A file that carries why it is not read, a name that is not text, is not one of its files.)
    const isFile = (e: Entry) => e.kind === 'file' && e.error === null;
    this.listing = { files: l.entries.filter(isFile), others: l.entries.filter((e) => !isFile(e)), listError: l.error };
  }

  /**
   * List now, reading the regular file `name` on the way (listReading): one system call fewer
   * per checkpoint than listing and then reading. Null when the listing was already made or
   * `name` was not read; the caller then reads as usual.
   */
  listAndRead(name: string): ContentRead | null {
    if (this.listing) return null;
    let r: { listing: Listing; read: ContentRead | null };
    try {
      r = this.dirs.within(this.uid, this.rv, (d) => listReading(d, this.rel, name));
    } catch (err) {
      r = { listing: { entries: [], error: fsReason(err) }, read: null };
    }
    this.keep(r.listing);
    return r.read;
  }

  get files(): readonly Entry[] {
    return this.l.files;
  }

  get others(): readonly Entry[] {
    return this.l.others;
  }

  get listError(): string | null {
    return this.l.listError;
  }
}

function readCheckpoint(dirs: CheckpointDirs, uid: string, entry: Entry): Checkpoint {
  const rv = entry.name;
  const rel = entry.rel;
  if (entry.kind !== 'dir') return { uid, rv, rel, entry, files: [], others: [], listError: null };
  return new ListedLater(uid, rv, rel, entry, dirs);
}

/**
 * A checkpoint directory's entry, made when first asked: the fstat of the directory opened
 * without following a link (the descriptor the listing and the payload read then use), or,
 * when it cannot be opened as a directory (swapped for a link since it was listed, no
 * permission), an lstat of the name in its UID directory, which says what is there now.
 */
function lazyEntry(dirs: CheckpointDirs, uid: string, rv: string, rel: string): Entry {
  try {
    return dirs.within(uid, rv, (d) => statsEntry(rel, rv, d.stat(), null));
  } catch {
    try {
      return dirs.inUid(uid, (d) => statIn(d, rel, rv));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return MISSING(rel, rv);
      return { ...MISSING(rel, rv), kind: 'unreadable', error: fsReason(err) };
    }
  }
}

/** What a name in the store stands for, by where it is. */
type NameRole = 'UID' | 'resourceVersion' | 'ConfigMap key' | 'name';

const UNDECODABLE = 'its name is not valid UTF-8';

/** Whether an entry's error (a checkpoint's listError) says its name is not text: not read, rather than unreadable. */
export const isUndecodableWhy = (why: string): boolean => why.startsWith(UNDECODABLE);

/** Why an entry whose name is not valid UTF-8 is not read: no UID, resourceVersion or key the kubelet writes is such a name. */
function undecodableWhy(raw: Buffer, what: NameRole): string {
  return `${UNDECODABLE} (bytes ${raw.toString('hex')}): not a ${what} the kubelet could have written, and kubelet-ckpt does not read ${what === 'ConfigMap key' ? 'it' : 'inside it'}`;
}

/**
 * The entry of a name readdir could only give with U+FFFD in it, never to be read: lstat'ed by
 * its bytes (the string names nothing, so a plain lstat would say "missing"), its real kind,
 * and why it is not read in `error`. When two undecodable names read alike, which is which
 * cannot be told: unreadable.
 */
function undecodableEntry(x: SafeDir, rel: string, name: string, bytes: readonly Buffer[], what: NameRole): Entry {
  const why = bytes.length === 1 ? undecodableWhy(bytes[0]!, what) : `${UNDECODABLE} and ${bytes.length || 'no'} entries read as it: kubelet-ckpt cannot tell them apart`;
  if (bytes.length !== 1) return { ...MISSING(rel, name), kind: 'unreadable', error: why };
  try {
    return { ...statsEntry(rel, name, x.lstatBytes(bytes[0]!), null), error: why };
  } catch (err) {
    return { ...MISSING(rel, name), kind: 'unreadable', error: `${why}; ${fsReason(err)}` };
  }
}

/**
 * The names of a listing that stand for undecodable bytes, asked once per occurrence in the
 * listing: a valid name holding U+FFFD reads exactly as an undecodable one (`k\xff` and
 * `k\uFFFD` both list as "k\uFFFD"), and is an ordinary entry reached by its name (found by
 * review: it was taken for the undecodable one, its finding doubled, and it vanished from ls).
 */
class Undecodable {
  constructor(
    private readonly raws: ReadonlyMap<string, Buffer[]>,
    /** Per name, how many of its occurrences are valid names (they are taken first). */
    private readonly valid: Map<string, number>,
  ) {}

  /** For one occurrence of `name`: null when it is a valid name, else the bytes of the undecodable names that read as it. */
  take(name: string): Buffer[] | null {
    const raws = this.raws.get(name);
    if (!raws) return null;
    const v = this.valid.get(name) ?? 0;
    if (v > 0) {
      this.valid.set(name, v - 1);
      return null;
    }
    return raws;
  }
}

/** readdir's names with U+FFFD, and the undecodable names that read as each; null when there are none. */
function undecodableByName(x: SafeDir, names: readonly string[] | readonly fs.Dirent[]): Undecodable | null {
  const nameOf = (e: string | fs.Dirent) => (typeof e === 'string' ? e : e.name);
  // Only a name with U+FFFD can stand for undecodable bytes: the common store pays one scan.
  if (!names.some((e: string | fs.Dirent) => nameOf(e).includes('\uFFFD'))) return null;
  const m = new Map<string, Buffer[]>();
  for (const b of x.undecodableNames()) {
    const k = b.toString('utf8');
    m.set(k, [...(m.get(k) ?? []), b]);
  }
  if (!m.size) return null;
  const seen = new Map<string, number>();
  for (const e of names) {
    const n = nameOf(e);
    if (m.has(n)) seen.set(n, (seen.get(n) ?? 0) + 1);
  }
  return new Undecodable(m, new Map([...seen].map(([n, count]) => [n, Math.max(0, count - m.get(n)!.length)])));
}

/**
 * A UID directory: its listing's types (d_type) say which names are directories, and those
 * become checkpoints whose entry is made when first asked. A large store is mostly such
 * directories; `status` and the TUI's first screen look at two of them, and an lstat of each
 * of 10,000 (through /proc/self/fd) was half of taking the snapshot. Everything else is
 * lstat'ed now, as in `list`. The UID directory's own entry is the fstat of the descriptor it
 * is listed through.
 */
function readUid(dirs: CheckpointDirs, cps: SafeDir, uid: string, metaNamed: MetaSources): UidDir {
  const rel = joinRel('checkpoints', uid);
  const listed = (own: Entry, checkpoints: Checkpoint[], others: Entry[], listError: string | null): UidDir => ({ uid, entry: own, checkpoints, others, listError });
  let d: SafeDir;
  try {
    d = cps.dir(uid);
  } catch (err) {
    // Swapped for a link, removed or not permitted since the listing: the lstat says which.
    return listed(statIn(cps, rel, uid), [], [], fsReason(err));
  }
  return using(d, (x) => {
    let own: Entry;
    try {
      own = statsEntry(rel, uid, x.stat(), null);
    } catch {
      own = statIn(cps, rel, uid);
    }
    let ents: fs.Dirent[];
    try {
      ents = x.listTyped();
    } catch (err) {
      return listed(own, [], [], fsReason(err));
    }
    ents.sort(byName);
    const checkpoints: Checkpoint[] = [];
    const others: Entry[] = [];
    // A directory that can be listed but not searched (mode 0400 for a reader who is not root)
    // lets no name inside be examined: those are entries that cannot be read, not checkpoints,
    // and every name is lstat'ed as `list` does. When the mode bits do not already say we may
    // search it (ours with x, or x for others), one name is examined now to find out.
    const searchable = (own.uid === EUID && (own.mode & 0o100) !== 0) || (own.mode & 0o001) !== 0;
    const probe = searchable ? undefined : ents.find((e) => e.isDirectory() && !e.name.startsWith('tmp_'));
    const probed = probe ? statIn(x, joinRel(rel, probe.name), probe.name) : null;
    const lazy = probed?.kind !== 'unreadable';
    const raws = undecodableByName(x, ents);
    for (const dirent of ents) {
      const r = joinRel(rel, dirent.name);
      // tmp_*: a leftover of an interrupted write, unless a meta file names it (then the kubelet loads it).
      const named = !dirent.name.startsWith('tmp_') || metaNamed.names({ uid, rv: dirent.name });
      const bytes = raws?.take(dirent.name);
      if (bytes) {
        // A directory is a checkpoint that says why nothing inside is read; anything else an odd entry.
        const e = undecodableEntry(x, r, dirent.name, bytes, 'resourceVersion');
        if (e.kind === 'dir') checkpoints.push({ uid, rv: dirent.name, rel: r, entry: { ...e, error: null }, files: [], others: [], listError: e.error });
        else others.push(e);
        continue;
      }
      if (lazy && named && dirent.isDirectory() && dirent !== probe) {
        checkpoints.push(new ListedLater(uid, dirent.name, r, null, dirs));
        continue;
      }
      const e = dirent === probe ? probed! : statIn(x, r, dirent.name);
      if (named && (e.kind === 'dir' || e.kind === 'symlink')) checkpoints.push(readCheckpoint(dirs, uid, e));
      else others.push(e);
    }
    return listed(own, checkpoints, others, null);
  });
}

/**
 * checkpoints/ listed with its d_type: the names recorded as directories (the UID directories,
 * examined as they are listed) and every other entry lstat'ed.
 */
function listCheckpointsDir(cps: SafeDir): { dirs: string[]; others: Entry[] } {
  const ents = cps.listTyped();
  ents.sort(byName);
  const dirs: string[] = [];
  const others: Entry[] = [];
  const raws = undecodableByName(cps, ents);
  for (const d of ents) {
    const bytes = raws?.take(d.name);
    if (bytes) {
      // Not a UID (its name is not even text): an entry of checkpoints/ with its real kind and why.
      others.push(undecodableEntry(cps, joinRel('checkpoints', d.name), d.name, bytes, 'UID'));
    } else if (d.isDirectory()) dirs.push(d.name);
    else {
      const e = statIn(cps, joinRel('checkpoints', d.name), d.name);
      // A name recorded as something else that is a directory now is read as one.
      if (e.kind === 'dir') dirs.push(d.name);
      else others.push(e);
    }
  }
  return { dirs, others };
}

const EUID = typeof process.geteuid === 'function' ? process.geteuid() : -1;

/**
 * Decide where the store is: `<dir>/store`, or `<dir>` itself when it already is a store.
 * With `root` (a node's disk mounted there, `dir` found under it), a `store` that is a
 * symbolic link is followed as the node would follow it, inside `root`: an absolute link
 * names a place on the node, never on this host.
 */
export function locateStore(dir: string, root?: string): { dynamicConfigDir: string; storeDir: string } {
  const abs = path.resolve(dir);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (err) {
    // Not there is 'not found'; a path it may not look through is 'unreadable' (report tells them apart).
    const gone = ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');
    throw new EnvError(`cannot open ${abs}: ${fsReason(err)}`, hintFor(err, abs), gone ? 'STORE_NOT_FOUND' : 'STORE_UNREADABLE');
  }
  // Something is there, and it is no store (found by review: report called it absent, a node without one).
  if (!st.isDirectory()) throw new EnvError(`${abs} is not a directory`, 'give the kubelet\'s --dynamic-config-dir (or its store/ subdirectory) with --dir', 'STORE_NOT_DIRECTORY');
  const sub = root ? inRoot(root, path.join(abs, 'store')) : path.join(abs, 'store');
  if (isDir(sub)) return { dynamicConfigDir: abs, storeDir: sub };
  if (path.basename(abs) === 'store' || isDir(path.join(abs, 'meta')) || isDir(path.join(abs, 'checkpoints'))) {
    // The store's own parent, not a link's: the kubelet's --dynamic-config-dir, and where the lock and backups live.
    return { dynamicConfigDir: path.dirname(root ? inRoot(root, abs) : realOr(abs)), storeDir: abs };
  }
  try {
    fs.readdirSync(abs);
  } catch (err) {
    throw new EnvError(`cannot read ${abs}: ${fsReason(err)}`, hintFor(err, abs), 'STORE_UNREADABLE');
  }
  throw new EnvError(
    `no checkpoint store in ${abs}: neither ${sub} nor ${abs}/meta exists`,
    'give the kubelet\'s --dynamic-config-dir (the directory that holds store/) with --dir',
    'STORE_NOT_FOUND',
  );
}

/** Pin the dynamic-config-dir too (the lock and backups are reached through it); one that cannot be opened is left to the command that needs it. */
/**
 * Pin the dynamic-config directory (the lock, backups and audit log live in it): under --root
 * opened from the root down, following no link, so that a directory swapped for a link at this
 * moment is not pinned (found by review: the lock directory was then made on the host).
 */
function pinQuietly(dir: string, root: string | undefined): void {
  try {
    if (root) openDirBelow(root, dir).dir.pin(dir).close();
    else SafeDir.openAndPin(dir).close();
  } catch (err) {
    // Reported, if it matters, by whatever opens it; under --root, when a link was met on the
    // way, that open is refused rather than made by a path that may now lead out of the root.
    const code = (err as NodeJS.ErrnoException).code;
    if (root && (code === 'ELOOP' || code === 'ENOTDIR')) SafeDir.pinNothing(dir);
  }
}

/** A host path under `root` with its links resolved as on the node (rooted.ts); unchanged outside it or when it does not resolve. */
function inRoot(root: string, host: string): string {
  return isWithin(path.resolve(root), path.resolve(host)) ? (resolveInRoot(root, nodePathOf(root, host)) ?? host) : host;
}

function realOr(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return p;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function hintFor(err: unknown, p: string): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return `the store is readable by root only: run kubelet-ckpt as root (sudo), or check the permissions of ${p}`;
  return 'give the kubelet\'s --dynamic-config-dir with --dir, or run on the node where the kubelet runs';
}

export interface SnapshotOptions {
  now?: Date;
  /** A node's root file system mounted here (--root): the store is resolved inside it and opened from it down, no link followed. */
  root?: string;
  /**
   * Told the number of checkpoints listed so far after each UID directory: a caller can start
   * what pays only on a large store (judge threads) while the rest of it is still being read.
   */
  onCheckpoints?: (seen: number) => void;
}

/**
 * Read the store under `dir` (a --dynamic-config-dir or the store itself). Throws EnvError
 * when the store or its meta directory cannot be read at all; anything unreadable deeper
 * down is recorded in the snapshot and becomes a finding.
 */
export function takeSnapshot(dir: string, opts: SnapshotOptions = {}): Snapshot {
  const { dynamicConfigDir, storeDir } = locateStore(dir, opts.root);
  let store: SafeDir;
  let realStoreDir: string;
  try {
    // Under --root, from the root down: a link swapped in on the way is refused, not followed out.
    // Pinned: a write that reopens the store by its path must reach this very directory.
    store = opts.root ? openDirBelow(opts.root, storeDir).dir.pin(storeDir) : SafeDir.openAndPin(storeDir);
    try {
      // The directory opened, not the path again (found by review: a store renamed away in
      // between made realpath throw, an internal error, exit 5).
      realStoreDir = store.realPath();
      pinQuietly(dynamicConfigDir, opts.root);
    } catch (err) {
      store.close();
      throw err;
    }
  } catch (err) {
    throw new EnvError(`cannot read the store ${storeDir}: ${fsReason(err)}`, hintFor(err, storeDir), 'STORE_UNREADABLE');
  }
  const top = list(store, '');
  if (top.error) {
    store.close();
    throw new EnvError(`cannot read the store ${storeDir}: ${top.error}`, hintFor({ code: 'EACCES' }, storeDir), 'STORE_UNREADABLE');
  }
  const find = (n: string) => top.entries.find((e) => e.name === n) ?? MISSING(n, n);
  const metaDir = find('meta');
  let meta: SafeDir | null = null;
  let metaList: Listing = { entries: [], error: null };
  if (metaDir.kind === 'dir') {
    try {
      meta = store.dir('meta');
      metaList = list(meta, 'meta');
      if (metaList.error) throw Object.assign(new Error(metaList.error), { code: 'EACCES' });
    } catch (err) {
      meta?.close();
      store.close();
      throw new EnvError(`cannot read ${path.join(storeDir, 'meta')}: ${fsReason(err)}`, hintFor(err, storeDir), 'STORE_UNREADABLE');
    }
  }
  const metaStates = Object.fromEntries(META_NAMES.map((n) => [n, readMeta(store, meta, metaDir, realStoreDir, n, opts.root)])) as Record<MetaName, MetaState>;
  meta?.close();
  // What the meta files name (metaSources, as clean and prune ask it), before any checkpoint is listed.
  const metaNamed = metaSourcesOf({ assigned: decodeMetaState(metaStates.assigned), 'last-known-good': decodeMetaState(metaStates['last-known-good']) });
  let checkpointsDir = find('checkpoints');
  let uids: UidDir[] = [];
  const dirs = new CheckpointDirs(store);
  let cpList: Listing = { entries: [], error: null };
  if (checkpointsDir.kind === 'dir') {
    try {
      using(store.dir('checkpoints'), (cps) => {
        const listed = listCheckpointsDir(cps);
        cpList = { entries: listed.others, error: null };
        let seen = 0;
        uids = listed.dirs.map((name) => {
          const u = readUid(dirs, cps, name, metaNamed);
          seen += u.checkpoints.length;
          opts.onCheckpoints?.(seen);
          return u;
        });
        // A UID directory that turned out not to be one (swapped since the listing) is an entry of checkpoints/.
        const odd = uids.filter((u) => u.entry.kind !== 'dir');
        if (odd.length) {
          uids = uids.filter((u) => u.entry.kind === 'dir');
          cpList = { entries: [...listed.others, ...odd.map((u) => u.entry)].sort(byName), error: null };
        }
      });
    } catch (err) {
      // What the file system said (a code: EACCES, ELOOP, EMFILE...). A fault of ours is not a
      // store that cannot be read, and must not be reported as one.
      if (typeof (err as NodeJS.ErrnoException | null)?.code !== 'string') throw err;
      cpList = { entries: [], error: fsReason(err) };
    }
  } else if (checkpointsDir.kind === 'symlink' || checkpointsDir.kind === 'other' || checkpointsDir.kind === 'file') {
    // The kubelet would follow a link here; we do not, so what it holds is unknown.
    cpList = { entries: [], error: checkpointsDir.kind === 'symlink' ? `is a symbolic link to ${checkpointsDir.linkTarget ?? '?'}, which kubelet-ckpt does not follow` : 'is not a directory' };
  }
  if (cpList.error) checkpointsDir = { ...checkpointsDir, kind: 'unreadable', error: cpList.error };
  // Frozen at the top only: the types are readonly all the way down, and freezing 30,000
  // entries of a large store cost more than reading them (a tenth of `status` at 10k).
  const snap = Object.freeze<Snapshot>({
    dynamicConfigDir,
    storeDir,
    realStoreDir,
    takenAt: opts.now ?? new Date(),
    euid: typeof process.geteuid === 'function' ? process.geteuid() : -1,
    store: statEntry(storeDir, '', 'store'),
    metaDir,
    checkpointsDir,
    meta: metaStates,
    metaOthers: metaList.entries.filter((e) => !(META_NAMES as readonly string[]).includes(e.name)),
    uids,
    // (A directory here is a UID, unless it carries why it is not one: a name that is not text.)
    checkpointsOthers: cpList.entries.filter((e) => e.kind !== 'dir' || e.error !== null),
    storeOthers: top.entries.filter((e) => e.name !== 'meta' && e.name !== 'checkpoints'),
    stateEntries: readStateEntries(dynamicConfigDir),
  });
  storeDirs.set(snap, store);
  closer.register(snap, store);
  checkpointDirs.set(snap, dirs);
  closer.register(snap, dirs);
  return snap;
}

/** lstat kubelet-ckpt's state directory and what is in it (never following a link). */
function readStateEntries(dynamicConfigDir: string): Entry[] {
  const rel = '../.kubelet-ckpt';
  let top: SafeDir;
  try {
    top = SafeDir.open(dynamicConfigDir);
  } catch {
    return [];
  }
  return using(top, (d) => {
    const dirEntry = statIn(d, rel, '.kubelet-ckpt');
    if (dirEntry.kind === 'missing') return [];
    if (dirEntry.kind !== 'dir') return [dirEntry];
    const inner = listSub(d, dirEntry).entries;
    const backups = inner.find((e) => e.name === 'backups' && e.kind === 'dir');
    let inBackups: Entry[] = [];
    if (backups) {
      try {
        inBackups = using(d.dir('.kubelet-ckpt'), (s) => listSub(s, backups).entries);
      } catch {
        inBackups = [];
      }
    }
    return [dirEntry, ...inner, ...inBackups];
  });
}

/** All checkpoints of the snapshot, UID by UID, in directory order. */
export function allCheckpoints(snap: Snapshot): Checkpoint[] {
  return snap.uids.flatMap((u) => u.checkpoints);
}

/** Find a checkpoint directory by exact uid and rv (names already known to be safe). */
export function findCheckpoint(snap: Snapshot, uid: string, rv: string): Checkpoint | null {
  const u = snap.uids.find((x) => x.uid === uid);
  return u?.checkpoints.find((c) => c.rv === rv) ?? null;
}

/** Reads checkpoint files on demand. Tests use an in-memory implementation. */
export interface PayloadReader {
  read(cp: Checkpoint, fileName: string, cap?: number): ContentRead;
  /**
   * For a checkpoint whose files nobody has listed yet: list them, reading `fileName` (capped
   * at PAYLOAD_CAP) while doing so. Null when it did not read it: call read().
   */
  listAndRead?(cp: Checkpoint, fileName: string): ContentRead | null;
}

/**
 * The on-disk reader: safe names only, each directory opened from the store down without
 * following a link (the snapshot's directory cache keeps the last ones open between reads),
 * files capped and never followed.
 */
export function fsPayloadReader(snap: Snapshot): PayloadReader {
  const dirs = dirsOf(snap);
  return {
    listAndRead(cp, fileName) {
      if (!(cp instanceof ListedLater) || unsafeNameReason(fileName)) return null;
      return cp.listAndRead(fileName);
    },
    read(cp, fileName, cap = PAYLOAD_CAP) {
      for (const n of [cp.uid, cp.rv, fileName]) {
        const why = unsafeNameReason(n);
        if (why) return { ok: false, code: 'escapes', error: `unsafe name ${JSON.stringify(n)}: it ${why}` };
      }
      if (cp.entry.kind === 'symlink') return { ok: false, code: 'symlink', error: `${cp.rel} is a symbolic link` };
      // (A device or FIFO is refused before it is opened: SafeDir.read.)
      try {
        return dirs.within(cp.uid, cp.rv, (d) => readCapped(d, fileName, cap));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ELOOP' || code === 'ENOTDIR') return { ok: false, code: 'escapes', error: `${cp.rel} (or a directory above it) is no longer a directory: ${fsReason(err)}; not followed` };
        if (code === 'ENOENT') return { ok: false, code: 'missing', error: `${cp.rel}: no such file or directory` };
        return { ok: false, code: 'unreadable', error: fsReason(err) };
      }
    },
  };
}
