// One printer per format behind one `print`: text for people, JSON and YAML for scripts.

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
}

export type TextRenderer<T> = (result: T, ctx: TextContext) => string;

/** Drop fields that are for text mode only (`bytes`) and turn Buffers into nothing. */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) return undefined;
  return value;
}

export function toJson(result: unknown, compact = false): string {
  return `${JSON.stringify(result, jsonReplacer, compact ? undefined : 2)}\n`;
}

export function toYaml(result: unknown): string {
  const plainData = JSON.parse(JSON.stringify(result, jsonReplacer)) as unknown;
  return jsYaml().dump(plainData, { noRefs: true, lineWidth: -1, sortKeys: false });
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
}

export function print<T>(result: T, text: TextRenderer<T>, streams: Streams, opts: PrintOptions): void {
  if (opts.format === 'json') streams.stdout.write(toJson(documentOf(result as object, opts.kind), opts.compact));
  else if (opts.format === 'yaml') streams.stdout.write(toYaml(documentOf(result as object, opts.kind)));
  else {
    // Every string a renderer sees is already safe for a terminal (lib/output/sanitize.ts);
    // a unified diff's lines are the diff renderer's to sanitize (exact when piped into a patch).
    const safe = sanitizeDeep(result, { block: BLOCK_KEYS, exact: ['unified', 'bytes'] });
    const out = text(safe, { p: palette(streams.color), width: streams.width, verbose: !!opts.verbose, quiet: !!opts.quiet, tty: streams.isTTY });
    if (out) streams.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
  }
}
