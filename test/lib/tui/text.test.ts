import t from 'tap';
import { clip, escapeTags, fit, painter, printable, untag, width, wrap, wrapWords } from '../../../lib/tui/text.js';

t.test('printable: control characters and bidi overrides become visible', async (t) => {
  t.equal(printable('a\u001b[31mb'), 'a\\x1b[31mb');
  t.equal(printable('x\u202ey'), 'x\\u202ey', 'a bidi override never reaches the terminal');
  t.equal(printable('tab\there'), 'tab  here');
  t.equal(printable('\u0085'), '\\x85');
  t.equal(printable('ümlaut 日本'), 'ümlaut 日本', 'printable text is kept');
});

t.test('escapeTags: braces from disk are never markup', async (t) => {
  t.equal(escapeTags('{"a": {bold}}'), '{open}"a": {open}bold{close}{close}');
  t.equal(untag(escapeTags('{red-fg}x{/red-fg}')), '{red-fg}x{/red-fg}');
});

t.test('widths, clip, fit', async (t) => {
  const table: [string, number][] = [
    ['abc', 3],
    ['日本', 4],
    ['e\u0301', 1],
    ['', 0],
  ];
  for (const [s, w] of table) t.equal(width(s), w, JSON.stringify(s));
  t.equal(clip('abcdef', 4), 'abc…');
  t.equal(clip('abc', 4), 'abc');
  t.equal(clip('abc', 0), '');
  t.equal(fit('ab', 4), 'ab  ');
  t.equal(fit('日本語', 5), '日本…');
  t.equal(width(fit('日本語', 5)), 5);
});

t.test('wrap: exact, at the width', async (t) => {
  t.same(wrap('abcdefgh', 3), ['abc', 'def', 'gh']);
  t.same(wrap('abcdefgh', 4, '  '), ['abcd', '  ef', '  gh']);
  t.same(wrap('', 5), ['']);
});

t.test('wrapWords: at words, leading indentation and inner gaps kept', async (t) => {
  t.same(wrapWords('one two three four', 9), ['one two', 'three', 'four']);
  t.same(wrapWords('  one two three', 9, '    '), ['  one two', '    three']);
  t.same(wrapWords('info     CODE  path', 40), ['info     CODE  path']);
  t.same(wrapWords('x averyveryverylongword', 8), ['x', 'averyver', 'yverylon', 'gword']);
});

t.test('painter: colour only when allowed; bold and inverse always', async (t) => {
  const c = painter(true);
  const n = painter(false);
  t.equal(c.paint('x', 'red'), '{red-fg}x{/red-fg}');
  t.equal(n.paint('x', 'red'), 'x', 'NO_COLOR: no colour tag at all');
  t.equal(n.paint('x', 'inverse', 'red'), '{inverse}x{/inverse}');
  t.equal(n.paint('{x}', 'bold'), '{bold}{open}x{close}{/bold}');
  t.equal(untag(c.paint('{x}', 'bold', 'green')), '{x}');
});

t.test('painter: dim is gray from 16 colours, plain below (8-colour terminals draw gray as black)', async (t) => {
  t.equal(painter(true, 256).paint('x', 'dim'), '{gray-fg}x{/gray-fg}');
  t.equal(painter(true, 8).paint('x', 'dim'), 'x');
  t.equal(painter(true, 8).paint('x', 'dim', 'bold'), '{bold}x{/bold}');
  t.equal(painter(true, 8).paint('x', 'red'), '{red-fg}x{/red-fg}', 'the eight colours stay');
});
