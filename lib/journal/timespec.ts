// `--since/--until` for file sources, in the forms of systemd.time(7) that journalctl accepts:
// absolute dates and times (local time unless a zone is given: `UTC`, `Z`, an offset or a tz
// database name), a time alone (today), an optional weekday that must agree,
// `today`/`yesterday`/`tomorrow`/`now`, `@EPOCH`, and relative times (`-1h`, `-2h30min`,
// `30min ago`, `2 months ago`). journalctl sources get the text unchanged.

import { UsageError } from '../errors.js';

const S = 1e3;
const DAY = 86400 * S;
/** systemd.time(7)'s units; a month is 30.44 days and a year 365.25, as systemd counts them. */
const UNITS: Record<string, number> = {
  usec: 1e-3, us: 1e-3, 'µs': 1e-3, msec: 1, ms: 1,
  s: S, sec: S, second: S, seconds: S,
  m: 60 * S, min: 60 * S, minute: 60 * S, minutes: 60 * S,
  h: 3600 * S, hr: 3600 * S, hour: 3600 * S, hours: 3600 * S,
  d: DAY, day: DAY, days: DAY,
  w: 7 * DAY, week: 7 * DAY, weeks: 7 * DAY,
  M: 2629800 * S, month: 2629800 * S, months: 2629800 * S,
  y: 31557600 * S, year: 31557600 * S, years: 31557600 * S,
};
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const HINT = 'use e.g. "2021-08-24 13:00", "2021-08-24 04:00:00 UTC", "13:00", "-2h30min", "30 min ago", "today"';

/** Epoch ms for a time bound; UsageError (exit 2) when the text is not one. */
export function parseTimeBound(text: string, now: Date, option: string): number {
  const t = text.trim();
  const bad = () => new UsageError(`${option} ${JSON.stringify(text)} is not a time`, HINT);
  const midnight = (days: number) => new Date(now.getFullYear(), now.getMonth(), now.getDate() + days).getTime();
  if (t === 'now') return now.getTime();
  if (t === 'today') return midnight(0);
  if (t === 'yesterday') return midnight(-1);
  if (t === 'tomorrow') return midnight(1);
  const epoch = /^@(\d+(?:\.\d+)?)$/.exec(t);
  if (epoch) return Math.floor(+epoch[1]! * 1000);
  const rel = relative(t);
  if (rel !== null) return now.getTime() + rel;
  const ms = absolute(t, now);
  if (ms === null) throw bad();
  return ms;
}

/**
 * `-2h30min`, `+1d`, `30 min ago`, `2 months ago`, `5min left`: ms from now, or null when `t` is
 * not that form. As systemd's parse_timestamp, a span needs its sign or its word (`3d` alone is no time).
 */
function relative(t: string): number | null {
  const m = /^([+-]?)\s*(.+?)(\s+ago|\s+left)?$/.exec(t);
  if (!m || (m[1] === '') === (m[3] === undefined)) return null;
  let rest = m[2]!;
  let total = 0;
  let parts = 0;
  while (rest !== '') {
    // A number without a unit counts seconds, as systemd's parse_sec reads it (`-300`, `5 ago`).
    const p = /^(\d+(?:\.\d+)?)\s*([a-zA-Zµ]*)\s*/.exec(rest);
    const unit = p?.[2] === '' ? S : UNITS[p?.[2] ?? ''];
    if (!p || unit === undefined) return null;
    total += +p[1]! * unit;
    rest = rest.slice(p[0].length);
    parts++;
  }
  if (parts === 0) return null;
  return (m[1] === '-' || m[3]?.trim() === 'ago' ? -1 : 1) * total;
}

/** `[Weekday] [YYYY-MM-DD][ |T][HH:MM[:SS[.frac]]] [zone]`: epoch ms, or null. */
function absolute(t: string, now: Date): number | null {
  let rest = t;
  let weekday: number | null = null;
  const w = /^([A-Za-z]+)\s+(.*)$/.exec(rest);
  if (w) {
    // `Tue` or `Tuesday`, any case, as systemd reads it.
    const word = w[1]!.toLowerCase();
    weekday = WEEKDAYS.findIndex((d) => d === word || d.slice(0, 3) === word);
    if (weekday < 0) return null;
    rest = w[2]!;
  }
  let offset: string | null = null;
  let zone: string | null = null;
  // An offset only right after the time (`13:00Z`, `13:00+02:00`), as systemd 255 reads it.
  const o = /^(.*\d)(Z|[+-]\d\d:\d\d)$/.exec(rest);
  const z = /^(.*\S)\s+([A-Za-z][\w/+-]*)$/.exec(rest);
  if (o && /\d\d:\d\d(?::\d\d(?:\.\d+)?)?$/.test(o[1]!)) [rest, offset] = [o[1]!, o[2]!];
  else if (z) [rest, zone] = [z[1]!, z[2]!];
  const m = /^(?:(\d{4})-(\d\d)-(\d\d))?(?:(?:^|[ T])(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,6}))?)?)?$/.exec(rest);
  if (!m || (m[1] === undefined && m[4] === undefined)) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = m;
  // A time alone is today's (in the zone given, or local).
  const date = y !== undefined ? { y: +y, mo: +mo!, d: +d! } : todayIn(now, zone ?? (offset ? 'UTC' : null));
  if (!date) return null;
  const f = { ...date, h: +h, mi: +mi, s: +s, ms: Math.floor(+frac.padEnd(3, '0').slice(0, 3)) };
  // A date that does not exist (Feb 30, month 13, second 60) is refused, as journalctl refuses it, not rolled over.
  if (!realDate(f)) return null;
  // systemd refuses a weekday that the date does not fall on.
  if (weekday !== null && weekday !== new Date(Date.UTC(f.y, f.mo - 1, f.d)).getUTCDay()) return null;
  if (offset) return Date.UTC(f.y, f.mo - 1, f.d, f.h, f.mi, f.s, f.ms) - offsetMs(offset);
  if (zone) return inZone(f, zone);
  return new Date(f.y, f.mo - 1, f.d, f.h, f.mi, f.s, f.ms).getTime();
}

interface Fields { y: number; mo: number; d: number; h: number; mi: number; s: number; ms: number }

function offsetMs(o: string): number {
  if (o === 'Z') return 0;
  const m = /^([+-])(\d\d):?(\d\d)$/.exec(o)!;
  return (m[1] === '-' ? -1 : 1) * (+m[2]! * 60 + +m[3]!) * 60e3;
}

/** Today's date in `zone` (null: local), or null for a zone the tz database does not know. */
function todayIn(now: Date, zone: string | null): { y: number; mo: number; d: number } | null {
  if (zone === null) return { y: now.getFullYear(), mo: now.getMonth() + 1, d: now.getDate() };
  const p = zoneParts(now.getTime(), zone);
  return p && { y: p.y, mo: p.mo, d: p.d };
}

/** The wall-clock fields of instant `ms` in `zone`, or null for an unknown zone. */
function zoneParts(ms: number, zone: string): Fields | null {
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone === 'Z' ? 'UTC' : zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  } catch {
    return null;
  }
  const parts = f.formatToParts(ms);
  const get = (type: string) => +(parts.find((p) => p.type === type)?.value ?? NaN);
  return { y: get('year'), mo: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second'), ms: 0 };
}

/** The instant whose wall clock in `zone` reads `w` (the earlier one in a repeated hour), or null for an unknown zone. */
function inZone(w: Fields, zone: string): number | null {
  const asUtc = Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s, w.ms);
  let guess = asUtc;
  // Two rounds settle the zone's offset at that instant (one more across a change of offset).
  for (let i = 0; i < 3; i++) {
    const p = zoneParts(guess, zone);
    if (!p) return null;
    const shown = Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s, w.ms);
    if (shown === asUtc) return guess;
    guess += asUtc - shown;
  }
  return guess;
}

/** A calendar date and a clock time that exist. */
function realDate(f: Fields): boolean {
  if (f.mo < 1 || f.mo > 12 || f.d < 1 || f.h > 23 || f.mi > 59 || f.s > 59) return false;
  return f.d <= new Date(Date.UTC(f.y, f.mo, 0)).getUTCDate();
}
