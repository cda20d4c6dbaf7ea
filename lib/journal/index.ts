// readJournal: open a source, scan it for candidate lines, parse them into events, resolve
// times, correlate with the store, and filter. The result is DESIGN.md's `journal` JSON.

import fs from 'node:fs';
import { UsageError } from '../errors.js';
import { correlate, uidMatches, type StoreView } from './correlate.js';
import type { JournalEvent, JournalResult } from './events.js';
import { LineParser, type LineRecord } from './lines.js';
import { decodingSink, partCount, scanParallel } from './parallel.js';
import { LineScanner, scanChunks, scanFd, type Markers } from './scan.js';
import { openSource, type SourceKind, type SourceSpec } from './sources.js';
import { isoOf, localMs, parsePrefix, YearInference, type LocalTime } from './syslog.js';
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
  /** Retain at most this many events (the newest); memory stays bounded on pathological journals. */
  maxEvents?: number;
  /** Scan large regular files with worker threads: true (default) as idle cores allow, false: one thread, N: N parts. */
  parallel?: boolean | number;
  /** "Now" for year inference of stdin and relative --since/--until. */
  now?: Date;
  stdin?: NodeJS.ReadableStream;
  journalctl?: string;
}

export interface Progress {
  bytes: number;
  /** Known for regular files (compressed size for `.gz`). */
  total: number | null;
  events: number;
}

export interface ReadStats {
  bytes: number;
  /** Events dropped (the oldest) beyond `maxEvents`. */
  omitted: number;
  /** Label of the source (also each event's `source`). */
  source: string;
  /** Whether the read stopped early (timeout). */
  truncated: boolean;
  /** journalctl's remarks on stderr when it succeeded (permissions hints): worth showing on stderr. */
  warnings: string[];
}

export const DEFAULT_MAX_EVENTS = 200_000;

export async function readJournal(opts: ReadJournalOptions, onProgress?: (p: Progress) => void): Promise<JournalResult> {
  return (await readJournalDetailed(opts, onProgress)).result;
}

export async function readJournalDetailed(opts: ReadJournalOptions, onProgress?: (p: Progress) => void): Promise<{ result: JournalResult; stats: ReadStats }> {
  const spec = sourceSpec(opts);
  const now = opts.now ?? new Date();
  const isText = spec.kind === 'file';
  // Files are filtered here; journalctl filters its own (and validates the syntax).
  const since = isText && opts.since ? parseTimeBound(opts.since, now, '--since') : null;
  const until = isText && opts.until ? parseTimeBound(opts.until, now, '--until') : null;
  const abort = new AbortController();
  spec.signal = abort.signal;
  const timer = opts.timeoutMs ? setTimeout(() => abort.abort(), opts.timeoutMs) : null;
  const src = openSource(spec);
  const store = new RecordStore(opts.maxEvents ?? DEFAULT_MAX_EVENTS);
  const parser = new LineParser(src.label, (r) => store.add(r));
  const report = (bytes: number) => onProgress?.({ bytes, total: src.size, events: store.count });
  let bytes = 0;
  let skipped = 0;
  try {
    const job = { file: src.path ?? '', label: src.label, maxRecords: opts.maxEvents ?? DEFAULT_MAX_EVENTS };
    const parallel = src.fd !== null && src.path !== null && opts.parallel !== false ? await tryParallel(src.fd, job, src.start, src.size ?? 0, report, opts.parallel) : null;
    if (parallel) {
      store.omitted += parallel.omitted;
      for (const r of parallel.records) store.add(r);
      bytes = parallel.bytes;
      skipped = parallel.skipped;
    } else {
      const make = (sample: Buffer) => new LineScanner(markersFor(sample), decodingSink(parser));
      bytes = src.fd !== null ? await scanFd(src.fd, { start: src.start }, make, report, abort.signal) : await scanChunks(src.chunks!, make, report);
      skipped = parser.skipped;
    }
  } finally {
    if (timer) clearTimeout(timer);
    src.close();
  }
  const events = store.resolve({ year: opts.year ?? null, anchor: src.mtime ?? now, utc: opts.utc ?? false });
  const windowed = since || until ? events.filter((e) => inWindow(e.time, since, until)) : events;
  const result = assemble(windowed, skipped, opts);
  return { result, stats: { bytes, omitted: store.omitted, source: src.label, truncated: abort.signal.aborted, warnings: src.warnings } };
}

function sourceSpec(opts: ReadJournalOptions): SourceSpec {
  const kind: SourceKind = opts.source ?? (opts.file ? 'file' : opts.dir ? 'journal-dir' : 'auto');
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

function assemble(events: JournalEvent[], skipped: number, opts: ReadJournalOptions): JournalResult {
  const c = correlate(events, opts.store ?? null);
  const uid = opts.uid;
  if (!uid) return { events, checkpoints: c.checkpoints, processes: c.processes, restarts: c.restarts, crashLoop: c.crashLoop, skipped };
  return {
    events: events.filter((_, i) => uidMatches(c.concerns[i]!, uid)),
    checkpoints: c.checkpoints.filter((s) => uidMatches(s.uid, uid)),
    processes: c.processes,
    restarts: c.restarts,
    crashLoop: c.crashLoop,
    skipped,
  };
}

/** Large files: parts in parallel threads, markers chosen from the file's first bytes. */
async function tryParallel(fd: number, job: { file: string; label: string; maxRecords: number }, start: number, size: number, report: (b: number) => void, want: true | number | undefined) {
  const parts = typeof want === 'number' ? Math.max(1, Math.min(16, Math.floor(want))) : partCount(size - start);
  if (parts < 2) return null;
  const head = Buffer.alloc(64 * 1024);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  const m = MARKERS[sniffFormat(head.subarray(0, n))];
  return scanParallel({ ...job, primary: m.primary, watch: m.watch }, start, size, parts, report);
}

function inWindow(time: string | null, since: number | null, until: number | null): boolean {
  if (time === null) return since === null && until === null;
  const t = Date.parse(time);
  return (since === null || t >= since) && (until === null || t <= until);
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
  json: { primary: ['fig co', '"UNIT":"', '"MESSAGE":[', 'feature gate must', 'config-dir has been', 'bootstrap a configuration'], watch: WATCH },
};

export type InputFormat = 'json' | 'syslog' | 'raw';

/** Guess the format from the first lines (journal header lines `-- … --` skipped). */
export function sniffFormat(sample: Buffer): InputFormat {
  const text = sample.subarray(0, 16 * 1024).toString('utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('-- ') && !l.startsWith('░'));
  for (const l of lines.slice(0, 20)) {
    if (l[0] === '{') return 'json';
    if (parsePrefix(l)) return 'syslog';
  }
  return 'raw';
}

export function markersFor(sample: Buffer): Markers {
  const m = MARKERS[sniffFormat(sample)];
  return { primary: m.primary.map((w) => Buffer.from(w)), watch: m.watch.map((w) => Buffer.from(w)) };
}

// ---- time resolution ----

/** Keeps records (bounded), and runs year inference in input order. */
class RecordStore {
  count = 0;
  /** Records dropped beyond the cap (here or in parallel parts). */
  omitted = 0;
  private readonly records: Array<{ rec: LineRecord; steps: number }> = [];
  private head = 0;
  private readonly years = new YearInference();

  constructor(private readonly max: number) {}

  add(rec: LineRecord): void {
    const t = rec.time;
    const steps = t && 'local' in t && t.local.year === null ? this.years.step(t.local) : 0;
    this.records.push({ rec, steps });
    this.count++;
    // Drop the oldest beyond the cap; compact now and then instead of shifting every time.
    if (this.records.length - this.head > this.max) {
      this.head++;
      this.omitted++;
      if (this.head > 4096 && this.head * 2 > this.records.length) {
        this.records.splice(0, this.head);
        this.head = 0;
      }
    }
  }

  resolve(opts: { year: number | null; anchor: Date; utc: boolean }): JournalEvent[] {
    const out: JournalEvent[] = [];
    for (let i = this.head; i < this.records.length; i++) {
      const { rec, steps } = this.records[i]!;
      rec.event.time = timeOf(rec, steps, this.years, opts);
      out.push(rec.event);
    }
    return out;
  }
}

function timeOf(rec: LineRecord, steps: number, years: YearInference, opts: { year: number | null; anchor: Date; utc: boolean }): string | null {
  const t = rec.time;
  if (!t) return null;
  if ('exact' in t) return isoOf(t.exact);
  const local: LocalTime = t.local.year === null ? { ...t.local, year: years.yearFor(steps, opts) } : t.local;
  return isoOf(localMs(local, opts.utc));
}
