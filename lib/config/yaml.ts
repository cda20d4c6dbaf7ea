// YAML the way the kubelet reads it: sigs.k8s.io/yaml turns YAML into JSON with go-yaml v2
// and the typed JSON decoder does the rest. So this module reproduces go-yaml v2 on top of
// js-yaml 4 with a custom schema:
// - YAML 1.1 plain scalars as go-yaml v2 resolves them: y/Y/yes/Yes/YES/on/On/ON/true/…
//   are booleans, `0x1F`, `0o17`, `017` (octal), `1_000`, `0b101` are integers, `1e3`,
//   `.5` are floats, `~`/`null`/empty are null. go-yaml v2 does NOT implement base-60
//   (`1:30` stays a string), nor timestamps (they stay strings when decoded into
//   interface{}), so neither do we.
// - only the first document of a stream is read; a repeated key keeps the last value and
//   is reported (the kubelet's strict pass notices, its lenient retry keeps the last).
// - the result is the JSON document json.Marshal would write: keys sorted, numbers as Go
//   prints them, NaN/Inf refused, aliases expanded under go-yaml's aliasing limits.
// Nothing here throws on bad input: errors come back as values with go-yaml-style text.

import type * as yaml from 'js-yaml';
import { jsYaml } from './js-yaml.js';
import { isUtf8 } from 'node:buffer';
import { fastBlockYaml, isPrintableAscii } from './yaml-fast.js';
import { libyamlTabError, scannerErrorText } from './yaml-tabs.js';
import type { JNode } from './jnode.js';
import { childPath, type DuplicateKey } from './json.js';
import { goQuote } from './gostrconv.js';

export type YamlParse = { ok: true; value: JNode; duplicates: DuplicateKey[] } | { ok: false; error: string };

/**
 * Deeper nesting than this is refused (go-yaml allows 10000; no kubelet config comes close),
 * as 'yaml: exceeded max depth', by a count (js-yaml's maxDepth, the converter's), never by
 * running out of stack: at 2000 a flow mapping ran the main thread's stack out from ~1200
 * levels and a worker's (4 MiB) did not, so ls/verify worded such a payload by the thread that
 * judged it. 500 leaves the main thread's stack more than twice what the deepest walk needs.
 */
export const MAX_YAML_DEPTH = 500;
const TOO_DEEP = 'yaml: exceeded max depth';
/** Absolute cap on nodes produced by alias expansion, on top of go-yaml's ratio rule. */
export const MAX_YAML_NODES = 5_000_000;

class YamlError extends Error {}

// ---------------------------------------------------------------------------------------
// Scalars: go-yaml v2's resolve() for plain scalars.

/** A scalar as go-yaml resolved it; js-yaml keeps it opaque until conversion. */
export class GoScalar {
  constructor(readonly kind: 'int' | 'float' | 'bool' | 'null', readonly value: bigint | number | boolean | null) {}
  get [Symbol.toStringTag](): string {
    return 'GoScalar';
  }
  /** The JSON object key sigs.k8s.io/yaml makes of it (null keys are refused later). */
  toString(): string {
    if (this.kind === 'null') return NULL_KEY;
    if (this.kind === 'float') return formatFloatKey(this.value as number);
    // Above int64, go-yaml makes a uint64, which sigs.k8s.io/yaml v1.2.0 refuses as a key (later).
    if (typeof this.value === 'bigint' && this.value > INT64_MAX) return UINT64_KEY + this.value.toString(16);
    return String(this.value);
  }
}

const NULL_KEY = '\u0000kubelet-ckpt:null-key\u0000';
const UINT64_KEY = '\u0000kubelet-ckpt:uint64-key\u0000';
const INT64_MAX = 9223372036854775807n;
const BOOL_WORDS: Record<string, boolean> = {
  y: true, Y: true, yes: true, Yes: true, YES: true, true: true, True: true, TRUE: true, on: true, On: true, ON: true,
  n: false, N: false, no: false, No: false, NO: false, false: false, False: false, FALSE: false, off: false, Off: false, OFF: false,
};
const NULL_WORDS = new Set(['', '~', 'null', 'Null', 'NULL']);
const SPECIAL_FLOATS: Record<string, number> = {
  '.nan': NaN, '.NaN': NaN, '.NAN': NaN,
  '.inf': Infinity, '.Inf': Infinity, '.INF': Infinity,
  '+.inf': Infinity, '+.Inf': Infinity, '+.INF': Infinity,
  '-.inf': -Infinity, '-.Inf': -Infinity, '-.INF': -Infinity,
};
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_FLOAT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_UINT64 = (1n << 64n) - 1n;

/** strconv.ParseInt/ParseUint(s, 0, 64) on an already underscore-free string; null if invalid. */
function parseGoBase0(s: string, signed: boolean): bigint | null {
  let body = s;
  let neg = false;
  if (signed && (body[0] === '+' || body[0] === '-')) {
    neg = body[0] === '-';
    body = body.slice(1);
  }
  let re = /^[0-9]+$/;
  let prefix = '';
  if (/^0[xX]/.test(body)) { re = /^[0-9a-fA-F]+$/; prefix = '0x'; body = body.slice(2); }
  else if (/^0[bB]/.test(body)) { re = /^[01]+$/; prefix = '0b'; body = body.slice(2); }
  else if (/^0[oO]/.test(body)) { re = /^[0-7]+$/; prefix = '0o'; body = body.slice(2); }
  else if (/^0./.test(body)) { re = /^[0-7]+$/; prefix = '0o'; body = body.slice(1); }
  if (!re.test(body)) return null;
  const n = BigInt(prefix + body);
  if (signed) {
    if (neg ? n > MAX_INT64 + 1n : n > MAX_INT64) return null;
    return neg ? -n : n;
  }
  return n > MAX_UINT64 ? null : n;
}

/** go-yaml v2 resolve() for an untagged plain scalar. Strings come back as strings. */
export function resolvePlainScalar(s: string): GoScalar | string {
  // go-yaml only looks further when the first character hints at a non-string.
  if (s !== '' && !'+-0123456789yYnNtTfFoO~.'.includes(s[0]!)) return s;
  if (Object.hasOwn(BOOL_WORDS, s)) return new GoScalar('bool', BOOL_WORDS[s]!);
  if (NULL_WORDS.has(s)) return new GoScalar('null', null);
  if (Object.hasOwn(SPECIAL_FLOATS, s)) return new GoScalar('float', SPECIAL_FLOATS[s]!);
  const c = s[0]!;
  if (c === '.') {
    return GO_FLOAT.test(s) && Number.isFinite(Number(s)) ? new GoScalar('float', Number(s)) : s;
  }
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9'))) return s;
  const plain = s.replace(/_/g, '');
  const i = parseGoBase0(plain, true);
  if (i !== null) return new GoScalar('int', i);
  const u = parseGoBase0(plain, false);
  if (u !== null) return new GoScalar('int', u);
  // ParseFloat's range error (1e400) leaves the scalar a string, as in Go.
  if (YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain))) return new GoScalar('float', Number(plain));
  return s;
}

/**
 * js-yaml asks each implicit type in turn (null, bool, int, float) and then constructs:
 * five resolutions of the same scalar. Keep the last answer (GoScalars are never mutated
 * nor compared by identity, so two equal scalars may share one).
 */
let lastScalar: string | undefined;
let lastResolved: GoScalar | string = '';
/** During a parse whose text carries LS/PS marks: the marks that end a plain scalar. */
let trailingMarks: RegExp | null = null;
function resolveOnce(s: string): GoScalar | string {
  if (s !== lastScalar) {
    // A mark at the end of a plain scalar stands for the break that ended it: not content.
    lastResolved = resolvePlainScalar(trailingMarks ? s.replace(trailingMarks, '') : s);
    lastScalar = s;
  }
  return lastResolved;
}

function scalarType(tag: string, kind: GoScalar['kind'], accept: (r: GoScalar | string) => boolean): yaml.Type {
  return new (jsYaml().Type)(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (data: unknown) => typeof data === 'string' ? accept(resolveOnce(data)) : data === null && kind === 'null',
    construct: (data: unknown) => {
      const r = resolveOnce(typeof data === 'string' ? data : '');
      if (kind === 'float' && r instanceof GoScalar && r.kind === 'int') return new GoScalar('float', Number(r.value));
      return r;
    },
  });
}

const isKind = (k: GoScalar['kind']) => (r: GoScalar | string) => r instanceof GoScalar && r.kind === k;

/** Any other tag: go-yaml keeps the node as it is (scalars as strings). */
function passThrough(kind: 'scalar' | 'sequence' | 'mapping'): yaml.Type {
  return new (jsYaml().Type)('', { kind, multi: true, construct: (d: unknown) => (d === null && kind === 'scalar' ? '' : d) });
}

/** go-yaml v2's resolution as a js-yaml schema, built on first use (with js-yaml itself). */
function buildGoYamlSchema(): yaml.Schema {
  const { FAILSAFE_SCHEMA, Type } = jsYaml();
  return FAILSAFE_SCHEMA.extend({
    implicit: [
      scalarType('null', 'null', isKind('null')),
      scalarType('bool', 'bool', isKind('bool')),
      scalarType('int', 'int', isKind('int')),
      scalarType('float', 'float', (r) => r instanceof GoScalar && (r.kind === 'float' || r.kind === 'int')),
      // `<<` merge keys: js-yaml merges any key carrying this tag.
      new Type('tag:yaml.org,2002:merge', { kind: 'scalar', resolve: (d: unknown) => d === '<<' }),
    ],
    explicit: [
      new Type('tag:yaml.org,2002:binary', {
        kind: 'scalar',
        resolve: (d: unknown) => typeof d === 'string',
        construct: (d: string) => goBase64(d).toString('utf8'),
      }),
      new Type('tag:yaml.org,2002:timestamp', { kind: 'scalar' }),
      passThrough('scalar'),
      passThrough('sequence'),
      passThrough('mapping'),
    ],
  });
}
let goYamlSchema: yaml.Schema | undefined;

/**
 * A `!!binary` value as go-yaml v2 decodes it (decode.go: base64.StdEncoding.DecodeString):
 * only CR and LF are skipped, and the padding is required (found by a decoding review: any
 * blank was skipped and unpadded text accepted, where the kubelet fails to load the config).
 */
function goBase64(d: string): Buffer {
  const s = d.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) throw new YamlError('yaml: !!binary value contains invalid base64 data');
  return Buffer.from(s, 'base64');
}

// ---------------------------------------------------------------------------------------
// Bytes → text: libyaml's reader checks, and the first document only.

/** libyaml's reader errors for bytes that are not acceptable YAML characters. */
// Everything outside: TAB, LF, CR, printable ASCII, NEL, U+00A0-D7FF, U+E000-FFFD and the
// astral planes (a lone surrogate is a code point of its own under /u, so it matches).
const NOT_YAML_CHAR = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

function readerError(text: string, bytes: Uint8Array): string | null {
  const utf8 = checkUtf8(bytes);
  if (utf8) return utf8;
  // Plain ASCII text (nearly every payload) is settled without the /u regex's astral ranges.
  if (!/[^\t\n\r\x20-\x7e]/.test(text)) return null;
  return NOT_YAML_CHAR.test(text) ? 'control characters are not allowed' : null;
}

function checkUtf8(b: Uint8Array): string | null {
  // Well-formed UTF-8 (the native check rejects what libyaml rejects: overlongs, surrogates,
  // > U+10FFFF) needs no walk; the walk below names the first fault.
  if (isUtf8(b)) return null;
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    const width = (c & 0x80) === 0 ? 1 : (c & 0xe0) === 0xc0 ? 2 : (c & 0xf0) === 0xe0 ? 3 : (c & 0xf8) === 0xf0 ? 4 : 0;
    if (width === 0) return 'invalid leading UTF-8 octet';
    if (i + width > b.length) return 'incomplete UTF-8 octet sequence';
    let value = width === 1 ? c : width === 2 ? c & 0x1f : width === 3 ? c & 0x0f : c & 0x07;
    for (let k = 1; k < width; k++) {
      const t = b[i + k]!;
      if ((t & 0xc0) !== 0x80) return 'invalid trailing UTF-8 octet';
      value = (value << 6) | (t & 0x3f);
    }
    const minimal = width === 1 || (width === 2 && value >= 0x80) || (width === 3 && value >= 0x800) || (width === 4 && value >= 0x10000);
    if (!minimal) return 'invalid length of a UTF-8 sequence';
    if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) return 'invalid Unicode character';
    i += width;
  }
  return null;
}

/** Bytes as libyaml decodes them: a UTF-16 BOM switches encoding, else UTF-8. */
function decodeText(bytes: Uint8Array): { text: string; utf8: boolean } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) return { text: buf.subarray(2).toString('utf16le'), utf8: false };
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    const swapped = Buffer.from(buf.subarray(2, buf.length - (buf.length % 2)));
    swapped.swap16();
    return { text: swapped.toString('utf16le'), utf8: false };
  }
  // libyaml consumes a UTF-8 byte order mark.
  const text = buf.toString('utf8');
  return { text: text.startsWith('\ufeff') ? text.slice(1) : text, utf8: true };
}

// ---------------------------------------------------------------------------------------
// NEL, LS and PS: line breaks to libyaml, plain text to js-yaml.

type Restore = (s: string) => string;

/**
 * libyaml reads U+0085 (NEL), U+2028 (LS) and U+2029 (PS) as line breaks everywhere: a
 * plain scalar or a comment ends there, the next line starts at column 0, and line numbers
 * count them. Inside scalar content NEL becomes a line feed, while LS and PS are kept as
 * themselves and not folded into a space (read_line in scannerc.go; the blanks before the
 * break and the indentation after it are dropped as for any break). js-yaml knows only
 * CR and LF, so each of them becomes a LF here; an LS/PS that sits after scalar content
 * leaves a private-use mark before the blanks that precede it. js-yaml keeps the mark and
 * folds the break into a space after it; `restore` turns "mark + folded space" back into
 * the LS/PS, and drops a mark that ended a plain scalar.
 */
function goLineBreaks(text: string): { text: string; restore: Restore | null; trailing: RegExp | null } {
  if (!/[\u0085\u2028\u2029]/.test(text)) return { text, restore: null, trailing: null };
  const marks = new Map<string, string>();
  const free = (from: number) => {
    for (let c = from; c < 0xf8ff; c++) if (!text.includes(String.fromCharCode(c))) return String.fromCharCode(c);
    return null;
  };
  const ls = free(0xe000);
  const ps = ls ? free(ls.charCodeAt(0) + 1) : null;
  if (ls && ps) {
    marks.set('\u2028', ls);
    marks.set('\u2029', ps);
  }
  const out = text.replace(/([ \t]*)([\u0085\u2028\u2029])/g, (_m, blanks: string, brk: string, offset: number) => {
    const mark = marks.get(brk);
    const where = mark ? markPlace(text, offset + blanks.length) : null;
    return where === 'content' ? `${mark}${blanks}\n` : where === 'blank' ? `${blanks}${mark}\n` : `${blanks}\n`;
  });
  if (!marks.size) return { text: out, restore: null, trailing: null };
  const back = new Map([...marks].map(([brk, mark]) => [mark, brk]));
  // A mark never follows a blank of the content (the blanks before a break move after it),
  // so a space before it is a fold of the LF before a blank line, which libyaml drops.
  const pattern = new RegExp(`( ?)([${ls}${ps}])( ?)`, 'g');
  return {
    text: out,
    trailing: new RegExp(`[${ls}${ps}]+$`),
    restore: (s) => (s.includes(ls!) || s.includes(ps!) ? s.replace(pattern, (m, _a: string, mark: string, after: string, i: number) => (after === '' && i + m.length === s.length ? '' : back.get(mark)!)) : s),
  };
}

/**
 * Where a mark may go for the break at `offset`: before the blanks that precede it when it
 * follows scalar content or another LS/PS (a scalar being continued); after them on a blank
 * but indented line; nowhere after an indicator or at column 0 after a LF, where a mark
 * would be read as a key or less-indented content.
 */
function markPlace(text: string, offset: number): 'content' | 'blank' | null {
  let i = offset - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  if (i >= 0 && (text[i] === '\u2028' || text[i] === '\u2029')) return 'content';
  if (i < 0 || '\n\r\u0085'.includes(text[i]!)) return i + 1 < offset ? 'blank' : null;
  const c = text[i]!;
  if (c === ':' || c === '[' || c === '{' || c === ',') return null;
  // After a closed quoted scalar or flow collection there is no scalar to continue.
  if ((c === '"' || c === "'" || c === ']' || c === '}') && !insideQuotes(text, i)) return null;
  if ((c === '-' || c === '?') && (i === 0 || ' \t\n\r\u0085\u2028\u2029'.includes(text[i - 1]!))) return null;
  return 'content';
}

/** Is the character at `end` inside a quoted scalar opened on its line? (Quotes opened on earlier lines are not seen.) */
function insideQuotes(text: string, end: number): boolean {
  let start = end;
  while (start > 0 && !'\n\r\u0085\u2028\u2029'.includes(text[start - 1]!)) start--;
  let q: string | null = null;
  for (let k = start; k <= end; k++) {
    const ch = text[k]!;
    if (q === '"' && ch === '\\') k++;
    else if (q && ch === q) {
      if (q === "'" && text[k + 1] === "'" && k + 1 <= end) k++;
      else q = null;
    } else if (!q && (ch === '"' || ch === "'") && (k === start || /[\s:,[{-]/.test(text[k - 1]!))) q = ch;
  }
  return q !== null;
}

const MARKER = /^(---|\.\.\.)(?=[ \t\r\n]|$)/;

/** The text of the first document (earlier lines kept, so line numbers stay right). */
const DOC_MARKER_LINE = /^(?:---|\.\.\.)(?:[ \t\r\n]|$)/m;

export function firstDocument(text: string): string {
  // Most payloads have no document markers at all: nothing to cut.
  if (!DOC_MARKER_LINE.test(text)) return text;
  let offset = 0;
  let started = false;
  let content = false;
  for (const line of text.split(/(?<=\n)/)) {
    const m = MARKER.exec(line);
    if (m) {
      if (m[1] === '...' && (started || content)) return text.slice(0, offset);
      if (m[1] === '---') {
        if (started || content) return text.slice(0, offset);
        started = true;
        if (line.slice(3).trim() !== '' && !line.slice(3).trim().startsWith('#')) content = true;
      }
    } else if (!(started || content) && line.startsWith('%')) {
      // a directive before the first document
    } else if (line.trim() !== '' && !line.trimStart().startsWith('#')) {
      content = true;
    }
    offset += line.length;
  }
  return text;
}

// ---------------------------------------------------------------------------------------
// js-yaml result → JSON tree, as sigs.k8s.io/yaml + encoding/json would write it.

interface NodeInfo {
  kind: string | null;
  result: unknown;
  tag: string | null;
  /**
   * 1-based line where the node's content starts, as go-yaml records it: a collection's first
   * entry (js-yaml opens a block value on its key's line).
   */
  start: number;
}

/** A key and its value as js-yaml built them, in document order. */
interface Pair {
  key: NodeInfo;
  value: NodeInfo;
}

const MERGE_TAG = 'tag:yaml.org,2002:merge';
/** go-yaml's failWantMap(): a `<<` whose value is not a mapping or a sequence of them. */
const MERGE_NOT_MAP = 'yaml: map merge requires map or sequence of maps as the value';

/**
 * Every mapping's entries in document order, from js-yaml's open/close events: go-yaml
 * builds a mapping entry by entry, a `<<` merge writing the merged keys at its place (a later
 * entry wins), where js-yaml's own merge lets explicit keys win wherever they stand; and
 * go-yaml refuses sequence and mapping keys, which js-yaml turns into text.
 */
function pairTracker() {
  const stack: { line: number; position: number; children: NodeInfo[] }[] = [];
  const pairs = new Map<object, Pair[]>();
  const listener = (event: 'open' | 'close', state: yaml.State) => {
    const s = state as yaml.State & { kind: string | null; result: unknown; tag: string | null; anchor: string | null; input: string; position: number };
    if (event === 'open') {
      stack.push({ line: s.line + 1, position: s.position, children: [] });
      return;
    }
    const frame = stack.pop();
    if (!frame) return;
    if (s.anchor !== null) checkAnchorName(s.anchor, s.input, frame.position);
    const first = frame.children[0];
    const info: NodeInfo = { kind: s.kind, result: s.result, tag: s.tag, start: (s.kind === 'mapping' || s.kind === 'sequence') && first ? first.start : frame.line };
    if (s.kind === 'mapping' && s.result && typeof s.result === 'object' && frame.children.length % 2 === 0) {
      const list: Pair[] = [];
      for (let i = 0; i < frame.children.length; i += 2) list.push({ key: frame.children[i]!, value: frame.children[i + 1]! });
      pairs.set(s.result as object, list);
    }
    stack[stack.length - 1]?.children.push(info);
  };
  return { listener, pairs };
}

/** go-yaml's anchor characters (scannerc.go is_alpha), and what may follow a name. */
const ANCHOR_NAME = /^[0-9A-Za-z_-]*/;
const AFTER_ANCHOR = /^[\s?:,\]}%@`]/;

/**
 * go-yaml v2 reads an anchor name as [0-9A-Za-z_-]+ and stops with a scanner error when a
 * character other than a blank or `?:,]}%@`` follows (yaml_parser_scan_anchor); js-yaml takes
 * anything up to a blank or flow indicator (found by a decoding review: `&eviction.hard` was
 * read where the kubelet fails to load the config). A name go-yaml would cut short without an
 * error (`&a:b`) is left to js-yaml's reading.
 */
function checkAnchorName(anchor: string, text: string, from: number): void {
  const valid = ANCHOR_NAME.exec(anchor)![0];
  if (valid.length === anchor.length || (valid.length > 0 && AFTER_ANCHOR.test(anchor.slice(valid.length)))) return;
  const at = text.indexOf(`&${anchor}`, from);
  throw new YamlError(scannerErrorText({ line: at < 0 ? 0 : countLines(text, at), problem: 'did not find expected alphabetic or numeric character' }));
}

/** Line feeds before `end` (the 0-based line of that position). */
function countLines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Bytewise (UTF-8) order, as Go sorts map keys. UTF-16 code-unit order agrees with it
 * except where a surrogate (U+D800-DFFF, astral planes) meets a unit >= U+E000: UTF-8
 * sorts the astral character last.
 */
export function goKeyOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** FormatFloat(f, 'g', -1, 32), with go-yaml's .inf/.nan spellings (float map keys). */
function formatFloatKey(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  const x = Math.fround(f);
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let digits = '';
  let exp = 0;
  for (let p = 1; p <= 9; p++) {
    const [mant, e] = x.toExponential(p - 1).split('e') as [string, string];
    if (Math.fround(Number(mant + 'e' + e)) === x) {
      digits = mant.replace('-', '').replace('.', '');
      exp = Number(e);
      break;
    }
  }
  const sign = x < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits;
    const es = Math.abs(exp) < 10 ? '0' + Math.abs(exp) : String(Math.abs(exp));
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${es}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length);
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** encoding/json's float64 text (JS prints the same shortest digits and switch points). */
function goJsonFloat(f: number): string {
  if (Number.isNaN(f)) throw new YamlError('json: unsupported value: NaN');
  if (!Number.isFinite(f)) throw new YamlError(`json: unsupported value: ${f > 0 ? '+Inf' : '-Inf'}`);
  if (Object.is(f, -0)) return '-0';
  return String(f);
}

/** go-yaml v2's decoder limit on alias expansion ("billion laughs"). */
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= 400_000) return 0.99;
  if (decodeCount >= 4_000_000) return 0.10;
  return 0.99 - 0.89 * ((decodeCount - 400_000) / 3_600_000);
}

class Converter {
  private decodeCount = 0;
  private aliasCount = 0;
  private readonly seen = new Set<object>();
  private readonly active = new Set<object>();
  readonly duplicates: DuplicateKey[] = [];

  constructor(
    private readonly pairs: Map<object, Pair[]>,
    private readonly restore: Restore | null = null,
  ) {}

  private count(inAlias: boolean): void {
    this.decodeCount++;
    if (inAlias) this.aliasCount++;
    if (this.aliasCount > 100 && this.decodeCount > 1000 && this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)) {
      throw new YamlError('yaml: document contains excessive aliasing');
    }
    if (this.decodeCount > MAX_YAML_NODES) throw new YamlError('yaml: document is too large once its aliases are expanded');
  }

  convert(v: unknown, path: string, inAlias: boolean): JNode {
    this.count(inAlias);
    if (v === null || v === undefined) return { t: 'null' };
    if (typeof v === 'string') return { t: 'str', v: this.restore ? this.restore(v) : v };
    if (v instanceof GoScalar) return this.scalar(v);
    if (v instanceof Uint8Array) return { t: 'str', v: Buffer.from(v).toString('utf8') };
    if (typeof v !== 'object') return { t: 'str', v: String(v) };
    if (this.active.has(v)) throw new YamlError('yaml: anchor value contains itself');
    // The collections being converted are the depth (aliases nest without js-yaml's count).
    if (this.active.size >= MAX_YAML_DEPTH) throw new YamlError(TOO_DEEP);
    const alias = inAlias || this.seen.has(v);
    this.seen.add(v);
    this.active.add(v);
    try {
      return Array.isArray(v) ? this.sequence(v, path, alias) : this.mapping(v as Record<string, unknown>, path, alias);
    } finally {
      this.active.delete(v);
    }
  }

  private scalar(s: GoScalar): JNode {
    switch (s.kind) {
      case 'null': return { t: 'null' };
      case 'bool': return { t: 'bool', v: s.value as boolean };
      case 'int': return { t: 'num', s: String(s.value) };
      case 'float': return { t: 'num', s: goJsonFloat(s.value as number) };
    }
  }

  private sequence(items: unknown[], path: string, alias: boolean): JNode {
    return { t: 'arr', items: items.map((item, i) => this.convert(item, `${path}[${i}]`, alias)) };
  }

  private mapping(obj: Record<string, unknown>, path: string, alias: boolean): JNode {
    const entries = this.pairs.get(obj);
    if (!entries) return this.members(new Map(Object.entries(obj)), path, alias, []);
    const members = new Map<string, unknown>();
    const repeated: { key: string; line: number }[] = [];
    this.fill(entries, members, repeated, 0);
    return this.members(members, path, alias, repeated);
  }

  /**
   * go-yaml's mapping(): each entry in order, a later one replacing an earlier one with the
   * same key (strict decoding reports it: `repeated`), a `<<` merge writing its mapping's
   * entries at its place (a sequence of mappings from the last to the first).
   */
  private fill(entries: readonly Pair[], members: Map<string, unknown>, repeated: { key: string; line: number }[], depth: number): void {
    if (depth > MAX_YAML_DEPTH) throw new YamlError(TOO_DEEP);
    for (const { key, value } of entries) {
      if (key.tag === MERGE_TAG) {
        this.merge(value.result, members, repeated, depth);
        continue;
      }
      const k = mapKey(key.result);
      // go-yaml's strict error names the line of the value node (setMapIndex(n.children[i+1], …)).
      if (members.has(k)) repeated.push({ key: k, line: value.start });
      members.set(k, value.result);
    }
  }

  private merge(v: unknown, members: Map<string, unknown>, repeated: { key: string; line: number }[], depth: number): void {
    const mapping = (x: unknown) => (x !== null && typeof x === 'object' ? this.pairs.get(x) : undefined);
    const one = mapping(v);
    if (one) return this.fill(one, members, repeated, depth + 1);
    if (!Array.isArray(v)) throw new YamlError(MERGE_NOT_MAP);
    for (let i = v.length - 1; i >= 0; i--) {
      const m = mapping(v[i]);
      if (!m) throw new YamlError(MERGE_NOT_MAP);
      this.fill(m, members, repeated, depth + 1);
    }
  }

  private members(members: Map<string, unknown>, path: string, alias: boolean, repeated: readonly { key: string; line: number }[]): JNode {
    const keys = [...members.keys()];
    if (members.has(NULL_KEY)) {
      throw new YamlError(`Unsupported map key of type: %!s(<nil>), key: <nil>, value: ${goValueHint(members.get(NULL_KEY))}`);
    }
    // convertToJSONableObject knows string, int, int64, float64 and bool keys (found by a
    // decoding review: a key of 2^63 or more was taken, and failed later, at validation).
    const big = keys.find((k) => k.startsWith(UINT64_KEY));
    if (big !== undefined) {
      throw new YamlError(`Unsupported map key of type: uint64, key: 0x${big.slice(UINT64_KEY.length)}, value: ${goValueHint(members.get(big))}`);
    }
    if (!alias) {
      for (const d of repeated) this.duplicates.push({ path: childPath(path, d.key), key: d.key, line: d.line });
    }
    // Without surrogates, UTF-16 order is Go's bytewise order, and the built-in sort is faster.
    if (keys.some((k) => SURROGATE.test(k))) keys.sort(goKeyOrder);
    else keys.sort();
    const name = this.restore ?? ((k: string) => k);
    return { t: 'obj', entries: keys.map((k) => [name(k), this.convert(members.get(k), childPath(path, k), alias)]) };
  }
}

/** A mapping key as go-yaml keeps it: a scalar's text; a sequence or mapping is refused. */
function mapKey(k: unknown): string {
  if (k !== null && typeof k === 'object' && !(k instanceof GoScalar) && !(k instanceof Uint8Array)) {
    throw new YamlError(`yaml: invalid map key: ${goSharpV(k)}`);
  }
  return k instanceof Uint8Array ? Buffer.from(k).toString('utf8') : String(k);
}

/** fmt's %#v of a decoded YAML value (interface{}), for go-yaml's invalid-key message. */
function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof GoScalar) return v.kind === 'null' ? 'interface {}(nil)' : String(v.value);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (typeof v === 'object') {
    const items = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => goKeyOrder(a, b));
    return `map[interface {}]interface {}{${items.map(([k, x]) => `${goQuote(k)}:${goSharpV(x)}`).join(', ')}}`;
  }
  return String(v);
}

/** A rough `%+#v` of a value, for the unsupported-key message. */
function goValueHint(v: unknown): string {
  if (v === null || v === undefined || (v instanceof GoScalar && v.kind === 'null')) return '<nil>';
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof GoScalar) return String(v.value);
  return Array.isArray(v) ? '[]interface {}{...}' : 'map[interface {}]interface {}{...}';
}

/** js-yaml reasons with a libyaml equivalent: [js-yaml prefix, libyaml problem, error class]. */
const LIBYAML_WORDING: [string, string, 'scanner' | 'parser'][] = [
  ['unexpected end of the stream within a double quoted scalar', 'found unexpected end of stream', 'scanner'],
  ['unexpected end of the stream within a single quoted scalar', 'found unexpected end of stream', 'scanner'],
  ['unexpected end of the document within a double quoted scalar', 'found unexpected document indicator', 'scanner'],
  ['unexpected end of the document within a single quoted scalar', 'found unexpected document indicator', 'scanner'],
  ['tab characters must not be used in indentation', 'found character that cannot start any token', 'scanner'],
  ['can not read a block mapping entry; a multiline key may not be an implicit key', "could not find expected ':'", 'scanner'],
  ['unknown escape sequence', 'found unknown escape character', 'scanner'],
  ['expected hexadecimal character', 'did not find expected hexdecimal number', 'scanner'],
  ['end of the stream or a document separator is expected', 'did not find expected <document start>', 'parser'],
];

/**
 * js-yaml's exception in go-yaml's words where they correspond (others keep js-yaml's
 * reason). go-yaml's parser.fail(): scanner errors print the 1-based line, parser errors
 * the 0-based one, and nothing at all when the problem is on the first line.
 */
function describeYamlException(e: yaml.YAMLException, text: string): string {
  const line = e.mark?.line ?? 0;
  if (e.reason.startsWith('unexpected end of the stream within a flow collection')) return unclosedFlow(text);
  if (e.reason.startsWith('bad indentation of a mapping entry')) {
    const known = badMappingEntry(text.split(/\r?\n/)[line] ?? '', line);
    if (known) return known;
  }
  // A merge of a scalar (js-yaml refuses only strings; go-yaml any scalar: Converter.merge).
  if (e.reason.startsWith('cannot merge mappings')) return MERGE_NOT_MAP;
  if (e.reason.startsWith('nesting exceeded maxDepth')) return TOO_DEEP;
  const alias = /^unidentified alias "(.*)"$/.exec(e.reason);
  if (alias) return `yaml: unknown anchor '${alias[1]}' referenced`;
  const known = LIBYAML_WORDING.find(([prefix]) => e.reason.startsWith(prefix));
  if (!known) return `yaml: line ${line + 1}: ${e.reason}`;
  const [, problem, cls] = known;
  if (line === 0) return `yaml: ${problem}`;
  return `yaml: line ${cls === 'scanner' ? line + 1 : line}: ${problem}`;
}

/**
 * js-yaml's "bad indentation of a mapping entry" on a `key: value` line is one of two
 * libyaml errors: junk after a quoted value is a parser error (the next token is not a
 * key; 0-based line), a `: ` inside a plain value a scanner error (1-based line).
 */
function badMappingEntry(lineText: string, line: number): string | null {
  const m = /^\s*(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s:#"'][^:#]*?)\s*:\s+(.*)$/.exec(lineText);
  if (!m) return null;
  const value = m[1]!;
  const quoted = /^(?:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')(.*)$/.exec(value);
  if (quoted) return /^\s*(#.*)?$/.test(quoted[1]!) ? null : `yaml: line ${line}: did not find expected key`;
  if (/:(\s|$)/.test(value.replace(/\s#.*$/, ''))) return `yaml: line ${line + 1}: mapping values are not allowed in this context`;
  return null;
}

/**
 * A flow collection still open at the end of the stream. libyaml's parser fails at the
 * STREAM-END token, which its scanner puts on a line of its own (it forces a line break
 * when the last line has no newline): after `[`, `{` or `,` it wanted a node, else the
 * separator or the closing bracket of the innermost open collection.
 */
function unclosedFlow(text: string): string {
  const line = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const where = line > 0 ? `line ${line}: ` : '';
  const open: string[] = [];
  let last = '';
  for (const m of text.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|#.*$/gm, 'x').matchAll(/\S/g)) {
    const c = m[0];
    if (c === '[' || c === '{') open.push(c);
    else if ((c === ']' || c === '}') && open.length) open.pop();
    last = c;
  }
  const inner = open[open.length - 1] ?? '[';
  if (last === '[' || last === '{' || last === ',') return `yaml: ${where}did not find expected node content`;
  return `yaml: ${where}did not find expected ',' or '${inner === '[' ? ']' : '}'}'`;
}

/**
 * go-yaml v2's directives, before the first document: `%YAML 1.1` only (its parser refuses
 * any other version, where js-yaml takes 1.2), `%TAG`, and no other name (its scanner refuses
 * one that js-yaml only warns about). The error, or null.
 */
function directiveError(text: string): string | null {
  // A directive starts a line; most payloads have a `%` only inside values ("10%").
  if (text.charCodeAt(0) !== 0x25 && !text.includes('\n%')) return null;
  for (let start = 0, n = 0; start <= text.length; n++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '' || /^[ \t]*#/.test(line)) continue;
    if (line[0] !== '%') return null; // the document has started
    const name = /^%([^ \t\r]*)/.exec(line)![1];
    if (name === 'YAML') {
      const v = /^%YAML[ \t]+(\d+)\.(\d+)/.exec(line);
      // A parser error: go-yaml prints the 0-based line, and none on the first.
      if (v && (v[1] !== '1' || v[2] !== '1')) return `yaml: ${n > 0 ? `line ${n}: ` : ''}found incompatible YAML document`;
    } else if (name !== 'TAG') {
      // A scanner error: the 1-based line.
      return scannerErrorText({ line: n, problem: 'found unknown directive name' });
    }
  }
  return null;
}

/** Parse the first YAML document of `bytes` into the JSON tree the kubelet's decoder sees. */
export function parseYamlDocument(bytes: Uint8Array): YamlParse {
  const { text, utf8 } = decodeText(bytes);
  // Printable ASCII and line feeds (nearly every payload): the bytes are valid UTF-8, with no
  // character libyaml refuses and no NEL/LS/PS, so those checks have nothing to find.
  const printable = utf8 && isPrintableAscii(text);
  const bad = printable ? null : utf8 ? readerError(text, bytes) : readerError(text, Buffer.from(text, 'utf8'));
  if (bad) return { ok: false, error: `yaml: ${bad}` };
  const breaks = printable ? { text, restore: null, trailing: null } : goLineBreaks(text);
  const first = firstDocument(breaks.text);
  const directive = directiveError(first);
  if (directive) return { ok: false, error: directive };
  const fast = fastPath ? fastBlockYaml(first, resolvePlainScalar, printable) : undefined;
  if (fast !== undefined) return { ok: true, value: fast, duplicates: [] };
  let tracker = pairTracker();
  let doc: unknown;
  let src = first;
  try {
    trailingMarks = breaks.trailing;
    const load = (t: string) => {
      tracker = pairTracker();
      return goLoad(t, tracker.listener);
    };
    // go-yaml's double-quoted escapes (below): `\'` backslashes go, a `\/` is its error.
    const esc = goEscapes(first);
    src = esc.text;
    let slashAt = esc.slash;
    for (let tries = 0; ; tries++) {
      try {
        doc = load(src);
        break;
      } catch (e) {
        // An error before the first `\/` in double quotes is the one go-yaml meets first.
        if (slashAt >= 0 && !(e instanceof jsYaml().YAMLException && (e.mark?.position ?? Infinity) <= slashAt)) throw slashError(src, slashAt);
        // A `\'` the spans missed: that one backslash goes, and the document is read again.
        const at = tries < MAX_QUOTE_RETRIES ? escapeAt(e, src, "'") : -1;
        if (at < 0) throw e;
        src = src.slice(0, at - 1) + src.slice(at);
        if (slashAt >= at) slashAt--;
      }
    }
    if (slashAt >= 0) throw slashError(src, slashAt);
  } catch (e) {
    if (e instanceof jsYaml().YAMLException) return { ok: false, error: describeYamlException(e, src) };
    if (e instanceof YamlError) return { ok: false, error: e.message };
    if (e instanceof RangeError) return { ok: false, error: TOO_DEEP };
    throw e;
  } finally {
    trailingMarks = null;
    lastScalar = undefined;
  }
  // Tabs js-yaml accepts where libyaml's scanner stops (a line starting with one, one after `-`).
  const tab = libyamlTabError(first);
  if (tab !== null) return { ok: false, error: scannerErrorText(tab) };
  return convertDocument(doc, tracker.pairs, breaks.restore);
}

// go-yaml v2's double-quoted escapes (scannerc.go, yaml_parser_scan_flow_scalar) are js-yaml's
// (YAML 1.2) but for two: `\'` is one (a `'`), `\/` is none ("found unknown escape
// character"). Found by a decoding review: `"\/etc\/kubernetes"` (JSON pasted into YAML) was
// read as /etc/kubernetes where the kubelet fails to load the config, and `"it\'s"` failed
// where the kubelet reads it. Which escapes are inside double quotes, js-yaml itself says: one
// probe load (every `\'` without its backslash, which keeps the document's structure: the
// quote stays where it was) reports the scalars it reads, and the double-quoted ones are
// found where they start. Two loads in all, whatever the number of escapes (a first version
// loaded the document again after each, which a hostile payload made 25 s long).

/** js-yaml's load with go-yaml's schema, as every load here makes it (a listener to see the nodes). */
function goLoad(text: string, listener: (event: 'open' | 'close', state: yaml.State) => void): unknown {
  lastScalar = undefined;
  return jsYaml().load(text, { schema: (goYamlSchema ??= buildGoYamlSchema()), json: true, listener, maxDepth: MAX_YAML_DEPTH } as yaml.LoadOptions);
}

/** Loads after the spans, for a `\'` they missed; past them the escape is js-yaml's error. */
const MAX_QUOTE_RETRIES = 8;

/** The position of the character after the backslash when `e` is js-yaml's unknown escape and that character is `ch`; else -1. */
function escapeAt(e: unknown, text: string, ch: string): number {
  if (!(e instanceof jsYaml().YAMLException) || !e.reason.startsWith('unknown escape sequence')) return -1;
  const at = e.mark?.position ?? -1;
  return at > 0 && text[at] === ch && text[at - 1] === '\\' ? at : -1;
}

/** Backslashes that escape a `'` or a `/` (an odd run of them before it), by position. */
function escapeCandidates(text: string): { quote: number[]; slash: number[] } {
  const quote: number[] = [];
  const slash: number[] = [];
  for (let i = text.indexOf('\\'); i >= 0; ) {
    let j = i;
    while (text[j] === '\\') j++;
    if ((j - i) % 2 === 1) {
      if (text[j] === "'") quote.push(j - 1);
      else if (text[j] === '/') slash.push(j - 1);
    }
    i = text.indexOf('\\', j);
  }
  return { quote, slash };
}

/**
 * `text` with the backslash of each `\'` inside double quotes removed, and where (in that
 * text) the first `\/` inside double quotes is (-1: none).
 */
function goEscapes(text: string): { text: string; slash: number } {
  const c = escapeCandidates(text);
  if (!c.quote.length && !c.slash.length) return { text, slash: -1 };
  // The probe drops the backslash of every `\'` but those that could start a plain scalar
  // (`a: \'x`: without it a single-quoted scalar would start there, and run over the rest:
  // found by review, a later "\/" went unseen). One of those inside double quotes after all
  // (a continuation line) stops the probe at it: its backslash goes too, and the probe again.
  const dropped = new Set(c.quote.filter((at) => !tokenStart(text, at)));
  let spans: [number, number][] = [];
  let removed: number[] = [];
  for (let tries = 0; ; tries++) {
    removed = c.quote.filter((at) => dropped.has(at));
    const probe = removeAt(text, removed);
    const r = doubleQuotedSpans(probe);
    spans = r.spans;
    const at = tries < MAX_QUOTE_RETRIES && r.error ? escapeAt(r.error, probe, "'") : -1;
    // The kept `\'` the probe stopped at (its backslash at probe position at - 1).
    const kept = at < 0 ? undefined : c.quote.find((orig) => !dropped.has(orig) && orig - below(removed, orig) === at - 1);
    if (kept === undefined) break;
    dropped.add(kept);
  }
  const toProbe = (orig: number) => orig - below(removed, orig);
  const inQuotes = insideSpans(spans);
  // A dropped backslash's quote moved onto its place; a kept one's backslash is where it was.
  const quote = c.quote.filter((orig) => inQuotes(toProbe(orig)));
  const inside = insideSpans(spans);
  let slash = -1;
  for (const orig of c.slash) {
    if (!inside(toProbe(orig))) continue;
    slash = orig - below(quote, orig);
    break;
  }
  return { text: removeAt(text, quote), slash };
}

/** How many of the sorted positions `at` are below `pos` (binary search). */
function below(at: readonly number[], pos: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether position `at` could start a token: nothing but blanks before it on its line, or after an indicator (`-`, `?`, `:`, `[`, `{`, `,`). */
function tokenStart(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  if (i < 0 || text[i] === '\n' || text[i] === '\r') return true;
  return '-?:[{,'.includes(text[i]!);
}

/** A test of positions, asked in increasing order, for lying inside one of `spans`. */
function insideSpans(spans: [number, number][]): (p: number) => boolean {
  spans.sort((x, y) => x[0] - y[0]);
  let k = 0;
  let reach = -1;
  let reachStart = -1;
  return (p) => {
    // Spans never overlap but for repeats of one (a node's several compose calls); the widest reach so far decides.
    while (k < spans.length && spans[k]![0] < p) {
      if (spans[k]![1] > reach) {
        reach = spans[k]![1];
        reachStart = spans[k]![0];
      }
      k++;
    }
    return reachStart < p && p < reach;
  };
}

/** The double-quoted scalars js-yaml reads in `text`, [opening quote, after the closing one); up to its first error, if any. */
function doubleQuotedSpans(text: string): { spans: [number, number][]; error: unknown } {
  const spans: [number, number][] = [];
  const opens: number[] = [];
  const listener = (event: 'open' | 'close', state: yaml.State) => {
    const s = state as yaml.State & { kind: string | null; position: number };
    if (event === 'open') {
      opens.push(s.position);
      return;
    }
    const from = opens.pop();
    if (from === undefined || s.kind !== 'scalar') return;
    const q = scalarStart(text, from, s.position);
    if (q >= 0 && text[q] === '"' && text[s.position - 1] === '"' && s.position - q >= 2) spans.push([q, s.position]);
  };
  try {
    goLoad(text, listener);
  } catch (error) {
    // What was read before the error has its spans; an escape after it is never reached.
    return { spans, error };
  }
  return { spans, error: null };
}

/** Where a node's own text starts: past blanks, comments and its properties (`!tag`, `&anchor`). */
function scalarStart(text: string, from: number, end: number): number {
  let i = from;
  for (;;) {
    while (i < end && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    if (text[i] === '#') {
      while (i < end && text[i] !== '\n') i++;
      continue;
    }
    if (text[i] === '!' || text[i] === '&') {
      while (i < end && !/\s/.test(text[i]!)) i++;
      continue;
    }
    return i < end ? i : -1;
  }
}

/** `text` without the characters at the sorted positions `at`. */
function removeAt(text: string, at: readonly number[]): string {
  if (!at.length) return text;
  const parts: string[] = [];
  let from = 0;
  for (const i of at) {
    parts.push(text.slice(from, i));
    from = i + 1;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** go-yaml's scanner error for the `\/` at `at`: the 1-based line, none on the first. */
function slashError(text: string, at: number): YamlError {
  return new YamlError(scannerErrorText({ line: countLines(text, at), problem: 'found unknown escape character' }));
}

function convertDocument(doc: unknown, pairs: Map<object, Pair[]>, restore: Restore | null = null): YamlParse {
  try {
    const conv = new Converter(pairs, restore);
    const value = conv.convert(doc, '', false);
    return { ok: true, value, duplicates: conv.duplicates };
  } catch (e) {
    if (e instanceof YamlError) return { ok: false, error: e.message };
    if (e instanceof RangeError) return { ok: false, error: TOO_DEEP };
    throw e;
  }
}

let fastPath = true;
/** Tests: parse with js-yaml only (false), to hold the fast path equal to it. */
export function useFastPath(on: boolean): void {
  fastPath = on;
}
