// Both cores on a large file. While this thread scans a journal from the front, a worker
// searches its back for the primary markers, one chunk at a time from the end, and shares where
// each one starts. Once the front scan reaches the part already searched, it reads only what
// can matter: the lines of those markers and the windows they open (continuations, the lines
// after a kubelet start); the stretches in between hold no marker and are passed over unread.
// Nothing else changes: the same lines reach the same parser in the same order.
//
// The worker reads the file this thread opened (a path could be swapped under us) through a
// descriptor of its own, reopened from this thread's through /proc, with positional reads; it
// is stopped, and waited for, before this thread closes its descriptor, and its own is closed
// once it has exited (never while it might read: a read blocked on a slow file system outlives
// any wait, and a number closed under it could name the next file opened).

import { v8, workerThreads } from '../builtins.js';
import type { WasmFinder } from './wasm-find.js';
import fs from 'node:fs';

/** Below this many bytes the worker's start (~45 ms, a Node of its own) costs more than it saves. */
export const TAIL_FINDER_MIN_BYTES = 64 * 1024 * 1024;
/** Bytes the worker searches per read (its buffer is the scanner's: BUF_SIZE). */
const CHUNK = 384 * 1024;
/** Marker positions the worker may share; a journal dense enough to fill them gains nothing from jumps. */
const MAX_HITS = 64 * 1024;
/** The worker gives up where markers are closer than this on average (after 2 MiB): jumps would be rare. */
const MIN_GAP = 16 * 1024;
/** A jump shorter than this is not worth its look-behind read: the next read covers it anyway. */
const MIN_JUMP = 32 * 1024;
/** How far before a marker its line start is looked for; a longer line is read as usual. */
const LOOK_BEHIND = 16 * 1024;

// The control words shared with the worker.
const STATE = 0; // 0 not started, 1 searching, 2 done (it no longer reads the descriptor)
const STOP = 1; // set by this thread: the worker stops before its next chunk
const CHUNKS = 2; // chunks searched, published after their hits and ends
const FRONT = 3; // this thread's read position in 4 KiB pages: the worker stops short of it

export interface TailFinderOptions {
  /** The least span worth a worker (tests: 0). */
  minBytes?: number;
  /** Bytes per worker read (tests use small ones to cross many chunk boundaries). */
  chunk?: number;
  maxHits?: number;
  minJump?: number;
  /** Tests: return only once the worker has searched all it will, so the whole back is jumped through. */
  settle?: boolean;
}

export interface TailFinder {
  /**
   * Where the front scan should read next instead of `pos`, given that the bytes from `from`
   * (the unfinished line it carries, if any) on are unread: the start of the line of the next
   * marker, or when no marker is left, the start of the line the searched part ends with (a file
   * read while it grows); -1 to read on as usual.
   */
  jump(from: number, pos: number): number;
  /**
   * Whether V8 flags may be set now: the worker is past its start (a flag set before that makes
   * it compile Node's built-ins from source), or the young generation has grown to YOUNG_BOUND
   * while it started (memory comes first; the worker then only starts slower).
   */
  flagsSafe(): boolean;
  /** The front scan is at `pos` (the worker need not search below it). */
  front(pos: number): void;
  /** Stop the worker and wait until it no longer reads the descriptor. */
  stop(): void;
}

// The worker: plain JS (eval), self-contained. It instantiates the scanner's compiled search
// for a memory of its own and walks the file back from `size` to `floor`.
const WORKER = `'use strict';
const { workerData: d } = require('node:worker_threads');
const fs = require('node:fs');
const ctl = new Int32Array(d.ctl), ends = new Int32Array(d.ends), hits = new Float64Array(d.hits);
if (Atomics.compareExchange(ctl, ${STATE}, 0, 1) === 0) {
  try {
    const x = new WebAssembly.Instance(d.module).exports;
    const mem = new Uint8Array(x.mem.buffer);
    let n = 0, b = d.size;
    for (let k = 0; b > d.floor && k < ends.length; k++) {
      if (Atomics.load(ctl, ${STOP}) || b <= Atomics.load(ctl, ${FRONT}) * 4096) break;
      const a = Math.max(d.floor, b - d.chunk);
      const want = Math.min(d.size, b + d.longest - 1) - a;
      let got = 0;
      while (got < want) { const r = fs.readSync(d.fd, mem, got, want - got, a + got); if (r === 0) break; got += r; }
      // Shorter than when it was opened: what the rest holds now is not known, so nothing more is published.
      if (got < want) break;
      let full = false;
      for (let p = x.find(0, got); p >= 0 && p < b - a; p = x.find(p + 1, got)) {
        if (n === hits.length) { full = true; break; }
        hits[n++] = a + p;
      }
      // Markers this close together leave no stretch worth a jump: searching on only takes a core from this process.
      if (full || (d.size - a >= 2097152 && n * d.minGap > d.size - a)) break;
      ends[k] = n;
      Atomics.store(ctl, ${CHUNKS}, k + 1);
      b = a;
    }
  } catch {}
  Atomics.store(ctl, ${STATE}, 2);
  Atomics.notify(ctl, ${STATE});
}
`;

/** Whether a span of this many bytes is worth a worker. */
export function helperPays(span: number, o: TailFinderOptions = {}): boolean {
  return span > 0 && span >= (o.minBytes ?? TAIL_FINDER_MIN_BYTES);
}

/**
 * While the worker starts, the heap flags wait (flagsSafe) and the young generation grows as
 * V8 likes; past this much new space they are set anyway, so peak memory stays bounded
 * whatever the scheduling.
 */
const YOUNG_BOUND = 8 * 1024 * 1024;

function youngGenerationGrew(): boolean {
  for (const s of v8().getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_size >= YOUNG_BOUND;
  return false;
}

/**
 * A worker searching `[floor, size)` of `fd` from the end, or null when it would not pay (a
 * small file) or cannot run (no SIMD search, no worker threads).
 */
export function startTailFinder(fd: number, floor: number, size: number, wasm: WasmFinder | null, longest: number, o: TailFinderOptions = {}): TailFinder | null {
  if (wasm === null || !helperPays(size - floor, o)) return null;
  const chunk = Math.min(o.chunk ?? CHUNK, wasm.buf.length - longest);
  // (Past a million chunks, ~384 GiB, the front is left to this thread.)
  const nChunks = Math.min(Math.ceil((size - floor) / chunk), 1 << 20);
  const own = ownDescriptor(fd);
  if (own === null) return null;
  const ctl = new Int32Array(new SharedArrayBuffer(16));
  const ends = new Int32Array(new SharedArrayBuffer(4 * nChunks));
  const hits = new Float64Array(new SharedArrayBuffer(8 * (o.maxHits ?? MAX_HITS)));
  let worker: import('node:worker_threads').Worker;
  try {
    worker = new (workerThreads().Worker)(WORKER, {
      eval: true,
      workerData: { ctl: ctl.buffer, ends: ends.buffer, hits: hits.buffer, module: wasm.module, fd: own, floor, size, chunk, longest, minGap: MIN_GAP },
      stdout: true,
      stderr: true,
    });
  } catch {
    closeQuietly(own);
    return null;
  }
  worker.once('exit', () => closeQuietly(own));
  worker.unref();
  worker.on('error', () => {}); // a failed worker only means no jumps
  if (o.settle) waitWhile(ctl, (v) => v !== 2, 30_000);
  const minJump = o.minJump ?? MIN_JUMP;
  const look = Buffer.allocUnsafe(LOOK_BEHIND);
  /** Chunk `k` covers [max(floor, size - (k+1)·chunk), size - k·chunk); its hits are [ends[k-1], ends[k]), ascending. */
  const firstHitAtOrAfter = (from: number, done: number): number => {
    for (let k = Math.min(done - 1, Math.floor((size - 1 - from) / chunk)); k >= 0; k--) {
      let lo = k === 0 ? 0 : ends[k - 1]!;
      let hi = ends[k]!;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (hits[mid]! < from) lo = mid + 1;
        else hi = mid;
      }
      if (lo < ends[k]!) return hits[lo]!;
    }
    return -1;
  };
  /**
   * Where the line that `size` ends or cuts starts: `size` when the byte before it is a newline,
   * else just after the last newline before it; -1 when not known (none within the look-behind,
   * or the file is shorter now). A file that grows while it is read (a live syslog, a
   * `journalctl -f` to a file) may have had half a line when it was opened: that line, and
   * whatever is appended, are read as the plain scan reads them.
   */
  let lastStart = -2;
  const lastLineStart = (): number => {
    if (lastStart !== -2) return lastStart;
    const at = Math.max(floor, size - LOOK_BEHIND);
    const n = fs.readSync(fd, look, 0, size - at, at);
    if (n !== size - at) return (lastStart = -1);
    if (look[n - 1] === 10) return (lastStart = size);
    const nl = look.subarray(0, n).lastIndexOf(10);
    return (lastStart = nl < 0 ? -1 : at + nl + 1);
  };
  let stopped = false;
  return {
    jump(from, pos) {
      const done = Atomics.load(ctl, CHUNKS);
      if (done === 0 || from < Math.max(floor, size - done * chunk)) return -1;
      const h = firstHitAtOrAfter(from, done);
      if (h < 0) {
        // No marker left before `size`, but a line it cuts may still be being written: read on from its start.
        const e = lastLineStart();
        return e > pos ? e : -1;
      }
      if (h - pos < minJump) return -1;
      // The start of the marker's line: after the last newline before it (bounded look-behind).
      const at = Math.max(pos, h - LOOK_BEHIND);
      const n = fs.readSync(fd, look, 0, h - at, at);
      const nl = look.subarray(0, n).lastIndexOf(10);
      return nl < 0 ? -1 : at + nl + 1;
    },
    flagsSafe() {
      return Atomics.load(ctl, STATE) !== 0 || youngGenerationGrew();
    },
    front(pos) {
      Atomics.store(ctl, FRONT, Math.floor(pos / 4096));
    },
    stop() {
      if (stopped) return;
      stopped = true;
      Atomics.store(ctl, STOP, 1);
      // Not started: it never will read. Searching: it stops within one chunk (bounded all the
      // same: a worker that died mid-search reads nothing any more).
      if (Atomics.compareExchange(ctl, STATE, 0, 2) !== 0) waitWhile(ctl, (v) => v === 1, 10_000);
      void worker.terminate();
    },
  };
}

/**
 * A descriptor of the worker's own for the file `fd` holds: reopened through /proc/self/fd (the
 * open file itself, never its path), checked to be that very regular file; null when it cannot be
 * (no /proc, a mode changed since), and the front then scans alone.
 */
function ownDescriptor(fd: number): number | null {
  let own: number;
  try {
    own = fs.openSync(`/proc/self/fd/${fd}`, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const a = fs.fstatSync(fd);
    const b = fs.fstatSync(own);
    if (b.isFile() && a.dev === b.dev && a.ino === b.ino) return own;
  } catch {
    // not the same file, as far as can be told
  }
  closeQuietly(own);
  return null;
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already gone: nothing to release
  }
}

/** Block while the worker's state satisfies `busy`, up to `ms`. */
function waitWhile(ctl: Int32Array, busy: (state: number) => boolean, ms: number): void {
  const end = performance.now() + ms;
  for (let v = Atomics.load(ctl, STATE); busy(v) && performance.now() < end; v = Atomics.load(ctl, STATE)) Atomics.wait(ctl, STATE, v, 50);
}
