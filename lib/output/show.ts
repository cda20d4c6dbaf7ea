// Text rendering of `show`: JSON payloads re-indented, YAML as written, binary refused.

import type { ShowReport } from '../store/show.js';
import type { TextContext } from './print.js';

export function renderShow(r: ShowReport, _ctx: TextContext): string {
  if (r.text === null) return `# ${r.path}: ${r.size} bytes of binary (not UTF-8) content; use --raw to print the bytes`;
  if (r.size === 0) return `# ${r.path} is empty${r.kind === 'meta' ? ' (the kubelet reads this as: use the local config)' : ''}`;
  if (/^\s*[{[]/.test(r.text)) {
    try {
      return JSON.stringify(JSON.parse(r.text), null, 2);
    } catch {
      /* not JSON after all: print as written */
    }
  }
  return r.text.replace(/\n$/, '');
}
