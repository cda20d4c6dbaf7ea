// Text rendering of `show`: JSON payloads re-indented, YAML as written, binary refused.

import type { ShowReport } from '../store/show.js';
import { jsonText, sanitizesItself, type TextContext } from './print.js';
import { printable } from './sanitize.js';
import type { FieldValue } from '../diff/field.js';

export function renderShow(r: ShowReport, _ctx: TextContext): string {
  if (r.text === null) return `# ${r.path}: ${r.size} bytes of binary (not UTF-8) content; use --raw to print the bytes`;
  if (r.size === 0) return `# ${r.path} is empty${r.refKind === 'meta' ? ' (the kubelet reads this as: use the local config)' : ''}`;
  if (/^\s*[{[]/.test(r.text)) {
    try {
      return JSON.stringify(JSON.parse(r.text), null, 2);
    } catch {
      /* not JSON after all: print as written */
    }
  }
  return r.text.replace(/\n$/, '');
}

/** Several refs: each under a header naming it, as `head` does with several files. */
export function renderShowList(r: { items: ShowReport[] }, ctx: TextContext): string {
  return r.items.map((x) => `==> ${x.ref} (${x.path}) <==\n${renderShow(x, ctx)}`).join('\n\n');
}

/** One value as a script wants it: a string bare, anything else as JSON; nothing when unset. */
/**
 * A field's value for text output, from the raw value: a string made printable, anything else as
 * JSON with what JSON.stringify leaves (DEL, C1, bidi controls, LS/PS) escaped too. Printable
 * first and JSON after escaped twice: a list holding ESC printed as "a\\x1bb" (found by review).
 */
export function fieldText(v: FieldValue): string {
  if (!v.set) return '';
  return typeof v.value === 'string' ? printable(v.value) : quoteRest(jsonText(v.value));
}

export const renderField = sanitizesItself((v: FieldValue, ctx: TextContext): string => {
  if (!v.set) return ctx.quiet ? '' : `# ${printable(v.field)} is not set in ${printable(v.ref)} (the kubelet uses its default)`;
  return fieldText(v);
});

export const renderFieldList = sanitizesItself((r: { items: FieldValue[] }, _ctx: TextContext): string => {
  return r.items.map((v) => `${printable(v.ref)}\t${v.set ? fieldText(v) : '(not set)'}`).join('\n');
});

function quoteRest(json: string): string {
  return json.replace(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
