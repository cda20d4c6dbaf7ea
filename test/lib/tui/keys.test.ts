import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { KEYS, bindingsFor, footerItems, helpLines, lookup, manKeys, normaliseKey, typedText } from '../../../lib/tui/keys.js';
import { repoRoot } from '../../helpers.js';

t.test('the table: one binding per key and scope; the dangerous ones are exactly the recovery actions', async (t) => {
  for (const scope of ['global', 'list', 'content', 'dialog', 'filter'] as const) {
    const keys = KEYS.filter((x) => x.scope === scope).flatMap((x) => x.keys);
    t.same(keys.filter((k, i) => keys.indexOf(k) !== i), [], `no key bound twice in ${scope}`);
  }
  t.same(KEYS.filter((x) => x.dangerous).map((x) => x.action).sort(), ['prune', 'reset', 'rollback', 'undo']);
  for (const x of KEYS) t.ok(x.help.length > 3 && x.key.length > 0, `${x.key} has help`);
  // The keys are all there.
  for (const k of ['up', 'down', 'j', 'k', 'enter', 'tab', '1', '2', '3', '4', '5', '/', 'm', 'v', 'r', 'b', 'u', 'p', 'R', 'q', '?']) {
    t.ok(lookup(KEYS, k, 'list'), `${k} is bound in the list`);
  }
});

t.test('read-only: every dangerous binding is gone, from handling, footer and help', async (t) => {
  const ro = bindingsFor(true);
  t.notOk(ro.some((x) => x.dangerous));
  for (const k of ['r', 'b', 'u', 'p']) t.equal(lookup(ro, k, 'list'), null, `${k} does nothing`);
  t.equal(lookup(bindingsFor(false), 'b', 'list')?.action, 'rollback');
  const footer = footerItems(ro, 200).map((x) => x.label);
  t.notOk(footer.some((l) => ['rollback', 'reset', 'undo', 'prune'].includes(l)));
  const help = helpLines(ro, true).flatMap((g) => g.rows.map((r) => r.help)).join('\n');
  t.notMatch(help, /^rollback:/m);
  t.match(help, /not bound \(--read-only\)/);
});

t.test('lookup: the scope first, then global; dialogs and the filter prompt see only their own', async (t) => {
  t.equal(lookup(KEYS, 'j', 'list')?.help, 'select the next checkpoint');
  t.equal(lookup(KEYS, 'j', 'content')?.help, 'scroll the tab a line');
  t.equal(lookup(KEYS, 'enter', 'dialog')?.action, 'press');
  t.equal(lookup(KEYS, 'b', 'dialog'), null, 'no rollback from inside a dialog');
  t.equal(lookup(KEYS, 'q', 'filter'), null, 'q is a letter while typing a filter');
  t.equal(lookup(KEYS, 'escape', 'filter')?.action, 'cancel');
});

t.test('normaliseKey', async (t) => {
  const table: [string | undefined, Record<string, unknown> | undefined, string | null][] = [
    ['R', { name: 'r', full: 'S-r', shift: true }, 'R'],
    ['?', { full: '?' }, '?'],
    ['\r', { name: 'enter', full: 'enter' }, 'enter'],
    ['\r', { name: 'return', full: 'return' }, null],
    ['\t', { name: 'tab', full: 'tab' }, 'tab'],
    [undefined, { name: 'tab', full: 'S-tab', shift: true }, 'S-tab'],
    [undefined, { name: 'up', full: 'up' }, 'up'],
    ['\u0003', { name: 'c', full: 'C-c', ctrl: true }, 'C-c'],
    ['\u001b', { name: 'escape', full: 'escape' }, 'escape'],
    ['\u007f', { name: 'backspace', full: 'backspace' }, 'backspace'],
    ['1', { full: '1' }, '1'],
  ];
  for (const [ch, key, want] of table) t.equal(normaliseKey(ch, key), want, JSON.stringify([ch, key]));
});

t.test('typedText: the space bar types a space in the filter and the search; named keys type nothing', async (t) => {
  t.equal(normaliseKey(' ', { name: 'space', full: 'space' }), 'space', 'blessed names it');
  t.equal(typedText(normaliseKey(' ', { name: 'space', full: 'space' })!), ' ');
  t.equal(typedText('a'), 'a');
  t.equal(typedText('-'), '-');
  for (const k of ['enter', 'escape', 'backspace', 'tab', 'S-tab', 'up', 'C-c']) t.equal(typedText(k), null, k);
  t.equal(lookup(KEYS, 'space', 'list'), null, 'the space bar is bound to nothing elsewhere');
});

t.test('footer: built from the table, fits the width, quit and help first', async (t) => {
  for (const cols of [40, 60, 80, 120]) {
    const items = footerItems(bindingsFor(false), cols);
    const w = items.reduce((n, it, i) => n + (i ? 2 : 0) + it.key.length + 1 + it.label.length, 0);
    t.ok(w <= cols, `${cols} columns: ${w}`);
    t.same(items.slice(0, 2).map((x) => x.label), ['help', 'quit']);
  }
  t.same(footerItems(bindingsFor(false), 80).map((x) => `${x.key} ${x.label}`), ['? help', 'q quit', 'Tab tabs', '/ filter', 'm mark', 'b rollback', 'r reset', 'u undo', 'p prune']);
});

t.test('the man page KEYS section is the key table', async (t) => {
  const md = fs.readFileSync(path.join(repoRoot, 'man/kubelet-ckpt-tui.md'), 'utf8');
  const m = /\n## KEYS\n\n([\s\S]*?)\n\n## /.exec(md);
  t.ok(m, 'man/kubelet-ckpt-tui.md has a KEYS section');
  t.equal(m?.[1], manKeys(), 'regenerate with: node -e "import(\'./build/lib/tui/keys.js\').then((m) => console.log(m.manKeys()))"');
  for (const x of KEYS) t.ok(manKeys().includes(x.key.split(', ').map((k) => `\`${k}\``).join(', ')), `${x.key} is in the man page`);
});
