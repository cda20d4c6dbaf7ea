// readJournal: open a source, scan it for candidate lines, parse them into events, resolve
// times, correlate with the store, and filter. The result is DESIGN.md's `journal` JSON.

import { CkptError, EnvError, UsageError, fsReason } from '../errors.js';
import { checkUidFilter, type StoreView } from './correlate.js';
import type { JournalResult } from './events.js';
import { decodingSink, LineParser } from './lines.js';
import { DEFAULT_MAX_EVENTS, Pipeline } from './pipeline.js';
import { LineScanner, scanChunks, scanFd, type Markers } from './scan.js';
import { openSource, type SourceKind, type SourceSpec } from './sources.js';
import { parsePrefix } from './syslog.js';
import { isPrettyJsonStart, jsonText } from './json-export.js';
import { parseTimeBound } from './timespec.js';

export type { JournalEvent, JournalResult, EventKind, CheckpointSummary, ProcessSummary } from './events.js';
export type { StoreView, CheckpointId, LearnedName } from './correlate.js';
export { correlate, namesByUid } from './correlate.js';

export interface ReadJournalOptions {
  /** Default: `file` when `file` is set, `journal-dir` when `dir` is set, else `auto`. */
  source?: SourceKind;
  file?: string;
  dir?: string;
  /** `--root`: the auto source reads the node's `/var/log/journal` under it. */
  root?: string;
  since?: string;
  until?: string;
  boot?: string | boolean;
  /** Keep events (and checkpoints) of this UID or UID prefix (≥ 4 characters). */
  uid?: string;
  /** `--year`: the year of the first year-less line. */
  year?: number;
  /** Read year-less, zone-less times as UTC instead of the local zone. */
  utc?: boolean;
  store?: StoreView | null;
  /** Bounded reads (status): files are read from this many bytes before their end… */
  tailBytes?: number;
  /** …and journalctl is asked for the newest N entries. */
  lines?: number;
  /** Bounded reads: stop after this long and use what was read. */
  timeoutMs?: number;
  /** List at most this many events (the newest; `-n`); all are summarised. Memory stays bounded whatever the count. */
  maxEvents?: number;
  /** "Now" for year inference of stdin and relative --since/--until. */
  now?: Date;
  stdin?: NodeJS.ReadableStream;
  journalctl?: string;
  /**
   * Called once the source is open, before its first byte is read, with the bytes to come: a
   * plain file's size, or null when they are not known (a pipe, journalctl, a compressed file).
   * A file large enough for a helper thread (tail-finder.ts) calls it once that thread is up.
   * `journal` sets its heap policy there: setting a V8 flag changes the flag hash every code
   * cache is checked against, so each Node built-in loaded after it compiles from source
   * (~35 M instructions for the ones opening a source loads; a worker's whole start).
   */
  onOpen?: (size: number | null) => void;
}

export interface Progress {
  bytes: number;
  /** Known for regular files (compressed size for `.gz`). */
  total: number | null;
  events: number;
}

export interface ReadStats {
  bytes: number;
  /** Events summarised but not listed (the oldest) beyond `maxEvents`: the result's `truncated`. */
  omitted: number;
  /** Label of the source (also each event's `source`). */
  source: string;
  /** Whether the read stopped early (timeout). */
  truncated: boolean;
  /** journalctl's remarks on stderr when it succeeded (permissions hints): worth showing on stderr. */
  warnings: string[];
}

export { DEFAULT_MAX_EVENTS } from './pipeline.js';

export async function readJournal(opts: ReadJournalOptions, onProgress?: (p: Progress) => void): Promise<JournalResult> {
  return (await readJournalDetailed(opts, onProgress)).result;
}

export async function readJournalDetailed(opts: ReadJournalOptions, onProgress?: (p: Progress) => void): Promise<{ result: JournalResult; stats: ReadStats }> {
  checkUidFilter(opts.uid);
  const spec = sourceSpec(opts);
  const now = opts.now ?? new Date();
  const isText = spec.kind === 'file';
  // Files are filtered here; journalctl filters its own (and validates the syntax).
  const since = isText && opts.since ? parseTimeBound(opts.since, now, '--since') : null;
  const until = isText && opts.until ? parseTimeBound(opts.until, now, '--until') : null;
  // Year-less lines take their year from the file's last line: a window judged while reading
  // would use the year the lines so far suggest, so a file that can be read twice is read whole
  // once for that year, and then as with --year (found by review: across a year step in the
  // file, --since kept events before it and --until dropped events inside it; a line carrying
  // its year says nothing of the later ones). On a terminal that read is the bar's first half.
  if ((since !== null || until !== null) && opts.year === undefined && spec.kind === 'file' && opts.file !== '-' && !spec.follow && !opts.tailBytes) {
    const half = (first: boolean) => onProgress && ((p: Progress) => onProgress(p.total === null ? p : { ...p, bytes: (first ? 0 : p.total) + p.bytes, total: 2 * p.total }));
    const year = (await scanWith(opts, spec, now, null, null, 1, half(true))).pipeline.firstYear();
    if (year !== null) return readJournalDetailed({ ...opts, year }, half(false));
  }
  const { pipeline, bytes, skipped, src, aborted } = await scanWith(opts, spec, now, since, until, opts.maxEvents ?? DEFAULT_MAX_EVENTS, onProgress);
  const result = pipeline.finish(skipped);
  return { result, stats: { bytes, omitted: result.truncated, source: src.label, truncated: aborted, warnings: src.warnings } };
}

/** Open the source and feed every line through a pipeline with this window. */
async function scanWith(opts: ReadJournalOptions, spec: SourceSpec, now: Date, since: number | null, until: number | null, maxEvents: number, onProgress?: (p: Progress) => void) {
  const abort = new AbortController();
  spec.signal = abort.signal;
  const timer = opts.timeoutMs ? setTimeout(() => abort.abort(), opts.timeoutMs) : null;
  const src = openSource(spec);
  // A plain file's scan calls it (scanFd's ready): after its helper thread is up, if it has one.
  if (src.fd === null) opts.onOpen?.(null);
  const pipeline = new Pipeline({ year: opts.year ?? null, anchor: src.mtime ?? now, utc: opts.utc ?? false, since, until, uid: opts.uid, maxEvents, store: opts.store ?? null });
  const report = (bytes: number) => onProgress?.({ bytes, total: src.size, events: pipeline.count });
  let bytes = 0;
  let skipped = 0;
  try {
    const parser = new LineParser(src.label, (r) => pipeline.add(r), () => pipeline.reuse());
    const make = (sample: Buffer) => new LineScanner(markersFor(sample), decodingSink(parser));
    bytes = src.fd !== null ? await scanFd(src.fd, { start: src.start, size: src.size, ready: () => opts.onOpen?.(src.size) }, make, report, abort.signal) : await scanChunks(src.chunks!, make, report);
    skipped = parser.skipped;
  } catch (err) {
    // A read that fails part-way (EIO on a failing disk, EAGAIN from a special file) is the
    // source's fault, said as such (exit 3), not an internal error (found by review: exit 5).
    const code = (err as NodeJS.ErrnoException)?.code;
    if (!(err instanceof CkptError) && typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw new EnvError(`cannot read ${src.label}: ${fsReason(err)}`, null, 'JOURNAL_UNREADABLE');
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
    src.close();
  }
  return { pipeline, bytes, skipped, src, aborted: abort.signal.aborted };
}

export function sourceSpec(opts: ReadJournalOptions): SourceSpec {
  const kind: SourceKind = opts.source ?? (opts.file ? 'file' : opts.dir ? 'journal-dir' : 'auto');
  // A --source that another source option contradicts would read something else than named.
  const named = opts.file !== undefined ? ['file', '--file'] : opts.dir !== undefined ? ['journal-dir', '--journal-dir'] : null;
  if (named && kind !== named[0]) throw new UsageError(`--source ${kind} contradicts ${named[1]}: give one source`, `drop --source (${named[1]} says where to read)`, 'SOURCE_CONFLICT');
  if (opts.year !== undefined && (!Number.isInteger(opts.year) || opts.year < 1970 || opts.year > 9999)) throw new UsageError(`--year ${opts.year} is not a year`);
  return {
    kind,
    file: opts.file,
    dir: opts.dir,
    root: opts.root,
    since: opts.since,
    until: opts.until,
    boot: opts.boot,
    lines: opts.lines,
    tailBytes: opts.tailBytes,
    journalctl: opts.journalctl,
    stdin: opts.stdin,
  };
}

// ---- candidate markers ----

// Markers are searched on raw bytes, all at once (WebAssembly SIMD, else Buffer#indexOf per
// marker); every marker costs a little, so the sets are small. The legacy bootstrap failure
// (server.go's `failed to determine a valid configuration`) holds none of them: it is looked
// for only in the lines right after a kubelet start ("Started kubelet", "starting controller"),
// which always precede it.
//
// `fig co`: both eras' controller prefix (`kubelet config controller:`, `"Kubelet config controller`).
// `ystemd`: systemd's own lines in text modes (`systemd[1]:`).
// `ynamic`: DynamicKubeletConfig, --dynamic-config-dir, dynamicConfigDir= (gate, flag, 1.21 bootstrap lines).
const WATCH = ['valid configuration'];
const MARKERS: Record<InputFormat, { primary: string[]; watch: string[] }> = {
  syslog: { primary: ['fig co', 'ystemd', 'ynamic'], watch: WATCH },
  // `cat`/klog output: no identifier; systemd's lines are known by their text.
  raw: { primary: ['fig co', 'ynamic', 'kubelet.service', 'Started ', 'start request repeated'], watch: WATCH },
  // JSON entries carry _CMDLINE (with --dynamic-config-dir): the gate and flag markers are message texts.
  // Older journalctl (CentOS 7, Ubuntu 18.04) writes `"UNIT" : "…"`, newer `"UNIT":"…"`: both forms.
  json: { primary: ['fig co', '"UNIT":"', '"UNIT" : "', '"MESSAGE":[', '"MESSAGE" : [', 'feature gate must', 'config-dir has been', 'bootstrap a configuration'], watch: WATCH },
};

export type InputFormat = 'json' | 'syslog' | 'raw';

/** Guess the format from the first lines (journal header lines `-- … --` skipped). */
export function sniffFormat(sample: Buffer): InputFormat {
  const text = sample.subarray(0, 16 * 1024).toString('utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('-- ') && !l.startsWith('░'));
  for (const l of lines.slice(0, 20)) {
    if (isPrettyJsonStart(l)) {
      throw new UsageError('the journal is journalctl -o json-pretty output (one field per line), which kubelet-ckpt does not read', 'export it with journalctl -o json (one entry per line) or -o short-iso', 'JOURNAL_FORMAT');
    }
    // journalctl -o export: one FIELD=value line each, entries apart by a blank line (binary
    // fields framed by length). Its lines mean nothing one by one: refused, not read as nothing.
    if (/^__(?:CURSOR|REALTIME_TIMESTAMP|MONOTONIC_TIMESTAMP|SEQNUM)=/.test(l)) {
      throw new UsageError('the journal is journalctl -o export output (one field per line), which kubelet-ckpt does not read', 'export it with journalctl -o json (one entry per line) or -o short-iso; or import it (systemd-journal-remote -o DIR/x.journal FILE) and give --journal-dir DIR', 'JOURNAL_FORMAT');
    }
    if (jsonText(l) !== null) return 'json';
    if (parsePrefix(l)) return 'syslog';
  }
  return 'raw';
}

export function markersFor(sample: Buffer): Markers {
  const m = MARKERS[sniffFormat(sample)];
  return { primary: m.primary.map((w) => Buffer.from(w)), watch: m.watch.map((w) => Buffer.from(w)) };
}
