// Dialogs as data: a title, lines of text, an optional menu, and buttons. A confirmation
// opens with Cancel focused; its other button is pressed only by moving to it first.
// Rendering is a pure function of the dialog and the screen size.

import { fit, type Painter, type Style, width as textWidth, wrap, wrapWords } from './text.js';

export interface Line {
  text: string;
  styles?: Style[];
  /** File content: cut exactly at the width (prose wraps at words). */
  exact?: boolean;
}

export interface Button {
  label: string;
  /** `cancel` closes and changes nothing; `confirm` runs the dialog's action; `close` just closes. */
  role: 'cancel' | 'confirm' | 'close';
}

export interface MenuItem {
  label: string;
  value: string;
}

export interface Dialog {
  title: string;
  lines: Line[];
  buttons: Button[];
  /** Index of the focused button. */
  focus: number;
  scroll: number;
  menu?: { items: MenuItem[]; index: number };
  /** What the confirm button (or choosing a menu item) does. */
  onConfirm?: (value?: string) => void | Promise<void>;
}

const line = (text: string, ...styles: Style[]): Line => ({ text, styles });
/** A line of file content (bytes to be written): wrapped exactly, never at words. */
const exactLine = (text: string, ...styles: Style[]): Line => ({ text, styles, exact: true });
export { line, exactLine };

/** A confirmation: Cancel first and focused, then the action. */
export function confirmDialog(title: string, lines: Line[], confirmLabel: string, onConfirm: () => void | Promise<void>): Dialog {
  return { title, lines, buttons: [{ label: 'Cancel', role: 'cancel' }, { label: confirmLabel, role: 'confirm' }], focus: 0, scroll: 0, onConfirm };
}

/** Something to read, with one Close button. */
export function messageDialog(title: string, lines: Line[]): Dialog {
  return { title, lines, buttons: [{ label: 'Close', role: 'close' }], focus: 0, scroll: 0 };
}

/**
 * A choice: Up/Down (or a digit) choose, Enter takes the item; the only button is Cancel.
 * It opens on the items (focus -1): choosing changes nothing, a confirmation follows.
 */
export function menuDialog(title: string, lines: Line[], items: MenuItem[], onChoose: (value?: string) => void | Promise<void>): Dialog {
  return { title, lines, buttons: [{ label: 'Cancel', role: 'cancel' }], focus: -1, scroll: 0, menu: { items, index: 0 }, onConfirm: onChoose };
}

export interface DialogBox {
  width: number;
  height: number;
  /** Inner lines (without the border), each exactly width - 2 columns, in blessed tags. */
  lines: string[];
  /** How many body lines there are and how many fit (for the scroll hint and paging). */
  bodyLines: number;
  bodyRoom: number;
}

function buttonText(label: string, focused: boolean): string {
  return focused ? `>[ ${label} ]<` : ` [ ${label} ] `;
}

/** Body lines wrapped to the inner width (menus add their items after the text). */
function bodyOf(d: Dialog, inner: number): { text: string; styles: Style[]; selected?: boolean }[] {
  const out: { text: string; styles: Style[]; selected?: boolean }[] = [];
  for (const l of d.lines) {
    const parts = l.exact ? wrap(l.text, inner - 2, '    ') : wrapWords(l.text, inner - 2, `${/^ */.exec(l.text)![0]}  `);
    for (const w of parts) out.push({ text: ` ${w}`, styles: l.styles ?? [] });
  }
  if (d.menu) {
    if (d.lines.length) out.push({ text: '', styles: [] });
    d.menu.items.forEach((it, i) => {
      const sel = i === d.menu!.index;
      out.push({ text: `${sel ? '> ' : '  '}${i + 1}. ${it.label}`, styles: [], selected: sel });
    });
  }
  return out;
}

export function renderDialog(d: Dialog, cols: number, rows: number, p: Painter): DialogBox {
  const width = Math.max(20, Math.min(cols - 2, 78));
  const inner = width - 2;
  const body = bodyOf(d, inner);
  const height = Math.max(6, Math.min(rows - 1, body.length + 5));
  const room = height - 2 - 2; // border, then a blank line and the buttons
  if (d.menu) {
    // Keep the chosen item in view.
    const at = body.findIndex((b) => b.selected);
    if (at >= 0 && at >= d.scroll + room) d.scroll = at - room + 1;
    if (at >= 0 && at < d.scroll) d.scroll = at;
  }
  d.scroll = Math.max(0, Math.min(d.scroll, Math.max(0, body.length - room)));
  const lines: string[] = [];
  for (let i = 0; i < room; i++) {
    const b = body[d.scroll + i];
    if (!b) {
      lines.push(' '.repeat(inner));
      continue;
    }
    const text = fit(b.text, inner);
    lines.push(b.selected ? p.paint(text, 'inverse') : p.paint(text, ...b.styles));
  }
  const more = body.length > room ? ` ${d.scroll + 1}-${Math.min(body.length, d.scroll + room)}/${body.length} (Up/Down) ` : '';
  lines.push(p.paint(fit(more ? more.padStart(inner) : '', inner), 'dim'));
  const buttons = d.buttons.map((b, i) => ({ text: buttonText(b.label, i === d.focus), focused: i === d.focus }));
  const total = buttons.reduce((n, b) => n + textWidth(b.text) + 2, 0);
  const pad = Math.max(0, Math.floor((inner - total) / 2));
  let row = ' '.repeat(pad);
  let used = pad;
  for (const b of buttons) {
    const t = `${b.text}  `;
    if (used + textWidth(t) > inner) break;
    row += b.focused ? p.paint(b.text, 'inverse', 'bold') + '  ' : p.paint(t);
    used += textWidth(t);
  }
  lines.push(row + ' '.repeat(Math.max(0, inner - used)));
  return { width, height, lines, bodyLines: body.length, bodyRoom: room };
}
