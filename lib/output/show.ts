// Text rendering of `show`: JSON payloads re-indented, YAML as written, binary refused.

import type { ShowReport } from '../store/show.js';
import { jsonText, type TextContext } from './print.js';
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
export function fieldText(v: FieldValue): string {
  if (!v.set) return '';
  return typeof v.value === 'string' ? v.value : jsonText(v.value);
}

export function renderField(v: FieldValue, ctx: TextContext): string {
  if (!v.set) return ctx.quiet ? '' : `# ${v.field} is not set in ${v.ref} (the kubelet uses its default)`;
  return fieldText(v);
}

export function renderFieldList(r: { items: FieldValue[] }, _ctx: TextContext): string {
  return r.items.map((v) => `${v.ref}\t${v.set ? fieldText(v) : '(not set)'}`).join('\n');
}
