// From parsed lines to the `journal` result in bounded memory, one record at a time: year
// inference, the --since/--until window, the correlation (which sees every event), the
// --uid filter, and a window of the newest events kept for listing. Events beyond the window
// are summarised (counted in checkpoints, processes, restarts, crashLoop) but not listed:
// `truncated` says how many.

import { Correlator, uidMatches, type Stamp, type StoreView } from './correlate.js';
import type { JournalEvent, JournalResult } from './events.js';
import type { LineRecord } from './lines.js';
import { isoOf, laterReading, localMs, localMsIn, YearInference, type LocalTime } from './syslog.js';

/** The newest events listed by default; `-n` chooses another count. */
export const DEFAULT_MAX_EVENTS = 20_000;
/** What the listed events may hold in memory, whatever their count (messages run up to 16 KiB). */
export const WINDOW_BYTES = 24 * 1024 * 1024;
/** A rough per-event cost beyond its message: the object, its fields, the window slot. */
const EVENT_OVERHEAD = 240;

export interface PipelineOptions {
  /** `--year`: the year of the first year-less line. */
  year: number | null;
  /** The file's mtime, else now: year-less lines end no later than this. */
  anchor: Date;
  utc: boolean;
  /** Bounds in ms (inclusive), applied before the correlation as journalctl would. */
  since: number | null;
  until: number | null;
  uid: string | undefined;
  maxEvents: number;
  store: StoreView | null;
}

/** What a year-less time needs to be resolved at the end (a stamp's `ref`); other stamps' `ms` are final. A copy: records are reused. */
interface YearlessRef {
  local: LocalTime;
  steps: number;
}

/** 2001, 2002 and 2003: what lies between one provisional (leap) year and the next. */

/** Records the window dropped, kept for the parser to fill again (Pipeline.reuse): a long read then makes no garbage of its events. */
const POOL_SIZE = 64;

export class Pipeline {
  /** Events that passed the filters. */
  count = 0;
  /** Of those, the ones no longer listed (the oldest). */
  truncated = 0;
  private readonly years = new YearInference();
  private readonly correlator = new Correlator();
  /** The listed window, oldest first: a ring of records with their year steps and costs (no object per held event). */
  private readonly window = new Ring();
  private bytes = 0;
  private readonly pool: LineRecord[] = [];
  private readonly stamp: Stamp = { ms: 0, ref: null };
  /** Following: events go here as they come instead of into the window. */
  private live: ((ev: JournalEvent) => void) | null = null;
  /**
   * Following: the newest event, not yet handed over. Lines after it may still continue its
   * message (the parser appends them to it); it goes out when the next event comes or the
   * source falls quiet (idle()).
   */
  private heldLive: JournalEvent | null = null;

  constructor(private readonly o: PipelineOptions) {}

  add(rec: LineRecord): void {
    const t = rec.time;
    const steps = t && 'local' in t && t.local.year === null ? this.years.step(t.local) : 0;
    if ((this.o.since !== null || this.o.until !== null) && !this.inWindow(rec, steps)) return;
    const yearless = t !== null && 'local' in t && t.local.year === null && this.o.year === null;
    let stamp: Stamp | null = null;
    if (t) {
      // One stamp object for every event: the correlator copies what it keeps.
      stamp = this.stamp;
      stamp.ms = this.provisionalMs(rec, steps);
      if ('local' in t && !this.o.utc) stamp.ms = this.unfold(t.local, stamp.ms);
      stamp.ref = yearless ? ({ local: { ...t.local }, steps } satisfies YearlessRef) : null;
    }
    const concern = this.correlator.add(rec.event, stamp);
    if (this.o.uid && !uidMatches(concern, this.o.uid)) return;
    this.count++;
    if (this.live) {
      rec.event.time = this.finalTime(rec, steps);
      this.idle();
      this.heldLive = rec.event;
      return;
    }
    this.hold(rec, steps, EVENT_OVERHEAD + 2 * rec.event.message.length);
  }

  /**
   * A record the window no longer lists, for the parser to fill with the next event (the
   * parser's `reuse`); undefined when there is none. Nothing else holds such a record: the
   * correlator keeps copies of what it needs, and the parser has moved on to newer lines.
   */
  reuse(): LineRecord | undefined {
    return this.pool.pop();
  }

  /**
   * Following: hand over the window (the newest events so far) and from now on every event as
   * it comes. A year-less line gets the year the lines so far suggest.
   */
  goLive(onEvent: (ev: JournalEvent) => void): void {
    if (this.live) return;
    const w = this.window;
    for (let i = 0; i < w.length; i++) {
      const rec = w.rec(i);
      rec.event.time = this.finalTime(rec, w.steps(i));
      if (i === w.length - 1) this.heldLive = rec.event;
      else onEvent(rec.event);
    }
    w.clear();
    this.bytes = 0;
    this.live = onEvent;
  }

  /**
   * Following: the source has nothing new for now, so the newest event is complete as far as
   * anyone can tell: hand it over. (A continuation line written later still joins its message
   * in the parser, unseen: a follower cannot take back what it printed.)
   */
  idle(): void {
    const ev = this.heldLive;
    if (!ev || !this.live) return;
    this.heldLive = null;
    this.live(ev);
  }

  /** Once every line is in: the year of the first year-less line (what --year would give), or null when there was none. */
  firstYear(): number | null {
    return this.years.version > 0 ? this.years.yearFor(0, this.yearOpts()) : null;
  }

  /** The result: listed events with their final times, and the summaries over every event. */
  finish(skipped: number): JournalResult {
    const events: JournalEvent[] = [];
    const w = this.window;
    for (let i = 0; i < w.length; i++) {
      const rec = w.rec(i);
      rec.event.time = this.finalTime(rec, w.steps(i));
      events.push(rec.event);
    }
    const c = this.correlator.finish(this.o.store, (s) => (s.ref === null ? isoOf(s.ms) : this.yearlessTime(s.ref as YearlessRef)));
    const uid = this.o.uid;
    const checkpoints = uid ? c.checkpoints.filter((s) => uidMatches(s.uid, uid)) : c.checkpoints;
    return { events, checkpoints, processes: c.processes, restarts: c.restarts, crashLoop: c.crashLoop, skipped, truncated: this.truncated };
  }

  /** Keep the newest events within the count and the byte budget; the dropped ones go to the pool. */
  private hold(rec: LineRecord, steps: number, cost: number): void {
    const w = this.window;
    w.push(rec, steps, cost);
    this.bytes += cost;
    while (w.length > this.o.maxEvents || (this.bytes > WINDOW_BYTES && w.length > 1)) {
      this.bytes -= w.oldestCost();
      const old = w.shift();
      if (this.pool.length < POOL_SIZE) this.pool.push(old);
      this.truncated++;
    }
  }

  private finalTime(rec: LineRecord, steps: number): string | null {
    const t = rec.time;
    if (!t) return null;
    if ('exact' in t) return isoOf(t.exact);
    return t.local.year === null ? this.yearlessTime({ local: t.local, steps }) : isoOf(localMs(t.local, this.o.utc));
  }

  /**
   * The final time of a year-less line. A result asks this for every listed event and every
   * process's and checkpoint's first and last time (tens of thousands), mostly in runs of the
   * same year and second: both are remembered from the last call.
   */
  private yearlessTime(r: YearlessRef): string | null {
    const m = this.memo;
    if (m.version !== this.years.version || m.steps !== r.steps) {
      m.version = this.years.version;
      m.steps = r.steps;
      m.year = this.years.yearFor(r.steps, this.yearOpts());
      m.second.month = NaN; // equal to nothing: the second is made again in the new year
    }
    const l = r.local;
    const s = m.second;
    // Every field compared (no packed key: a log may write 48:00:00, which Date carries into the days).
    if (s.month !== l.month || s.day !== l.day || s.hour !== l.hour || s.minute !== l.minute || s.second !== l.second || !s.fold !== !l.fold) {
      s.month = l.month;
      s.day = l.day;
      s.hour = l.hour;
      s.minute = l.minute;
      s.second = l.second;
      s.fold = !!l.fold;
      m.secondMs = localMsIn(s, m.year, this.o.utc);
    }
    return isoOf(m.secondMs + Math.floor(l.micros / 1000));
  }

  private readonly memo = { version: -1, steps: -1, year: 0, second: { year: null, month: NaN, day: 0, hour: 0, minute: 0, second: 0, micros: 0, fold: false } as LocalTime, secondMs: NaN };

  /** The instant of the last local-time line, in input order (unfold). */
  private lastLocalMs = NaN;

  /**
   * A local time in the hour a fall-back repeats names two instants; the lines' order tells
   * which: the one nearer the line before it (found by review: the hour after a fall-back was
   * read as the first, an hour back, so three failed starts across the change were no crash
   * loop and the timeline ran backwards). Marks `l.fold` so that every later reading agrees.
   */
  private unfold(l: LocalTime, ms: number): number {
    const last = this.lastLocalMs;
    if (ms < last) {
      const later = laterReading(ms, l);
      if (later !== null && Math.abs(later - last) < Math.abs(ms - last)) {
        l.fold = true;
        ms = later;
      }
    }
    this.lastLocalMs = ms;
    return ms;
  }

  /** The year the first year-less line was guessed to be in (provisionalMs); fixed from then on. */
  private provisionalYear: number | null = null;

  /**
   * Orders and measures events before the year of year-less lines is known (it is fixed by the
   * last line): the years are guessed once, at the first such line, as the lines so far place
   * it, and each year step adds one. Read in the local zone (or UTC) as the final times are, so
   * that the ten minutes of a crash loop are the same ten minutes across a DST change or a
   * common year's February end (found by review: a leap year in UTC made 01:58 EST and 03:02
   * EDT an hour apart, and the verdict differ from --year's). Only a wrong guess of the year,
   * near a DST change or February's end, can still make the two differ.
   */
  private provisionalMs(rec: LineRecord, steps: number): number {
    const t = rec.time!;
    if ('exact' in t) return t.exact;
    const l = t.local;
    if (l.year !== null) return localMs(l, this.o.utc);
    if (this.o.year !== null) return localMsIn(l, this.o.year + steps, this.o.utc);
    this.provisionalYear ??= this.years.yearFor(steps, this.yearOpts()) - steps;
    return localMsIn(l, this.provisionalYear + steps, this.o.utc);
  }

  /** --since/--until; a year-less line is judged by the year the lines so far suggest. */
  private inWindow(rec: LineRecord, steps: number): boolean {
    const t = rec.time;
    if (!t) return this.o.since === null && this.o.until === null;
    let ms: number;
    if ('exact' in t) ms = t.exact;
    else {
      const year = t.local.year ?? this.years.yearFor(steps, this.yearOpts());
      ms = localMs({ ...t.local, year }, this.o.utc);
    }
    const at = Date.parse(isoOf(ms) ?? '');
    return (this.o.since === null || at >= this.o.since) && (this.o.until === null || at <= this.o.until);
  }

  private yearOpts() {
    return { year: this.o.year, anchor: this.o.anchor, utc: this.o.utc };
  }
}

/** A growable ring of records with two numbers each, oldest at index 0. */
class Ring {
  private recs: (LineRecord | undefined)[] = [];
  private stepsOf: number[] = [];
  private costs: number[] = [];
  private start = 0;
  length = 0;

  push(rec: LineRecord, steps: number, cost: number): void {
    if (this.length === this.recs.length) this.grow();
    const i = (this.start + this.length) % this.recs.length;
    this.recs[i] = rec;
    this.stepsOf[i] = steps;
    this.costs[i] = cost;
    this.length++;
  }

  shift(): LineRecord {
    const rec = this.recs[this.start]!;
    this.recs[this.start] = undefined;
    this.start = (this.start + 1) % this.recs.length;
    this.length--;
    return rec;
  }

  oldestCost(): number {
    return this.costs[this.start]!;
  }

  rec(i: number): LineRecord {
    return this.recs[(this.start + i) % this.recs.length]!;
  }

  steps(i: number): number {
    return this.stepsOf[(this.start + i) % this.recs.length]!;
  }

  clear(): void {
    this.recs = [];
    this.stepsOf = [];
    this.costs = [];
    this.start = 0;
    this.length = 0;
  }

  /** Double the room, the oldest moved to index 0. */
  private grow(): void {
    const n = this.length;
    const order = (a: number[]) => Array.from({ length: n }, (_, k) => a[(this.start + k) % n]!);
    const recs = Array.from({ length: n }, (_, k) => this.recs[(this.start + k) % n]);
    const size = Math.max(16, 2 * n);
    this.stepsOf = order(this.stepsOf);
    this.costs = order(this.costs);
    recs.length = size;
    this.recs = recs.fill(undefined, n);
    this.start = 0;
  }
}
