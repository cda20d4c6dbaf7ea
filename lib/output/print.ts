// One printer per format behind one `print`: text for people, JSON and YAML for scripts.

import { withSelf } from './self.js';
import { jsYaml } from '../config/js-yaml.js';
import { palette, type Palette, type Streams } from './streams.js';
import { sanitizeDeep } from './sanitize.js';
import { documentOf, type Kind } from './document.js';

export type Format = 'text' | 'json' | 'yaml';
export const FORMATS: readonly Format[] = ['text', 'json', 'yaml'];

export interface TextContext {
  p: Palette;
  width: number;
  verbose: boolean;
  quiet: boolean;
  /** stdout is a terminal: long lines are folded to `width`; off a terminal they stay whole. */
  tty?: boolean;
  /** `kubelet-ckpt` with the options that chose the store, for a command a renderer suggests itself (self.ts). */
  self?: string;
}

export type TextRenderer<T> = (result: T, ctx: TextContext) => string;

/**
 * Renderers given the result as it is, not a sanitized copy: each passes every string that came
 * from outside through `printable` itself, as its last step. For results too large to copy
 * twice (a journal's 20,000 events and their processes: ~80 ms of `sanitizeDeep`), and so
 * that what the renderer does to a message (fold its lines with ⏎) sees the message itself.
 */
const SANITIZES_ITSELF = new WeakSet<object>();
/** Renderers whose text is a file's content (show, export): printed exactly, no suggestion rewritten in it. */
const CONTENT = new WeakSet<object>();
export function printsContent<T>(render: TextRenderer<T>): TextRenderer<T> {
  CONTENT.add(render);
  return render;
}

export function sanitizesItself<T>(render: TextRenderer<T>): TextRenderer<T> {
  SANITIZES_ITSELF.add(render);
  return render;
}

/**
 * A bigint (an int64 past 2^53 in a config: lib/config/gostrconv.ts goIntValue) goes through
 * JSON.stringify, which refuses bigints, as a marker string, then is written as its digits.
 * The marker holds a random part, so no string of a payload can pass for one.
 */
const BIG = `kckpt-int-${Math.random().toString(36).slice(2, 12)}-`;
const BIG_IN_JSON = new RegExp(`"${BIG}(-?[0-9]+)"`, 'g');
const BIG_IN_YAML = new RegExp(`(['"]?)${BIG}(-?[0-9]+)\\1`, 'g');

/** Drop fields that are for text mode only (`bytes`), turn Buffers into nothing, mark bigints. */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${BIG}${value}`;
  if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) return undefined;
  return value;
}

/** JSON.stringify that writes a bigint as the number it is. */
export function jsonText(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, jsonReplacer, indent);
  return text !== undefined && text.includes(BIG) ? text.replace(BIG_IN_JSON, '$1') : text;
}

export function toJson(result: unknown, compact = false): string {
  return `${jsonText(result, compact ? undefined : 2)}\n`;
}

export function toYaml(result: unknown): string {
  const plainData = JSON.parse(JSON.stringify(result, jsonReplacer)) as unknown;
  const text = jsYaml().dump(plainData, { noRefs: true, lineWidth: -1, sortKeys: false });
  return text.includes(BIG) ? text.replace(BIG_IN_YAML, '$2') : text;
}

/** Fields holding text of several lines (a payload, a meta file's bytes before and after a change, migrate's diffs and refusals). */
const BLOCK_KEYS = ['text', 'before', 'after', 'diff', 'wouldRefuse'];

export interface PrintOptions {
  format: Format;
  /** The document's kind under json/yaml (lib/output/document.ts). */
  kind: Kind | string;
  verbose?: boolean;
  quiet?: boolean;
  /** JSON on one line (a stream of documents, e.g. `status --watch -o json`). */
  compact?: boolean;
  /** `kubelet-ckpt` with the options that chose the store: suggested commands in the text get them (self.ts). */
  self?: string;
}

/** What print does to a result before a renderer sees it (a renderer that sanitizes itself may call it on parts). */
export function sanitizeForText<T>(result: T, self?: string): T {
  const map = self && self !== 'kubelet-ckpt' ? (s: string) => withSelf(s, self) : undefined;
  return sanitizeDeep(result, { block: BLOCK_KEYS, exact: ['unified', 'bytes'], map, keep: CONTENT_KEYS });
}

/** Keys whose strings are a file's content or a side of a change: no suggestion is rewritten in them. */
const CONTENT_KEYS = ['text', 'before', 'after', 'diff'];

/**
 * A value sanitizeDeep passes through untouched (it is no plain object): for a renderer that
 * quotes values itself (JSON.stringify, diff's quote), whose escaping printable's would double.
 */
export class Verbatim<T> {
  constructor(readonly value: T) {}
}

export function print<T>(result: T, text: TextRenderer<T>, streams: Streams, opts: PrintOptions): void {
  if (opts.format === 'json') streams.stdout.write(toJson(documentOf(result as object, opts.kind), opts.compact));
  else if (opts.format === 'yaml') streams.stdout.write(toYaml(documentOf(result as object, opts.kind)));
  else {
    // Every string a renderer sees is already safe for a terminal (lib/output/sanitize.ts);
    // a unified diff's lines are the diff renderer's to sanitize (exact when piped into a patch).
    // Suggested commands get the store's options in the data, before a renderer folds lines (self.ts).
    const self = CONTENT.has(text) ? undefined : opts.self;
    const safe = SANITIZES_ITSELF.has(text) ? result : sanitizeForText(result, self);
    const out = text(safe, { p: palette(streams.color), width: streams.width, verbose: !!opts.verbose, quiet: !!opts.quiet, tty: streams.isTTY, ...(self ? { self } : {}) });
    if (out) streams.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
  }
}
