// Where journal bytes come from: a file (text or JSON export, gzip or not, `-` for stdin),
// a journald directory or file read through `journalctl -D`/`--file`, or the live journal
// through `journalctl`. journalctl is always run with an argv array (no shell) and `-a`:
// without it, messages over 4 KB become `null` in JSON.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { EnvError, UsageError, fsReason } from '../errors.js';
import { resolveInRoot } from '../store/rooted.js';
import { childProcess, stream, timersPromises, zlib } from '../builtins.js';

export type SourceKind = 'auto' | 'file' | 'journal-dir';

export interface SourceSpec {
  kind: SourceKind;
  /** A text/JSON file, a `.gz`, a journald `.journal` file, or `-` for stdin. */
  file?: string | undefined;
  /** A journald directory. */
  dir?: string | undefined;
  /** `--root`: the live journal becomes the node's `/var/log/journal` under it. */
  root?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** `--boot` (true: the current boot) or `--boot=ID|OFFSET`. */
  boot?: string | boolean | undefined;
  /** journalctl `-n`: only the newest N entries (status's bounded read). */
  lines?: number | undefined;
  /** Files: read only the last N bytes. */
  tailBytes?: number | undefined;
  /** The journalctl binary (tests point it at a missing one). */
  journalctl?: string | undefined;
  stdin?: NodeJS.ReadableStream | undefined;
  signal?: AbortSignal | undefined;
  /** Follow the source as it grows (`-f`); the read then ends only through `signal`. */
  follow?: FollowSpec | undefined;
}

export interface FollowSpec {
  /** How often a file is looked at for new bytes. */
  pollMs: number;
  /** Called once, when everything written before the start has been delivered. */
  onCaughtUp: () => void;
}

export interface OpenedSource {
  /** The `source` of every event: `journalctl`, the file path, the directory, or `-`. */
  label: string;
  /** Total bytes when known (regular files), for progress. */
  size: number | null;
  /** The file's mtime, for year inference. */
  mtime: Date | null;
  /** Regular uncompressed files: read positionally from this descriptor. */
  fd: number | null;
  start: number;
  chunks: AsyncIterable<Buffer> | null;
  /** What journalctl said on stderr although it succeeded (e.g. it cannot see other users' entries). */
  warnings: string[];
  close(): void;
}

const GZIP_MAGIC = [0x1f, 0x8b];
const JOURNAL_MAGIC = Buffer.from('LPKSHHRH');

/** JSON fields the parser uses: fewer bytes to pipe and to scan. `__REALTIME_TIMESTAMP` always comes. */
const OUTPUT_FIELDS = 'MESSAGE,_PID,SYSLOG_PID,SYSLOG_IDENTIFIER,_COMM,UNIT,_SYSTEMD_UNIT,_SOURCE_REALTIME_TIMESTAMP';

// Node built-ins only some sources need (lib/builtins.ts), loaded when such a source is opened:
// a plain file needs none (child_process, zlib and the streams behind them are ~14 M
// instructions of a start), and what a source needs is loaded before journal sets its heap
// flags (ReadJournalOptions.onOpen).
const sleep = (ms: number, signal: AbortSignal | undefined) => timersPromises().setTimeout(ms, undefined, { signal });

export function openSource(spec: SourceSpec): OpenedSource {
  validate(spec);
  if (spec.kind === 'file') {
    const file = spec.file!;
    if (file === '-') refuseBoot(spec);
    return file === '-' ? openStdin(spec) : openFile(file, spec);
  }
  if (spec.kind === 'journal-dir') return openJournalctl(['-D', spec.dir!], spec.dir!, spec);
  if (spec.root && path.resolve(spec.root) !== '/') {
    const dir = resolveInRoot(path.resolve(spec.root), '/var/log/journal');
    if (!dir || !isDir(dir)) {
      throw new EnvError(`no journal under --root: ${path.join(spec.root, 'var/log/journal')} is not a directory`, 'read a saved journal with --file F, or a journald directory with --journal-dir D', 'JOURNAL_NOT_FOUND');
    }
    return openJournalctl(['-D', dir], dir, spec);
  }
  return openJournalctl([], 'journalctl', spec);
}

/** Where journald keeps the system journal (persistent, then volatile). */
export const LIVE_JOURNAL_DIRS = ['/var/log/journal', '/run/log/journal'];

/**
 * How many journal files `dirs` (journald directories: files in them or in their machine-id
 * subdirectories) hold; null when one could not be listed (no permission), since journalctl
 * may still see more than we do.
 */
export function journalFileCount(dirs: readonly string[]): number | null {
  const j = journalFiles(dirs);
  return j.unknown ? null : j.files.length;
}

/** The journal files in `dirs`, as journalctl -D finds them; `unknown` when a directory could not be listed. */
export function journalFiles(dirs: readonly string[]): { files: string[]; unknown: boolean } {
  let unknown = false;
  const list = (d: string): fs.Dirent[] | null => {
    try {
      return fs.readdirSync(d, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') unknown = true;
      return null;
    }
  };
  // journalctl follows links, to files and to machine-id directories (found by review): so do we.
  const kind = (d: string, e: fs.Dirent): 'file' | 'dir' | null => {
    if (!e.isSymbolicLink()) return e.isFile() ? 'file' : e.isDirectory() ? 'dir' : null;
    try {
      const st = fs.statSync(path.join(d, e.name));
      return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : null;
    } catch {
      return null;
    }
  };
  const journal = (d: string, e: fs.Dirent) => /\.journal~?$/.test(e.name) && kind(d, e) === 'file';
  const files: string[] = [];
  for (const d of dirs) {
    for (const e of list(d) ?? []) {
      if (journal(d, e)) files.push(path.join(d, e.name));
      // journalctl -D looks into machine-id directories only (32 hex digits, or ID.NAMESPACE; found by review).
      else if (MACHINE_ID_DIR.test(e.name) && kind(d, e) === 'dir') {
        const sub = path.join(d, e.name);
        for (const x of list(sub) ?? []) if (journal(sub, x)) files.push(path.join(sub, x.name));
      }
    }
  }
  return { files, unknown };
}

const MACHINE_ID_DIR = /^[0-9a-f]{32}(\.[^/]+)?$/;

/** Whether `dirs` hold a journal file ('unknown': one could not be listed). */
export function journalFilesIn(dirs: readonly string[]): 'some' | 'none' | 'unknown' {
  const n = journalFileCount(dirs);
  return n === null ? 'unknown' : n > 0 ? 'some' : 'none';
}

function validate(spec: SourceSpec): void {
  if (spec.kind === 'file' && !spec.file) throw new UsageError('--file needs a path (or - for stdin)');
  if (spec.kind === 'journal-dir' && !spec.dir) throw new UsageError('--journal-dir needs a directory');
}

/** --boot means something only to journalctl; a text file has no boot ids to select by. */
function refuseBoot(spec: SourceSpec): void {
  if (spec.boot !== undefined && spec.boot !== false) throw new UsageError('--boot needs a journald source', 'use --source auto, --journal-dir, or --file with a .journal file');
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function openFile(file: string, spec: SourceSpec): OpenedSource {
  const unreadable = (err: unknown) => new EnvError(`cannot read ${file}: ${fsReason(err)}`, 'give a readable journal file, or - for stdin', 'JOURNAL_UNREADABLE');
  let fd: number;
  let st: fs.Stats;
  // O_NONBLOCK: opening a FIFO that has no writer must not wait for one (it is refused below).
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENXIO') throw notAFile(file, 'a socket'); // a UNIX socket cannot be opened
    throw unreadable(err);
  }
  const close = () => fs.closeSync(fd);
  try {
    st = fs.fstatSync(fd);
  } catch (err) {
    close();
    throw unreadable(err);
  }
  if (!st.isFile()) {
    close();
    if (st.isDirectory()) throw new EnvError(`${file} is a directory`, 'a journald directory is read with --journal-dir', 'JOURNAL_UNREADABLE');
    throw notAFile(file, kindOf(st));
  }
  const head = Buffer.alloc(8);
  let n: number;
  try {
    n = fs.readSync(fd, head, 0, 8, 0);
  } catch (err) {
    close();
    throw unreadable(err);
  }
  if (n === 8 && head.equals(JOURNAL_MAGIC)) {
    close();
    return openJournalctl([`--file=${path.resolve(file)}`], file, spec);
  }
  try {
    refuseBoot(spec);
  } catch (err) {
    close();
    throw err;
  }
  if (spec.follow) {
    if (n >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) {
      close();
      throw new UsageError(`--follow: ${file} is compressed, it does not grow`, 'follow the live file, or read this one without -f');
    }
    timersPromises(); // tailFile polls with it
    const held = { fd };
    const closeHeld = () => fs.closeSync(held.fd);
    return { label: file, size: null, mtime: st.mtime, fd: null, start: 0, chunks: tailFile(file, held, spec.follow, spec.signal), warnings: [], close: closeHeld };
  }
  if (n >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) {
    zlib();
    // The stream owns the descriptor from here.
    const input = fs.createReadStream('', { fd, highWaterMark: 64 * 1024 });
    return { label: file, size: st.size, mtime: st.mtime, fd: null, start: 0, chunks: gunzip(input, file), warnings: [], close: () => input.destroy() };
  }
  const start = spec.tailBytes && st.size > spec.tailBytes ? st.size - spec.tailBytes : 0;
  return { label: file, size: st.size, mtime: st.mtime, fd, start, chunks: null, warnings: [], close };
}

/**
 * Devices, FIFOs and sockets are never read as files: `/dev/zero` has no end, a FIFO may have no
 * writer. A pipe comes in on standard input instead.
 */
function notAFile(file: string, what: string): EnvError {
  return new EnvError(`${file} is ${what}, not a regular file: refused`, 'give a journal file, or pipe into --file - (e.g. `zcat kubelet.log.gz | kubelet-ckpt journal --file -`)', 'JOURNAL_NOT_REGULAR');
}

function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

function openStdin(spec: SourceSpec): OpenedSource {
  const input = (spec.stdin ?? process.stdin) as NodeJS.ReadableStream;
  zlib(); // a pipe may be compressed (sniffGzip)
  stream();
  spec.follow?.onCaughtUp(); // a pipe has no past to catch up with: every line is news
  return { label: '-', size: null, mtime: null, fd: null, start: 0, chunks: sniffGzip(input as AsyncIterable<Buffer>, '-'), warnings: [], close: () => {} };
}

/**
 * `tail -F`: the file's bytes, then whatever is appended, looked for every `pollMs`. A file cut
 * short (copytruncate) is read again from its start; one replaced under its name (rotation) is
 * reopened once the old one is drained. Reads are bounded (READ_BYTES each, into one buffer).
 */
async function* tailFile(file: string, held: { fd: number }, follow: FollowSpec, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const buf = Buffer.allocUnsafe(READ_BYTES);
  let pos = 0;
  let caughtUp = false;
  /** The last byte handed on was not a newline: a line is still open in the scanner. */
  let lineOpen = false;
  /** Start again from the top of a new content: a line left open ends here, not glued to the new first line. */
  function* restart(): Generator<Buffer> {
    pos = 0;
    if (lineOpen) yield Buffer.from('\n');
    lineOpen = false;
  }
  try {
    while (!signal?.aborted) {
      const n = fs.readSync(held.fd, buf, 0, buf.length, pos);
      if (n > 0) {
        pos += n;
        lineOpen = buf[n - 1] !== 0x0a;
        yield buf.subarray(0, n); // the scanner copies it before asking for more
        continue;
      }
      if (!caughtUp) {
        caughtUp = true;
        follow.onCaughtUp();
      }
      try {
        await sleep(follow.pollMs, signal);
      } catch {
        return; // aborted
      }
      const now = fs.fstatSync(held.fd);
      if (now.size < pos) yield* restart();
      const named = statOrNull(file);
      if (named && named.isFile() && (named.ino !== now.ino || named.dev !== now.dev) && now.size === pos) {
        const next = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
        if (!fs.fstatSync(next).isFile()) {
          fs.closeSync(next);
          continue;
        }
        fs.closeSync(held.fd);
        held.fd = next;
        yield* restart();
      }
    }
  } catch (err) {
    throw new EnvError(`cannot read ${file}: ${fsReason(err)}`, null, 'JOURNAL_UNREADABLE');
  }
}

const READ_BYTES = 128 * 1024;

function statOrNull(p: string): fs.Stats | null {
  try {
    return fs.statSync(p);
  } catch {
    return null;
  }
}

/** Read errors while streaming are environment errors (exit 3). */
async function* guardRead(stream: AsyncIterable<Buffer | string>, label: string): AsyncGenerator<Buffer> {
  try {
    for await (const c of stream) yield typeof c === 'string' ? Buffer.from(c) : c;
  } catch (err) {
    throw new EnvError(`cannot read ${label}: ${fsReason(err)}`, null, 'JOURNAL_UNREADABLE');
  }
}

/** stdin may be compressed too: look at its first bytes. */
async function* sniffGzip(input: AsyncIterable<Buffer | string>, label: string): AsyncGenerator<Buffer> {
  const it = guardRead(input, label);
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  async function* all(): AsyncGenerator<Buffer> {
    yield head;
    yield* it;
  }
  if (head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) yield* gunzip(stream().Readable.from(all()), label);
  else yield* all();
}

/**
 * Decompress. A damaged stream ends the input where the damage starts (what came before is
 * kept); one that yields nothing at all is unreadable input.
 */
async function* gunzip(input: NodeJS.ReadableStream | Readable, label: string): AsyncGenerator<Buffer> {
  const gz = zlib().createGunzip({ chunkSize: 64 * 1024 });
  (input as Readable).on('error', (err: Error) => gz.destroy(err));
  (input as Readable).pipe(gz);
  let produced = 0;
  try {
    for await (const c of gz as AsyncIterable<Buffer>) {
      produced += c.length;
      yield c;
    }
  } catch (err) {
    if (produced > 0 && (err as NodeJS.ErrnoException).code?.startsWith('Z_')) return;
    throw new EnvError(`cannot read ${label}: ${(err as NodeJS.ErrnoException).code?.startsWith('Z_') ? `not a valid gzip file (${(err as Error).message})` : fsReason(err)}`, null, 'JOURNAL_UNREADABLE');
  }
}

// ---- journalctl ----

/**
 * The kubelet's unit as catalog.ts's KUBELET_UNIT knows it: `kubelet`, a unit whose name ends in
 * it (`snap.microk8s.daemon-kubelet`, `k8s-kubelet`), or an instance of either (journalctl ORs
 * repeated -u and matches each as a glob).
 */
export const KUBELET_UNITS = ['kubelet.service', '*[-.]kubelet.service', 'kubelet@*.service', '*[-.]kubelet@*.service'];

export function journalctlArgs(where: string[], spec: SourceSpec, withFields: boolean): string[] {
  const args = [...where, ...KUBELET_UNITS.flatMap((u) => ['-u', u]), '-o', 'json', '-a', '--no-pager'];
  if (withFields) args.push(`--output-fields=${OUTPUT_FIELDS}`);
  // `--opt=value` so that a value starting with `-` cannot become an option.
  if (spec.since) args.push(`--since=${spec.since}`);
  if (spec.until) args.push(`--until=${spec.until}`);
  if (spec.boot === true) args.push('--boot');
  else if (typeof spec.boot === 'string' && spec.boot !== '') args.push(`--boot=${spec.boot}`);
  if (spec.lines) args.push(`--lines=${spec.lines}`);
  return args;
}

function openJournalctl(where: string[], label: string, spec: SourceSpec): OpenedSource {
  childProcess();
  if (spec.follow) timersPromises();
  let child: ChildProcess | null = null;
  const warnings: string[] = [];
  const onChild = (c: ChildProcess) => (child = c);
  const chunks = spec.follow ? followJournalctl(where, spec, onChild, warnings) : runJournalctl(where, spec, onChild, warnings, undefined, label);
  return {
    label,
    size: null,
    mtime: null,
    fd: null,
    start: 0,
    chunks,
    warnings,
    close: () => {
      const c = child as ChildProcess | null;
      if (c && c.exitCode === null) stopChild(c);
    },
  };
}

/** How long journalctl gets to go after SIGTERM before SIGKILL (the NPD check's whole budget is 5 s). */
const KILL_GRACE_MS = 200;

/**
 * Stop journalctl: SIGTERM, then, if it is still there, SIGKILL, and our ends of its pipes are
 * closed and it no longer keeps this process alive: a journalctl that ignores SIGTERM, hangs on
 * a dead disk or has a child holding its output must not hold a bounded read (found by review:
 * 20 s for an 800 ms bound).
 */
function stopChild(c: ChildProcess): void {
  if (c.exitCode !== null || c.signalCode !== null) return;
  c.kill();
  const t = setTimeout(() => {
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    c.stdout?.destroy();
    c.stderr?.destroy();
    c.unref();
  }, KILL_GRACE_MS);
  t.unref();
}

/** Spawn journalctl with `args`: its stdout, stderr kept (8 KiB), and how it ended. */
function spawnJournalctl(bin: string, args: string[], spec: SourceSpec, onChild: (c: ChildProcess) => void): { child: ChildProcess; stderr: () => string; exited: Promise<{ code: number | null; error: NodeJS.ErrnoException | null }> } {
  // Not spawn's own `signal` (SIGTERM only): an abort stops it the way close() does.
  const child = childProcess().spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  onChild(child);
  if (spec.signal?.aborted) stopChild(child);
  else spec.signal?.addEventListener('abort', () => stopChild(child), { once: true });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 8192) stderr += d.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; error: NodeJS.ErrnoException | null }>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
    child.once('close', (code) => resolve({ code, error: null }));
  });
  return { child, stderr: () => stderr, exited };
}

/** journalctl's output; retried without `--output-fields` for systemd older than v236. */
async function* runJournalctl(where: string[], spec: SourceSpec, onChild: (c: ChildProcess) => void, warnings: string[], used = { withFields: true }, label: string | null = null): AsyncGenerator<Buffer> {
  const bin = spec.journalctl ?? 'journalctl';
  for (const withFields of [true, false]) {
    used.withFields = withFields;
    const { child, stderr: errText, exited } = spawnJournalctl(bin, journalctlArgs(where, spec, withFields), spec, onChild);
    let produced = 0;
    try {
      for await (const c of child.stdout! as AsyncIterable<Buffer>) {
        produced += c.length;
        yield c;
      }
    } catch (err) {
      // Its pipe closed by us (stopChild) when the bound ran out: what was read stands.
      if (spec.signal?.aborted) return;
      throw err;
    }
    if (spec.signal?.aborted) return;
    const { code, error } = await exited;
    const stderr = errText();
    if (error?.name === 'AbortError' || spec.signal?.aborted) return;
    if (error) throw journalctlMissing(bin, error, spec);
    // journalctl exits 0 when it finds no journal file at all, or none it can read: nothing was
    // read, which must not read as a journal without events (found by review: "no events, no
    // crash loop", and report's crashLoop checked). Under -o json it says nothing of either.
    if (code === 0 && produced === 0 && label !== null) {
      if (/No journal files were found/.test(stderr) || noFilesWhere(where)) throw noJournalFiles(where, label);
      if (readableFiles(bin, where) === 0) {
        const first = stderr.split('\n').find((l) => /ignoring file/i.test(l))?.trim();
        throw new EnvError(`journalctl could read none of the journal files ${placeWords(where, label, 'on this machine')}${first ? ` (${first})` : ''}: they are damaged, nothing was read`, 'copy what can be saved with journalctl --file F -o json, or read a text log with --file', 'JOURNAL_DAMAGED');
      }
    }
    if (code === 0 || code === null) {
      // null: killed by us (a bounded read that ran out of time)
      warnings.push(...stderr.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 5));
      return;
    }
    if (withFields && produced === 0 && /output-fields|unrecognized option/.test(stderr)) continue;
    throw journalctlFailed(stderr, code);
  }
}

/**
 * `-f`: what the journal holds (as a plain read), then `journalctl --follow` from just after its
 * last entry: the cursor every JSON entry carries (`__CURSOR` comes whatever --output-fields says).
 */
async function* followJournalctl(where: string[], spec: SourceSpec, onChild: (c: ChildProcess) => void, warnings: string[]): AsyncGenerator<Buffer> {
  const used = { withFields: true };
  const cursor = new CursorTracker();
  for await (const c of runJournalctl(where, spec, onChild, warnings, used)) {
    cursor.see(c);
    yield c;
  }
  spec.follow!.onCaughtUp();
  if (spec.signal?.aborted) return;
  const bin = spec.journalctl ?? 'journalctl';
  const args = [...journalctlArgs(where, { ...spec, lines: undefined }, used.withFields), '--follow', cursor.value ? `--after-cursor=${cursor.value}` : '--lines=0'];
  const { child, stderr: errText, exited } = spawnJournalctl(bin, args, spec, onChild);
  try {
    for await (const c of child.stdout! as AsyncIterable<Buffer>) yield c;
  } catch (err) {
    if (!spec.signal?.aborted) throw err;
  }
  if (spec.signal?.aborted) return;
  const { code, error } = await exited;
  if (error?.name === 'AbortError') return;
  if (error) throw journalctlMissing(bin, error, spec);
  if (code !== 0 && code !== null) throw journalctlFailed(errText(), code);
}

/** The `__CURSOR` of the last JSON entry seen in a stream (an entry may be split across chunks). */
class CursorTracker {
  value: string | null = null;
  private tail = Buffer.alloc(0);
  private static readonly KEY = Buffer.from('"__CURSOR":"');

  see(chunk: Buffer): void {
    const b = this.tail.length ? Buffer.concat([this.tail, chunk]) : chunk;
    let at = b.lastIndexOf(CursorTracker.KEY);
    while (at >= 0) {
      const from = at + CursorTracker.KEY.length;
      const end = b.indexOf(0x22, from);
      if (end >= 0 && end - from < 1024) {
        this.value = b.toString('utf8', from, end);
        break;
      }
      at = at > 0 ? b.lastIndexOf(CursorTracker.KEY, at - 1) : -1; // cut off: the entry before is complete
    }
    // Keep enough to see a key and its value that straddle the next boundary.
    this.tail = Buffer.from(b.subarray(Math.max(0, b.length - 1024)));
  }
}

function journalctlMissing(bin: string, error: NodeJS.ErrnoException, spec: SourceSpec): EnvError {
  const why = error.code === 'ENOENT' ? 'not found' : fsReason(error);
  const hint =
    spec.kind === 'journal-dir'
      ? 'reading a journald directory needs journalctl; on a machine that has it, run `journalctl -D DIR -o json -a > kubelet.json` and read that with --file'
      : 'read a saved journal with --file F (`journalctl -u kubelet -o json -a` output or text), or a copied journald directory with --journal-dir D';
  return new EnvError(`cannot run ${bin}: ${why}`, hint, 'JOURNALCTL_MISSING');
}

/** The directories journalctl reads for `where` (-D DIR, or the machine's); null for a --file. */
function dirsOf(where: string[]): string[] | null {
  if (where.length === 0) return LIVE_JOURNAL_DIRS;
  return where[0] === '-D' && where[1] !== undefined ? [where[1]] : null;
}

/** Whether those directories hold no journal file for certain. */
function noFilesWhere(where: string[]): boolean {
  const dirs = dirsOf(where);
  return dirs !== null && journalFilesIn(dirs) === 'none';
}

/**
 * How many journal files journalctl can read where `where` points (it lists each file's header
 * with --header, and says "No journal files were found." when none is usable); null when that
 * cannot be told (a --file source, journalctl failing or slow). Asked only when a read gave
 * nothing: a damaged or truncated file is passed over without a word under -o json, so an
 * unreadable journal read as a journal without events (found by review: a dead node's damaged
 * journal got "no crash loop").
 */
function readableFiles(bin: string, where: string[]): number | null {
  if (dirsOf(where) === null) return null;
  const r = childProcess().spawnSync(bin, [...where, '--header', '--no-pager'], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
  if (r.error || r.status !== 0 && !/No journal files were found/.test(r.stderr + r.stdout)) return null;
  return (r.stdout.match(/^File path: /gm) ?? []).length;
}

/** Where journalctl read, in words: in a directory, at a file, or `live` (the machine's own journal). */
function placeWords(where: string[], label: string, live: string): string {
  return where[0] === '-D' ? `in ${label}` : where.length ? `at ${label}` : live;
}

function noJournalFiles(where: string[], label: string): EnvError {
  return new EnvError(`journalctl found no journal files ${placeWords(where, label, `on this machine (${LIVE_JOURNAL_DIRS.join(', ')})`)}: nothing was read`, 'give the directory that holds the node\'s *.journal files with --journal-dir (or --root for its disk), or a saved log with --file', 'JOURNAL_EMPTY');
}

function journalctlFailed(stderr: string, code: number): EnvError | UsageError {
  const text = stderr.trim().split('\n').filter((l) => l && !l.startsWith('Hint:'))[0] ?? `exit status ${code}`;
  if (/Failed to parse (timestamp|boot)|failed to parse/i.test(text)) return new UsageError(`journalctl: ${text}`, 'see journalctl(1) for --since/--until/--boot formats');
  return new EnvError(`journalctl failed: ${text}`, 'check the journal directory and your permissions (root, or the systemd-journal group)', 'JOURNALCTL_FAILED');
}

