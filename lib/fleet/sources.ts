// Where `report merge` gets its reports: files, directories (walked), `-` (stdin), and
// gzip'd tar archives as Sonobuoy returns them (nested archives too). Each document comes
// with a label naming where it was found, for warnings.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { EnvError, fsReason } from '../errors.js';
import { documents, type Piece } from './jsonstream.js';
import { looksLikeTar, readTar } from './tar.js';
import { WarningLog } from './warnings.js';
import { readOpened } from '../store/safepath.js';

export interface FoundDoc {
  /** `reports/a.json`, `results.tar.gz:plugins/x/results/node/report.json`, `-:3` … */
  label: string;
  /** The file named or walked (or `-`) that held it: warnings are collapsed per file. */
  file: string;
  value: unknown;
}

export interface Gathered {
  docs: FoundDoc[];
  warnings: string[];
  /** The log behind `warnings`: the merge adds its own to it, so one file's cap counts both. */
  log: WarningLog;
  /** Files and archive members read. */
  files: number;
}

/** Names read when walking a directory or an archive. */
const TEXT_EXT = /\.(json|ndjson|jsonl|log|txt)$/i;
const ARCHIVE_EXT = /\.(tar\.gz|tgz|tar)$/i;
const MAX_NESTING = 3;
const MiB = 1024 * 1024;

/** How much one source may hold: past these it is skipped with a warning, and the merge goes on. */
export interface Caps {
  /** Text of one file, archive member or stdin. Reports are a few KiB; V8 strings end near 512 MiB. */
  text: number;
  /** An archive as read, or inflated from gzip (a gzip bomb stops here). */
  archive: number;
}
export const CAPS: Caps = { text: 256 * MiB, archive: 1024 * MiB };

const size = (n: number) => (n >= MiB ? `${Math.round(n / MiB)} MiB` : `${n} bytes`);

class Gatherer {
  /** What was read; the warnings are `log`'s (gatherReports adds them). */
  readonly out: Omit<Gathered, 'warnings' | 'log'> = { docs: [], files: 0 };
  readonly log = new WarningLog();
  /** The file named or walked (or `-`) being read, archive members included. */
  source = '';
  constructor(readonly caps: Caps) {}

  warn(text: string): void {
    this.log.add(this.source, text);
  }

  tooLarge(label: string, what: string, cap: number): void {
    this.warn(`${label}: skipped: ${what} more than ${size(cap)}`);
  }

  /** `explicit`: named on the command line, so a file without reports deserves a warning. */
  text(label: string, bytes: Buffer | string, explicit: boolean): void {
    this.out.files++;
    if (bytes.length > this.caps.text) return this.tooLarge(label, 'holds', this.caps.text);
    // Inside archives and walked trees, skip what cannot be a report without decoding it.
    if (!explicit && !bytes.includes('NodeReport')) return;
    const s = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
    // Pieces are taken as found (a garbage file holds millions); a file of one is named without a line.
    let first: Piece | null = null;
    let n = 0;
    for (const p of documents(s)) {
      if (++n === 2) this.piece(`${label}:${first!.line}`, first!, explicit);
      if (n === 1) first = p;
      else this.piece(`${label}:${p.line}`, p, explicit);
    }
    if (n === 1) this.piece(label, first!, explicit);
    if (explicit && n === 0) this.warn(`${label}: skipped: empty`);
  }

  piece(at: string, p: Piece, explicit: boolean): void {
    if (!p.ok) return this.warn(`${at}: skipped: ${p.error}`);
    const kind = (p.value as { kind?: unknown } | null)?.kind;
    if (kind === 'NodeReport') this.out.docs.push({ label: at, file: this.source, value: p.value });
    else if (explicit) this.warn(`${at}: skipped: not a NodeReport (kind ${JSON.stringify(kind ?? null)})`);
  }

  archive(label: string, bytes: Buffer, depth: number): void {
    let tar = bytes;
    if (isGzip(bytes)) {
      // Only an outer tar may be large (nested ones hold a plugin's results): text and nested
      // archives stop at the text cap, so a bomb of zeros costs no more than that to refuse.
      const cap = depth === 0 && looksLikeTar(inflateHead(bytes)) ? this.caps.archive : this.caps.text;
      try {
        tar = zlib.gunzipSync(bytes, { maxOutputLength: cap });
      } catch (err) {
        if (tooLarge(err)) return this.tooLarge(label, 'inflates to', cap);
        // A cut-short gzip: keep what inflated (the entries before the damage).
        const partial = inflatePartial(bytes, cap);
        this.warn(`${label}: damaged gzip (${(err as Error).message})${partial ? '; reading the part that inflates' : ''}`);
        if (!partial) return;
        tar = partial;
      }
    }
    if (!looksLikeTar(tar)) {
      this.text(label, tar, depth === 0);
      return;
    }
    const { entries, error } = readTar(tar);
    if (error) this.warn(`${label}: ${error}; the entries before it are read`);
    for (const e of entries) {
      const at = `${label}:${e.name}`;
      if (ARCHIVE_EXT.test(e.name) && depth < MAX_NESTING) {
        if (e.data.length > this.caps.text) this.tooLarge(at, 'holds', this.caps.text);
        else this.archive(at, e.data, depth + 1);
      } else if (TEXT_EXT.test(e.name)) this.text(at, e.data, false);
    }
  }

  /** A file's bytes (an archive's name or gzip magic allow more), or null when it was skipped. */
  read(p: string, explicit: boolean): Buffer | null {
    const archive = ARCHIVE_EXT.test(p);
    let r: Capped;
    try {
      r = readFileCapped(p, (head) => (archive || isGzip(head) ? this.caps.archive : this.caps.text));
    } catch (err) {
      if (explicit) throw new EnvError(`cannot read ${p}: ${fsReason(err)}`, null, 'INPUT_UNREADABLE');
      this.warn(`${p}: skipped: ${fsReason(err)}`);
      return null;
    }
    if (!r.bytes) this.tooLarge(p, 'holds', r.cap);
    return r.bytes;
  }

  file(p: string, explicit: boolean): void {
    this.source = p;
    if (!explicit && TEXT_EXT.test(p)) return this.walkedText(p);
    const bytes = this.read(p, explicit);
    if (!bytes) return;
    if (ARCHIVE_EXT.test(p) || isGzip(bytes)) this.archive(p, bytes, 0);
    else this.text(p, bytes, explicit);
  }

  /** A text file met while walking: read straight into a string (10,000 reports: no Buffer garbage). */
  walkedText(p: string): void {
    let s: string;
    try {
      // dir() only walks regular files, so their size is known before they are read.
      if (fs.statSync(p).size > this.caps.text) return this.tooLarge(p, 'holds', this.caps.text);
      s = fs.readFileSync(p, 'utf8');
    } catch (err) {
      this.warn(`${p}: skipped: ${fsReason(err)}`);
      return;
    }
    this.text(p, s, false);
  }

  /** `explicit`: named on the command line, so a listing that fails fails the merge (a node left out silently is a false "none in trouble"). */
  dir(d: string, explicit = false): void {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(d, { withFileTypes: true });
    } catch (err) {
      if (explicit) throw new EnvError(`cannot read ${d}: ${fsReason(err)}`, null, 'INPUT_UNREADABLE');
      this.source = d;
      this.warn(`${d}: skipped: ${fsReason(err)}`);
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const n of names) {
      const p = path.join(d, n.name);
      // Links are not followed: a walked tree cannot loop or lead elsewhere.
      if (n.isDirectory()) this.dir(p);
      else if (n.isFile() && (TEXT_EXT.test(n.name) || ARCHIVE_EXT.test(n.name))) this.file(p, false);
    }
  }
}

const isGzip = (b: Buffer) => b[0] === 0x1f && b[1] === 0x8b;
const tooLarge = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ERR_BUFFER_TOO_LARGE';

/** The first bytes a gzip stream inflates to (enough for a tar header), or none. */
function inflateHead(bytes: Buffer): Buffer {
  try {
    // Deflate expands at most about 1032:1: 4 KiB in stays under 8 MiB out.
    return zlib.gunzipSync(bytes.subarray(0, 4096), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: 8 * MiB });
  } catch {
    return Buffer.alloc(0);
  }
}

/** What a cut-short gzip stream inflates to before it ends (sync flush keeps the partial output). */
function inflatePartial(bytes: Buffer, cap: number): Buffer | null {
  try {
    const out = zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: cap });
    return out.length ? out : null;
  } catch {
    return null;
  }
}

/** What readCapped read: the bytes, or null when there were more than `cap`. */
export interface Capped {
  bytes: Buffer | null;
  cap: number;
}

/**
 * The bytes of `fd` to its end, or none once there are more than `cap(head)` (`head`: the
 * first bytes, to tell gzip from text). Read in chunks, never trusting a size: stdin, a FIFO
 * or /dev/zero has none, and a file may grow.
 */
export function readCapped(fd: number, cap: (head: Buffer) => number): Capped {
  // Reads fill one buffer before the next, twice as large, is taken: a pipe gives 64 KiB a read,
  // and a chunk cut from a larger buffer would keep all of it alive.
  const full: Buffer[] = [];
  let buf = Buffer.allocUnsafe(64 * 1024);
  let off = 0;
  let total = 0;
  let max = -1;
  for (;;) {
    if (off === buf.length) {
      full.push(buf);
      buf = Buffer.allocUnsafe(Math.min(buf.length * 2, 16 * MiB));
      off = 0;
    }
    let n: number;
    try {
      n = fs.readSync(fd, buf, off, buf.length - off, null);
    } catch (err) {
      // A non-blocking stdin with nothing yet: wait a moment, as cmd/support/stdio.ts does for writes.
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
      continue;
    }
    if (n === 0) break;
    off += n;
    total += n;
    if (max === -1 && total >= 2) max = cap(full[0] ?? buf);
    if (max !== -1 && total > max) return { bytes: null, cap: max };
  }
  return { bytes: Buffer.concat([...full, buf.subarray(0, off)], total), cap: max };
}

/** A file, like readCapped; a regular file too large is skipped unread (its size is known). */
function readFileCapped(p: string, cap: (head: Buffer) => number): Capped {
  const fd = fs.openSync(p, 'r');
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return readCapped(fd, cap);
    const head = Buffer.alloc(2);
    fs.readSync(fd, head, 0, 2, 0);
    const max = cap(head);
    if (st.size > max) return { bytes: null, cap: max };
    // The positioned read above left the offset at 0: safepath's reader takes it from there.
    const r = readOpened(fd, st, p, max);
    return { bytes: r.truncated ? null : r.bytes, cap: max };
  } finally {
    fs.closeSync(fd);
  }
}

/** stdin, up to the cap for text or (gzip) an archive. */
export function readStdin(caps: Caps = CAPS): Capped {
  return readCapped(0, (head) => (isGzip(head) ? caps.archive : caps.text));
}

/** Gather reports from the sources named on the command line (`-` reads `stdin`). */
export function gatherReports(sources: readonly string[], stdin: () => Capped, caps: Caps = CAPS): Gathered {
  const g = new Gatherer(caps);
  for (const src of sources) {
    if (src === '-') {
      g.source = '-';
      const { bytes, cap } = readOrFail('stdin', stdin);
      if (!bytes) g.tooLarge('-', 'holds', cap);
      else if (isGzip(bytes)) g.archive('-', bytes, 0);
      else g.text('-', bytes, true);
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.statSync(src);
    } catch (err) {
      throw new EnvError(`cannot read ${src}: ${fsReason(err)}`, 'name report files, directories of them, .tar.gz archives, or - for stdin', 'INPUT_UNREADABLE');
    }
    if (st.isDirectory()) g.dir(src, true);
    else g.file(src, true);
  }
  return { ...g.out, warnings: g.log.list(), log: g.log };
}

function readOrFail<T>(what: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new EnvError(`cannot read ${what}: ${fsReason(err)}`, null, 'INPUT_UNREADABLE');
  }
}
