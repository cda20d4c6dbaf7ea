// Text for the terminal UI: everything shown comes from disk (names, payloads, log lines)
// and is hostile until made printable; widths are counted in terminal columns; styling is
// blessed's tag syntax, applied only to text that has already been escaped.

// The one sanitizer for all human output lives in lib/output/sanitize.ts; the TUI uses it too.
export { printable } from '../output/sanitize.js';

/** Blessed tags use `{…}`: escape both braces so disk content is never read as markup. */
export function escapeTags(s: string): string {
  return s.replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'));
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

function isZeroWidth(cp: number): boolean {
  return (cp >= 0x300 && cp <= 0x36f) || cp === 0x200b || cp === 0x200c || cp === 0x200d || cp === 0xfeff || (cp >= 0xfe00 && cp <= 0xfe0f);
}

export function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Terminal columns of plain (untagged, printable) text. */
export function width(s: string): number {
  // Fast path: ASCII.
  // eslint-disable-next-line no-control-regex
  if (/^[\x20-\x7e]*$/.test(s)) return s.length;
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

/** At most `cols` columns; cut text ends in `…`. */
export function clip(s: string, cols: number): string {
  if (cols <= 0) return '';
  if (width(s) <= cols) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch);
    if (w + cw > cols - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/** Clip, then pad with spaces to exactly `cols` columns. */
export function fit(s: string, cols: number): string {
  const c = clip(s, cols);
  return c + ' '.repeat(Math.max(0, cols - width(c)));
}

/** Hard-wrap one line at `cols` columns (continuation lines start with `indent`). */
export function wrap(s: string, cols: number, indent = ''): string[] {
  if (cols <= 0) return [s];
  if (width(s) <= cols) return [s];
  const out: string[] = [];
  let cur = '';
  let w = 0;
  const room = () => (out.length === 0 ? cols : Math.max(1, cols - width(indent)));
  for (const ch of s) {
    const cw = charWidth(ch);
    if (w + cw > room()) {
      out.push(out.length === 0 ? cur : indent + cur);
      cur = '';
      w = 0;
    }
    cur += ch;
    w += cw;
  }
  if (cur !== '' || out.length === 0) out.push(out.length === 0 ? cur : indent + cur);
  return out;
}

/** Word-wrap prose at `cols` (runs of spaces inside a line are kept; long words are hard-wrapped). */
export function wrapWords(s: string, cols: number, indent = ''): string[] {
  if (width(s) <= cols) return [s];
  const first = /^ */.exec(s)![0];
  // [word, gap, word, gap, …]
  const parts = s.slice(first.length).split(/( +)/);
  const out: string[] = [];
  const lead = () => (out.length === 0 ? first : indent);
  let cur = '';
  for (let i = 0; i < parts.length; i += 2) {
    const word = parts[i]!;
    const gap = i > 0 ? parts[i - 1]! : '';
    if (word === '') continue;
    const candidate = cur === '' ? word : `${cur}${gap}${word}`;
    if (width(lead() + candidate) <= cols) {
      cur = candidate;
      continue;
    }
    if (cur !== '') out.push(lead() + cur);
    cur = '';
    const room = Math.max(1, cols - width(lead()));
    if (width(word) > room) {
      const pieces = wrap(word, room);
      for (const p of pieces.slice(0, -1)) out.push(lead() + p);
      cur = pieces[pieces.length - 1]!;
    } else cur = word;
  }
  if (cur !== '' || out.length === 0) out.push(lead() + cur);
  return out;
}

export type Style = 'bold' | 'inverse' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'underline';

/** Styles for one screen: with colour off, colours vanish and only bold / inverse / underline remain. */
export interface Painter {
  color: boolean;
  /** Escape `s` and wrap it in the tags of `styles`. */
  paint(s: string, ...styles: Style[]): string;
}

const TAG: Record<Style, string> = {
  bold: 'bold',
  inverse: 'inverse',
  underline: 'underline',
  dim: 'gray-fg',
  red: 'red-fg',
  green: 'green-fg',
  yellow: 'yellow-fg',
  cyan: 'cyan-fg',
};
const COLOURS = new Set<Style>(['dim', 'red', 'green', 'yellow', 'cyan']);

/**
 * `colors`: how many the terminal has. Below 16, blessed draws gray as colour 0, black, which
 * vanishes on a dark background (found by review: the console's TERM=linux and PuTTY's
 * xterm hid "backed up first" in the recovery dialogs); dim text is then drawn plain.
 */
export function painter(color: boolean, colors = 256): Painter {
  const shown = (st: Style) => (color || !COLOURS.has(st)) && (st !== 'dim' || colors >= 16);
  return {
    color,
    paint(s, ...styles) {
      const e = escapeTags(s);
      const used = styles.filter(shown);
      if (!used.length || s === '') return e;
      return used.map((st) => `{${TAG[st]}}`).join('') + e + used.map((st) => `{/${TAG[st]}}`).reverse().join('');
    },
  };
}

/** Plain text of a tagged line (for tests and width checks). */
export function untag(s: string): string {
  return s.replace(/\{(\/?[a-z-]+|open|close)\}/g, (m, name: string) => (name === 'open' ? '{' : name === 'close' ? '}' : ''));
}
