// resource.ParseQuantity, as far as the kubelet's config handling needs it: accept or
// reject with apimachinery's error texts, and tell zero from non-zero (reservedMemory
// rule). Values are not normalised; the text is kept as written.

export const ERR_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = 'unable to parse quantity\'s suffix';

export class QuantityError extends Error {}

export interface ParsedQuantity {
  negative: boolean;
  /** True when the numeric part is zero (then the suffix does not matter). */
  zero: boolean;
}

const SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
const DIGITS = /^[0-9]*/;

/** Split as parseQuantityString does: sign, numerator, denominator, suffix. */
function split(str: string): { positive: boolean; num: string; denom: string; suffix: string } {
  let pos = 0;
  let positive = true;
  if (str[0] === '-') { positive = false; pos++; }
  else if (str[0] === '+') pos++;
  while (str[pos] === '0') pos++;
  if (pos >= str.length) return { positive, num: '0', denom: '', suffix: '' };
  let num = DIGITS.exec(str.slice(pos))![0];
  pos += num.length;
  if (pos >= str.length) return { positive, num, denom: '', suffix: '' };
  if (num === '') num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    denom = DIGITS.exec(str.slice(pos))![0];
    pos += denom.length;
    if (pos >= str.length) return { positive, num, denom, suffix: '' };
  }
  const suffixStart = pos;
  while (pos < str.length && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos >= str.length) return { positive, num, denom, suffix: str.slice(suffixStart) };
  if (str[pos] === '-' || str[pos] === '+') pos++;
  const exp = DIGITS.exec(str.slice(pos))![0];
  pos += exp.length;
  if (pos < str.length) throw new QuantityError(ERR_FORMAT_WRONG);
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

function suffixOK(suffix: string): boolean {
  if (SUFFIXES.has(suffix)) return true;
  return /^[eE][-+]?[0-9]+$/.test(suffix);
}

/** resource.ParseQuantity: throws QuantityError with apimachinery's message. */
export function parseQuantity(str: string): ParsedQuantity {
  if (str.length === 0) throw new QuantityError(ERR_FORMAT_WRONG);
  if (str === '0') return { negative: false, zero: true };
  const { positive, num, denom, suffix } = split(str);
  if (!suffixOK(suffix)) throw new QuantityError(ERR_SUFFIX);
  const zero = /^0*$/.test(num) && /^0*$/.test(denom);
  return { negative: !positive && !zero, zero };
}

/** True when `str` parses as a quantity. */
export function isQuantity(str: string): boolean {
  try {
    parseQuantity(str);
    return true;
  } catch {
    return false;
  }
}

/**
 * ParseQuantity's fast path keeps the text it parsed, and String() then prints it as written
 * (leading zeros and all), when it is already in a canonical shape: a binary quantity of
 * whole units whose number is not a multiple of 8 (`-100Mi`, `-05Ki`), a decimal one whose
 * scale is a multiple of three and whose digits neither end in 000 nor start with 0 (`-1.500`,
 * `-1.200e3`); within the precision the fast path takes (found by review: `-1.500` printed
 * `-1500m`).
 */
function keepsItsText(str: string): boolean {
  const { num, denom, suffix } = split(str);
  const bin = BINARY_SUFFIXES.indexOf(suffix);
  const shifted = num + denom;
  if (bin > 0) {
    const exponent = 10 * bin;
    if (denom.length || 15 - num.length - Math.trunc((exponent * 3) / 10) - 1 < 0) return false;
    return /^[0-9]+$/.test(shifted) && Number(BigInt(shifted) & 7n) !== 0;
  }
  const exponent = /^[eE][-+]?[0-9]+$/.test(suffix) ? Number(suffix.slice(1)) : DECIMAL_SUFFIX[suffix];
  if (exponent === undefined || 18 - shifted.length < 0) return false;
  const scale = exponent - denom.length;
  if (scale < -9 || BigInt(shifted) > 9223372036854775807n) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * The exact value of a quantity that parses: n × 10^e (n signed; a binary suffix's power of
 * 1024 already in n), its binary suffix's index (0: none) and whether it has an exponent suffix.
 */
function exactValue(str: string): { n: bigint; e: number; bin: number; exponent: boolean } {
  const { positive, num, denom, suffix } = split(str);
  let n = BigInt(`${num}${denom}` || '0') * (positive ? 1n : -1n);
  let e = -denom.length;
  const bin = BINARY_SUFFIXES.indexOf(suffix);
  const exponent = /^[eE][-+]?[0-9]+$/.test(suffix);
  if (bin > 0) n *= 1024n ** BigInt(bin);
  else if (exponent) e += Number(suffix.slice(1));
  else e += DECIMAL_SUFFIX[suffix] ?? 0;
  return { n, e, bin, exponent };
}

/** Quantity.AsInt64 succeeds for a quantity that parses: a whole number within int64 (in magnitude). */
export function isWholeInt64(str: string): boolean {
  let { n, e } = exactValue(str);
  if (n < 0n) n = -n;
  if (e >= 0) n *= 10n ** BigInt(e);
  else {
    const d = 10n ** BigInt(-e);
    if (n % d !== 0n) return false;
    n /= d;
  }
  return n <= 9223372036854775807n;
}

/**
 * A quantity as Go prints it (Quantity.String, CanonicalizeBytes) for one that parses: zero is
 * `0`; a binary one (`Ki`…) of at least 1024 in magnitude and a whole number is written in the
 * largest power of 1024 that divides it; anything else in decimal, its exponent a multiple of
 * three (`m`, ``, `k`…; `eN` for an exponent suffix). `-1000m` is `-1`, `-0.5Gi` `-512Mi`.
 * Values past int64 or finer than 10^-9 (which Go rounds) are not handled exactly.
 */
export function canonicalQuantity(str: string): string {
  const q = parseQuantity(str);
  if (q.zero) return '0';
  if (keepsItsText(str)) return str;
  const { bin, exponent, n, e } = exactValue(str);
  return formatExact(n, e, bin > 0 ? 'BinarySI' : exponent ? 'DecimalExponent' : 'DecimalSI');
}

/** A quantity's format (resource.Format), as its suffix sets it when parsed. */
type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

/** A sum of quantities: its exact value (n × 10^e) and its text as Go prints it. */
export interface QuantitySum {
  n: bigint;
  e: number;
  text: string;
}

/**
 * Quantity.Add over quantities that parse, from a zero DecimalSI quantity (NewQuantity(0,
 * DecimalSI)), as the kubelet sums reservations: a sum that is still zero takes the format of
 * what is added to it, so the first non-zero addend's format prints the total. The sum is
 * printed as String() prints a quantity Add made (never the text as written).
 */
export function sumQuantities(texts: readonly string[]): QuantitySum {
  let n = 0n;
  let e = 0;
  let format: QuantityFormat = 'DecimalSI';
  for (const t of texts) {
    const v = exactValue(t);
    if (n === 0n) format = v.bin > 0 ? 'BinarySI' : v.exponent ? 'DecimalExponent' : 'DecimalSI';
    const lo = Math.min(e, v.e);
    n = n * 10n ** BigInt(e - lo) + v.n * 10n ** BigInt(v.e - lo);
    e = lo;
  }
  return { n, e, text: n === 0n ? '0' : formatExact(n, e, format) };
}

/** Whether two exact values are equal (Quantity.Equal). */
export function sameQuantity(a: { n: bigint; e: number }, b: { n: bigint; e: number }): boolean {
  const lo = Math.min(a.e, b.e);
  return a.n * 10n ** BigInt(a.e - lo) === b.n * 10n ** BigInt(b.e - lo);
}

/** CanonicalizeBytes of a non-zero exact value n × 10^e in `format`. */
function formatExact(n: bigint, e: number, format: QuantityFormat): string {
  if (format === 'BinarySI') {
    // Whole bytes (no fraction left after the power of ten) and at least 1024: base 1024.
    let whole: bigint | null = n;
    if (e < 0) whole = n % 10n ** BigInt(-e) === 0n ? n / 10n ** BigInt(-e) : null;
    else whole = n * 10n ** BigInt(e);
    if (whole !== null && (whole >= 1024n || whole <= -1024n)) {
      let k = 0;
      while (whole % 1024n === 0n && k < 6) {
        whole /= 1024n;
        k++;
      }
      return `${whole}${BINARY_SUFFIXES[k]}`;
    }
  }
  while (n % 10n === 0n) {
    n /= 10n;
    e++;
  }
  const r = ((e % 3) + 3) % 3;
  if (r === 1) (n *= 10n), (e -= 1);
  else if (r === 2) (n *= 100n), (e -= 2);
  const sfx = format === 'DecimalExponent' ? (e === 0 ? '' : `e${e}`) : (Object.entries(DECIMAL_SUFFIX).find(([, v]) => v === e)?.[0] ?? `e${e}`);
  return `${n}${sfx}`;
}
