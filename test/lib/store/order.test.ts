// ResourceVersion order (DESIGN.md "Refs"): numeric when every RV of the UID is decimal, by
// BigInt value then name; the short-decimal path compares doubles and must give the same order.
import t from 'tap';
import { orderRVs } from '../../../lib/store/order.js';
import type { Checkpoint, Entry } from '../../../lib/store/snapshot.js';

const entry = (name: string, mtimeMs: number): Entry => ({ rel: `checkpoints/u/${name}`, name, kind: 'dir', mode: 0o700, type: 0o040000, uid: 0, gid: 0, size: 4096, mtimeMs, linkTarget: null, error: null });
const cp = (rv: string, mtimeMs = 0): Checkpoint => ({ uid: 'u', rv, rel: `checkpoints/u/${rv}`, entry: entry(rv, mtimeMs), files: [], others: [], listError: null });

/** The rule as DESIGN.md states it, with BigInt whatever the length. */
function reference(rvs: string[]): string[] {
  return [...rvs].sort((a, b) => {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
}

t.test('short decimal RVs: numeric order, equal values (leading zeros) by name', async (t) => {
  t.same(orderRVs(['10', '9', '0010', '100', '010', '1'].map((r) => cp(r))).map((c) => c.rv), ['1', '9', '0010', '010', '10', '100']);
});

t.test('random decimal RVs of 1 to 20 digits: the same order as BigInt', async (t) => {
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 300; round++) {
    const maxLen = round % 2 ? 15 : 20;
    const rvs = Array.from({ length: 1 + rnd(12) }, () => Array.from({ length: 1 + rnd(maxLen) }, () => String(rnd(10))).join(''));
    // Near 2^53, where doubles would round, always on the BigInt path (16 digits).
    if (round % 50 === 0) rvs.push('9007199254740993', '9007199254740992');
    t.same(orderRVs(rvs.map((r) => cp(r))).map((c) => c.rv), reference(rvs), rvs.join(' '));
  }
});

t.test('any non-decimal RV: mtime order, then name', async (t) => {
  t.same(orderRVs([cp('b', 2), cp('a', 2), cp('10', 1), cp('x1', 0)]).map((c) => c.rv), ['x1', '10', 'a', 'b']);
});
