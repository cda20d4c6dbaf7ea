// The key table: one list of {key, help, action, dangerous} that drives the key handling,
// the footer, the `?` help screen and the KEYS section of kubelet-ckpt-tui(1). Read-only
// mode drops every dangerous binding, so those keys do nothing at all.

/** Where a binding applies: the checkpoint list, the content pane, a dialog, the filter prompt, or everywhere. */
export type Scope = 'global' | 'list' | 'content' | 'dialog' | 'filter' | 'search';

/** What a key does; where one action serves several keys (Up and Down), the key decides the direction. */
export type Action =
  | 'quit'
  | 'help'
  | 'move'
  | 'page'
  | 'jump'
  | 'focus'
  | 'focus-content'
  | 'back'
  | 'cycle-tab'
  | 'tab'
  | 'filter'
  | 'mark'
  | 'toggle'
  | 'verify'
  | 'reload'
  | 'reset'
  | 'rollback'
  | 'undo'
  | 'prune'
  | 'button'
  | 'press'
  | 'cancel'
  | 'accept'
  | 'erase'
  | 'search'
  | 'search-next';

export interface Binding {
  /** The key as people read it (footer, help, man page). */
  key: string;
  /** Normalised key names that trigger it (see normaliseKey). */
  keys: readonly string[];
  help: string;
  action: Action;
  /** Changes files on disk: absent in --read-only mode. */
  dangerous: boolean;
  scope: Scope;
  /** Short label for the footer; bindings without one are listed only by `?`. */
  footer?: string;
}

const b = (scope: Scope, key: string, keys: string[], action: Action, help: string, extra: { dangerous?: boolean; footer?: string } = {}): Binding => ({
  key,
  keys,
  help,
  action,
  dangerous: extra.dangerous ?? false,
  scope,
  ...(extra.footer ? { footer: extra.footer } : {}),
});

export const KEYS: readonly Binding[] = [
  b('list', 'Up, k', ['up', 'k'], 'move', 'select the previous checkpoint'),
  b('list', 'Down, j', ['down', 'j'], 'move', 'select the next checkpoint'),
  b('list', 'PgUp, PgDn', ['pageup', 'pagedown'], 'page', 'move the selection a page up or down'),
  b('list', 'Home, g, End, G', ['home', 'g', 'end', 'G'], 'jump', 'select the first or the last checkpoint'),
  b('list', 'Right, l', ['right', 'l'], 'focus-content', 'move into the tab to scroll it'),
  b('content', 'Up, k, Down, j', ['up', 'k', 'down', 'j'], 'move', 'scroll the tab a line'),
  b('content', 'PgUp, PgDn', ['pageup', 'pagedown'], 'page', 'scroll the tab a page'),
  b('content', 'Home, g, End, G', ['home', 'g', 'end', 'G'], 'jump', 'scroll to the top or the bottom'),
  b('content', 'Left, h', ['left', 'h'], 'back', 'back to the checkpoint list'),
  b('content', '/', ['/'], 'search', 'search this tab (payload, diff, findings, timeline, meta): jump to the first line holding the text'),
  b('content', 'n, N', ['n', 'N'], 'search-next', 'the next or the previous line holding the searched text'),
  b('global', '?', ['?'], 'help', 'this help', { footer: 'help' }),
  b('global', 'q, C-c', ['q', 'C-c'], 'quit', 'quit', { footer: 'quit' }),
  b('global', 'Tab, S-Tab', ['tab', 'S-tab'], 'cycle-tab', 'next or previous tab', { footer: 'tabs' }),
  b('global', '/', ['/'], 'filter', 'filter the checkpoints (words, uid:, rv:, name:, is:error|warning|ok|assigned|lkg|boot|marked, -negated)', { footer: 'filter' }),
  b('global', 'm', ['m'], 'mark', 'mark the selection (or unmark it): the Diff tab compares against the marked checkpoint', { footer: 'mark' }),
  b('global', 'b', ['b'], 'rollback', 'rollback: assigned := last-known-good (plan, confirm, apply)', { dangerous: true, footer: 'rollback' }),
  b('global', 'r', ['r'], 'reset', 'reset menu: point assigned, last-known-good or both at local or at the selection', { dangerous: true, footer: 'reset' }),
  b('global', 'u', ['u'], 'undo', 'undo: restore the meta files from the latest backup', { dangerous: true, footer: 'undo' }),
  b('global', 'p', ['p'], 'prune', 'prune: remove unreferenced checkpoints (the dry run is shown first)', { dangerous: true, footer: 'prune' }),
  b('global', 'R', ['R'], 'reload', 're-read the store and the journal', { footer: 'reload' }),
  b('global', 'v', ['v'], 'verify', 're-read the store and verify every checkpoint again', { footer: 'verify' }),
  b('global', 't', ['t'], 'toggle', 'Payload: pretty YAML or the raw bytes; Diff: semantic or unified; Timeline: the selection or the whole store'),
  b('global', '1-5', ['1', '2', '3', '4', '5'], 'tab', 'tab 1 Payload, 2 Diff, 3 Findings, 4 Timeline, 5 Meta'),
  b('global', 'Enter', ['enter'], 'focus', 'switch between the checkpoint list and the tab (to scroll it)'),
  b('global', 'Esc', ['escape'], 'back', 'clear the filter, or go back to the list'),
  b('dialog', 'Tab, Left, Right', ['tab', 'S-tab', 'left', 'right', 'h', 'l'], 'button', 'move between the buttons (a confirmation opens on Cancel)'),
  b('dialog', 'Enter', ['enter'], 'press', 'press the focused button'),
  b('dialog', 'Up, Down, PgUp, PgDn', ['up', 'down', 'k', 'j', 'pageup', 'pagedown'], 'move', 'scroll the dialog, or choose in a menu'),
  b('dialog', 'Esc, q', ['escape', 'q'], 'cancel', 'cancel: close the dialog and change nothing'),
  b('filter', 'Enter', ['enter'], 'accept', 'keep the filter and go back to the list'),
  b('filter', 'Esc', ['escape'], 'cancel', 'drop the filter'),
  b('filter', 'Backspace', ['backspace'], 'erase', 'delete the last character'),
  b('search', 'Enter', ['enter'], 'accept', 'keep the search (n and N move between the lines found)'),
  b('search', 'Esc', ['escape'], 'cancel', 'drop the search'),
  b('search', 'Backspace', ['backspace'], 'erase', 'delete the last character'),
];

/** The table in effect: read-only mode has no dangerous binding at all. */
export function bindingsFor(readOnly: boolean): Binding[] {
  return KEYS.filter((x) => !(readOnly && x.dangerous));
}

/** The binding for a normalised key in a scope (the scope's own bindings first, then global ones). */
export function lookup(bindings: readonly Binding[], key: string, scope: Scope): Binding | null {
  const own = bindings.find((x) => x.scope === scope && x.keys.includes(key));
  if (own) return own;
  if (scope === 'dialog' || scope === 'filter' || scope === 'search') return null;
  return bindings.find((x) => x.scope === 'global' && x.keys.includes(key)) ?? null;
}

export interface RawKey {
  name?: string | undefined;
  full?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
}

/**
 * One name per key press: a printable character is itself (`R`, `?`, `1`); anything else is
 * blessed's full name (`up`, `S-tab`, `C-c`, `escape`). Blessed reports Return twice (`enter`
 * and `return`): only `enter` counts.
 */
export function normaliseKey(ch: string | undefined, key: RawKey | undefined): string | null {
  const full = key?.full ?? key?.name;
  if (full === 'return') return null;
  if (full === 'enter' || full === 'tab' || full === 'S-tab' || full === 'escape' || full === 'backspace' || full === 'space') return full;
  if (ch && ch.length === 1 && ch >= ' ' && ch !== '\u007f' && !key?.ctrl && !key?.meta) return ch;
  return full ?? null;
}

/**
 * The character a key types into the filter or the search prompt, or null for a key that types
 * nothing. normaliseKey names the space bar `space` (like the other named keys), so it is mapped
 * back here: without it, `is:error -rv:1` could not be typed.
 */
export function typedText(k: string): string | null {
  if (k === 'space') return ' ';
  return k.length === 1 ? k : null;
}

/** The footer: the footer labels of the table, in table order, as many as fit in `cols` columns. */
export function footerItems(bindings: readonly Binding[], cols: number): { key: string; label: string }[] {
  const out: { key: string; label: string }[] = [];
  let used = 0;
  for (const x of bindings) {
    if (!x.footer) continue;
    const item = { key: x.key.split(', ')[0]!, label: x.footer };
    const w = (out.length ? 2 : 0) + item.key.length + 1 + item.label.length;
    if (used + w > cols) break;
    out.push(item);
    used += w;
  }
  return out;
}

const SCOPE_TITLES: Record<Scope, string> = {
  list: 'In the checkpoint list',
  content: 'In a tab (after Enter or Right)',
  global: 'Anywhere',
  dialog: 'In a dialog',
  filter: 'While typing a filter',
  search: 'While typing a search (/ in a tab)',
};
const SCOPE_ORDER: Scope[] = ['global', 'list', 'content', 'dialog', 'filter', 'search'];

/** The `?` screen: every binding in effect, grouped by where it applies. */
export function helpLines(bindings: readonly Binding[], readOnly: boolean): { title: string; rows: { key: string; help: string }[] }[] {
  const groups = SCOPE_ORDER.map((scope) => ({ title: SCOPE_TITLES[scope], rows: bindings.filter((x) => x.scope === scope).map((x) => ({ key: x.key, help: x.help })) })).filter((g) => g.rows.length);
  if (readOnly) groups.push({ title: 'Read-only mode', rows: [{ key: '', help: 'reset, rollback, undo and prune are not bound (--read-only)' }] });
  return groups;
}

/** The KEYS section of man/kubelet-ckpt-tui.md, generated from the table (a test keeps them equal). */
export function manKeys(): string {
  const out: string[] = [];
  for (const scope of SCOPE_ORDER) {
    const rows = KEYS.filter((x) => x.scope === scope);
    out.push(`### ${SCOPE_TITLES[scope]}`, '');
    for (const x of rows) {
      const keys = x.key.split(', ').map((k) => `\`${k}\``).join(', ');
      out.push(`* ${keys}:`, `  ${x.help[0]!.toUpperCase()}${x.help.slice(1)}.${x.dangerous ? ' Not bound with `--read-only`.' : ''}`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}
