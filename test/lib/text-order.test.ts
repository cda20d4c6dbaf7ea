// compareText (lib/text-order.ts) orders as localeCompare does, without ICU's collator for the
// common alphabets: every string of up to two characters of each alphabet and many of three,
// sorted both ways; generated strings of any kind, compared both ways; and the first
// localeCompare's cost, which is why it exists.
import t from 'tap';
import fc from 'fast-check';
import { compareText } from '../../lib/text-order.js';

const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);

for (const [name, alphabet] of [['lower case', '-./_0123456789abcdefghijklmnopqrstuvwxyz'], ['upper case', '-./_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ']] as const) {
  t.test(`${name}: the same order as localeCompare`, async (t) => {
    const cs = [...alphabet];
    const strs = [''];
    for (const a of cs) {
      strs.push(a);
      for (const b of cs) strs.push(a + b);
      for (const b of ['-', '_', '0', '9', 'a', 'A', 'z', 'Z', '.', '/']) for (const c of cs) strs.push(a + b + c);
    }
    const want = [...strs].sort((a, b) => a.localeCompare(b));
    t.same([...strs].sort(compareText), want, `${strs.length} strings sorted`);
    const differ = want.slice(1).filter((s, i) => compareText(want[i]!, s) !== sign(want[i]!.localeCompare(s)));
    t.same(differ, [], 'each neighbour pair compares the same');
  });
}

t.test('any strings: the same sign as localeCompare', async (t) => {
  const mixed = fc.string({ unit: fc.constantFrom(...'-./_09azAZ ~é€漢😀\u0301\t'), maxLength: 8 });
  const anyText = fc.string({ unit: 'binary', maxLength: 8 });
  fc.assert(fc.property(fc.oneof(mixed, anyText), fc.oneof(mixed, anyText), (a, b) => compareText(a, b) === sign(a.localeCompare(b))), { numRuns: 5000, seed: 20261127 });
  t.equal(compareText('abc', 'abc'), 0);
  t.equal(compareText('checkpoints/a/10', 'checkpoints/a/9'), -1, 'as text, not as numbers');
  t.equal(compareText('x_1', 'x-1'), -1, '_ before -');
  t.equal(compareText('a', 'B'), -1, 'case mixed: the collator decides');
});
