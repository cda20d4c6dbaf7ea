// The streaming line scanner. Candidate lines are found on raw bytes: Buffer#indexOf of a
// few marker substrings (native code, no JS per byte), and only the lines holding one are
// decoded. A 1 GB journal is never split into JS strings, and memory stays constant:
// one read buffer plus at most one line being assembled.

import fs from 'node:fs';
import { helperPays, startTailFinder, type TailFinderOptions } from './tail-finder.js';
import { wasmFinder, type WasmFinder } from './wasm-find.js';

/** One turn of the event loop (progress and abort signals get their chance). */
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a handled line asks of the scanner. */
export const Follow = {
  None: 0,
  /** The lines after it may continue its message (header-less lines). */
  Continuation: 1,
  /** A kubelet (re)start: look at the next lines for the few that hold no primary marker. */
  Watch: 2,
} as const;
export type Follow = (typeof Follow)[keyof typeof Follow];

export interface LineSink {
  /**
   * A line `buf[start, end)` (no newline) that holds a marker. `refused`: it is the line the
   * sink's last call, continuation(), just turned down (whatever that call read of it still holds).
   */
  line(buf: Buffer, start: number, end: number, refused: boolean): Follow;
  /** A line after one that asked: true when taken; false ends continuations and the line is scanned as usual. */
  continuation(buf: Buffer, start: number, end: number): boolean;
  /** A line longer than the cap held a marker: it is dropped, not decoded. */
  overlong(): void;
}

export interface Markers {
  /** Searched everywhere. */
  primary: readonly Buffer[];
  /** Searched only in the lines just after a Watch request (each line on its own, so cheap). */
  watch: readonly Buffer[];
}

/** How many lines after a kubelet start are checked for the watch markers. */
export const WATCH_LINES = 200;

/** Lines longer than this are not decoded (journald's LineMax is 48K; JSON with byte arrays runs longer). */
export const MAX_LINE = 256 * 1024;
/** Read size: small enough that the buffer stays in the CPU cache while it is searched, big enough that syscalls do not dominate (measured: 128K beats 32K, 64K and 256K). */
export const READ_SIZE = 128 * 1024;
/** A read right after a jump (tail-finder.ts): enough for a line and the window it may open. */
const SMALL_READ = 16 * 1024;
/** A scanner's buffer: a read, plus the unfinished line carried over (at most MAX_LINE before it is dropped). */
export const BUF_SIZE = READ_SIZE + MAX_LINE + READ_SIZE;

const NL = 10;

export class LineScanner {
  private inCont = false;
  private watchLeft = 0;
  /** Inside a line longer than MAX_LINE: its bytes are dropped up to the next newline. */
  private discarding = false;
  private discardHit = false;
  private readonly next: number[];
  /** Likewise for the watch markers: the next place each starts at (-2: not searched in this buffer yet). */
  private readonly nextWatch: number[];
  private readonly needles: readonly Buffer[];
  /** The longest primary or watch marker's length. */
  private readonly longestNeedle: number;
  private readonly watchNeedles: readonly Buffer[];
  /** The SIMD search, when available; it works on `buf` only. */
  private readonly wasm: WasmFinder | null;
  /** Where drivers put the bytes to scan (WebAssembly memory when the SIMD search is used). */
  readonly buf: Buffer;

  constructor(
    markers: Markers,
    private readonly sink: LineSink,
    private readonly maxLine = MAX_LINE,
  ) {
    this.needles = markers.primary;
    this.watchNeedles = markers.watch;
    this.longestNeedle = Math.max(1, ...this.needles.map((n) => n.length), ...this.watchNeedles.map((n) => n.length));
    this.next = this.needles.map(() => -2);
    this.nextWatch = this.watchNeedles.map(() => -2);
    // With watch markers the SIMD search finds those too (they were the costliest native search left).
    this.wasm = wasmFinder(this.needles, BUF_SIZE, this.watchNeedles);
    this.buf = this.wasm?.buf ?? Buffer.allocUnsafe(BUF_SIZE);
  }

  /**
   * Scan `buf[0, len)`: every complete line is handled; returns how many bytes were
   * consumed. The caller keeps the rest (an unfinished last line) and passes it again
   * in front of more data. With `final` the unfinished line is handled too.
   */
  scan(buf: Buffer, len: number, final: boolean): number {
    this.endFor = -1; // the buffer's bytes are new
    this.refused = -1;
    let pos = 0;
    if (this.discarding) {
      pos = this.skipOverlong(buf, len);
      if (this.discarding) return pos;
    }
    let limit = len;
    if (!final) {
      const nl = len > pos ? buf.lastIndexOf(NL, len - 1) : -1;
      if (nl < pos) {
        // Longer than maxLine for certain (deliver's test): a line of exactly maxLine waits for its newline.
        if (len - pos <= this.maxLine) return pos;
        this.discarding = true;
        this.discardHit = this.hasNeedle(buf, pos, len);
        return this.keepTail(pos, len);
      }
      limit = nl + 1;
    }
    const view = buf.subarray(0, limit);
    if (this.inCont) pos = this.continuations(view, pos, limit);
    this.next.fill(-2);
    this.nextWatch.fill(-2);
    this.simd = this.wasm !== null && buf === this.wasm.buf;
    while (pos < limit) {
      const m = this.nextCandidate(view, pos);
      if (this.watchLeft > 0) {
        const quiet = this.simd ? this.skipQuiet(view, pos, limit, m) : pos;
        pos = quiet > pos ? quiet : this.watchLine(view, pos, limit, m);
        continue;
      }
      if (m < 0) break;
      const start = m === 0 ? 0 : view.lastIndexOf(NL, m - 1) + 1;
      let end = view.indexOf(NL, m);
      if (end < 0) end = limit;
      pos = this.deliver(view, start, end, limit);
    }
    return limit;
  }

  /** Hand one line to the sink and act on what it asks; returns where scanning goes on. */
  private deliver(view: Buffer, start: number, end: number, limit: number): number {
    let pos = end + 1;
    if (end - start > this.maxLine) {
      this.sink.overlong();
      return pos;
    }
    const follow = this.sink.line(view, start, end, start === this.refused);
    if (follow === Follow.Continuation) {
      this.inCont = true;
      pos = this.continuations(view, pos, limit);
    } else if (follow === Follow.Watch) {
      this.watchLeft = WATCH_LINES;
    }
    return pos;
  }

  /** In a watch window: the line at `pos` goes to the sink if it holds any marker. */
  private watchLine(view: Buffer, pos: number, limit: number, nextPrimary: number): number {
    this.watchLeft--;
    const end = this.lineEnd(view, pos, limit);
    const hit = (nextPrimary >= 0 && nextPrimary < end) || this.watchHit(view, pos, end);
    return hit ? this.deliver(view, pos, end, limit) : end + 1;
  }

  /**
   * The end of the line starting at `pos` (its newline, else `limit`). The last answer is kept:
   * a line that ends a continuation is looked at again by the watch window.
   */
  private lineEnd(view: Buffer, pos: number, limit: number): number {
    if (pos === this.endFor) return this.endAt;
    const nl = view.indexOf(NL, pos);
    this.endFor = pos;
    this.endAt = nl < 0 ? limit : nl;
    return this.endAt;
  }

  private endFor = -1;
  private endAt = -1;
  /** The start of the line continuation() last turned down in this buffer, else -1. */
  private refused = -1;

  /**
   * In a watch window: the lines before the next one that holds any marker are passed over
   * at once (their newlines counted off the window by the SIMD search) instead of one by one.
   * Returns where to go on: the start of that line, or `pos` when it is the line at `pos`.
   */
  private skipQuiet(view: Buffer, pos: number, limit: number, nextPrimary: number): number {
    const w = this.nextWatchAt(view, pos);
    const target = nextPrimary < 0 ? w : w < 0 ? nextPrimary : Math.min(nextPrimary, w);
    if (target >= 0 && target <= pos) return pos; // (and lastIndexOf must not get -1: it would count from the end)
    const start = target < 0 ? limit : view.lastIndexOf(NL, target - 1) + 1;
    if (start <= pos) return pos;
    const k = this.wasm!.lines(pos, start);
    this.watchLeft = k >= this.watchLeft ? 0 : this.watchLeft - k;
    return start;
  }

  /** The first place at or after `pos` where a watch marker starts, or -1. */
  private nextWatchAt(view: Buffer, pos: number): number {
    const next = this.nextWatch;
    if (this.simd) {
      // One cache slot for all watch markers: the SIMD search finds the first of any.
      let n = next[0] ?? -1;
      if (n !== -1 && n < pos) next[0] = n = this.wasm!.findOther(pos, view.length);
      return n;
    }
    let best = -1;
    for (let k = 0; k < next.length; k++) {
      let n = next[k]!;
      if (n !== -1 && n < pos) next[k] = n = view.indexOf(this.watchNeedles[k]!, pos);
      if (n >= 0 && (best < 0 || n < best)) best = n;
    }
    return best;
  }

  /** Does a watch marker start in `[pos, end)`? (A marker holds no newline: one that starts in a line ends in it.) */
  private watchHit(view: Buffer, pos: number, end: number): boolean {
    if (this.simd) {
      const n = this.nextWatchAt(view, pos);
      return n >= 0 && n < end;
    }
    const next = this.nextWatch;
    for (let k = 0; k < next.length; k++) {
      let n = next[k]!;
      if (n !== -1 && n < pos) next[k] = n = view.indexOf(this.watchNeedles[k]!, pos);
      if (n >= 0 && n < end) return true;
    }
    return false;
  }

  /** The SIMD search, for a helper thread to instantiate (tail-finder.ts). */
  get finder(): WasmFinder | null {
    return this.wasm;
  }

  /** The longest marker's length. */
  get longest(): number {
    return this.longestNeedle;
  }

  /**
   * Between lines, nothing pending: no continuation or watch window open, no overlong line
   * being dropped. Lines with no primary marker may then be passed over unread.
   */
  idle(): boolean {
    return !this.inCont && this.watchLeft === 0 && !this.discarding;
  }

  /** The end of input: an overlong line still being dropped is reported. */
  finish(): void {
    if (this.discarding && this.discardHit) this.sink.overlong();
    this.discarding = false;
  }

  private simd = false;

  /** The next position at or after `pos` where a primary marker starts, or -1 (cached between lines). */
  private nextCandidate(view: Buffer, pos: number): number {
    if (this.simd) {
      let n = this.next[0]!;
      if (n !== -1 && n < pos) this.next[0] = n = this.wasm!.find(pos, view.length);
      return n;
    }
    let best = -1;
    const next = this.next;
    for (let k = 0; k < next.length; k++) {
      let n = next[k]!;
      if (n !== -1 && n < pos) {
        n = view.indexOf(this.needles[k]!, pos);
        next[k] = n;
      }
      if (n >= 0 && (best < 0 || n < best)) best = n;
    }
    return best;
  }

  private continuations(view: Buffer, pos: number, limit: number): number {
    while (pos < limit) {
      const end = this.lineEnd(view, pos, limit);
      if (end - pos > this.maxLine) {
        this.inCont = false;
        return pos;
      }
      if (!this.sink.continuation(view, pos, end)) {
        this.inCont = false;
        this.refused = pos;
        return pos;
      }
      pos = end + 1;
    }
    return pos;
  }

  /** In a line being dropped: its bytes up to the newline are passed over; returns where scanning goes on (still dropping: what to keep). */
  private skipOverlong(buf: Buffer, len: number): number {
    const nl = buf.subarray(0, len).indexOf(NL);
    const end = nl < 0 ? len : nl;
    if (!this.discardHit) this.discardHit = this.hasNeedle(buf, 0, end);
    if (nl < 0) return this.keepTail(0, len);
    // The dropped line is one of a watch window's lines, as watchLine and skipQuiet count it when
    // it ends in the buffer it starts in: where reads end must not change what the window covers.
    if (this.watchLeft > 0) this.watchLeft--;
    if (this.discardHit) this.sink.overlong();
    this.discarding = false;
    this.discardHit = false;
    this.inCont = false;
    return nl + 1;
  }

  /**
   * Dropping a line: the bytes of `[start, len)` consumed but the last few, kept in front of the
   * next read, so that a marker cut by the read's end is still found (where reads end must not
   * change a result: stdin's chunks end anywhere).
   */
  private keepTail(start: number, len: number): number {
    return Math.max(start, len - (this.longestNeedle - 1));
  }

  private hasNeedle(buf: Buffer, start: number, end: number): boolean {
    const v = buf.subarray(start, end);
    return this.needles.some((n) => v.indexOf(n) >= 0) || (this.watchLeft > 0 && this.watchNeedles.some((n) => v.indexOf(n) >= 0));
  }
}

export type OnBytes = (bytesSoFar: number) => void;

export interface FdRange {
  /** First byte; when > 0 the partial line there is skipped (a tail read starts mid-line). */
  start: number;
  /** The file's size when opened: with it, a large file's back is searched by a second thread. */
  size?: number | null;
  /** That search's settings (tests), or false for none. */
  tail?: TailFinderOptions | false;
  /**
   * Called once: when that search is under way (or turned out not to be), and else before
   * the first read. What may set V8 flags goes here (ReadJournalOptions.onOpen).
   */
  ready?: () => void;
}

/**
 * Scan a regular file with positional synchronous reads into one reused buffer (cheaper than
 * a stream: no per-chunk allocation or thread-pool hop). The event loop is yielded to every
 * few MB so progress output, timers and signals stay live.
 */
export async function scanFd(fd: number, range: FdRange, makeScanner: (sample: Buffer) => LineScanner, onBytes: OnBytes, signal?: AbortSignal): Promise<number> {
  let ready = range.ready;
  const readyNow = () => {
    const f = ready;
    ready = undefined;
    f?.();
  };
  // A helper needs the size it is to search; range.start is near enough to where the scan begins.
  const helped = range.size != null && range.tail !== false && helperPays(range.size - range.start, range.tail);
  if (!helped) readyNow();
  const origin = range.start > 0 ? skipPartialLine(fd, range.start) : 0;
  let pos = origin;
  // The first read picks the markers (the format), which pick the scanner and its buffer.
  const head = Buffer.allocUnsafe(READ_SIZE);
  let n = fs.readSync(fd, head, 0, READ_SIZE, pos);
  if (n === 0) {
    readyNow();
    onBytes(0);
    return 0;
  }
  const scanner = makeScanner(head.subarray(0, n));
  const buf = scanner.buf;
  head.copy(buf, 0, 0, n);
  const tail = helped ? startTailFinder(fd, origin, range.size!, scanner.finder, scanner.longest, range.tail || {}) : null;
  if (!tail) readyNow();
  let carry = 0;
  let yieldAt = pos + 8 * 1024 * 1024;
  /** After a jump, small reads until the windows it opened are closed: the next jump comes sooner. */
  let small = false;
  try {
    for (;;) {
      pos += n;
      const len = carry + n;
      const used = scanner.scan(buf, len, false);
      carry = len - used;
      if (tail) {
        if (ready && tail.flagsSafe()) readyNow();
        tail.front(pos);
        // Into the part the worker searched: straight to the next line that holds a marker.
        const idle = scanner.idle();
        const to = idle ? tail.jump(pos - carry, pos) : -1;
        if (to > pos) {
          pos = to;
          carry = 0;
          small = true;
        } else if (idle) small = false;
      }
      if (carry > 0 && used > 0) buf.copy(buf, 0, used, len);
      if (pos >= yieldAt) {
        yieldAt = pos + 8 * 1024 * 1024;
        onBytes(pos - origin);
        await tick();
      }
      if (signal?.aborted) break;
      n = fs.readSync(fd, buf, carry, Math.min(small ? SMALL_READ : READ_SIZE, BUF_SIZE - carry), pos);
      if (n === 0) break;
    }
  } finally {
    tail?.stop();
    readyNow();
  }
  if (carry > 0) scanner.scan(buf, carry, true);
  scanner.finish();
  onBytes(pos - origin);
  return pos - origin;
}

// A tail read starts mid-line: begin after the first newline at or after `start - 1`.
function skipPartialLine(fd: number, start: number): number {
  const b = Buffer.allocUnsafe(READ_SIZE);
  let pos = start - 1;
  for (;;) {
    const n = fs.readSync(fd, b, 0, b.length, pos);
    if (n === 0) return pos;
    const nl = b.subarray(0, n).indexOf(NL);
    if (nl >= 0) return pos + nl + 1;
    pos += n;
  }
}

/** Scan chunks from a stream (stdin, gunzip, a journalctl child), copied into the scanner's buffer. */
export async function scanChunks(chunks: AsyncIterable<Buffer>, makeScanner: (sample: Buffer) => LineScanner, onBytes: OnBytes): Promise<number> {
  let scanner: LineScanner | null = null;
  let carry = 0;
  let total = 0;
  let lastReport = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    scanner ??= makeScanner(chunk);
    const buf = scanner.buf;
    for (let off = 0; off < chunk.length; ) {
      const take = Math.min(READ_SIZE, BUF_SIZE - carry, chunk.length - off);
      chunk.copy(buf, carry, off, off + take);
      off += take;
      const len = carry + take;
      const used = scanner.scan(buf, len, false);
      carry = len - used;
      if (carry > 0 && used > 0) buf.copy(buf, 0, used, len);
    }
    if (total - lastReport >= 8 * 1024 * 1024) {
      lastReport = total;
      onBytes(total);
    }
  }
  if (scanner && carry > 0) scanner.scan(scanner.buf, carry, true);
  scanner?.finish();
  onBytes(total);
  return total;
}
