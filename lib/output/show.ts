// Text rendering of `show`: JSON payloads re-indented, YAML as written, binary refused.

import type { ShowReport } from '../store/show.js';
import { jsonText, printsContent, sanitizesItself, type TextContext } from './print.js';
import { printable } from './sanitize.js';
import type { FieldValue } from '../diff/field.js';
import { parseGoJson } from '../config/json.js';
import type { JNode } from '../config/jnode.js';
import { escapeJsonRest, quote } from '../diff/path.js';

export function renderShow(r: ShowReport, _ctx: TextContext): string {
  if (r.text === null) return `# ${r.path}: ${r.size} bytes of binary (not UTF-8) content; use --raw to print the bytes`;
  if (r.size === 0) return `# ${r.path} is empty${r.refKind === 'meta' ? ' (the kubelet reads this as: use the local config)' : ''}`;
  if (/^\s*[{[]/.test(r.text)) {
    const parsed = parseGoJson(Buffer.from(r.text));
    if (parsed.ok) {
      try {
        return indentJson(parsed.value);
      } catch {
        /* nested too deeply to re-indent: print as written */
      }
    }
  }
  return r.text.replace(/\n$/, '');
}

/**
 * A JSON payload re-indented from its parse, each number as written (JSON.parse and stringify
 * turned 9007199254740993 into …992, 1.0 into 1 and 1e2 into 100: found by review) and every
 * member kept, repeated ones too; strings quoted with every character a terminal must not see
 * escaped (the text was made printable, but a "\u202e" in it is a bidi control once parsed).
 */
function indentJson(root: JNode): string {
  const out: string[] = [];
  const walk = (n: JNode, pad: string, depth: number): void => {
    if (depth > 512) throw new RangeError('nested too deeply');
    switch (n.t) {
      case 'null': out.push('null'); return;
      case 'bool': out.push(String(n.v)); return;
      case 'num': out.push(n.s); return;
      case 'str': out.push(quote(n.v)); return;
      case 'arr':
        if (!n.items.length) return void out.push('[]');
        out.push('[');
        n.items.forEach((item, i) => {
          out.push(`\n${pad}  `);
          walk(item, `${pad}  `, depth + 1);
          if (i < n.items.length - 1) out.push(',');
        });
        out.push(`\n${pad}]`);
        return;
      case 'obj':
        if (!n.entries.length) return void out.push('{}');
        out.push('{');
        n.entries.forEach(([k, v], i) => {
          out.push(`\n${pad}  ${quote(k)}: `);
          walk(v, `${pad}  `, depth + 1);
          if (i < n.entries.length - 1) out.push(',');
        });
        out.push(`\n${pad}}`);
    }
  };
  walk(root, '', 0);
  return out.join('');
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
  return typeof v.value === 'string' ? printable(v.value) : escapeJsonRest(jsonText(v.value));
}

export const renderField = sanitizesItself((v: FieldValue, ctx: TextContext): string => {
  if (!v.set) return ctx.quiet ? '' : `# ${printable(v.field)} is not set in ${printable(v.ref)} (the kubelet uses its default)`;
  return fieldText(v);
});

export const renderFieldList = sanitizesItself((r: { items: FieldValue[] }, _ctx: TextContext): string => {
  return r.items.map((v) => `${printable(v.ref)}\t${v.set ? fieldText(v) : '(not set)'}`).join('\n');
});


// A payload's text is shown as it is.
printsContent(renderShow);
printsContent(renderShowList);
