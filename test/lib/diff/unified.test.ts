import t from 'tap';
import { asText, unifiedDiff, MAX_LINE_EDITS } from '../../../lib/diff/unified.js';

const side = (label: string, s: string | Buffer) => {
  const bytes = Buffer.isBuffer(s) ? s : Buffer.from(s);
  return { label, bytes, text: asText(bytes) };
};

t.test('unified diff: GNU layout', async (t) => {
  const a = 'a\nb\nc\nd\ne\nf\ng\nh\n';
  const b = 'a\nb\nc\nD\ne\nf\ng\nh\n';
  t.same(unifiedDiff(side('old', a), side('new', a), 3), { text: '', note: null }, 'identical: empty');
  t.equal(unifiedDiff(side('old', a), side('new', b), 3).text, '--- old\n+++ new\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n');
  t.equal(unifiedDiff(side('old', a), side('new', b), 0).text, '--- old\n+++ new\n@@ -4 +4 @@\n-d\n+D\n', '-U 0: single-line ranges');
  t.equal(unifiedDiff(side('old', ''), side('new', 'x\ny\n'), 3).text, '--- old\n+++ new\n@@ -0,0 +1,2 @@\n+x\n+y\n', 'empty range names the line before');
  t.equal(unifiedDiff(side('old', 'x\n'), side('new', 'x'), 3).text, '--- old\n+++ new\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n');
  t.equal(unifiedDiff(side('o', 'é ☃\n'), side('n', 'è ☃\n'), 3).text, '--- o\n+++ n\n@@ -1 +1 @@\n-é ☃\n+è ☃\n', 'unicode');
});

t.test('binary and pathological inputs', async (t) => {
  t.same(unifiedDiff(side('a', Buffer.from([0, 1])), side('b', 'x'), 3), { text: 'Binary files a and b differ\n', note: null });
  t.same(unifiedDiff(side('a', Buffer.from([0xff])), side('b', Buffer.from([0xff])), 3), { text: '', note: null }, 'identical binary');
  const many = (c: string) => Array.from({ length: MAX_LINE_EDITS + 10 }, (_, i) => `${c}${i}`).join('\n');
  const u = unifiedDiff(side('a', many('x')), side('b', many('y')), 3);
  t.equal(u.text, 'Files a and b differ\n');
  t.match(u.note, /more than 1000 lines/);
});

t.test('asText', async (t) => {
  t.equal(asText(Buffer.from('ok ☃')), 'ok ☃');
  t.equal(asText(Buffer.from([0x61, 0])), null, 'NUL');
  t.equal(asText(Buffer.from([0xc3])), null, 'truncated UTF-8');
});
