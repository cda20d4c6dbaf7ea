import t from 'tap';
import { confirmDialog, line, menuDialog, messageDialog, renderDialog } from '../../../lib/tui/dialog.js';
import { painter, untag } from '../../../lib/tui/text.js';

const p = painter(false);

t.test('a confirmation opens with Cancel focused, the action second', async (t) => {
  let ran = 0;
  const d = confirmDialog('rollback', [line('meta/assigned')], 'Roll back', () => void ran++);
  t.same(d.buttons.map((b) => b.role), ['cancel', 'confirm']);
  t.equal(d.focus, 0);
  const box = renderDialog(d, 80, 24, p);
  const buttons = untag(box.lines[box.lines.length - 1]!);
  t.match(buttons, />\[ Cancel \]< +\[ Roll back \]/);
  t.equal(ran, 0);
});

t.test('renderDialog: fits the screen, exact inner width, scrolls long bodies', async (t) => {
  const lines = Array.from({ length: 60 }, (_, i) => line(`line ${i}`));
  for (const [cols, rows] of [[80, 24], [60, 15], [120, 50]] as const) {
    const d = messageDialog('x', lines);
    const box = renderDialog(d, cols, rows, p);
    t.ok(box.width <= cols && box.height <= rows, `${cols}x${rows}: ${box.width}x${box.height}`);
    for (const l of box.lines) t.equal(untag(l).length, box.width - 2);
    t.equal(box.lines.length, box.height - 2);
    t.match(untag(box.lines[box.lines.length - 2]!), /1-\d+\/60 \(Up\/Down\)/);
  }
  const d = messageDialog('x', lines);
  d.scroll = 1000;
  const box = renderDialog(d, 80, 24, p);
  t.match(untag(box.lines[0]!), /line 41\b/, 'scrolling stops at the end');
});

t.test('long words and file content wrap; prose wraps at words', async (t) => {
  const d = messageDialog('x', [line('word '.repeat(30).trim()), { text: 'x'.repeat(100), exact: true }]);
  const box = renderDialog(d, 60, 30, p);
  const text = box.lines.map(untag);
  t.ok(text.every((l) => !/wor$/.test(l.trimEnd())), 'no word cut');
  t.ok(text.some((l) => l === ` ${'x'.repeat(box.width - 4)} `), 'exact lines fill the width');
});

t.test('menus: the chosen item is shown and kept in view', async (t) => {
  const d = menuDialog('reset', [line('which?')], [{ label: 'a', value: 'a' }, { label: 'b', value: 'b' }], () => undefined);
  d.menu!.index = 1;
  const box = renderDialog(d, 80, 24, p);
  t.ok(box.lines.some((l) => l.startsWith('{inverse}') && untag(l).includes('> 2. b')));
});
