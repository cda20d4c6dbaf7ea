// Large regular files are split into parts at line boundaries and scanned in parallel:
// this thread takes the first part, worker threads the others. Each part yields records in
// file order; concatenated in part order they are the file's order, and year inference
// runs over them afterwards exactly as for a single scan. Any trouble with workers (no
// worker file in a bundle, a crash) falls back to one thread: parallelism is only speed.

import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { LineParser, type LineRecord } from './lines.js';
import { LineScanner, scanFd, type LineSink, type Markers, type OnBytes } from './scan.js';

/** Below this a second thread costs more (startup ~30 ms) than it saves. */
export const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;

export interface PartJob {
  file: string;
  label: string;
  start: number;
  end: number;
  primary: string[];
  watch: string[];
  /** A part that finds more records than this stops early and reports them as omitted: the caller reads in one thread instead. */
  maxRecords: number;
}

export interface PartResult {
  records: LineRecord[];
  skipped: number;
  bytes: number;
  /** Records not kept: the part found more than maxRecords and stopped (its records are dropped). */
  omitted: number;
}

/** Messages a worker posts: progress, then one result or an error. */
export type WorkerMessage = { bytes: number } | { result: PartResult } | { error: string };

export function toMarkers(primary: readonly string[], watch: readonly string[]): Markers {
  return { primary: primary.map((w) => Buffer.from(w)), watch: watch.map((w) => Buffer.from(w)) };
}

/** Scan one part in this thread. A part after the first starts watching: a start may lie just before it. */
export async function scanPart(job: PartJob, onBytes: OnBytes, stop?: AbortSignal): Promise<PartResult> {
  let records: LineRecord[] = [];
  let seen = 0;
  const full = new AbortController();
  const parser = new LineParser(job.label, (r) => {
    seen++;
    if (full.signal.aborted) return;
    records.push(r);
    // More than the caller can take: stop soon (memory stays bounded, and no time is lost).
    if (records.length > job.maxRecords) {
      records = [];
      full.abort();
    }
  });
  const sink = decodingSink(parser);
  const fd = fs.openSync(job.file, 'r');
  try {
    const bytes = await scanFd(
      fd,
      { start: job.start, end: job.end },
      () => {
        const s = new LineScanner(toMarkers(job.primary, job.watch), sink);
        if (job.start > 0) s.startWatching();
        return s;
      },
      onBytes,
      stop ? AbortSignal.any([full.signal, stop]) : full.signal,
    );
    return { records, skipped: parser.skipped, bytes, omitted: seen - records.length };
  } finally {
    fs.closeSync(fd);
  }
}

export function decodingSink(parser: LineParser): LineSink {
  return {
    line: (buf, start, end, refused) => parser.lineBytes(buf, start, end, refused),
    continuation: (buf, start, end) => parser.continuationBytes(buf, start, end),
    overlong: () => parser.overlong(),
  };
}

/**
 * How many parts for a file of `size` bytes (1: do not bother). Only idle cores help: on a
 * busy machine a second thread costs more than it brings, so the load average decides.
 */
export function partCount(size: number, load = os.loadavg()[0] ?? 0): number {
  if (size < PARALLEL_MIN_BYTES) return 1;
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const idle = Math.floor(cores - load + 0.5);
  return Math.max(1, Math.min(4, cores, idle));
}

/** The worker script beside this module (`journal-worker.js`; `.ts` when run from source). */
function workerUrl(): URL | null {
  for (const ext of ['.js', '.ts']) {
    const u = new URL(`./journal-worker${ext}`, import.meta.url);
    if (fs.existsSync(u)) return u;
  }
  return null;
}

/**
 * Scan `[start, size)` of a regular file in `parts` parts. Returns null when workers are not
 * available, so the caller scans in one thread instead.
 */
export async function scanParallel(job: Omit<PartJob, 'start' | 'end'>, start: number, size: number, parts: number, onBytes: OnBytes): Promise<PartResult | null> {
  const url = workerUrl();
  if (!url || parts < 2) return null;
  const step = Math.ceil((size - start) / parts);
  const jobs: PartJob[] = Array.from({ length: parts }, (_, i) => ({ ...job, start: start + i * step, end: i === parts - 1 ? Infinity : start + (i + 1) * step }));
  const progress = new Array<number>(parts).fill(0);
  const report = (i: number) => (b: number) => {
    progress[i] = b;
    onBytes(progress.reduce((a, x) => a + x, 0));
  };
  const workers: Worker[] = [];
  const stop = new AbortController();
  try {
    // A part that overflowed ends the parallel read at once (the caller reads in one thread).
    const whole = (r: PartResult) => (r.omitted > 0 ? Promise.reject(new Error('part overflow')) : r);
    const remote = jobs.slice(1).map((j, k) => runWorker(url, j, report(k + 1), workers).then(whole));
    const local = scanPart(jobs[0]!, report(0), stop.signal).then(whole);
    const results = await Promise.all([local, ...remote]);
    const sum = (f: (r: PartResult) => number) => results.reduce((a, r) => a + f(r), 0);
    return { records: results.flatMap((r) => r.records), skipped: sum((r) => r.skipped), bytes: sum((r) => r.bytes), omitted: sum((r) => r.omitted) };
  } catch {
    return null;
  } finally {
    stop.abort();
    for (const w of workers) void w.terminate();
  }
}

function runWorker(url: URL, job: PartJob, onBytes: OnBytes, all: Worker[]): Promise<PartResult> {
  return new Promise((resolve, reject) => {
    // The last part's end is Infinity; it travels as -1.
    const w = new Worker(url, { workerData: { ...job, end: Number.isFinite(job.end) ? job.end : -1 } });
    all.push(w);
    w.on('message', (m: WorkerMessage) => {
      if ('bytes' in m) onBytes(m.bytes);
      else if ('result' in m) resolve(m.result);
      else reject(new Error(m.error));
    });
    w.on('error', reject);
    w.on('exit', (code) => reject(new Error(`journal worker exited with ${code}`)));
  });
}
