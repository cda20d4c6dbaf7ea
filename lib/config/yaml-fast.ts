// A fast path for the YAML nearly every kubelet config is written in: block mappings of
// plain keys, scalars (plain, or quoted without escapes), sequences of scalars, comments.
// It builds exactly what js-yaml builds with the go-yaml schema, or answers undefined at
// the first thing it is not certain about (anchors, tags, flow collections, block or
// multi-line scalars, tabs, quoted keys, duplicate keys, odd indentation...), and the caller
// then parses with js-yaml. A differential test holds the two paths equal.
// js-yaml was half of judging a payload; 10,000 of them are judged by `verify`.

import type { GoScalar } from './yaml.js';

type Plain = (s: string) => GoScalar | string;
type Node = Record<string, unknown> | unknown[];

interface Frame {
  indent: number;
  node: Node;
  /** A sequence written at its parent key's indentation (`key:\n- a`). */
  compact: boolean;
}

const MAX_DEPTH = 64;
const NOT_PRINTABLE_ASCII = /[^\n\x20-\x7e]/;
const KEY = /^[A-Za-z_][A-Za-z0-9_.\/-]*$/;
/** Characters a plain scalar may not start with (indicators), or that we leave to js-yaml. */
const NOT_PLAIN_START = new Set(['[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`', '?', ',', '<', ':', '-']);

/** The scalar after `key: ` or `- `: a value, or undefined when js-yaml must decide. */
function scalar(raw: string, plain: Plain): unknown {
  const c = raw[0]!;
  if (c === '"' || c === "'") {
    const end = raw.indexOf(c, 1);
    if (end < 0) return undefined;
    const inner = raw.slice(1, end);
    const rest = raw.slice(end + 1);
    if ((c === '"' && inner.includes('\\')) || (rest !== '' && !/^ +(#.*)?$/.test(rest))) return undefined;
    return inner;
  }
  if (NOT_PLAIN_START.has(c) && !(c === '-' && /^-[0-9.]/.test(raw))) return undefined;
  const hash = raw.indexOf(' #');
  const text = (hash >= 0 ? raw.slice(0, hash) : raw).replace(/ +$/, '');
  if (text === '' || text.includes(': ') || text.endsWith(':') || text.includes('\t')) return undefined;
  return plain(text);
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

/**
 * The document as js-yaml (go-yaml schema, json mode) would load it, or undefined when the
 * text uses anything beyond plain block YAML.
 */
export function fastBlockYaml(text: string, plain: Plain): Record<string, unknown> | undefined {
  // Only printable ASCII: JS's trim() knows more blanks than YAML (U+00A0, U+3000, ...), and
  // go-yaml knows more line breaks than split('\n') (NEL, LS, PS).
  if (NOT_PRINTABLE_ASCII.test(text)) return undefined;
  const root: Record<string, unknown> = {};
  const stack: Frame[] = [];
  /** A key whose value is on the following lines. */
  let pending: { map: Record<string, unknown>; key: string; indent: number } | null = null;
  /** The last line held a scalar: a deeper line after it would continue it (js-yaml's job). */
  let lastScalarIndent = -1;
  let lines = 0;
  for (const line of text.split('\n')) {
    const content = line.trimStart();
    if (content === '' || content.startsWith('#')) continue;
    const indent = line.length - content.length;
    const item = content === '-' || content.startsWith('- ');
    if (lines++ === 0) {
      if (indent !== 0 || item || content.startsWith('---') || content.startsWith('%')) return undefined;
      stack.push({ indent: 0, node: root, compact: false });
    }
    if (lastScalarIndent >= 0 && indent > lastScalarIndent) return undefined;
    if (pending) {
      const p: { map: Record<string, unknown>; key: string; indent: number } = pending;
      pending = null;
      if (indent > p.indent || (indent === p.indent && item)) {
        const node: Node = item ? [] : {};
        p.map[p.key] = node;
        // Real configs nest a few levels; js-yaml words the error for absurd depths.
        if (stack.length >= MAX_DEPTH) return undefined;
        stack.push({ indent, node, compact: indent === p.indent });
      } else p.map[p.key] = null;
    }
    while (stack.length && (stack[stack.length - 1]!.indent > indent || (stack[stack.length - 1]!.compact && stack[stack.length - 1]!.indent === indent && !item))) stack.pop();
    const top = stack[stack.length - 1];
    if (!top || top.indent !== indent) return undefined;
    if (Array.isArray(top.node)) {
      if (!item) return undefined;
      const raw = content.slice(1).trim();
      if (raw === '' || raw.startsWith('#')) return undefined;
      const v = scalar(raw, plain);
      if (v === undefined) return undefined;
      top.node.push(v);
      lastScalarIndent = indent;
      continue;
    }
    if (item) return undefined;
    const e = entryOf(content.trimEnd(), plain);
    if (!e || Object.hasOwn(top.node, e.key)) return undefined;
    if (e.raw === '') {
      pending = { map: top.node, key: e.key, indent };
      lastScalarIndent = -1;
      continue;
    }
    const v = scalar(e.raw, plain);
    if (v === undefined) return undefined;
    top.node[e.key] = v;
    lastScalarIndent = indent;
  }
  if (lines === 0) return undefined;
  if (pending) pending.map[pending.key] = null;
  return root;
}
