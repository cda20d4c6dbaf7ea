// Go durations: time.ParseDuration (what metav1.Duration's UnmarshalJSON and the duration
// flags call, with Go 1.17's exact error texts) and time.Duration.String (what `%v`
// prints inside the kubelet's messages). Nanoseconds are bigints: int64 range matters.

const NS = 1n;
const UNITS: Record<string, bigint> = {
  ns: NS,
  us: 1000n,
  'µs': 1000n, // U+00B5 micro sign
  'μs': 1000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_INT64 = (1n << 63n) - 1n;
const HEX = '0123456789abcdef';

/** The time package's own quote(): non-ASCII and control bytes become \xNN escapes. */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x80 || cp < 0x20) {
      for (const b of Buffer.from(ch, 'utf8')) out += '\\x' + HEX[b >> 4] + HEX[b & 15];
    } else {
      out += (ch === '"' || ch === '\\' ? '\\' : '') + ch;
    }
  }
  return out + '"';
}

export class DurationError extends Error {}

function invalid(orig: string): DurationError {
  return new DurationError('time: invalid duration ' + timeQuote(orig));
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Leading [0-9]* as int64; null on overflow (Go's errLeadingInt). */
function leadingInt(s: string): { x: bigint; rest: string } | null {
  let i = 0;
  let x = 0n;
  for (; i < s.length && isDigit(s[i]); i++) {
    x = x * 10n + BigInt(s.charCodeAt(i) - 48);
    if (x > MAX_INT64) return null;
  }
  return { x, rest: s.slice(i) };
}

function leadingFraction(s: string): { x: bigint; scale: number; rest: string } {
  let i = 0;
  let x = 0n;
  let scale = 1;
  let overflow = false;
  for (; i < s.length && isDigit(s[i]); i++) {
    if (overflow) continue;
    const y = x * 10n + BigInt(s.charCodeAt(i) - 48);
    if (y > MAX_INT64) { overflow = true; continue; }
    x = y;
    scale *= 10;
  }
  return { x, scale, rest: s.slice(i) };
}

/** time.ParseDuration; throws DurationError with Go's message. Returns nanoseconds. */
export function parseGoDuration(orig: string): bigint {
  // Configs spell the same few durations ("10s", "2m0s") in every payload: remember answers
  // (a bigint or the error to throw again), bounded.
  let known = durations.get(orig);
  if (known === undefined) {
    try {
      known = parseDuration(orig);
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      known = e;
    }
    if (durations.size >= 4096) durations.clear();
    durations.set(orig, known);
  }
  if (known instanceof DurationError) throw known;
  return known;
}

const durations = new Map<string, bigint | DurationError>();

function parseDuration(orig: string): bigint {
  let s = orig;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid(orig);
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid(orig);
    const pl = s.length;
    const li = leadingInt(s);
    if (!li) throw invalid(orig);
    let v = li.x;
    s = li.rest;
    const pre = pl !== s.length;
    let post = false;
    let f = 0n;
    let scale = 1;
    if (s[0] === '.') {
      s = s.slice(1);
      const before = s.length;
      const lf = leadingFraction(s);
      f = lf.x;
      scale = lf.scale;
      s = lf.rest;
      post = before !== s.length;
    }
    if (!pre && !post) throw invalid(orig);
    let i = 0;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    if (i === 0) throw new DurationError('time: missing unit in duration ' + timeQuote(orig));
    const u = s.slice(0, i);
    s = s.slice(i);
    const unit = UNITS[u];
    if (unit === undefined) throw new DurationError('time: unknown unit ' + timeQuote(u) + ' in duration ' + timeQuote(orig));
    if (v > MAX_INT64 / unit) throw invalid(orig);
    v *= unit;
    if (f > 0n) {
      // Go does this step in float64; so do we, to get the same rounding.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > MAX_INT64) throw invalid(orig);
    }
    d += v;
    if (d > MAX_INT64) throw invalid(orig);
  }
  return neg ? -d : d;
}

/** Fraction digits of v/10^prec without trailing zeros ("" when zero), and v/10^prec. */
function fmtFrac(v: bigint, prec: number): { text: string; rest: bigint } {
  let text = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print = print || digit !== 0n;
    if (print) text = digit.toString() + text;
    v /= 10n;
  }
  return { text: print ? '.' + text : '', rest: v };
}

/** time.Duration.String(): "1m30s", "500ms", "1.5µs", "0s". */
export function formatGoDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < 1000n) { prec = 0; unit = 'ns'; }
    else if (u < 1_000_000n) { prec = 3; unit = 'µs'; }
    else { prec = 6; unit = 'ms'; }
    const f = fmtFrac(u, prec);
    out = f.rest.toString() + f.text + unit;
  } else {
    const f = fmtFrac(u, 9);
    u = f.rest;
    out = (u % 60n).toString() + f.text + 's';
    u /= 60n;
    if (u > 0n) {
      out = (u % 60n).toString() + 'm' + out;
      u /= 60n;
      if (u > 0n) out = u.toString() + 'h' + out;
    }
  }
  return neg ? '-' + out : out;
}

/** `%v` of a metav1.Duration value: the struct braces around Duration.String(). */
export function formatMetaDuration(ns: bigint): string {
  return `{${formatGoDuration(ns)}}`;
}

/** Parse, or null when the text is not a Go duration. */
export function tryParseGoDuration(s: string): bigint | null {
  try {
    return parseGoDuration(s);
  } catch {
    return null;
  }
}

/** The Go spelling of a duration text ("60s" → "1m0s"), or the text itself when invalid. */
export function canonicalDuration(s: string): string {
  const ns = tryParseGoDuration(s);
  return ns === null ? s : formatGoDuration(ns);
}

export const NANOS = { second: 1_000_000_000n, microsecond: 1000n, millisecond: 1_000_000n } as const;
