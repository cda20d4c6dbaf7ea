// From parsed lines to the `journal` result in bounded memory, one record at a time: year
// inference, the --since/--until window, the correlation (which sees every event), the
// --uid filter, and a window of the newest events kept for listing. Events beyond the window
// are summarised (counted in checkpoints, processes, restarts, crashLoop) but not listed:
// `truncated` says how many.

import { Correlator, uidMatches, type Stamp, type StoreView } from './correlate.js';
import type { JournalEvent, JournalResult } from './events.js';
import type { LineRecord } from './lines.js';
import { isoOf, localMs, YearInference, type LocalTime } from './syslog.js';

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

interface Held {
  rec: LineRecord;
  steps: number;
  cost: number;
}

/** What a year-less time needs to be resolved at the end (a stamp's `ref`); other stamps' `ms` are final. */
interface YearlessRef {
  local: LocalTime;
  steps: number;
}

export class Pipeline {
  /** Events that passed the filters. */
  count = 0;
  /** Of those, the ones no longer listed (the oldest). */
  truncated = 0;
  private readonly years = new YearInference();
  private readonly correlator = new Correlator();
  private readonly held: Held[] = [];
  private head = 0;
  private bytes = 0;
  /** Following: events go here as they come instead of into the window. */
  private live: ((ev: JournalEvent) => void) | null = null;

  constructor(private readonly o: PipelineOptions) {}

  add(rec: LineRecord): void {
    const t = rec.time;
    const steps = t && 'local' in t && t.local.year === null ? this.years.step(t.local) : 0;
    if ((this.o.since !== null || this.o.until !== null) && !this.inWindow(rec, steps)) return;
    const yearless = t !== null && 'local' in t && t.local.year === null && this.o.year === null;
    const stamp: Stamp | null = t ? { ms: this.provisionalMs(rec, steps), ref: yearless ? ({ local: t.local, steps } satisfies YearlessRef) : null } : null;
    const concern = this.correlator.add(rec.event, stamp);
    if (this.o.uid && !uidMatches(concern, this.o.uid)) return;
    this.count++;
    if (this.live) {
      rec.event.time = this.finalTime(rec, steps);
      this.live(rec.event);
      return;
    }
    this.hold({ rec, steps, cost: EVENT_OVERHEAD + 2 * rec.event.message.length });
  }

  /**
   * Following: hand over the window (the newest events so far) and from now on every event as
   * it comes. A year-less line gets the year the lines so far suggest.
   */
  goLive(onEvent: (ev: JournalEvent) => void): void {
    if (this.live) return;
    for (let i = this.head; i < this.held.length; i++) {
      const { rec, steps } = this.held[i]!;
      rec.event.time = this.finalTime(rec, steps);
      onEvent(rec.event);
    }
    this.held.length = 0;
    this.head = 0;
    this.bytes = 0;
    this.live = onEvent;
  }

  /** The result: listed events with their final times, and the summaries over every event. */
  finish(skipped: number): JournalResult {
    const events: JournalEvent[] = [];
    for (let i = this.head; i < this.held.length; i++) {
      const { rec, steps } = this.held[i]!;
      rec.event.time = this.finalTime(rec, steps);
      events.push(rec.event);
    }
    const c = this.correlator.finish(this.o.store, (s) => (s.ref === null ? isoOf(s.ms) : this.yearlessTime(s.ref as YearlessRef)));
    const uid = this.o.uid;
    const checkpoints = uid ? c.checkpoints.filter((s) => uidMatches(s.uid, uid)) : c.checkpoints;
    return { events, checkpoints, processes: c.processes, restarts: c.restarts, crashLoop: c.crashLoop, skipped, truncated: this.truncated };
  }

  /** Keep the newest events within the count and the byte budget; compact now and then instead of shifting every time. */
  private hold(h: Held): void {
    this.held.push(h);
    this.bytes += h.cost;
    while (this.held.length - this.head > this.o.maxEvents || (this.bytes > WINDOW_BYTES && this.held.length - this.head > 1)) {
      this.bytes -= this.held[this.head]!.cost;
      this.held[this.head] = undefined as unknown as Held;
      this.head++;
      this.truncated++;
    }
    if (this.head > 4096 && this.head * 2 > this.held.length) {
      this.held.splice(0, this.head);
      this.head = 0;
    }
  }

  private finalTime(rec: LineRecord, steps: number): string | null {
    const t = rec.time;
    if (!t) return null;
    if ('exact' in t) return isoOf(t.exact);
    return t.local.year === null ? this.yearlessTime({ local: t.local, steps }) : isoOf(localMs(t.local, this.o.utc));
  }

  private yearlessTime(r: YearlessRef): string | null {
    return isoOf(localMs({ ...r.local, year: this.years.yearFor(r.steps, this.yearOpts()) }, this.o.utc));
  }

  /**
   * Orders and measures events before the year of year-less lines is known (it is fixed by the
   * last line): each year step gets its own leap year, in UTC. Differences agree with the final
   * times except across a DST change or a non-leap February's end.
   */
  private provisionalMs(rec: LineRecord, steps: number): number {
    const t = rec.time!;
    if ('exact' in t) return t.exact;
    const l = t.local;
    if (l.year !== null || this.o.year !== null) return localMs(l.year !== null ? l : { ...l, year: this.o.year! + steps }, this.o.utc);
    return Date.UTC(2000 + 4 * steps, l.month - 1, l.day, l.hour, l.minute, l.second, Math.floor(l.micros / 1000));
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
