// A small block-YAML writer for exported KubeletConfiguration files: two-space indent,
// keys in the object's own order, a comment line above any field that asks for one.
// Scalars are written so the kubelet's reader (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1)
// reads back exactly the value given: a string is plain only when go-yaml would resolve it
// to a string again (store/encode's resolvesToString) and it holds nothing but safe
// characters; otherwise it is double-quoted: JSON's escapes, plus YAML's \N \L \P \xNN \uNNNN
// for what JSON leaves raw and go-yaml would fold or refuse.

import { resolvesToString } from '../store/encode.js';
import { printable } from '../output/sanitize.js';

/** Comments by field path: the keys from the root joined with '\u0000'. */
export type Comments = ReadonlyMap<string, readonly string[]>;

export function commentKey(keys: readonly string[]): string {
  return keys.join('\u0000');
}

const PLAIN = /^[A-Za-z0-9_/][A-Za-z0-9_./-]*$/;
/** YAML 1.1 base-60 numbers need a colon, which PLAIN never lets through. */
function scalarString(s: string): string {
  return PLAIN.test(s) && resolvesToString(s) ? s : doubleQuoted(s);
}

/**
 * What JSON.stringify leaves raw but go-yaml v2 does not read back as itself: NEL, LS and PS
 * are line breaks to it (folded to a space inside quotes), DEL, C1, the BOM and noncharacters
 * are refused anywhere in a stream.
 */
const YAML_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;
const YAML_NAMED: Record<string, string> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P' };

function yamlEscape(c: string): string {
  const n = c.charCodeAt(0);
  return YAML_NAMED[c] ?? (n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`);
}

/** A YAML double-quoted scalar: JSON's escapes (all of them YAML's too), and YAML's for the rest. */
function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(YAML_UNSAFE, yamlEscape);
}

function keyText(k: string): string {
  return scalarString(k);
}

function scalar(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return scalarString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RangeError(`cannot write the number ${v} as YAML the kubelet reads`);
    return String(v);
  }
  if (typeof v === 'bigint') return v.toString();
  throw new TypeError(`not a scalar: ${typeof v}`);
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Noncharacters and the BOM: go-yaml refuses them anywhere in a stream, comments included. */
const NOT_IN_YAML = /[\ufeff\ufffe\uffff]/g;

/**
 * A comment's text on one printable line. Comments carry text from disk (paths, flag values):
 * a line break in one (\n, \r, NEL, LS, PS) would end the comment and start YAML of its own.
 */
function commentText(s: string): string {
  return printable(s).replace(NOT_IN_YAML, yamlEscape);
}

function emitComments(out: string[], indent: string, lines: readonly string[] | undefined): void {
  for (const l of lines ?? []) out.push(`${indent}# ${commentText(l)}`);
}

function emitMap(out: string[], m: Record<string, unknown>, keys: string[], indent: string, comments: Comments): void {
  for (const [k, v] of Object.entries(m)) {
    if (v === undefined) continue;
    const at = [...keys, k];
    emitComments(out, indent, comments.get(commentKey(at)));
    emitEntry(out, `${indent}${keyText(k)}:`, v, at, indent, comments);
  }
}

/** `head` is `key:` or `-`; the value follows on the line or, for a non-empty collection, below it. */
function emitEntry(out: string[], head: string, v: unknown, at: string[], indent: string, comments: Comments): void {
  if (isMap(v)) {
    if (Object.keys(v).length === 0) out.push(`${head} {}`);
    else {
      out.push(head);
      emitMap(out, v, at, `${indent}  `, comments);
    }
  } else if (Array.isArray(v)) {
    if (v.length === 0) out.push(`${head} []`);
    else {
      out.push(head);
      for (const item of v) emitListItem(out, item, at, `${indent}  `, comments);
    }
  } else out.push(`${head} ${scalar(v)}`);
}

function emitListItem(out: string[], item: unknown, at: string[], indent: string, comments: Comments): void {
  if (isMap(item) && Object.keys(item).length > 0) {
    // "- first: x" then the other keys aligned under it.
    // Comments inside list items are not supported (nothing asks for them).
    const inner: string[] = [];
    emitMap(inner, item, at, `${indent}  `, new Map());
    inner[0] = `${indent}- ${inner[0]!.slice(indent.length + 2)}`;
    out.push(...inner);
  } else if (Array.isArray(item) && item.length > 0) {
    out.push(`${indent}-`);
    for (const x of item) emitListItem(out, x, at, `${indent}  `, comments);
  } else emitEntry(out, `${indent}-`, item, at, indent, comments);
}

/** The document as block YAML, `header` lines first as comments (each one line, escaped). Ends with a newline. */
export function emitYaml(doc: Record<string, unknown>, comments: Comments = new Map(), header: readonly string[] = []): string {
  const out: string[] = header.map((h) => (h ? `# ${commentText(h)}` : '#'));
  emitMap(out, doc, [], '', comments);
  return `${out.join('\n')}\n`;
}
