// `--since/--until` for file sources, in the forms journalctl accepts most often: absolute
// dates (local time unless a zone is given), `today`/`yesterday`/`now`, `@EPOCH`, and
// relative times (`-1h`, `30min ago`). journalctl sources get the text unchanged.

import { UsageError } from '../errors.js';

const UNITS: Record<string, number> = {
  s: 1e3, sec: 1e3, secs: 1e3, second: 1e3, seconds: 1e3,
  m: 60e3, min: 60e3, mins: 60e3, minute: 60e3, minutes: 60e3,
  h: 3600e3, hr: 3600e3, hour: 3600e3, hours: 3600e3,
  d: 86400e3, day: 86400e3, days: 86400e3,
  w: 7 * 86400e3, week: 7 * 86400e3, weeks: 7 * 86400e3,
};

/** Epoch ms for a time bound; UsageError (exit 2) when the text is not one. */
export function parseTimeBound(text: string, now: Date, option: string): number {
  const t = text.trim();
  const midnight = (days: number) => new Date(now.getFullYear(), now.getMonth(), now.getDate() + days).getTime();
  if (t === 'now') return now.getTime();
  if (t === 'today') return midnight(0);
  if (t === 'yesterday') return midnight(-1);
  if (t === 'tomorrow') return midnight(1);
  const epoch = /^@(\d+(?:\.\d+)?)$/.exec(t);
  if (epoch) return Math.floor(+epoch[1]! * 1000);
  const rel = /^([+-]?)\s*(\d+(?:\.\d+)?)\s*([a-z]+)(\s+ago)?$/.exec(t);
  if (rel && UNITS[rel[3]!] !== undefined) {
    const sign = rel[1] === '-' || rel[4] ? -1 : 1;
    return now.getTime() + sign * +rel[2]! * UNITS[rel[3]!]!;
  }
  const local = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,3}))?)?)?$/.exec(t);
  // A date that does not exist (Feb 30, month 13, second 60) is refused, as journalctl refuses it, not rolled over.
  if (local && realDate(local)) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', ms = '0'] = local;
    return new Date(+y!, +mo! - 1, +d!, +h, +mi, +s, +ms.padEnd(3, '0')).getTime();
  }
  const zoned = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d))?.*(Z|[+-]\d\d:?\d\d)$/.exec(t);
  if (zoned && realDate(zoned)) {
    const ms = Date.parse(t);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(`${option} ${JSON.stringify(text)} is not a time`, 'use e.g. "2021-08-24 13:00", "2021-08-24T04:00:00Z", "-2h", "30 min ago", "today"');
}

/** Year, month, day and the optional hour, minute, second of a match: a calendar date and a clock time that exist. */
function realDate(m: RegExpExecArray): boolean {
  const [y, mo, d, h = 0, mi = 0, sec = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => (x === undefined ? undefined : +x)) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || sec! > 59) return false;
  return d! <= new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
}
