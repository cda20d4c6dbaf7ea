// Reads the store once into an immutable snapshot: every entry's type, mode, owner, size
// and mtime, what is a symlink (never followed), and the raw bytes of the two meta files.
// Checkpoint payloads are not read here (a store may hold 10,000 of them, or a 50 MB
// hostile file); `PayloadReader` reads them on demand, capped and without following links.

import fs from 'node:fs';
import path from 'node:path';
import { EnvError, fsReason } from '../errors.js';
import { isWithin, readFileCapped, realDirEscape, unsafeNameReason } from './safepath.js';
import { META_NAMES, type MetaName } from './types.js';

/** The API server's ConfigMap size limit: nothing larger can have come from a ConfigMap. */
export const PAYLOAD_CAP = 1024 * 1024;
/** Meta files are a few hundred bytes; anything past this is not a meta file. */
export const META_CAP = 64 * 1024;

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
  | { readonly ok: true; readonly bytes: Buffer; readonly size: number; readonly truncated: boolean }
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

/** lstat one path into an Entry; never follows a symlink, never throws. */
export function statEntry(abs: string, rel: string, name: string): Entry {
  try {
    const st = fs.lstatSync(abs);
    const kind = kindOf(st);
    let linkTarget: string | null = null;
    if (kind === 'symlink') {
      try {
        linkTarget = fs.readlinkSync(abs);
      } catch {
        linkTarget = null;
      }
    }
    return { rel, name, kind, mode: st.mode & 0o7777, type: st.mode & fs.constants.S_IFMT, uid: st.uid, gid: st.gid, size: st.size, mtimeMs: st.mtimeMs, linkTarget, error: null };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return MISSING(rel, name);
    return { ...MISSING(rel, name), kind: 'unreadable', error: fsReason(err) };
  }
}

function joinRel(parent: string, name: string): string {
  return parent === '' ? name : `${parent}/${name}`;
}

interface Listing {
  entries: Entry[];
  error: string | null;
}

/** List a directory (sorted by name) into lstat'ed entries. */
function list(abs: string, rel: string): Listing {
  let names: string[];
  try {
    names = fs.readdirSync(abs);
  } catch (err) {
    return { entries: [], error: fsReason(err) };
  }
  names.sort();
  return { entries: names.map((n) => statEntry(path.join(abs, n), joinRel(rel, n), n)), error: null };
}

function readMeta(storeDir: string, realStore: string, metaDir: Entry, name: MetaName): MetaState {
  const rel = `meta/${name}`;
  const abs = path.join(storeDir, 'meta', name);
  const entry = metaDir.kind === 'dir' ? statEntry(abs, rel, name) : MISSING(rel, name);
  return { name, entry, content: metaContent(abs, realStore, entry) };
}

/**
 * The bytes the kubelet would read for a meta file. A symlink is followed only when its
 * target is a regular file inside the store (the kubelet follows links; we refuse to
 * follow one out of the store).
 */
function metaContent(abs: string, realStore: string, entry: Entry): ContentRead | null {
  if (entry.kind === 'missing') return null;
  if (entry.kind === 'unreadable') return { ok: false, code: 'unreadable', error: entry.error ?? 'cannot stat' };
  if (entry.kind === 'dir') return { ok: false, code: 'not-regular', error: 'is a directory' };
  if (entry.kind === 'other') return { ok: false, code: 'not-regular', error: 'is not a regular file' };
  if (entry.kind === 'symlink') {
    let real: string;
    try {
      real = fs.realpathSync(abs);
    } catch (err) {
      return { ok: false, code: 'symlink', error: `is a dangling symbolic link (${fsReason(err)})` };
    }
    if (!isWithin(realStore, real)) return { ok: false, code: 'escapes', error: `is a symbolic link to ${real}, outside the store` };
    return readCapped(real, META_CAP);
  }
  return readCapped(abs, META_CAP);
}

function readCapped(abs: string, cap: number): ContentRead {
  try {
    const r = readFileCapped(abs, cap);
    return { ok: true, bytes: r.bytes, size: r.size, truncated: r.truncated };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { ok: false, code: 'symlink', error: 'is a symbolic link' };
    if (code === 'ENOENT') return { ok: false, code: 'missing', error: 'no such file or directory' };
    if (code === 'ENOTREG' || code === 'EISDIR') return { ok: false, code: 'not-regular', error: 'is not a regular file' };
    return { ok: false, code: 'unreadable', error: fsReason(err) };
  }
}

/**
 * A checkpoint directory whose entries are listed the first time anyone asks for them:
 * `status` and the TUI's first screen open two of 10,000 checkpoints, and listing the others
 * up front was a third of their time. Everything else was read when the snapshot was taken.
 */
class ListedLater implements Checkpoint {
  private listing: { files: Entry[]; others: Entry[]; listError: string | null } | null = null;

  constructor(
    readonly uid: string,
    readonly rv: string,
    readonly rel: string,
    readonly entry: Entry,
    private readonly abs: string,
  ) {}

  private get l(): { files: Entry[]; others: Entry[]; listError: string | null } {
    if (!this.listing) {
      const l = list(this.abs, this.rel);
      this.listing = { files: l.entries.filter((e) => e.kind === 'file'), others: l.entries.filter((e) => e.kind !== 'file'), listError: l.error };
    }
    return this.listing;
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

function readCheckpoint(storeDir: string, uid: string, entry: Entry): Checkpoint {
  const rv = entry.name;
  const rel = entry.rel;
  if (entry.kind !== 'dir') return { uid, rv, rel, entry, files: [], others: [], listError: null };
  return new ListedLater(uid, rv, rel, entry, path.join(storeDir, rel));
}

function readUid(storeDir: string, entry: Entry): UidDir {
  const l = list(path.join(storeDir, entry.rel), entry.rel);
  const isCheckpoint = (e: Entry) => (e.kind === 'dir' || e.kind === 'symlink') && !e.name.startsWith('tmp_');
  return {
    uid: entry.name,
    entry,
    checkpoints: l.entries.filter(isCheckpoint).map((e) => readCheckpoint(storeDir, entry.name, e)),
    others: l.entries.filter((e) => !isCheckpoint(e)),
    listError: l.error,
  };
}

/** Decide where the store is: `<dir>/store`, or `<dir>` itself when it already is a store. */
export function locateStore(dir: string): { dynamicConfigDir: string; storeDir: string } {
  const abs = path.resolve(dir);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (err) {
    throw new EnvError(`cannot open ${abs}: ${fsReason(err)}`, hintFor(err, abs), 'STORE_NOT_FOUND');
  }
  if (!st.isDirectory()) throw new EnvError(`${abs} is not a directory`, 'give the kubelet\'s --dynamic-config-dir (or its store/ subdirectory) with --dir', 'STORE_NOT_FOUND');
  const sub = path.join(abs, 'store');
  if (isDir(sub)) return { dynamicConfigDir: abs, storeDir: sub };
  if (path.basename(abs) === 'store' || isDir(path.join(abs, 'meta')) || isDir(path.join(abs, 'checkpoints'))) {
    return { dynamicConfigDir: path.dirname(abs), storeDir: abs };
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
}

/**
 * Read the store under `dir` (a --dynamic-config-dir or the store itself). Throws EnvError
 * when the store or its meta directory cannot be read at all; anything unreadable deeper
 * down is recorded in the snapshot and becomes a finding.
 */
export function takeSnapshot(dir: string, opts: SnapshotOptions = {}): Snapshot {
  const { dynamicConfigDir, storeDir } = locateStore(dir);
  const realStoreDir = fs.realpathSync(storeDir);
  const top = list(storeDir, '');
  if (top.error) {
    throw new EnvError(`cannot read the store ${storeDir}: ${top.error}`, hintFor({ code: 'EACCES' }, storeDir), 'STORE_UNREADABLE');
  }
  const find = (n: string) => top.entries.find((e) => e.name === n) ?? MISSING(n, n);
  const metaDir = find('meta');
  if (metaDir.kind === 'dir') {
    try {
      fs.readdirSync(path.join(storeDir, 'meta'));
    } catch (err) {
      throw new EnvError(`cannot read ${path.join(storeDir, 'meta')}: ${fsReason(err)}`, hintFor(err, storeDir), 'STORE_UNREADABLE');
    }
  }
  const metaList = metaDir.kind === 'dir' ? list(path.join(storeDir, 'meta'), 'meta') : { entries: [], error: null };
  const checkpointsDir = find('checkpoints');
  const cpList = checkpointsDir.kind === 'dir' ? list(path.join(storeDir, 'checkpoints'), 'checkpoints') : { entries: [], error: null };
  const meta = Object.fromEntries(META_NAMES.map((n) => [n, readMeta(storeDir, realStoreDir, metaDir, n)])) as Record<MetaName, MetaState>;
  // Frozen at the top only: the types are readonly all the way down, and freezing 30,000
  // entries of a large store cost more than reading them (a tenth of `status` at 10k).
  return Object.freeze<Snapshot>({
    dynamicConfigDir,
    storeDir,
    realStoreDir,
    takenAt: opts.now ?? new Date(),
    euid: typeof process.geteuid === 'function' ? process.geteuid() : -1,
    store: statEntry(storeDir, '', 'store'),
    metaDir,
    checkpointsDir: cpList.error ? { ...checkpointsDir, kind: 'unreadable', error: cpList.error } : checkpointsDir,
    meta,
    metaOthers: metaList.entries.filter((e) => !(META_NAMES as readonly string[]).includes(e.name)),
    uids: cpList.entries.filter((e) => e.kind === 'dir').map((e) => readUid(storeDir, e)),
    checkpointsOthers: cpList.entries.filter((e) => e.kind !== 'dir'),
    storeOthers: top.entries.filter((e) => e.name !== 'meta' && e.name !== 'checkpoints'),
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
}

/** The on-disk reader: safe names only, no symlinks, capped, directory confirmed inside the store. */
export function fsPayloadReader(snap: Snapshot): PayloadReader {
  const confirmed = new Map<string, string | null>();
  return {
    read(cp, fileName, cap = PAYLOAD_CAP) {
      for (const n of [cp.uid, cp.rv, fileName]) {
        const why = unsafeNameReason(n);
        if (why) return { ok: false, code: 'escapes', error: `unsafe name ${JSON.stringify(n)}: it ${why}` };
      }
      if (cp.entry.kind === 'symlink') return { ok: false, code: 'symlink', error: `${cp.rel} is a symbolic link` };
      const dir = path.join(snap.storeDir, 'checkpoints', cp.uid, cp.rv);
      if (!confirmed.has(dir)) confirmed.set(dir, realDirEscape(snap.realStoreDir, dir));
      const escape = confirmed.get(dir);
      if (escape) return { ok: false, code: 'escapes', error: escape };
      return readCapped(path.join(dir, fileName), cap);
    },
  };
}
