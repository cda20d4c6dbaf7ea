// Where journal bytes come from: a file (text or JSON export, gzip or not, `-` for stdin),
// a journald directory or file read through `journalctl -D`/`--file`, or the live journal
// through `journalctl`. journalctl is always run with an argv array (no shell) and `-a`:
// without it, messages over 4 KB become `null` in JSON.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { EnvError, UsageError, fsReason } from '../errors.js';
import { resolveInRoot } from '../store/rooted.js';

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
}

export interface OpenedSource {
  /** The `source` of every event: `journalctl`, the file path, the directory, or `-`. */
  label: string;
  /** Total bytes when known (regular files), for progress. */
  size: number | null;
  /** The file's mtime, for year inference. */
  mtime: Date | null;
  /** Regular uncompressed files: read positionally from this descriptor… */
  fd: number | null;
  /** …opened from this path (parallel parts reopen it). */
  path: string | null;
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
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw unreadable(err);
  }
  if (st.isDirectory()) throw new EnvError(`${file} is a directory`, 'a journald directory is read with --journal-dir', 'JOURNAL_UNREADABLE');
  if (!st.isFile()) {
    // A pipe (`--file <(zcat …)`) or a device: streamed, gzip recognised by its first bytes.
    refuseBoot(spec);
    const stream = fs.createReadStream(file, { highWaterMark: 64 * 1024 });
    return { label: file, size: null, mtime: null, fd: null, path: null, start: 0, chunks: sniffGzip(stream, file), warnings: [], close: () => stream.destroy() };
  }
  let fd: number;
  const head = Buffer.alloc(8);
  let n: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw unreadable(err);
  }
  const close = () => fs.closeSync(fd);
  try {
    st = fs.fstatSync(fd);
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
  if (n >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) {
    // The stream owns the descriptor from here.
    const stream = fs.createReadStream('', { fd, highWaterMark: 64 * 1024 });
    return { label: file, size: st.size, mtime: st.mtime, fd: null, path: null, start: 0, chunks: gunzip(stream, file), warnings: [], close: () => stream.destroy() };
  }
  const start = spec.tailBytes && st.size > spec.tailBytes ? st.size - spec.tailBytes : 0;
  return { label: file, size: st.size, mtime: st.mtime, fd, path: file, start, chunks: null, warnings: [], close };
}

function openStdin(spec: SourceSpec): OpenedSource {
  const input = (spec.stdin ?? process.stdin) as NodeJS.ReadableStream;
  return { label: '-', size: null, mtime: null, fd: null, path: null, start: 0, chunks: sniffGzip(input as AsyncIterable<Buffer>, '-'), warnings: [], close: () => {} };
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
  if (head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) yield* gunzip(Readable.from(all()), label);
  else yield* all();
}

/**
 * Decompress. A damaged stream ends the input where the damage starts (what came before is
 * kept); one that yields nothing at all is unreadable input.
 */
async function* gunzip(input: NodeJS.ReadableStream | Readable, label: string): AsyncGenerator<Buffer> {
  const gz = zlib.createGunzip({ chunkSize: 64 * 1024 });
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

export function journalctlArgs(where: string[], spec: SourceSpec, withFields: boolean): string[] {
  const args = [...where, '-u', 'kubelet', '-o', 'json', '-a', '--no-pager'];
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
  let child: ChildProcess | null = null;
  const warnings: string[] = [];
  const chunks = runJournalctl(where, spec, (c) => (child = c), warnings);
  return {
    label,
    size: null,
    mtime: null,
    fd: null,
    path: null,
    start: 0,
    chunks,
    warnings,
    close: () => {
      const c = child as ChildProcess | null;
      if (c && c.exitCode === null) c.kill();
    },
  };
}

/** journalctl's output; retried without `--output-fields` for systemd older than v236. */
async function* runJournalctl(where: string[], spec: SourceSpec, onChild: (c: ChildProcess) => void, warnings: string[]): AsyncGenerator<Buffer> {
  const bin = spec.journalctl ?? 'journalctl';
  for (const withFields of [true, false]) {
    const args = journalctlArgs(where, spec, withFields);
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: spec.signal });
    onChild(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString('utf8');
    });
    const exited = new Promise<{ code: number | null; error: NodeJS.ErrnoException | null }>((resolve) => {
      child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code, error: null }));
    });
    let produced = 0;
    for await (const c of child.stdout! as AsyncIterable<Buffer>) {
      produced += c.length;
      yield c;
    }
    const { code, error } = await exited;
    if (error?.name === 'AbortError' || spec.signal?.aborted) return;
    if (error) throw journalctlMissing(bin, error, spec);
    if (code === 0 || code === null) {
      // null: killed by us (a bounded read that ran out of time)
      warnings.push(...stderr.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 5));
      return;
    }
    if (withFields && produced === 0 && /output-fields|unrecognized option/.test(stderr)) continue;
    throw journalctlFailed(stderr, code);
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

function journalctlFailed(stderr: string, code: number): EnvError | UsageError {
  const text = stderr.trim().split('\n').filter((l) => l && !l.startsWith('Hint:'))[0] ?? `exit status ${code}`;
  if (/Failed to parse (timestamp|boot)|failed to parse/i.test(text)) return new UsageError(`journalctl: ${text}`, 'see journalctl(1) for --since/--until/--boot formats');
  return new EnvError(`journalctl failed: ${text}`, 'check the journal directory and your permissions (root, or the systemd-journal group)', 'JOURNALCTL_FAILED');
}

/** Is `journalctl` on PATH? Checked without spawning (status's no-journal path must be free). */
export function findOnPath(bin: string, envPath = process.env.PATH ?? ''): string | null {
  if (bin.includes('/')) return isExecutable(bin) ? bin : null;
  for (const dir of envPath.split(':')) {
    if (!dir) continue;
    const p = path.join(dir, bin);
    if (isExecutable(p)) return p;
  }
  return null;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
