// Go's strconv and fmt behaviour where the kubelet's messages depend on it: `%q` quoting,
// ParseBool / ParseInt / ParseUint / Atoi with their exact error texts. Kept apart so that
// every message built elsewhere quotes and parses exactly as the Go code did.

/** Made on first use: V8 expands the five Unicode properties as it creates the literal (~4 M instructions). */
let printableRe: RegExp | undefined;

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isGoPrint(cp: number): boolean {
  // ASCII answers without the Unicode-property regex (compiling it costs more than a status).
  if (cp < 0x7f) return cp >= 0x20;
  return cp >= 0xa0 && (printableRe ??= new RegExp('[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}]', 'u')).test(String.fromCodePoint(cp));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function escapeRune(cp: number, quote: number): string {
  if (cp === quote || cp === 0x5c) return '\\' + String.fromCodePoint(cp);
  if (isGoPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 0x07: return '\\a';
    case 0x08: return '\\b';
    case 0x0c: return '\\f';
    case 0x0a: return '\\n';
    case 0x0d: return '\\r';
    case 0x09: return '\\t';
    case 0x0b: return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + hex(cp, 2);
  if (cp < 0x10000) return '\\u' + hex(cp, 4);
  return '\\U' + hex(cp, 8);
}

/** strconv.Quote / fmt `%q` of a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += escapeRune(ch.codePointAt(0)!, 0x22);
  return out + '"';
}

/** encoding/json's quoteChar: how a syntax error names the offending byte. */
export function goQuoteChar(byte: number): string {
  if (byte === 0x27) return `'\\''`;
  if (byte === 0x22) return `'"'`;
  const q = goQuote(String.fromCodePoint(byte));
  return "'" + q.slice(1, -1) + "'";
}

export class GoNumError extends Error {
  constructor(readonly func: string, readonly num: string, readonly reason: 'invalid syntax' | 'value out of range') {
    super(`strconv.${func}: parsing ${goQuote(num)}: ${reason}`);
  }
}

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** strconv.ParseBool. */
export function parseGoBool(s: string): boolean {
  if (TRUE_WORDS.has(s)) return true;
  if (FALSE_WORDS.has(s)) return false;
  throw new GoNumError('ParseBool', s, 'invalid syntax');
}

/** Go's rule for `_` in base-prefixed literals: only between digits or after the prefix. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hexPrefix = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1]!)) {
    i = 2;
    saw = '0';
    hexPrefix = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hexPrefix && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

const DECIMAL_DIGITS = /^[0-9]+$/;
const SIGNED_DECIMAL = /^[+-]?[0-9]{1,15}$/;

function digitValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  if (code >= 65 && code <= 90) return code - 55;
  return 99;
}

/** strconv.ParseUint(s, base, bits) as a bigint. `func` names the caller in errors. */
export function parseGoUint(s: string, base: number, bits: number, func = 'ParseUint', orig = s): bigint {
  if (s === '') throw new GoNumError(func, orig, 'invalid syntax');
  const base0 = base === 0;
  let body = s;
  if (base === 0) {
    base = 10;
    if (body[0] === '0') {
      const p = body[1]?.toLowerCase();
      if (body.length >= 3 && p === 'b') { base = 2; body = body.slice(2); }
      else if (body.length >= 3 && p === 'o') { base = 8; body = body.slice(2); }
      else if (body.length >= 3 && p === 'x') { base = 16; body = body.slice(2); }
      else { base = 8; body = body.slice(1); }
    }
  }
  const max = (1n << BigInt(bits)) - 1n;
  // Plain decimal digits (nearly every config number): one native parse, same answers.
  if (base === 10 && body.length <= 15 && DECIMAL_DIGITS.test(body)) {
    const v = BigInt(body);
    if (v > max) throw new GoNumError(func, orig, 'value out of range');
    return v;
  }
  let n = 0n;
  let underscores = false;
  let overflow = false;
  for (const c of body) {
    if (c === '_' && base0) { underscores = true; continue; }
    const d = digitValue(c);
    if (d >= base) throw new GoNumError(func, orig, 'invalid syntax');
    n = n * BigInt(base) + BigInt(d);
    if (n > max) overflow = true;
  }
  if (underscores && !underscoreOK(s)) throw new GoNumError(func, orig, 'invalid syntax');
  if (overflow) throw new GoNumError(func, orig, 'value out of range');
  return n;
}

/** strconv.ParseInt(s, base, bits) as a bigint. */
export function parseGoInt(s: string, base: number, bits: number): bigint {
  // Plain decimals of up to 15 digits (nearly every config number) are exact as JS numbers.
  if (base === 10 && s.length <= 16 && SIGNED_DECIMAL.test(s)) {
    const v = Number(s);
    if (bits < 53 && (v >= 2 ** (bits - 1) || v < -(2 ** (bits - 1)))) throw new GoNumError('ParseInt', s, 'value out of range');
    return BigInt(v);
  }
  if (s === '') throw new GoNumError('ParseInt', s, 'invalid syntax');
  let body = s;
  let neg = false;
  if (body[0] === '+') body = body.slice(1);
  else if (body[0] === '-') { neg = true; body = body.slice(1); }
  let un: bigint;
  try {
    un = parseGoUint(body, base, bits, 'ParseInt', s);
  } catch (e) {
    if (e instanceof GoNumError && e.reason === 'value out of range') throw new GoNumError('ParseInt', s, 'value out of range');
    throw e;
  }
  const cutoff = 1n << BigInt(bits - 1);
  if (!neg && un >= cutoff) throw new GoNumError('ParseInt', s, 'value out of range');
  if (neg && un > cutoff) throw new GoNumError('ParseInt', s, 'value out of range');
  return neg ? -un : un;
}

/**
 * A Go integer as the typed config holds it: a JS number while that is exact, else the
 * bigint itself (an int64 past 2^53: `maxOpenFiles: 9007199254740993`, `podPidsLimit:
 * 9223372036854775807`). Rounding it would make an export write a different value, or one
 * past int64 that the kubelet cannot decode at all.
 */
export function goIntValue(v: bigint): number | bigint {
  return v >= -MAX_SAFE && v <= MAX_SAFE ? Number(v) : v;
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * goIntValue(parseGoInt(s, 10, bits)) without the bigint in between for the plain decimals
 * nearly every config number is (a typed decode makes ~20 of them per payload).
 */
export function parseGoIntValue(s: string, bits: number): number | bigint {
  if (s.length > 16 || !SIGNED_DECIMAL.test(s)) return goIntValue(parseGoInt(s, 10, bits));
  const v = Number(s);
  if (bits < 53 && (v >= 2 ** (bits - 1) || v < -(2 ** (bits - 1)))) throw new GoNumError('ParseInt', s, 'value out of range');
  // -0 is 0, as the bigint made it.
  return v === 0 ? 0 : v;
}

/** strconv.Atoi (64-bit platform). */
export function goAtoi(s: string): number {
  try {
    return Number(parseGoInt(s, 10, 64));
  } catch (e) {
    if (e instanceof GoNumError) throw new GoNumError('Atoi', s, e.reason);
    throw e;
  }
}

/** A JS number for a bigint already range-checked by the caller (precision is lost past 2^53). */
export function toNumber(n: bigint): number {
  return Number(n);
}
