// The one sanitizer for human output, CLI and TUI. Anything that came from disk, a log or a
// flag is hostile until it passes here: control characters (C0, DEL, C1, so ESC and every
// escape sequence it starts), bidi overrides and isolates, and line separators are shown
// as `\xNN` / `\uNNNN`, so a name can neither drive the terminal, reorder what is shown,
// nor start a line of its own (a fake "ok: no problems found"). JSON and YAML output stay exact.

/** C0 but tab and newline, DEL, C1, ALM (U+061C), LRM/RLM, LS/PS, the bidi embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex
const BLOCK_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const LINE_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(c: string): string {
  const n = c.charCodeAt(0);
  return n > 0xff ? `\\u${n.toString(16).padStart(4, '0')}` : `\\x${n.toString(16).padStart(2, '0')}`;
}

/** One line of text: everything unsafe escaped, newlines included; a tab becomes two spaces. */
export function printable(s: string): string {
  return s.replace(/\t/g, '  ').replace(LINE_UNSAFE, escapeChar);
}

/** Text of several lines (a payload, a unified diff): newlines and tabs kept, the rest as in `printable`. */
export function printableBlock(s: string): string {
  return s.replace(BLOCK_UNSAFE, escapeChar);
}

/**
 * A message of our own that may hold text from disk (an error, a warning): made printable
 * line by line, and every line after the first indented, so nothing in it can pose as a
 * line of its own (`error: …` then a fake `ok: no problems found`).
 */
export function printableMessage(s: string): string {
  return s
    .split('\n')
    .map((l, i) => (i === 0 || /^\s/.test(l) ? printable(l) : `  ${printable(l)}`))
    .join('\n');
}

/** Whether `s` holds anything `printable` would change (fast path for the common case). */
export function isPrintable(s: string): boolean {
  LINE_UNSAFE.lastIndex = 0;
  return !LINE_UNSAFE.test(s) && !s.includes('\t');
}

export interface DeepOptions {
  /** Keys whose string values are multi-line text: kept as lines (printableBlock). */
  block?: readonly string[];
  /** Keys left exactly as they are (their renderer sanitizes, e.g. a unified diff piped to a file). */
  exact?: readonly string[];
  /** Applied to every string holding `kubelet-ckpt ` before it is made printable, except under `keep` keys (output/self.ts). */
  map?: (s: string) => string;
  /** Keys whose strings are a file's content, never rewritten by `map`. */
  keep?: readonly string[];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of a result with every string made printable, for a text renderer: keys and values
 * of plain objects and arrays; anything else (Buffer, Date, Map) is kept as it is.
 */
export function sanitizeDeep<T>(value: T, o: DeepOptions = {}, key = ''): T {
  return deep(value, o, key, new Map());
}

// Results repeat their keys and often their strings (a journal's 20000 events share a few
// messages): each distinct one is made printable once per call, and one of plain ASCII up to
// SHORT long (a key, a time: 20000 distinct ones in a journal; a checkpoint's path and digest:
// 10,000 distinct ones each in an `ls`) is kept without a look-up at all.
function deep<T>(value: T, o: DeepOptions, key: string, seen: Map<string, string>): T {
  if (typeof value === 'string') {
    if (o.exact?.includes(key)) return value;
    const v = o.map && !o.keep?.includes(key) && value.includes('kubelet-ckpt ') ? o.map(value) : value;
    if (v.length <= SHORT && plainAscii(v)) return v as T;
    return (o.block?.includes(key) ? printableBlock(v) : once(v, seen)) as T;
  }
  if (Array.isArray(value)) return value.map((v) => deep(v, o, key, seen)) as T;
  if (!isPlainObject(value)) return value;
  if (o.exact?.includes(key)) return value;
  const out: Record<string, unknown> = {};
  // for-in over own keys: Object.entries' order, without an array per object and one per field.
  for (const k in value) {
    if (Object.hasOwn(value, k)) out[k.length <= SHORT && plainAscii(k) ? k : once(k, seen)] = deep(value[k], o, k, seen);
  }
  return out as T;
}

/**
 * Strings up to this long are checked for plain ASCII before the memo (longer ones are rarer
 * and repeat). A scan costs no more than the memo's hash of the same string; at 40, ls's
 * 54-character checkpoint paths and 64-character digests each took a memo entry and two
 * regex replaces (~35 ms of an ls of 10,000, after all judging).
 */
const SHORT = 256;

/** Only space to `~`: what printable and printableBlock both leave as it is. */
function plainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

function once(s: string, seen: Map<string, string>): string {
  let p = seen.get(s);
  if (p === undefined) {
    p = printable(s);
    seen.set(s, p);
  }
  return p;
}
