// A fast path for the YAML nearly every kubelet config is written in: block mappings of
// plain keys, scalars (plain, or quoted without escapes), sequences of scalars, comments.
// It builds exactly what js-yaml builds with the go-yaml schema, or answers undefined at
// the first thing it is not certain about (anchors, tags, flow collections, block or
// multi-line scalars, tabs, quoted keys, duplicate keys, odd indentation...), and the caller
// then parses with js-yaml. A differential test holds the two paths equal.
// js-yaml was half of judging a payload; 10,000 of them are judged by `verify`.

import type { JNode } from './jnode.js';
import type { GoScalar } from './yaml.js';

type Plain = (s: string) => GoScalar | string;
type ObjNode = Extract<JNode, { t: 'obj' }>;
type ArrNode = Extract<JNode, { t: 'arr' }>;
/** A mapping being filled: its members by key (sorted into the node at the end). */
interface MapNode {
  node: ObjNode;
  members: Map<string, JNode>;
}

interface Frame {
  indent: number;
  /** The mapping being filled, or null for a sequence. */
  map: MapNode | null;
  seq: ArrNode | null;
  /** A sequence written at its parent key's indentation (`key:\n- a`). */
  compact: boolean;
}

const NULL: JNode = { t: 'null' };

const MAX_DEPTH = 64;
/** Decimals with no plus sign, leading zero or underscore, up to 18 digits (below 2^63). */
const DECIMAL = /^(?:0|-?[1-9][0-9]{0,17})$/;
const NOT_PRINTABLE_ASCII = /[^\n\x20-\x7e]/;
const KEY = /^[A-Za-z_][A-Za-z0-9_.\/-]*$/;
/** Characters a plain scalar may not start with (indicators), or that we leave to js-yaml. */
const NOT_PLAIN_START = new Set(['[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`', '?', ',', '<', ':', '-']);

/**
 * A resolved scalar as sigs.k8s.io/yaml's JSON has it (what yaml.ts's converter makes of it),
 * or undefined for a float JSON cannot carry (NaN, ±Inf): the slow path words that error.
 */
function jsonScalar(v: GoScalar | string): JNode | undefined {
  if (typeof v === 'string') return { t: 'str', v };
  switch (v.kind) {
    case 'null': return NULL;
    case 'bool': return { t: 'bool', v: v.value as boolean };
    case 'int': return { t: 'num', s: String(v.value) };
    case 'float': {
      const f = v.value as number;
      if (!Number.isFinite(f)) return undefined;
      return { t: 'num', s: Object.is(f, -0) ? '-0' : String(f) };
    }
  }
}

/** The scalar after `key: ` or `- `: a value, or undefined when js-yaml must decide. */
function scalar(raw: string, plain: Plain): JNode | undefined {
  const c = raw[0]!;
  if (c === '"' || c === "'") {
    const end = raw.indexOf(c, 1);
    if (end < 0) return undefined;
    const inner = raw.slice(1, end);
    const rest = raw.slice(end + 1);
    if ((c === '"' && inner.includes('\\')) || (rest !== '' && !/^ +(#.*)?$/.test(rest))) return undefined;
    return { t: 'str', v: inner };
  }
  if (NOT_PLAIN_START.has(c) && !(c === '-' && /^-[0-9.]/.test(raw))) return undefined;
  const hash = raw.indexOf(' #');
  // trimEnd: the only blank in printable ASCII is the space.
  const text = (hash >= 0 ? raw.slice(0, hash) : raw).trimEnd();
  if (text === '' || text.includes(': ') || text.endsWith(':') || text.includes('\t')) return undefined;
  // A plain decimal well inside int64 is written to JSON as it stands (go-yaml: an int).
  if (DECIMAL.test(text)) return { t: 'num', s: text };
  return jsonScalar(plain(text));
}

/** A mapping entry `key:` or `key: value`: the key and the raw value ('' for none), or null. */
function entryOf(content: string, plain: Plain): { key: string; raw: string } | null {
  let key: string;
  let after: string;
  const q = content[0];
  if (q === '"' || q === "'") {
    // A quoted key (`"memory.available": 100Mi`): a string as written, when it has no escapes.
    const end = content.indexOf(q, 1);
    if (end < 0 || content[end + 1] !== ':') return null;
    key = content.slice(1, end);
    if (q === '"' && key.includes('\\')) return null;
    after = content.slice(end + 2);
  } else {
    const colon = content.indexOf(':');
    if (colon <= 0) return null;
    key = content.slice(0, colon);
    if (!KEY.test(key) || typeof plain(key) !== 'string') return null;
    after = content.slice(colon + 1);
  }
  if (key === '__proto__') return null;
  if (after !== '' && after[0] !== ' ') return null;
  const raw = after.trim();
  return { key, raw: raw.startsWith('#') ? '' : raw };
}

/** What one line says on its own: a member (value null: on the next lines), an item, or "ask js-yaml". */
type LineParse = { key: string; value: JNode | null } | { item: JNode } | null;

/**
 * Lines already parsed, by their text after the indentation: payloads of one store (and of
 * one cluster) share most of their lines, and a line's meaning does not depend on where it
 * stands; where it stands is checked for each line. The JNodes handed out are scalars, never
 * changed by anyone. Bounded: emptied when full.
 */
const lineMemo = new Map<string, LineParse>();
let lineMemoPlain: Plain | null = null;
const LINE_MEMO_MAX = 16_384;

function parseLine(content: string, item: boolean, plain: Plain): LineParse {
  if (lineMemoPlain !== plain) {
    lineMemo.clear();
    lineMemoPlain = plain;
  }
  let r = lineMemo.get(content);
  if (r !== undefined) return r;
  r = item ? itemOf(content, plain) : memberOf(content, plain);
  if (lineMemo.size >= LINE_MEMO_MAX) lineMemo.clear();
  lineMemo.set(content, r);
  return r;
}

function itemOf(content: string, plain: Plain): LineParse {
  const raw = content.slice(1).trim();
  if (raw === '' || raw.startsWith('#')) return null;
  const v = scalar(raw, plain);
  return v === undefined ? null : { item: v };
}

function memberOf(content: string, plain: Plain): LineParse {
  const e = entryOf(content.trimEnd(), plain);
  if (!e) return null;
  if (e.raw === '') return { key: e.key, value: null };
  const v = scalar(e.raw, plain);
  return v === undefined ? null : { key: e.key, value: v };
}

/**
 * The document as the JSON tree yaml.ts makes of js-yaml's result (go-yaml schema, json
 * mode: members sorted as Go sorts map keys), or undefined when the text uses anything
 * beyond plain block YAML.
 */
export function fastBlockYaml(text: string, plain: Plain, printable = false): ObjNode | undefined {
  // Only printable ASCII (`printable`: the caller has checked): JS's trim() knows more blanks
  // than YAML (U+00A0, U+3000, ...), and go-yaml knows more line breaks than split('\n')
  // (NEL, LS, PS). It also makes UTF-16 order Go's bytewise order for the keys.
  if (!printable && !isPrintableAscii(text)) return undefined;
  const root: MapNode = { node: { t: 'obj', entries: [] }, members: new Map() };
  const maps: MapNode[] = [root];
  const stack: Frame[] = [];
  /** A key whose value is on the following lines. */
  let pending: { map: MapNode; key: string; indent: number } | null = null;
  /** The last line held a scalar: a deeper line after it would continue it (js-yaml's job). */
  let lastScalarIndent = -1;
  let lines = 0;
  // Line by line (LF only: the text is printable ASCII, whose only blank is the space).
  const end = text.length;
  for (let pos = 0; pos <= end; ) {
    let eol = text.indexOf('\n', pos);
    if (eol < 0) eol = end;
    const start = pos;
    pos = eol + 1;
    let first = start;
    while (first < eol && text.charCodeAt(first) === 0x20) first++;
    // Blank lines and comments.
    if (first === eol || text.charCodeAt(first) === 0x23) continue;
    const content = text.slice(first, eol);
    const indent = first - start;
    const item = content.charCodeAt(0) === 0x2d && (content.length === 1 || content.charCodeAt(1) === 0x20);
    if (lines++ === 0) {
      if (indent !== 0 || item || content.startsWith('---') || content.startsWith('%')) return undefined;
      stack.push({ indent: 0, map: root, seq: null, compact: false });
    }
    if (lastScalarIndent >= 0 && indent > lastScalarIndent) return undefined;
    if (pending) {
      const p: { map: MapNode; key: string; indent: number } = pending;
      pending = null;
      if (indent > p.indent || (indent === p.indent && item)) {
        let frame: Frame;
        if (item) {
          const seq: ArrNode = { t: 'arr', items: [] };
          p.map.members.set(p.key, seq);
          frame = { indent, map: null, seq, compact: indent === p.indent };
        } else {
          const map: MapNode = { node: { t: 'obj', entries: [] }, members: new Map() };
          maps.push(map);
          p.map.members.set(p.key, map.node);
          frame = { indent, map, seq: null, compact: indent === p.indent };
        }
        // Real configs nest a few levels; js-yaml words the error for absurd depths.
        if (stack.length >= MAX_DEPTH) return undefined;
        stack.push(frame);
      } else p.map.members.set(p.key, NULL);
    }
    while (stack.length && (stack[stack.length - 1]!.indent > indent || (stack[stack.length - 1]!.compact && stack[stack.length - 1]!.indent === indent && !item))) stack.pop();
    const top = stack[stack.length - 1];
    if (!top || top.indent !== indent) return undefined;
    const node = top.map;
    if ((node === null) !== item) return undefined;
    const line = parseLine(content, item, plain);
    if (line === null) return undefined;
    if ('item' in line) {
      top.seq!.items.push(line.item);
      lastScalarIndent = indent;
      continue;
    }
    if (node!.members.has(line.key)) return undefined;
    if (line.value === null) {
      // Held until the next line says what the value is (the key counts as set from here).
      node!.members.set(line.key, NULL);
      pending = { map: node!, key: line.key, indent };
      lastScalarIndent = -1;
      continue;
    }
    node!.members.set(line.key, line.value);
    lastScalarIndent = indent;
  }
  if (lines === 0) return undefined;
  for (const m of maps) m.node.entries = sortedKeys([...m.members.keys()]).map((k) => [k, m.members.get(k)!]);
  return root.node;
}

/**
 * Keys are printable ASCII and never repeated: the built-in sort's code-unit order is Go's.
 * Sorting ~60 strings (~300 comparisons) was a third of this parse, and the payloads of a
 * store list the same keys in the same order: the order made for one key list serves the
 * next. Bounded: emptied when full.
 */
const sortedMemo = new Map<string, { keys: readonly string[]; sorted: readonly string[] }[]>();
let sortedMemoSize = 0;
const SORTED_MEMO_MAX = 1024;
/**
 * Lists that share a count, a first and a last key are few; past this many the list is
 * sorted without the memo (found by review: one bucket per first key, `kind` in nearly every
 * payload, made 6,000 payloads with a field each of their own scan 1,024 entries apiece).
 */
const BUCKET_MAX = 4;

function sortedKeys(keys: string[]): readonly string[] {
  if (keys.length < 2) return keys;
  // Found by the count and the first and last keys, then compared key by key: the keys mostly
  // are the very strings of the last payload (lineMemo), so this is a few dozen pointer
  // compares where a joined id (a new string of a kilobyte, hashed) was a tenth of this parse.
  const id = `${keys.length}\n${keys[0]!}\n${keys[keys.length - 1]!}`;
  const bucket = sortedMemo.get(id);
  const hit = bucket?.find((m) => sameKeys(m.keys, keys));
  if (hit) return hit.sorted;
  if (bucket && bucket.length >= BUCKET_MAX) return keys.sort();
  const entry = { keys: [...keys], sorted: keys.sort() };
  if (sortedMemoSize >= SORTED_MEMO_MAX) {
    sortedMemo.clear();
    sortedMemoSize = 0;
  }
  const b = sortedMemo.get(id);
  if (b) b.push(entry);
  else sortedMemo.set(id, [entry]);
  sortedMemoSize++;
  return entry.sorted;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Printable ASCII and line feeds only: what the fast path reads (and libyaml's reader passes). */
export function isPrintableAscii(text: string): boolean {
  return !NOT_PRINTABLE_ASCII.test(text);
}
