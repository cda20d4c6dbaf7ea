// The text prefixes journalctl's output modes put before MESSAGE (reference/journal-lines.md
// §4.3), and the times they carry: exact instants (iso, unix) or year-less local times
// (short, short-precise, klog) whose year is inferred per DESIGN.md.

/** A wall-clock time without a zone; `year` is null when the line does not say. */
export interface LocalTime {
  year: number | null;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micros: number;
  /**
   * In the hour a fall-back repeats, the later of the two instants this local time names (set
   * by the pipeline from the lines' order: syslog has no zone to tell them apart).
   */
  fold?: boolean;
}

export type LineTime = { exact: number } | { local: LocalTime };

export interface Prefixed {
  time: LineTime | null;
  /** The prefix's own wall-clock hh:mm:ss when it printed no fraction (short, short-iso, short-full). */
  wholeSecond: { hour: number; minute: number; second: number } | null;
  /** The month word of a `short` line, kept so that unknown locales can be learned. */
  monthToken: string | null;
  ident: string | null;
  pid: number | null;
  message: string;
}

// Abbreviated (and a few full) month names as `%b` prints them in common locales,
// lower-cased, trailing dot removed. Real journals show `Mai 22` (de) and `10月 25` (zh).
const MONTH_WORDS: Array<[number, string]> = [
  [1, 'jan january janv januar jän ene gen oca sty led янв январь ιαν'],
  [2, 'feb february févr fév fev lut úno фев февраль şub φεβ'],
  [3, 'mar march mär mrz mars bře мар март μαρ'],
  [4, 'apr april avr avril abr kwi dub nis апр апрель απρ'],
  [5, 'may mai mei maj mag kvě мая май μαΐ'],
  [6, 'jun june juin giu cze čvn haz июн июнь ιουν'],
  [7, 'jul july juil lug lip čvc tem июл июль ιουλ'],
  [8, 'aug august août ago sie srp ağu авг август αυγ'],
  [9, 'sep sept september set wrz zář eyl сен сент сентябрь σεπ'],
  [10, 'oct october okt ott out paź říj eki окт октябрь οκτ'],
  [11, 'nov november lis kas ноя нояб ноябрь νοε'],
  [12, 'dec december dez déc dic gru pro ara дек декабрь δεκ'],
];
const MONTHS = new Map<string, number>();
for (const [n, words] of MONTH_WORDS) for (const w of words.split(' ')) MONTHS.set(w, n);

/** The month a `%b` word names, or null. CJK forms `10月`/`10월` carry the number. */
let lastToken = '';
let lastMonth: number | null = null;

export function monthOf(token: string, learned?: ReadonlyMap<string, number>): number | null {
  if (token === lastToken && !learned) return lastMonth; // journals repeat one month word for a long time
  const m = monthLookup(token, learned);
  if (!learned) {
    lastToken = token;
    lastMonth = m;
  }
  return m;
}

function monthLookup(token: string, learned?: ReadonlyMap<string, number>): number | null {
  const t = token.toLowerCase().replace(/\.$/, '');
  const known = MONTHS.get(t) ?? learned?.get(t);
  if (known) return known;
  const cjk = /^(\d{1,2})(?:月|월)$/.exec(t);
  if (cjk && +cjk[1]! >= 1 && +cjk[1]! <= 12) return +cjk[1]!;
  return null;
}

export function normaliseMonthToken(token: string): string {
  return token.toLowerCase().replace(/\.$/, '');
}

// short / short-precise (and classic syslog files): `%b %d %H:%M:%S[.%06u] `.
const SHORT = /^(\S{1,12}) {1,2}(\d{1,2}) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))? /;
// short-iso / short-iso-precise (offset `+0900` on older systemd, `+09:00` on newer), rsyslog RFC3339.
const ISO = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)? /;
// short-full: `Tue 2021-08-24 13:16:04 KST `.
const FULL = /^[A-Za-z]{3} (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))? (\S+) /;
/** A numeric zone as strftime's %Z prints one for a zone with no abbreviation (tzdata): -03, +0530, +05:30. */
const NUMERIC_ZONE = /^([+-])(\d\d)(?::?(\d\d))?$/;

/**
 * The time of a `short-full` line from its zone word: UTC (and its names) and a numeric
 * offset say the instant; any other abbreviation (CEST, KST, IST: ambiguous between zones)
 * is read in this machine's zone, as journalctl wrote it on the node (the man page says so).
 */
function fullZoneTime(local: LocalTime, zone: string): LineTime {
  if (/^(UTC|GMT|Z|UCT)$/.test(zone)) return { exact: utcMs(local) };
  const n = NUMERIC_ZONE.exec(zone);
  if (!n || +n[2]! > 23 || +(n[3] ?? 0) > 59) return { local };
  const offsetMin = (n[1] === '-' ? -1 : 1) * (+n[2]! * 60 + +(n[3] ?? 0));
  return { exact: utcMs(local) - offsetMin * 60_000 };
}
// short-unix: `1629778564.368361 `.
const UNIX = /^(\d{9,11})\.(\d{1,6}) /;
// `host ident[pid]: ` or, with --no-hostname, `ident[pid]: `. A host has no `[`, `]` or `:`.
const IDENT = /^(?:[^\s:[\]]+ )?([^\s:[\]]+)(?:\[(\d{1,19})\])?: ?/;

const micros = (frac: string | undefined): number => (frac ? Math.floor(+(frac + '000000').slice(0, 6)) : 0);

/**
 * RFC 5424's header (rsyslog's RSYSLOG_SyslogProtocol23Format, syslog-ng): `<PRI>1 TIMESTAMP
 * HOST APP-NAME PROCID MSGID STRUCTURED-DATA MSG`, the time ISO 8601 with its offset. Read as
 * the short-iso line it says the same as (found by review: such a file read as no events).
 */
const RFC5424 = /^<\d{1,3}>1 (\d{4}-\d\d-\d\dT\S+) (\S+) (\S+) (\S+) \S+ (?:-|(?:\[(?:[^\]\\]|\\.)*\])+)(?: (?:\uFEFF)?|$)/;

/** Parse a text line's prefix; null when the line has none of the known prefixes. */
export function parsePrefix(line: string): Prefixed | null {
  if (line.charCodeAt(0) === 60 /* < */) {
    const r = RFC5424.exec(line);
    if (!r) return null;
    const pid = /^\d{1,19}$/.test(r[4]!) ? `[${r[4]}]` : '';
    return parsePrefix(`${r[1]} ${r[2]} ${r[3]}${pid}: ${line.slice(r[0].length)}`);
  }
  let time: LineTime | null = null;
  let monthToken: string | null = null;
  let wholeSecond: Prefixed['wholeSecond'] = null;
  let rest: string;
  let m: RegExpExecArray | null;
  // Dispatch on the first characters so that one regex runs, not four.
  const c0 = line.charCodeAt(0);
  const digit = c0 >= 48 && c0 <= 57;
  if (digit && line.charCodeAt(4) === 45 /* - */ && (m = ISO.exec(line))) {
    time = isoTime(m);
    if (m[7] === undefined) wholeSecond = { hour: +m[4]!, minute: +m[5]!, second: +m[6]! };
    rest = line.slice(m[0].length);
  } else if (!digit && line.charCodeAt(3) === 32 && line.charCodeAt(8) === 45 && (m = FULL.exec(line))) {
    const local: LocalTime = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]!, micros: micros(m[7]) };
    time = fullZoneTime(local, m[8]!);
    if (m[7] === undefined) wholeSecond = { hour: local.hour, minute: local.minute, second: local.second };
    rest = line.slice(m[0].length);
  } else if (digit && (m = UNIX.exec(line))) {
    time = { exact: +m[1]! * 1000 + Math.floor(micros(m[2]) / 1000) };
    rest = line.slice(m[0].length);
  } else if (c0 !== 123 /* { */ && c0 !== 34 /* " */ && (m = SHORT.exec(line)) && !/^\d+$/.test(m[1]!)) {
    monthToken = m[1]!;
    const month = monthOf(monthToken) ?? 0; // 0: unknown word, resolved later by the caller
    time = { local: { year: null, month, day: +m[2]!, hour: +m[3]!, minute: +m[4]!, second: +m[5]!, micros: micros(m[6]) } };
    rest = line.slice(m[0].length);
  } else {
    return null;
  }
  const id = IDENT.exec(rest);
  if (!id) return null;
  return { time, monthToken, wholeSecond, ident: id[1]!, pid: id[2] ? +id[2] : null, message: rest.slice(id[0].length) };
}

function isoTime(m: RegExpExecArray): LineTime {
  const local: LocalTime = { year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]!, micros: micros(m[7]) };
  const off = m[8];
  if (!off) return { local };
  if (off === 'Z') return { exact: utcMs(local) };
  const sign = off[0] === '-' ? -1 : 1;
  const digits = off.slice(1).replace(':', '');
  const minutes = sign * (+digits.slice(0, 2) * 60 + +digits.slice(2, 4));
  return { exact: utcMs(local) - minutes * 60_000 };
}

export function utcMs(t: LocalTime): number {
  return Date.UTC(t.year ?? 1970, t.month - 1, t.day, t.hour, t.minute, t.second, Math.floor(t.micros / 1000));
}

/** localMs of `t` as if it were in `year` (no copy of `t` with that year: one per event adds up). */
export function localMsIn(t: LocalTime, year: number, utc: boolean): number {
  const ms = Math.floor(t.micros / 1000);
  if (!utc) return unfolded(new Date(year, t.month - 1, t.day, t.hour, t.minute, t.second, ms).getTime(), t);
  // Date.UTC is the day's start plus the time of day: the day's start is computed once per day.
  const key = (year * 100 + t.month) * 100 + t.day;
  if (key !== utcDayKey) {
    utcDayKey = key;
    utcDayMs = Date.UTC(year, t.month - 1, t.day);
  }
  const at = utcDayMs + ((t.hour * 60 + t.minute) * 60 + t.second) * 1000 + ms;
  // Near the end of time Date.UTC clips (NaN) where the sum would not.
  return Math.abs(utcDayMs) < 8.6e15 ? at : Date.UTC(year, t.month - 1, t.day, t.hour, t.minute, t.second, ms);
}

let utcDayKey = NaN;
let utcDayMs = NaN;

export function localMs(t: LocalTime, utc: boolean): number {
  if (utc) return utcMs(t);
  return unfolded(new Date(t.year ?? 1970, t.month - 1, t.day, t.hour, t.minute, t.second, Math.floor(t.micros / 1000)).getTime(), t);
}

/** `Date`'s reading of a local time (the first of a repeated hour's two), or the later one when `t.fold` says so. */
function unfolded(ms: number, t: LocalTime): number {
  return t.fold ? (laterReading(ms, t) ?? ms) : ms;
}

const HOUR_MS = 3_600_000;

/**
 * The later of the two instants local time `t` names in the hour a fall-back repeats, given the
 * first (`ms`, as Date reads it); null when `t` names one instant only. Any zone, any size of
 * change: the offset a few hours on, and the same wall clock at the later instant, decide.
 */
export function laterReading(ms: number, t: LocalTime): number | null {
  if (!Number.isFinite(ms)) return null;
  const before = new Date(ms).getTimezoneOffset();
  const after = new Date(ms + 3 * HOUR_MS).getTimezoneOffset();
  if (!(after > before)) return null;
  const later = ms + (after - before) * 60_000;
  const d = new Date(later);
  return d.getHours() === t.hour && d.getMinutes() === t.minute ? later : null;
}

/** ISO-8601 UTC with milliseconds, or null for an impossible instant (hostile years). */
export function isoOf(ms: number): string | null {
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return null;
  // A result lists tens of thousands of times, most on a few days: the day's `YYYY-MM-DDT` is
  // made once (by toISOString), the time of day written as bytes. Years 0–9999 only (others
  // are signed). One latin1 decode makes a flat string (a template would make a rope of seven
  // pieces, 4× the memory while the result is held).
  if (ms < 0 || ms >= YEAR_10000 || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  const b = ISO_TEXT;
  if (day !== isoDay) {
    isoDay = day;
    b.write(new Date(day * DAY_MS).toISOString(), 0, 24, 'latin1');
  }
  let t = ms - day * DAY_MS;
  const milli = t % 1000;
  t = (t - milli) / 1000;
  const sec = t % 60;
  t = (t - sec) / 60;
  const min = t % 60;
  const hour = (t - min) / 60;
  b[11] = 48 + ((hour / 10) | 0);
  b[12] = 48 + (hour % 10);
  b[14] = 48 + ((min / 10) | 0);
  b[15] = 48 + (min % 10);
  b[17] = 48 + ((sec / 10) | 0);
  b[18] = 48 + (sec % 10);
  b[20] = 48 + ((milli / 100) | 0);
  b[21] = 48 + (((milli / 10) | 0) % 10);
  b[22] = 48 + (milli % 10);
  return b.toString('latin1', 0, 24);
}

const DAY_MS = 86_400_000;
const YEAR_10000 = 253_402_300_800_000;
/** `YYYY-MM-DDThh:mm:ss.mmmZ` of the last day isoOf wrote, its time of day overwritten per call. */
const ISO_TEXT = Buffer.alloc(24);
let isoDay = NaN;

export interface YearOptions {
  /** `--year`: the year of the first year-less line. */
  year?: number | null;
  /** The file's mtime, else now: the year-less lines end no later than this. */
  anchor: Date;
  utc: boolean;
}

/**
 * Year inference for year-less times, fed in input order. The year steps forward when
 * the month goes backwards (Dec → Jan). Without `--year`, the years are chosen at the end
 * so that the last line falls in the anchor's year (the year before when its date lies
 * after the anchor's): a log of Dec–Jan read with a January mtime starts last year.
 */
export class YearInference {
  /** Bumped by every step: what yearFor says may change with it. */
  version = 0;
  private wraps = 0;
  /** The last line's month and day (0: none yet); two numbers, not an object per line. */
  private lastMonth = 0;
  private lastDay = 0;

  /** Returns the number of year steps seen so far, to be stored with the time. */
  step(t: LocalTime): number {
    this.version++;
    // Dec 31 just after Jan 1: a line of the old year that came late (journald stores systemd's
    // line before the kubelet's last buffered one), not the next year going back; it is read in
    // the year before and the state stays on Jan 1 (found by review: the year stepped twice).
    if (this.wraps > 0 && this.lastMonth === 1 && this.lastDay === 1 && t.month === 12 && t.day === 31) return this.wraps - 1;
    if (this.lastMonth !== 0 && t.month < this.lastMonth && !jitter({ month: this.lastMonth, day: this.lastDay }, t)) this.wraps++;
    this.lastMonth = t.month;
    this.lastDay = t.day;
    return this.wraps;
  }

  /** The year of a line that was at `steps` when read. */
  yearFor(steps: number, opts: YearOptions): number {
    if (opts.year) return opts.year + steps;
    const a = opts.anchor;
    const aMonth = opts.utc ? a.getUTCMonth() + 1 : a.getMonth() + 1;
    const aDay = opts.utc ? a.getUTCDate() : a.getDate();
    const aYear = opts.utc ? a.getUTCFullYear() : a.getFullYear();
    const last = this.lastMonth !== 0 ? { month: this.lastMonth, day: this.lastDay } : null;
    // A day of slack covers zone differences between the writer and the reader.
    const lastAfterAnchor = last !== null && (last.month > aMonth || (last.month === aMonth && last.day > aDay + 1));
    const lastYear = aYear - (lastAfterAnchor ? 1 : 0);
    return lastYear - (this.wraps - steps);
  }
}

// One month back across a month boundary (31st after the 1st) is clock jitter between the
// klog and journald clocks or reordering, not a new year.
function jitter(prev: { month: number; day: number }, t: { month: number; day: number }): boolean {
  return prev.month - t.month === 1 && prev.day === 1 && t.day >= 28;
}
