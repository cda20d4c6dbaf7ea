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
