// compareText (lib/text-order.ts) orders as root collation (an English collator) does, without
// ICU's collator for the common alphabets: every string of up to two characters of each
// alphabet and many of three, sorted both ways; generated strings of any kind, compared both
// ways; and the same order whatever LANG says (verify's findings, through the CLI).
import t from 'tap';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { compareText } from '../../lib/text-order.js';
import { spawnSync } from 'node:child_process';
import { cleanEnv, cliPath, copyFixture } from '../helpers.js';

const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);
const root = new Intl.Collator('en');

for (const [name, alphabet] of [['lower case', '-./_0123456789abcdefghijklmnopqrstuvwxyz'], ['upper case', '-./_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ']] as const) {
  t.test(`${name}: the same order as root collation`, async (t) => {
    const cs = [...alphabet];
    const strs = [''];
    for (const a of cs) {
      strs.push(a);
      for (const b of cs) strs.push(a + b);
      for (const b of ['-', '_', '0', '9', 'a', 'A', 'z', 'Z', '.', '/']) for (const c of cs) strs.push(a + b + c);
    }
    const want = [...strs].sort(root.compare);
    t.same([...strs].sort(compareText), want, `${strs.length} strings sorted`);
    const differ = want.slice(1).filter((s, i) => compareText(want[i]!, s) !== sign(root.compare(want[i]!, s)));
    t.same(differ, [], 'each neighbour pair compares the same');
  });
}

t.test('any strings: the same sign as root collation', async (t) => {
  const mixed = fc.string({ unit: fc.constantFrom(...'-./_09azAZ ~é€漢😀\u0301\t'), maxLength: 8 });
  const anyText = fc.string({ unit: 'binary', maxLength: 8 });
  fc.assert(fc.property(fc.oneof(mixed, anyText), fc.oneof(mixed, anyText), (a, b) => compareText(a, b) === sign(root.compare(a, b))), { numRuns: 5000, seed: 20261127 });
  t.equal(compareText('abc', 'abc'), 0);
  t.equal(compareText('checkpoints/a/10', 'checkpoints/a/9'), -1, 'as text, not as numbers');
  t.equal(compareText('x_1', 'x-1'), -1, '_ before -');
  t.equal(compareText('a', 'B'), -1, 'case mixed: the collator decides');
});

t.test("the node's LANG does not reorder a report", async (t) => {
  // Under da_DK localeCompare puts "aa" after "z"; under th_TH it ignores punctuation.
  const dir = copyFixture('stores/corrupt');
  for (const uid of ['aa6d785e-998a-11e7-a8dd-42010a800006', 'Aa6d785e-998a-11e7-a8dd-42010a800006', 'Bb6d785e-998a-11e7-a8dd-42010a800006']) {
    fs.mkdirSync(path.join(dir, 'store/checkpoints', uid, '1'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'store/checkpoints', uid, '1/kubelet'), 'kind: [');
  }
  const run = (lang: string) => {
    // LANG decides only when no LC_ALL or LC_COLLATE is set (an empty one counts as set).
    const env: NodeJS.ProcessEnv = { ...cleanEnv(), LANG: lang };
    delete env.LC_ALL;
    delete env.LC_COLLATE;
    const r = spawnSync(process.execPath, [cliPath, '--dir', dir, 'verify', '-o', 'json'], { encoding: 'utf8', env });
    return { code: r.status, stdout: r.stdout };
  };
  const c = run('C.UTF-8');
  const paths = (JSON.parse(c.stdout) as { findings: { path: string | null }[] }).findings.map((f) => f.path ?? '');
  const at = (uid: string) => paths.findIndex((p) => p.includes(uid));
  // Case is only a tie-break (aa before Aa); under da_DK "Aa" would be Å, after "Bb".
  t.ok(at('aa6d785e') >= 0 && at('aa6d785e') < at('Aa6d785e') && at('Aa6d785e') < at('Bb6d785e'), 'aa, Aa, then Bb');
  for (const lang of ['da_DK.UTF-8', 'th_TH.UTF-8', 'cs_CZ.UTF-8']) t.equal(run(lang).stdout, c.stdout, `LANG=${lang}: the same report`);
});
