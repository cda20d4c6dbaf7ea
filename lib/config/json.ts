// JSON the way Go's encoding/json reads it (the kubelet decodes a payload that starts with
// `{` as JSON, not YAML): the same grammar, the same syntax-error texts (including how the
// end of input is reported), the 10000-level nesting limit, repeated keys kept in order.
// Iterative, so hostile nesting cannot overflow the JS stack.

import { goQuoteChar } from './gostrconv.js';
import type { JNode } from './jnode.js';

export const MAX_JSON_DEPTH = 10000;

export interface DuplicateKey {
  /** Dotted path of the repeated member, e.g. `featureGates.Foo`, `registerWithTaints[0].key`. */
  path: string;
  /** The member's own key (it may hold dots: `memory.available`). */
  key: string;
  /** 1-based line of the later occurrence. */
  line: number;
}

export type JsonParse = { ok: true; value: JNode; duplicates: DuplicateKey[] } | { ok: false; error: string };

class JsonSyntaxError extends Error {}

type Frame =
  | { kind: 'obj'; entries: Array<[string, JNode]>; seen: Set<string>; key: string; path: string }
  | { kind: 'arr'; items: JNode[]; path: string };

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t' };

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

class Parser {
  private pos = 0;
  private readonly stack: Frame[] = [];
  readonly duplicates: DuplicateKey[] = [];

  constructor(private readonly b: Uint8Array) {}

  private fail(c: number, context: string): never {
    throw new JsonSyntaxError(`invalid character ${goQuoteChar(c)} ${context}`);
  }

  /** Go checks the end of input by feeding one more space to the scanner. */
  private eof(contextIfSpaceIsAnError?: string): never {
    if (contextIfSpaceIsAnError) this.fail(0x20, contextIfSpaceIsAnError);
    throw new JsonSyntaxError('unexpected end of JSON input');
  }

  private peek(): number | undefined {
    return this.b[this.pos];
  }

  private skipWS(): void {
    while (this.pos < this.b.length && WS.has(this.b[this.pos]!)) this.pos++;
  }

  private expect(byte: number, context: string): void {
    this.skipWS();
    const c = this.peek();
    if (c === undefined) this.eof();
    if (c !== byte) this.fail(c, context);
    this.pos++;
  }

  private readLiteral(word: string): void {
    for (let i = 1; i < word.length; i++) {
      const c = this.b[this.pos + i];
      const ctx = `in literal ${word} (expecting ${goQuoteChar(word.charCodeAt(i))})`;
      if (c === undefined) this.eof(ctx);
      if (c !== word.charCodeAt(i)) this.fail(c, ctx);
    }
    this.pos += word.length;
  }

  private readNumber(): string {
    const start = this.pos;
    const b = this.b;
    if (b[this.pos] === 0x2d) {
      this.pos++;
      const c = b[this.pos];
      if (c === undefined) this.eof('in numeric literal');
      if (!isDigit(c)) this.fail(c, 'in numeric literal');
    }
    if (b[this.pos] === 0x30) this.pos++;
    else while (this.pos < b.length && isDigit(b[this.pos]!)) this.pos++;
    if (b[this.pos] === 0x2e) {
      this.pos++;
      const c = b[this.pos];
      if (c === undefined) this.eof('after decimal point in numeric literal');
      if (!isDigit(c)) this.fail(c, 'after decimal point in numeric literal');
      while (this.pos < b.length && isDigit(b[this.pos]!)) this.pos++;
    }
    if (b[this.pos] === 0x65 || b[this.pos] === 0x45) {
      this.pos++;
      if (b[this.pos] === 0x2b || b[this.pos] === 0x2d) this.pos++;
      const c = b[this.pos];
      if (c === undefined) this.eof('in exponent of numeric literal');
      if (!isDigit(c)) this.fail(c, 'in exponent of numeric literal');
      while (this.pos < b.length && isDigit(b[this.pos]!)) this.pos++;
    }
    return Buffer.from(b.subarray(start, this.pos)).toString('latin1');
  }

  /** A string literal starting at the opening quote; returns its decoded text. */
  private readString(): string {
    const b = this.b;
    this.pos++;
    const parts: string[] = [];
    let runStart = this.pos;
    const flush = () => {
      if (this.pos > runStart) parts.push(Buffer.from(b.subarray(runStart, this.pos)).toString('utf8'));
    };
    for (;;) {
      const c = b[this.pos];
      if (c === undefined) this.eof();
      if (c === 0x22) {
        flush();
        this.pos++;
        return parts.join('');
      }
      if (c < 0x20) this.fail(c, 'in string literal');
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      flush();
      this.pos++;
      const e = b[this.pos];
      if (e === undefined) this.eof('in string escape code');
      if (e === 0x75) {
        for (let i = 1; i <= 4; i++) {
          const h = b[this.pos + i];
          if (h === undefined) this.eof('in \\u hexadecimal character escape');
          if (!isHex(h)) this.fail(h, 'in \\u hexadecimal character escape');
        }
        const unit = parseInt(Buffer.from(b.subarray(this.pos + 1, this.pos + 5)).toString('latin1'), 16);
        parts.push(String.fromCharCode(unit));
        this.pos += 5;
      } else if (ESCAPES[e] !== undefined) {
        parts.push(ESCAPES[e]!);
        this.pos++;
      } else {
        this.fail(e, 'in string escape code');
      }
      runStart = this.pos;
    }
  }

  private newlines: number[] | null = null;

  /** 1-based line of a byte offset (newline offsets computed once, then binary search). */
  private lineAt(pos: number): number {
    if (!this.newlines) {
      this.newlines = [];
      for (let i = 0; i < this.b.length; i++) if (this.b[i] === 0x0a) this.newlines.push(i);
    }
    let lo = 0;
    let hi = this.newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.newlines[mid]! < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  }

  private readKey(frame: Extract<Frame, { kind: 'obj' }>): void {
    this.skipWS();
    const c = this.peek();
    if (c === undefined) this.eof();
    if (c !== 0x22) this.fail(c, 'looking for beginning of object key string');
    const at = this.pos;
    frame.key = this.readString();
    if (frame.seen.has(frame.key)) this.duplicates.push({ path: childPath(frame.path, frame.key), key: frame.key, line: this.lineAt(at) });
    frame.seen.add(frame.key);
    this.expect(0x3a, 'after object key');
  }

  private open(c: number, frame: Frame): void {
    if (this.stack.length >= MAX_JSON_DEPTH) this.fail(c, 'exceeded max depth');
    this.stack.push(frame);
  }

  private currentPath(): string {
    const top = this.stack[this.stack.length - 1];
    if (!top) return '';
    return top.kind === 'obj' ? childPath(top.path, top.key) : `${top.path}[${top.items.length}]`;
  }

  /** Read one value, or open a container and return null (its members follow). */
  private readValueOrOpen(): JNode | null {
    this.skipWS();
    const c = this.peek();
    if (c === undefined) this.eof();
    if (c === 0x7b) {
      const frame: Frame = { kind: 'obj', entries: [], seen: new Set(), key: '', path: this.currentPath() };
      this.open(c, frame);
      this.pos++;
      this.skipWS();
      if (this.peek() === 0x7d) {
        this.pos++;
        this.stack.pop();
        return { t: 'obj', entries: [] };
      }
      this.readKey(frame);
      return null;
    }
    if (c === 0x5b) {
      const frame: Frame = { kind: 'arr', items: [], path: this.currentPath() };
      this.open(c, frame);
      this.pos++;
      this.skipWS();
      if (this.peek() === 0x5d) {
        this.pos++;
        this.stack.pop();
        return { t: 'arr', items: [] };
      }
      return null;
    }
    if (c === 0x22) return { t: 'str', v: this.readString() };
    if (c === 0x2d || isDigit(c)) return { t: 'num', s: this.readNumber() };
    if (c === 0x74) { this.readLiteral('true'); return { t: 'bool', v: true }; }
    if (c === 0x66) { this.readLiteral('false'); return { t: 'bool', v: false }; }
    if (c === 0x6e) { this.readLiteral('null'); return { t: 'null' }; }
    this.fail(c, 'looking for beginning of value');
  }

  /** After a complete value: attach it, and close every container that ends here. */
  private attach(value: JNode): JNode | null {
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (!top) return value;
      if (top.kind === 'obj') top.entries.push([top.key, value]);
      else top.items.push(value);
      this.skipWS();
      const c = this.peek();
      if (c === undefined) this.eof();
      if (top.kind === 'obj') {
        if (c === 0x2c) { this.pos++; this.readKey(top); return null; }
        if (c !== 0x7d) this.fail(c, 'after object key:value pair');
        this.pos++;
        this.stack.pop();
        value = { t: 'obj', entries: top.entries };
      } else {
        if (c === 0x2c) { this.pos++; return null; }
        if (c !== 0x5d) this.fail(c, 'after array element');
        this.pos++;
        this.stack.pop();
        value = { t: 'arr', items: top.items };
      }
    }
  }

  parse(): JNode {
    let root: JNode | null = null;
    while (root === null) {
      const v = this.readValueOrOpen();
      if (v !== null) root = this.attach(v);
    }
    this.skipWS();
    const c = this.peek();
    if (c !== undefined) this.fail(c, 'after top-level value');
    return root;
  }
}

/** Parse bytes as encoding/json would; errors carry Go's SyntaxError text. */
export function parseGoJson(bytes: Uint8Array): JsonParse {
  const p = new Parser(bytes);
  try {
    const value = p.parse();
    return { ok: true, value, duplicates: p.duplicates };
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { ok: false, error: e.message };
    throw e;
  }
}

/**
 * The JSON serializer's RecognizesData: the first non-space character is `{`. From 1.21 it is
 * utilyaml.IsJSONBuffer over the whole buffer; 1.20's apimachinery peeks only 2048 bytes
 * (GuessJSONStream(peek, 2048)), so JSON after that much blank space goes the YAML way there.
 */
export function hasJsonPrefix(bytes: Uint8Array, window = Infinity): boolean {
  // A first byte that is printable ASCII and no blank decides at once (nearly every payload).
  const b0 = bytes[0];
  if (b0 !== undefined && b0 > 0x20 && b0 < 0x7f) return b0 === 0x7b;
  const text = Buffer.from(bytes.subarray(0, Math.min(bytes.length, window))).toString('utf8');
  // unicode.IsSpace: unlike JS \s it does not include the BOM (U+FEFF).
  const trimmed = text.replace(/^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u, '');
  return trimmed.startsWith('{');
}
