// The kubelet's exact encoding of a SerializedNodeConfigSource (meta/assigned,
// meta/last-known-good). The kubelet (1.23: fsstore.writeRemoteConfigSource ->
// remoteConfigMap.Encode) runs encoding/json, then sigs.k8s.io/yaml JSONToYAML, which
// parses that JSON with gopkg.in/yaml.v2 and marshals the result again with yaml.v2
// (v2.4.0). Every byte below is decided by three pieces of that path, ported here rather
// than approximated:
//   1. the JSON -> YAML parse (`kubeletParse`): JSON leaves some characters raw that the
//      YAML reader rejects or folds (DEL, C1 controls, U+FFFE/FFFF, NEL);
//   2. yaml.v2 `encoder.stringv` + `resolve` + `isBase60Float` (`requestedStyle`): which
//      strings would read back as non-strings and so must be quoted;
//   3. the libyaml-derived emitter (`analyzeScalar`, `selectStyle`, the writers): byte
//      predicates, escapes and line folding at best_width 80, which the kubelet never
//      disables (no FutureLineWrap).
// Verified byte for byte against go1.19 + yaml.v2 v2.4.0 + ghodss/yaml JSONToYAML (see
// test/lib/store/encode.test.ts). Older kubelets vendored older yaml.v2 releases that
// may differ on exotic values (timestamps, base-60 floats, multi-line strings).

import { UsageError } from '../errors.js';
import type { ConfigMapSource } from './types.js';

/** A ConfigMapSource the kubelet would refuse to write (or could not encode). */
export class MetaEncodeError extends UsageError {
  constructor(message: string, hint: string | null = null) {
    super(message, hint, 'META_ENCODE');
  }
}

/** An empty meta file: "use the local config". */
export function encodeEmptyMeta(): Buffer {
  return Buffer.alloc(0);
}

/** The bytes the kubelet writes for this source. Throws MetaEncodeError where the kubelet would fail. */
export function encodeMeta(source: ConfigMapSource): Buffer {
  // Same checks, same order, same words as fsstore.writeRemoteConfigSource.
  if (source.uid === '') {
    throw new MetaEncodeError('failed to write RemoteConfigSource, empty UID is ambiguous');
  }
  if (source.resourceVersion === '') {
    throw new MetaEncodeError('failed to write RemoteConfigSource, empty ResourceVersion is ambiguous');
  }
  // JSON field order of ConfigMapNodeConfigSource: only matters for which error comes first.
  const parsed = {
    namespace: kubeletParse(source.namespace, 'namespace'),
    name: kubeletParse(source.name, 'name'),
    uid: kubeletParse(source.uid, 'uid'),
    resourceVersion: kubeletParse(source.resourceVersion, 'resourceVersion'),
    kubeletConfigKey: kubeletParse(source.kubeletConfigKey, 'kubeletConfigKey'),
  };
  // yaml.v2 sorts map keys; for these keys that is plain lexical order.
  const doc: YamlMap = [
    ['apiVersion', 'kubelet.config.k8s.io/v1beta1'],
    ['kind', 'SerializedNodeConfigSource'],
    [
      'source',
      [
        [
          'configMap',
          [
            ['kubeletConfigKey', parsed.kubeletConfigKey],
            ['name', parsed.name],
            ['namespace', parsed.namespace],
            ['resourceVersion', parsed.resourceVersion],
            ['uid', parsed.uid],
          ],
        ],
      ],
    ],
  ];
  return emitDocument(doc);
}

// ---------------------------------------------------------------------------------------
// 1. JSON -> YAML parse: what string yaml.v2 hands to the marshaller.

/** A code point the YAML reader accepts raw (yaml.v2 readerc.go, yaml_parser_update_buffer). */
function readerAllows(cp: number): boolean {
  return (
    cp === 0x09 || cp === 0x0a || cp === 0x0d || (cp >= 0x20 && cp <= 0x7e) || cp === 0x85 ||
    (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** Go's encoding/json escapes these; every other code point is written raw. */
function jsonEscapes(cp: number): boolean {
  return cp < 0x20 || cp === 0x22 || cp === 0x5c || cp === 0x3c || cp === 0x3e || cp === 0x26 || cp === 0x2028 || cp === 0x2029;
}

const NEL = 0x85;

/**
 * The string yaml.v2 reads back from the kubelet's JSON for this value. Escaped characters
 * come back unchanged; of the raw ones, the reader rejects DEL, C1 controls (but NEL) and
 * U+FFFE/U+FFFF, and NEL is a line break that the double-quoted scanner folds
 * (scannerc.go yaml_parser_scan_flow_scalar). Lone surrogates become U+FFFD, as Go's JSON
 * encoder does with invalid UTF-8.
 */
function kubeletParse(value: string, field: string): string {
  const wellFormed = Buffer.from(value, 'utf8').toString('utf8'); // lone surrogates -> U+FFFD
  const cps = Array.from(wellFormed, (c) => c.codePointAt(0)!);
  for (const cp of cps) {
    if (!jsonEscapes(cp) && !readerAllows(cp)) {
      throw unencodable(field, 'control characters are not allowed');
    }
  }
  return cps.includes(NEL) ? foldNel(cps, field) : wellFormed;
}

function unencodable(field: string, yamlError: string): MetaEncodeError {
  return new MetaEncodeError(
    `cannot encode ${field} as the kubelet does: its YAML encoder fails (yaml: ${yamlError})`,
    'the kubelet could not have written this value; check the value for control characters',
  );
}

/** Port of the blank/break handling of yaml_parser_scan_flow_scalar, for the raw blanks JSON leaves: space and NEL. */
function foldNel(cps: number[], field: string): string {
  const out: number[] = [];
  let i = 0;
  let column0 = false; // the scanner is at column 0 right after a raw break
  for (;;) {
    if (column0 && startsDocumentIndicator(cps, i)) throw unencodable(field, 'found unexpected document indicator');
    while (i < cps.length && cps[i] !== 0x20 && cps[i] !== NEL) out.push(cps[i++]);
    if (i >= cps.length) return out.map((c) => String.fromCodePoint(c)).join('');
    let whitespaces = 0;
    let leadingBreak = false;
    let trailingBreaks = 0;
    column0 = false;
    while (i < cps.length && (cps[i] === 0x20 || cps[i] === NEL)) {
      if (cps[i] === 0x20) {
        if (!leadingBreak) whitespaces++;
        column0 = false;
      } else if (!leadingBreak) {
        whitespaces = 0;
        leadingBreak = true;
        column0 = true;
      } else {
        trailingBreaks++;
        column0 = true;
      }
      i++;
    }
    // NEL is read as '\n', so a single break folds to a space and more keep the rest.
    if (!leadingBreak) for (let k = 0; k < whitespaces; k++) out.push(0x20);
    else if (trailingBreaks === 0) out.push(0x20);
    else for (let k = 0; k < trailingBreaks; k++) out.push(0x0a);
  }
}

/** `---` or `...` followed by a raw blank (the closing quote is not one). */
function startsDocumentIndicator(cps: number[], i: number): boolean {
  const c = cps[i];
  if ((c !== 0x2d && c !== 0x2e) || cps[i + 1] !== c || cps[i + 2] !== c) return false;
  return cps[i + 3] === 0x20 || cps[i + 3] === NEL;
}

// ---------------------------------------------------------------------------------------
// 2. yaml.v2 encoder.stringv: the style it asks the emitter for.

type Style = 'plain' | 'single' | 'double' | 'literal';

/** encode.go stringv, for an untagged valid-UTF-8 string. */
function requestedStyle(s: string): Style {
  if (s.includes('\n')) return 'literal';
  return resolvesToString(s) && !isBase60Float(s) ? 'plain' : 'double';
}

const BOOL_NULL_SPECIAL = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  // '<<' (merge) is in yaml.v2's map too, but '<' has no resolveTable hint, so it is never looked up.
]);

/** resolve.go resolve("", s) === "!!str". Only ASCII can resolve to anything else. */
export function resolvesToString(s: string): boolean {
  if (BOOL_NULL_SPECIAL.has(s)) return false;
  const hint = resolveHint(s.charCodeAt(0));
  if (hint === 'M' || hint === null) return true;
  if (hint === '.') return !goParseFloatOk(s);
  // 'D' / 'S': timestamp, int, uint, float, then the 0b forms ParseInt(base 0) missed.
  if (goParseTimestamp(s)) return false;
  const plain = s.replaceAll('_', '');
  if (goParseInt(plain, 0) !== null || goParseUint(plain, 0) !== null) return false;
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return false;
  if (plain.startsWith('0b')) return goParseInt(plain.slice(2), 2) === null && goParseUint(plain.slice(2), 2) === null;
  if (plain.startsWith('-0b')) return goParseInt('-' + plain.slice(3), 2) === null;
  return true;
}

type Hint = 'S' | 'D' | 'M' | '.' | null;

/** resolve.go resolveTable. */
function resolveHint(c: number): Hint {
  const ch = String.fromCharCode(c);
  if (ch === '+' || ch === '-') return 'S';
  if (ch >= '0' && ch <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(ch)) return 'M';
  if (ch === '.') return '.';
  return null;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** encode.go isBase60Float: quoted for YAML 1.1 parsers although yaml.v2 reads them as strings. */
function isBase60Float(s: string): boolean {
  return s !== '' && /^[-+0-9]/.test(s) && s.includes(':') && BASE60_FLOAT.test(s);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseUint(s, base, 64) succeeding (underscores are already gone where base is 0). */
function goParseUint(s: string, base: number): bigint | null {
  if (s === '') return null;
  let digits = s;
  if (base === 0) {
    base = 10;
    if (s[0] === '0') {
      const p = s.length >= 3 ? s[1].toLowerCase() : '';
      base = p === 'b' ? 2 : p === 'o' ? 8 : p === 'x' ? 16 : 8;
      digits = p === 'b' || p === 'o' || p === 'x' ? s.slice(2) : s.slice(1);
    }
  }
  let n = 0n;
  for (const ch of digits) {
    const d = digitValue(ch);
    if (d === null || d >= base) return null;
    n = n * BigInt(base) + BigInt(d);
    if (n > UINT64_MAX) return null;
  }
  return n;
}

function digitValue(ch: string): number | null {
  const c = ch.toLowerCase().charCodeAt(0);
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 10;
  return null;
}

/** strconv.ParseInt(s, base, 64) succeeding. */
function goParseInt(s: string, base: number): bigint | null {
  if (s === '') return null;
  const neg = s[0] === '-';
  const u = goParseUint(s[0] === '+' || s[0] === '-' ? s.slice(1) : s, base);
  if (u === null) return null;
  const v = neg ? -u : u;
  return v < INT64_MIN || v > INT64_MAX ? null : v;
}

/** strconv.ParseFloat(s, 64) succeeding, for s starting with '.' (no sign, hex, inf or nan possible). */
function goParseFloatOk(s: string): boolean {
  const m = /^(\.[0-9_]*)(?:[eE][-+]?[0-9][0-9_]*)?$/.exec(s);
  if (m === null || !/[0-9]/.test(m[1])) return false;
  if (s.includes('_') && !goUnderscoreOk(s)) return false;
  return Number.isFinite(Number(s.replaceAll('_', '')));
}

/** strconv underscoreOK (no sign or base prefix here): an underscore only between digits. */
function goUnderscoreOk(s: string): boolean {
  let saw = '^';
  for (const ch of s) {
    if (ch >= '0' && ch <= '9') saw = '0';
    else if (ch === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

// --- timestamps: resolve.go parseTimestamp over Go's time.Parse (go1.19 rules) ---

type LayoutItem = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'frac' | 'zone' | { lit: string };
const lit = (s: string): LayoutItem => ({ lit: s });
const DATE: LayoutItem[] = ['year', lit('-'), 'month', lit('-'), 'day'];
const CLOCK: LayoutItem[] = ['hour', lit(':'), 'minute', lit(':'), 'second', 'frac'];
const TIMESTAMP_LAYOUTS: LayoutItem[][] = [
  [...DATE, lit('T'), ...CLOCK, 'zone'], // "2006-1-2T15:4:5.999999999Z07:00"
  [...DATE, lit('t'), ...CLOCK, 'zone'], // "2006-1-2t15:4:5.999999999Z07:00"
  [...DATE, lit(' '), ...CLOCK], // "2006-1-2 15:4:5.999999999"
  DATE, // "2006-1-2"
];

function goParseTimestamp(s: string): boolean {
  if (!/^[0-9]{4}-/.test(s)) return false;
  return TIMESTAMP_LAYOUTS.some((layout) => goTimeParse(layout, s));
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && s[i] >= '0' && s[i] <= '9';

/** time getnum: one or two digits. */
function getnum(s: string): [number, string] | null {
  if (!isDigitAt(s, 0)) return null;
  if (!isDigitAt(s, 1)) return [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/** time atoi: optional sign, then only digits (possibly none). */
function goAtoi(s: string): number | null {
  const body = s[0] === '-' || s[0] === '+' ? s.slice(1) : s;
  if (!/^[0-9]*$/.test(body)) return null;
  const n = Number(body || '0');
  return s[0] === '-' ? -n : n;
}

/** time skip: a space in the layout matches any run of spaces (or the end). */
function skipLiteral(value: string, prefix: string): string | null {
  if (prefix === ' ') return value.length > 0 && value[0] !== ' ' ? null : value.replace(/^ +/, '');
  return value.startsWith(prefix) ? value.slice(prefix.length) : null;
}

interface DateParts {
  year: number;
  month: number;
  day: number;
}

function goTimeParse(layout: LayoutItem[], input: string): boolean {
  let value = input;
  const t: DateParts = { year: 0, month: 1, day: 1 };
  for (const item of layout) {
    const rest = parseItem(item, value, t);
    if (rest === null) return false;
    value = rest;
  }
  return value === '' && t.day >= 1 && t.day <= daysIn(t.month, t.year);
}

function parseItem(item: LayoutItem, value: string, t: DateParts): string | null {
  if (typeof item === 'object') return skipLiteral(value, item.lit);
  switch (item) {
    case 'year':
      if (value.length < 4 || !isDigitAt(value, 0)) return null;
      t.year = goAtoi(value.slice(0, 4)) ?? NaN;
      return Number.isNaN(t.year) ? null : value.slice(4);
    case 'month':
      return withNum(value, (n) => ((t.month = n), n >= 1 && n <= 12));
    case 'day':
      return withNum(value, (n) => ((t.day = n), true));
    case 'hour':
      return withNum(value, (n) => n < 24);
    case 'minute':
    case 'second':
      return withNum(value, (n) => n < 60);
    case 'frac': {
      if (value.length < 2 || (value[0] !== '.' && value[0] !== ',') || !isDigitAt(value, 1)) return value;
      return value.slice(1).replace(/^[0-9]{1,9}/, ''); // at most 9 digits; more is "extra text"
    }
    case 'zone':
      return parseColonZone(value);
  }
}

function withNum(value: string, ok: (n: number) => boolean): string | null {
  const r = getnum(value);
  return r !== null && ok(r[0]) ? r[1] : null;
}

/** stdISO8601ColonTZ: "Z" or sign hh ':' mm, hh and mm through atoi (so "+-1:00" passes; no range check). */
function parseColonZone(value: string): string | null {
  if (value[0] === 'Z') return value.slice(1);
  if (value.length < 6 || value[3] !== ':') return null;
  if (goAtoi(value.slice(1, 3)) === null || goAtoi(value.slice(4, 6)) === null) return null;
  return value[0] === '+' || value[0] === '-' ? value.slice(6) : null;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

// ---------------------------------------------------------------------------------------
// 3. The emitter (emitterc.go), for a block mapping of plain keys and string values.

type YamlMap = Array<[string, string | YamlMap]>;

/** Byte predicates of yamlprivateh.go; b[i + k] past the end reads as undefined, i.e. false. */
const isSpace = (b: Uint8Array, i: number): boolean => b[i] === 0x20;
const isBlank = (b: Uint8Array, i: number): boolean => b[i] === 0x20 || b[i] === 0x09;
const isBreak = (b: Uint8Array, i: number): boolean =>
  b[i] === 0x0d || b[i] === 0x0a || (b[i] === 0xc2 && b[i + 1] === 0x85) ||
  (b[i] === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9));
const isBlankz = (b: Uint8Array, i: number): boolean => isBlank(b, i) || isBreak(b, i) || b[i] === 0x00;
/** Note the quirk kept from yaml.v2: it looks at the first bytes of the value, whatever i is. */
const isBom = (b: Uint8Array): boolean => b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
/** Printable per yaml.v2: note 4-byte (astral) characters are not, so they get \U escapes. */
function isPrintable(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return (
    c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c === 0xc2 && b[i + 1] >= 0xa0) || (c > 0xc2 && c < 0xed) ||
    (c === 0xed && b[i + 1] < 0xa0) || c === 0xee ||
    (c === 0xef && !(b[i + 1] === 0xbb && b[i + 2] === 0xbf) && !(b[i + 1] === 0xbf && (b[i + 2] === 0xbe || b[i + 2] === 0xbf)))
  );
}
function width(c: number): number {
  if ((c & 0x80) === 0) return 1;
  if ((c & 0xe0) === 0xc0) return 2;
  if ((c & 0xf0) === 0xe0) return 3;
  return 4;
}

interface ScalarAnalysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** yaml_emitter_analyze_scalar (block context only: flow_plain_allowed is never consulted). */
function analyzeScalar(b: Uint8Array): ScalarAnalysis {
  if (b.length === 0) return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  let blockIndicators = b.length >= 3 && ((b[0] === 0x2d && b[1] === 0x2d && b[2] === 0x2d) || (b[0] === 0x2e && b[1] === 0x2e && b[2] === 0x2e));
  let lineBreaks = false, special = false;
  let leadingSpace = false, leadingBreak = false, trailingSpace = false, trailingBreak = false;
  let breakSpace = false, spaceBreak = false, previousSpace = false, previousBreak = false;
  let precededByWhitespace = true;
  for (let i = 0, w = 0; i < b.length; i += w) {
    w = width(b[i]);
    const followedByWhitespace = i + w >= b.length || isBlank(b, i + w);
    const c = String.fromCharCode(b[i]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true;
    } else if ((c === ':' && followedByWhitespace) || (c === '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isPrintable(b, i)) special = true; // the emitter is in unicode mode: non-ASCII alone is fine
    if (isSpace(b, i)) {
      if (i === 0) leadingSpace = true;
      if (i + w === b.length) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(b, i)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i + w === b.length) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankz(b, i);
  }
  const plainBad = leadingSpace || leadingBreak || trailingSpace || trailingBreak || breakSpace || spaceBreak || special || lineBreaks || blockIndicators;
  return {
    multiline: lineBreaks,
    blockPlainAllowed: !plainBad,
    singleQuotedAllowed: !(breakSpace || spaceBreak || special),
    blockAllowed: !(trailingSpace || spaceBreak || special),
  };
}

/** yaml_emitter_select_scalar_style at flow level 0, implicit tags. */
function selectStyle(requested: Style, a: ScalarAnalysis, empty: boolean, simpleKey: boolean): Style {
  let style = requested;
  if (simpleKey && a.multiline) style = 'double';
  if (style === 'plain' && (!a.blockPlainAllowed || (empty && simpleKey))) style = 'single';
  if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
  return style;
}

const BEST_INDENT = 2;
const BEST_WIDTH = 80; // emitter default; yaml.v2 only disables it after FutureLineWrap()

/** The slice of yaml_emitter_t the block-mapping/scalar path touches. */
class Emitter {
  readonly out: number[] = [];
  column = 0;
  whitespace = true;
  indention = true;
  indent = -1;
  private readonly indents: number[] = [];

  increaseIndent(flow: boolean): void {
    this.indents.push(this.indent);
    this.indent = this.indent < 0 ? (flow ? BEST_INDENT : 0) : this.indent + BEST_INDENT;
  }
  popIndent(): void {
    this.indent = this.indents.pop()!;
  }
  put(c: number): void {
    this.out.push(c);
    this.column++;
  }
  putBreak(): void {
    this.out.push(0x0a);
    this.column = 0;
  }
  /** Copy one character; returns the index after it. */
  write(b: Uint8Array, i: number): number {
    const w = width(b[i]);
    for (let k = 0; k < w; k++) this.out.push(b[i + k]);
    this.column++;
    return i + w;
  }
  writeBreak(b: Uint8Array, i: number): number {
    if (b[i] === 0x0a) {
      this.putBreak();
      return i + 1;
    }
    const next = this.write(b, i);
    this.column = 0;
    return next;
  }
  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(0x20);
    this.whitespace = true;
    this.indention = true;
  }
  writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(0x20);
    for (const ch of indicator) this.put(ch.charCodeAt(0));
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }
}

function emitDocument(doc: YamlMap): Buffer {
  const e = new Emitter();
  emitMapping(e, doc);
  e.writeIndent(); // document end
  return Buffer.from(e.out);
}

function emitMapping(e: Emitter, map: YamlMap): void {
  e.increaseIndent(false);
  for (const [key, value] of map) {
    e.writeIndent();
    emitScalar(e, key, true); // our keys are short single-line scalars: always simple keys
    e.writeIndicator(':', false, false, false);
    if (typeof value === 'string') emitScalar(e, value, false);
    else emitMapping(e, value);
  }
  e.popIndent();
}

function emitScalar(e: Emitter, value: string, simpleKey: boolean): void {
  const b = Buffer.from(value, 'utf8');
  const style = selectStyle(requestedStyle(value), analyzeScalar(b), b.length === 0, simpleKey);
  e.increaseIndent(true);
  const allowBreaks = !simpleKey;
  if (style === 'plain') writePlain(e, b, allowBreaks);
  else if (style === 'single') writeSingleQuoted(e, b, allowBreaks);
  else if (style === 'double') writeDoubleQuoted(e, b, allowBreaks);
  else writeLiteral(e, b);
  e.popIndent();
}

/** yaml_emitter_write_plain_scalar */
function writePlain(e: Emitter, b: Uint8Array, allowBreaks: boolean): void {
  if (!e.whitespace) e.put(0x20);
  let spaces = false, breaks = false;
  for (let i = 0; i < b.length; ) {
    if (isSpace(b, i)) {
      if (allowBreaks && !spaces && e.column > BEST_WIDTH && !isSpace(b, i + 1)) {
        e.writeIndent();
        i += 1;
      } else i = e.write(b, i);
      spaces = true;
    } else if (isBreak(b, i)) {
      if (!breaks && b[i] === 0x0a) e.putBreak();
      i = e.writeBreak(b, i);
      e.indention = true;
      breaks = true;
    } else {
      if (breaks) e.writeIndent();
      i = e.write(b, i);
      e.indention = false;
      spaces = breaks = false;
    }
  }
  e.whitespace = false;
  e.indention = false;
}

/** yaml_emitter_write_single_quoted_scalar */
function writeSingleQuoted(e: Emitter, b: Uint8Array, allowBreaks: boolean): void {
  e.writeIndicator("'", true, false, false);
  let spaces = false, breaks = false;
  for (let i = 0; i < b.length; ) {
    if (isSpace(b, i)) {
      if (allowBreaks && !spaces && e.column > BEST_WIDTH && i > 0 && i < b.length - 1 && !isSpace(b, i + 1)) {
        e.writeIndent();
        i += 1;
      } else i = e.write(b, i);
      spaces = true;
    } else if (isBreak(b, i)) {
      if (!breaks && b[i] === 0x0a) e.putBreak();
      i = e.writeBreak(b, i);
      e.indention = true;
      breaks = true;
    } else {
      if (breaks) e.writeIndent();
      if (b[i] === 0x27) e.put(0x27);
      i = e.write(b, i);
      e.indention = false;
      spaces = breaks = false;
    }
  }
  e.writeIndicator("'", false, false, false);
  e.whitespace = false;
  e.indention = false;
}

const SHORT_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x00, '0'], [0x07, 'a'], [0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0b, 'v'], [0x0c, 'f'], [0x0d, 'r'],
  [0x1b, 'e'], [0x22, '"'], [0x5c, '\\'], [0x85, 'N'], [0xa0, '_'], [0x2028, 'L'], [0x2029, 'P'],
]);

/** Decode the UTF-8 character at b[i] (valid input). */
function codePointAt(b: Uint8Array, i: number): number {
  const w = width(b[i]);
  let v = w === 1 ? b[i] & 0x7f : w === 2 ? b[i] & 0x1f : w === 3 ? b[i] & 0x0f : b[i] & 0x07;
  for (let k = 1; k < w; k++) v = (v << 6) + (b[i + k] & 0x3f);
  return v;
}

/** The escape yaml.v2 writes after the backslash: short form, else \xXX, \uXXXX or \UXXXXXXXX (upper-case hex). */
function escapeFor(v: number): string {
  const short = SHORT_ESCAPES.get(v);
  if (short !== undefined) return short;
  const [p, n] = v <= 0xff ? ['x', 2] : v <= 0xffff ? ['u', 4] : ['U', 8];
  return p + v.toString(16).toUpperCase().padStart(n, '0');
}

/** yaml_emitter_write_double_quoted_scalar */
function writeDoubleQuoted(e: Emitter, b: Uint8Array, allowBreaks: boolean): void {
  let spaces = false;
  e.writeIndicator('"', true, false, false);
  for (let i = 0; i < b.length; ) {
    if (!isPrintable(b, i) || isBom(b) || isBreak(b, i) || b[i] === 0x22 || b[i] === 0x5c) {
      const v = codePointAt(b, i);
      i += width(b[i]);
      e.put(0x5c);
      for (const ch of escapeFor(v)) e.put(ch.charCodeAt(0));
      spaces = false;
    } else if (isSpace(b, i)) {
      if (allowBreaks && !spaces && e.column > BEST_WIDTH && i > 0 && i < b.length - 1) {
        e.writeIndent();
        if (isSpace(b, i + 1)) e.put(0x5c);
        i += 1;
      } else i = e.write(b, i);
      spaces = true;
    } else {
      i = e.write(b, i);
      spaces = false;
    }
  }
  e.writeIndicator('"', false, false, false);
  e.whitespace = false;
  e.indention = false;
}

/** yaml_emitter_write_block_scalar_hints: indentation hint and chomping indicator. */
function writeBlockScalarHints(e: Emitter, b: Uint8Array): void {
  if (isSpace(b, 0) || isBreak(b, 0)) e.writeIndicator(String(BEST_INDENT), false, false, false);
  let chomp = '';
  let i = b.length - 1;
  while ((b[i] & 0xc0) === 0x80) i--;
  if (!isBreak(b, i)) chomp = '-';
  else if (i === 0) chomp = '+';
  else {
    i--;
    while ((b[i] & 0xc0) === 0x80) i--;
    if (isBreak(b, i)) chomp = '+';
  }
  if (chomp !== '') e.writeIndicator(chomp, false, false, false);
}

/** yaml_emitter_write_literal_scalar (only chosen for values containing '\n', so never empty). */
function writeLiteral(e: Emitter, b: Uint8Array): void {
  e.writeIndicator('|', true, false, false);
  writeBlockScalarHints(e, b);
  e.putBreak();
  e.indention = true;
  e.whitespace = true;
  let breaks = true;
  for (let i = 0; i < b.length; ) {
    if (isBreak(b, i)) {
      i = e.writeBreak(b, i);
      e.indention = true;
      breaks = true;
    } else {
      if (breaks) e.writeIndent();
      i = e.write(b, i);
      e.indention = false;
      breaks = false;
    }
  }
}
