// One line of `journalctl -o json` (reference/journal-lines.md §4.3): every value is a
// string, a byte array (not printable UTF-8), null (over 4 KB without -a), or an array of
// those (a field with several values).

export interface JsonEntry {
  /** `_SOURCE_REALTIME_TIMESTAMP`, else `__REALTIME_TIMESTAMP` (µs), as ms since the epoch. */
  timeMs: number | null;
  pid: number | null;
  ident: string | null;
  comm: string | null;
  /** `UNIT=`: set by systemd on its own lines about a unit. */
  unit: string | null;
  /** `_SYSTEMD_UNIT=`: the unit of the process that logged. */
  systemdUnit: string | null;
  /** null when journalctl left it out (`null` without `-a`). */
  message: string | null;
}

type Json = string | number | null | Json[] | { [k: string]: Json };

/**
 * The JSON object of one exported line: `-o json` writes it alone, `-o json-seq` after an RS
 * (0x1E), `-o json-sse` after `data: `. Null for any other line.
 */
export function jsonText(line: string): string | null {
  if (line[0] === '{') return line;
  if (line[0] === '\x1e' && line[1] === '{') return line.slice(1);
  if (line.startsWith('data: {')) return line.slice(6);
  return null;
}

/**
 * `journalctl -o json-pretty` output: an entry spread over lines, `{` alone on the first. Its
 * lines mean nothing one by one, so it is refused rather than read as nothing.
 */
export function isPrettyJsonStart(line: string): boolean {
  return line.trimEnd() === '{';
}

/** Parse one exported entry; null when the line is not a JSON object. */
export function parseJsonEntry(line: string): JsonEntry | null {
  let o: Json;
  try {
    o = JSON.parse(line) as Json;
  } catch {
    return null;
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return null;
  const pid = num(field(o, '_PID')) ?? num(field(o, 'SYSLOG_PID'));
  const us = num(field(o, '_SOURCE_REALTIME_TIMESTAMP')) ?? num(field(o, '__REALTIME_TIMESTAMP'));
  return {
    timeMs: us === null ? null : Math.floor(us / 1000),
    pid,
    ident: field(o, 'SYSLOG_IDENTIFIER'),
    comm: field(o, '_COMM'),
    unit: field(o, 'UNIT'),
    systemdUnit: field(o, '_SYSTEMD_UNIT'),
    message: field(o, 'MESSAGE'),
  };
}

/** A field's text: strings as they are, byte arrays decoded as UTF-8, the first of several values. */
function field(o: { [k: string]: Json }, name: string): string | null {
  return text(o[name]);
}

function text(v: Json | undefined): string | null {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v) || v.length === 0) return null;
  if (v.every((b) => typeof b === 'number')) return bytesText(v as number[]);
  return text(v[0]); // several values: the first
}

function bytesText(bytes: number[]): string {
  return Buffer.from(bytes.map((b) => b & 0xff)).toString('utf8');
}

function num(s: string | null): number | null {
  if (s === null || !/^\d{1,17}$/.test(s)) return null;
  return +s;
}
