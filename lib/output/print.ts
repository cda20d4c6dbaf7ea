// One printer per format behind one `print`: text for people, JSON and YAML for scripts.

import * as yaml from 'js-yaml';
import { palette, type Palette, type Streams } from './streams.js';

export type Format = 'text' | 'json' | 'yaml';
export const FORMATS: readonly Format[] = ['text', 'json', 'yaml'];

export interface TextContext {
  p: Palette;
  width: number;
  verbose: boolean;
  quiet: boolean;
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
  return yaml.dump(plainData, { noRefs: true, lineWidth: -1, sortKeys: false });
}

export interface PrintOptions {
  format: Format;
  verbose?: boolean;
  quiet?: boolean;
  /** JSON on one line (a stream of documents, e.g. `status --watch -o json`). */
  compact?: boolean;
}

export function print<T>(result: T, text: TextRenderer<T>, streams: Streams, opts: PrintOptions): void {
  if (opts.format === 'json') streams.stdout.write(toJson(result, opts.compact));
  else if (opts.format === 'yaml') streams.stdout.write(toYaml(result));
  else {
    const out = text(result, { p: palette(streams.color), width: streams.width, verbose: !!opts.verbose, quiet: !!opts.quiet });
    if (out) streams.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
  }
}
