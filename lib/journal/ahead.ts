// The second core on a long file: a small worker thread runs the marker search ahead, over the
// file's second part, while the main thread reads and scans the first. When the main thread
// gets there it jumps from one line the worker found to the next, instead of reading and
// searching the bytes in between, which hold nothing the scanner would act on.
//
// The worker only finds lines; everything else (the scanner's watch windows and continuations,
// the parser, the correlation) stays on the main thread, in file order, unchanged: a jump is
// taken only when the scanner is idle (no window open, no message being continued) and the
// line it would land in holds no marker. Where the worker is behind, gave up, or never
// started, the main thread reads on as if it did not exist.
//
// The worker is started from source (a few KB, eval'd), not from the program: a whole-program
// worker takes ~100 ms to start, this one ~50 ms; it shares the scanner's compiled search
// (a WebAssembly module) and the open file descriptor.

import { workerThreads } from '../builtins.js';

// lib ES2023 has no WebAssembly types; the worker instantiates the module it is handed.
declare const WebAssembly: { Instance: new (module: object) => { exports: Record<string, any> } };

/** Files shorter than this are read on one thread (a worker's start costs ~50 ms of a core). */
export const AHEAD_MIN_BYTES = 96 * 1024 * 1024;
/** Lines the worker reports at most (8 bytes each); past that it stops and the main thread reads on. */
export const AHEAD_MAX_LINES = 256 * 1024;

/** The control words shared with the worker (Int32 slots; the worker's code spells them as numbers). */
const Ctl = {
  /** Entries published in the shared list. */
  Count: 0,
  /** 0: not started, 1: searching, 2: stopped (by either side). */
  State: 1,
  /** 1 while the worker is inside a read of the descriptor (the main thread closes it only when 0). */
  Busy: 2,
} as const;
/** How long stop() waits for a read in the worker to end (a worker that died inside one never clears Busy). */
const STOP_WAIT_MS = 2000;
/** How long settle() waits for the worker to finish (it starts in ~50 ms and searches ~2 GB/s). */
const SETTLE_WAIT_MS = 30_000;

export interface AheadOptions {
  fd: number;
  /** The worker's part: `[from, to)`, `from` a line start. */
  from: number;
  to: number;
  /** The scanner's search, compiled: its `find` and `other` exports, its memory. */
  module: object;
  /** Bytes the worker reads at a time (its buffer holds twice that). */
  readSize: number;
}

export interface Ahead {
  /** Where the worker's part starts. */
  readonly from: number;
  /**
   * Where the main thread may go on reading, given that the line it is in starts at
   * `lineStart` (the bytes before `pos` of it already read) and the scanner is idle: the start
   * of the next line holding a marker, or of the first line the worker has not searched yet.
   * Returns `pos` when it may not jump (that line holds a marker, or the worker is not ahead).
   */
  jump(lineStart: number, pos: number): number;
  /** The worker has started (its built-ins loaded) or is gone. */
  running(): boolean;
  /** Block until the worker has finished its part (or stopped); tests use it to make every jump happen. */
  settle(): void;
  /** Stop the worker; returns once it no longer reads the descriptor (it may then be closed). */
  stop(): void;
}

/**
 * The worker's code: self-contained (it is sent as source), plain JavaScript in effect.
 * Entries: a line start (≥ 0) holding a marker, or `-(p + 1)`: every line starting before p
 * was searched. The worker never reports a line it has not seen end (a newline), so a file that
 * grows, or ends without a newline, leaves its last line to the main thread.
 */
function aheadWorker(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { workerData: d } = require('node:worker_threads');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require('node:fs');
  const ctl = new Int32Array(d.ctl);
  const list = new Float64Array(d.list);
  const stop = () => {
    Atomics.store(ctl, 2, 0);
    Atomics.store(ctl, 1, 2);
    Atomics.notify(ctl, 2);
  };
  if (Atomics.compareExchange(ctl, 1, 0, 1) !== 0) return; // stopped before it began
  let inst;
  try {
    inst = new WebAssembly.Instance(d.module);
  } catch {
    stop();
    return;
  }
  const find = inst.exports.find;
  const other = inst.exports.other;
  const buf = Buffer.from(inst.exports.mem.buffer, 0, 2 * d.readSize);
  let count = 0;
  let carry = 0;
  let pos = d.from;
  for (;;) {
    Atomics.store(ctl, 2, 1);
    if (Atomics.load(ctl, 1) !== 1) break;
    if (count >= list.length) break; // no room left, not even for a frontier
    const want = Math.min(d.readSize, buf.length - carry, d.to - pos);
    if (want <= 0) break; // the end of the part, or a line longer than the buffer
    let n = 0;
    try {
      n = fs.readSync(d.fd, buf, carry, want, pos);
    } catch {
      break;
    }
    Atomics.store(ctl, 2, 0);
    Atomics.notify(ctl, 2);
    if (n <= 0) break;
    const len = carry + n;
    const base = pos - carry;
    pos += n;
    const nl = buf.lastIndexOf(10, len - 1);
    if (nl < 0) {
      carry = len;
      continue;
    }
    const limit = nl + 1;
    // The lines of buf[0, limit) holding a marker, then the frontier (where the list is full: the first line not listed).
    let p = 0;
    let full = false;
    while (p < limit) {
      let h = find(p, limit);
      if (other) {
        const w = other(p, h < 0 ? limit : h);
        if (w >= 0) h = w;
      }
      if (h < 0) break;
      const start = h === 0 ? 0 : buf.lastIndexOf(10, h - 1) + 1;
      if (count + 2 > list.length) {
        full = true;
        p = start;
        break;
      }
      list[count++] = base + start;
      p = buf.indexOf(10, h) + 1;
    }
    list[count++] = -(base + (full ? p : limit) + 1);
    Atomics.store(ctl, 0, count);
    if (full) break;
    carry = len - limit;
    if (carry > 0) buf.copy(buf, 0, limit, len);
  }
  stop();
}

/** Start the worker on `[from, to)`; null when worker threads are not available. */
export function startAhead(o: AheadOptions): Ahead | null {
  const { Worker } = workerThreads();
  const ctl = new Int32Array(new SharedArrayBuffer(16));
  const list = new Float64Array(new SharedArrayBuffer(8 * AHEAD_MAX_LINES));
  let worker: import('node:worker_threads').Worker;
  try {
    worker = new Worker(`(${aheadWorker.toString()})()`, {
      eval: true,
      workerData: { ctl: ctl.buffer, list: list.buffer, module: o.module, fd: o.fd, from: o.from, to: o.to, readSize: o.readSize },
      // Its own small heap: it allocates almost nothing.
      resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
      stdout: false,
      stderr: false,
    });
  } catch {
    return null;
  }
  worker.unref();
  worker.on('error', () => Atomics.store(ctl, Ctl.State, 2));
  /** Entries read so far; the last line start read (-1: none); the frontier (lines starting before it were searched). */
  let seen = 0;
  let next = -1;
  let frontier = o.from;
  return {
    from: o.from,
    jump(lineStart: number, pos: number): number {
      if (lineStart < o.from) return pos;
      // Read on to the first listed line at or after lineStart, and every frontier before the line after it.
      const count = Atomics.load(ctl, Ctl.Count);
      while (seen < count) {
        const e = list[seen]!;
        if (e < 0) frontier = -e - 1;
        else if (next >= lineStart) break;
        else next = e;
        seen++;
      }
      if (next === lineStart) return pos;
      // A listed line comes with all of its read searched (the count is published after the
      // frontier), so none from lineStart up to it holds a marker; else up to the frontier.
      if (next > lineStart) return next;
      return frontier > lineStart ? frontier : pos;
    },
    running: () => Atomics.load(ctl, Ctl.State) !== 0,
    settle(): void {
      for (let waited = 0; waited < SETTLE_WAIT_MS && Atomics.load(ctl, Ctl.State) !== 2; waited += 20) Atomics.wait(ctl, Ctl.State, Atomics.load(ctl, Ctl.State), 20);
    },
    stop(): void {
      if (Atomics.exchange(ctl, Ctl.State, 2) === 1) {
        for (let waited = 0; waited < STOP_WAIT_MS && Atomics.load(ctl, Ctl.Busy) === 1; waited += 50) Atomics.wait(ctl, Ctl.Busy, 1, 50);
      }
      void worker.terminate();
    },
  };
}
