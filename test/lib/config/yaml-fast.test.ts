// The fast path for plain block YAML (lib/config/yaml-fast.ts) must give exactly what the
// js-yaml path gives, or step aside: checked on every payload and meta file the project
// holds, the kubelet's validation vectors, and generated documents built to be awkward.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { fastBlockYaml } from '../../../lib/config/yaml-fast.js';
import { parseYamlDocument, resolvePlainScalar, useFastPath } from '../../../lib/config/yaml.js';
import { repoRoot, sharedDir, vectorsMissing } from '../../helpers.js';

/** Both paths on the same bytes. */
function both(text: string | Buffer) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  useFastPath(false);
  const slow = parseYamlDocument(bytes);
  useFastPath(true);
  const fast = parseYamlDocument(bytes);
  return { slow, fast };
}

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(p, out);
    else if (e.isFile() && fs.statSync(p).size < 1 << 20) out.push(p);
  }
  return out;
}

t.test('every file under fixtures/ and every validation vector: the same result', async (t) => {
  const texts: [string, Buffer][] = filesUnder(path.join(repoRoot, 'fixtures')).map((f) => [path.relative(repoRoot, f), fs.readFileSync(f)]);
  const vectors = path.join(sharedDir, 'vectors/validation.json');
  if (fs.existsSync(vectors)) {
    for (const v of JSON.parse(fs.readFileSync(vectors, 'utf8')) as { name?: string; payloadText: string }[]) texts.push([`vector ${v.name ?? ''}`, Buffer.from(v.payloadText)]);
  } else vectorsMissing(t, vectors);
  let taken = 0;
  for (const [name, bytes] of texts) {
    const { slow, fast } = both(bytes);
    if (JSON.stringify(fast) !== JSON.stringify(slow)) t.fail(`${name}: the paths differ`, { fast, slow });
    if (fastBlockYaml(bytes.toString('utf8'), resolvePlainScalar) !== undefined) taken++;
  }
  t.pass(`${texts.length} documents agree; the fast path took ${taken}`);
  t.ok(taken > texts.length / 4, 'the fast path is taken for ordinary payloads');
});

t.test('the demo payload takes the fast path', async (t) => {
  const demo = fs.readFileSync(path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config/store/checkpoints/5808539f-48e3-4e47-8ce6-c261c48fa1d9/42315/kubelet'), 'utf8');
  t.not(fastBlockYaml(demo, resolvePlainScalar), undefined);
});

t.test('what it leaves to js-yaml', async (t) => {
  for (const doc of [
    'a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a: [1, 2]\n', 'a: {b: 1}\n', 'a: |\n  text\n', 'a: >\n  text\n',
    'a: one\n  two\n', 'a:\n\tb: 1\n', 'a: 1\r\n', 'a: 1\na: 2\n', '- a\n- b\n', '  a: 1\n', '---\na: 1\n',
    'a:\n  - b: 1\n', 'a: "x\\ty"\n', "a: 'it''s'\n", 'a: b: c\n', '? a\n: b\n', '<<: {a: 1}\n', 'on: 1\n',
    '1: a\n', '__proto__: 1\n', 'a: -x\n', 'a:\n    b: 1\n  c: 2\n', 'a: "x" y\n', 'a: @x\n', 'a: `x\n', '',
  ]) {
    t.equal(fastBlockYaml(doc, resolvePlainScalar), undefined, JSON.stringify(doc));
    const { slow, fast } = both(doc);
    t.same(fast, slow, `same result through the fallback: ${JSON.stringify(doc)}`);
  }
});

// Generated documents: nested maps of awkward keys and scalars, compact and indented
// sequences, comments, blank lines, odd indentation, duplicates, continuation lines.
const scalarArb = fc.oneof(
  fc.constantFrom('1', '-1', '+1', '0x1F', '0o17', '017', '1_000', '1e3', '.5', '-.inf', '.NaN', '1.0', '12:30', '0b101',
    'true', 'False', 'yes', 'No', 'on', 'OFF', 'y', 'n', '~', 'null', 'Null', '', '""', "''", '"a # b"', "'x'", '"1"',
    'a b', 'a#b', 'a #b', 'a:b', 'http://x:80/p', '10%', '100Mi', '/etc/x', 'kube-system', 'é ü', '-', '- x', 'a: b',
    '[]', '{}', '&a x', '*a', '!t x', '|', '>', '%x', '@x', '?x', ':x', '-x', '-1x', '"a\\"b"', "'a''b'", 'x  ', 'x # c'),
  fc.stringMatching(/^[a-z0-9 .:#-]{0,8}$/),
);
const keyArb = fc.constantFrom('a', 'b', 'kind', 'apiVersion', 'maxPods', 'x.y', 'x/y', 'x-y', '_k', '"q.k"', "'q k'", 'on', '1', 'a b', 'a:b', '"a\\"b"', 'y', 'K');
const indentArb = fc.constantFrom('', ' ', '  ', '    ');
const lineArb = fc.oneof(
  fc.tuple(indentArb, keyArb, scalarArb).map(([i, k, v]) => `${i}${k}: ${v}`),
  fc.tuple(indentArb, keyArb).map(([i, k]) => `${i}${k}:`),
  fc.tuple(indentArb, scalarArb).map(([i, v]) => `${i}- ${v}`),
  fc.tuple(indentArb, fc.constantFrom('# c', '#', '')).map(([i, c]) => `${i}${c}`),
  fc.tuple(indentArb, scalarArb).map(([i, v]) => `${i}${v}`),
);

/** A generated block-YAML entry: a scalar, a nested map, or a sequence of scalars. */
type Entry = { k: string; v: string } | { k: string; map: Entry[] } | { k: string; seq: string[]; compact: boolean };
// Mostly what configs hold (so the fast path is exercised), some of everything else.
const plainKeyArb = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9._-]{0,6}$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,3}$/).map((k) => `"${k}.x"`) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,3}$/).map((k) => `'${k} x'`) },
  { weight: 1, arbitrary: keyArb },
);
const valueArb = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(fc.stringMatching(/^[a-zA-Z0-9/._%-]{1,10}$/), fc.integer().map(String), fc.constantFrom('true', 'false', '"quoted"', "'single'", '10s', '1m0s', '0.0.0.0')) },
  { weight: 1, arbitrary: scalarArb },
);
const entryArb = fc.letrec<{ entry: Entry }>((tie) => ({
  entry: fc.oneof(
    { depthSize: 'small' },
    fc.record({ k: plainKeyArb, v: valueArb }),
    fc.record({ k: plainKeyArb, map: fc.array(tie('entry'), { minLength: 1, maxLength: 4 }) }),
    fc.record({ k: plainKeyArb, seq: fc.array(valueArb, { minLength: 1, maxLength: 3 }), compact: fc.boolean() }),
  ),
})).entry;

function render(entries: Entry[], indent: string, step: string): string[] {
  // Repeated keys are left to the noise: make the generated ones unique within their map.
  const seen = new Set<string>();
  return entries.flatMap((e0) => {
    const e = seen.has(e0.k) ? { ...e0, k: /^[a-zA-Z_][\w.-]*$/.test(e0.k) ? `${e0.k}_${seen.size}` : e0.k } : e0;
    seen.add(e.k);
    if ('v' in e) return [`${indent}${e.k}: ${e.v}`];
    if ('map' in e) return [`${indent}${e.k}:`, ...render(e.map, indent + step, step)];
    const at = e.compact ? indent : indent + step;
    return [`${indent}${e.k}:`, ...e.seq.map((v) => `${at}- ${v}`)];
  });
}

const docArb = fc
  .tuple(fc.array(entryArb, { minLength: 1, maxLength: 6 }), fc.constantFrom('  ', '    ', ' '), fc.array(fc.tuple(fc.nat(40), lineArb), { maxLength: 2 }))
  .map(([entries, step, noise]) => {
    const lines = render(entries, '', step);
    // A little noise: comments, blank lines, stray lines at odd indentation.
    for (const [at, l] of noise) lines.splice(at % (lines.length + 1), 0, l);
    return `${lines.join('\n')}\n`;
  });

t.test('generated documents: the same result either way', async (t) => {
  let taken = 0;
  fc.assert(
    fc.property(fc.oneof(docArb, fc.array(lineArb, { minLength: 1, maxLength: 14 }).map((ls) => `${ls.join('\n')}\n`)), (doc) => {
      const { slow, fast } = both(doc);
      if (fastBlockYaml(doc, resolvePlainScalar) !== undefined) taken++;
      return JSON.stringify(fast) === JSON.stringify(slow);
    }),
    { numRuns: Number(process.env.FC_RUNS ?? 6000), seed: Number(process.env.FC_SEED ?? 20261124) },
  );
  t.pass(`the fast path took ${taken} generated documents`);
  t.ok(taken > 200, 'enough generated documents take the fast path to mean something');
});

t.test('a line parsed once is reused across documents, wherever it stands, and the memo stays bounded', async (t) => {
  // The same line texts as members at the top, nested, after a sequence, and as bad lines.
  const docs = [
    'a: 1\nb:\n  a: 1\n  c: x\nd:\n- a: 1\n',
    'b:\n  a: 1\na: 1\nc:\n- x\n- 1\n',
    'c:\n  - x\na: 1\n  a: 1\n',
    'a: 1\na: 1\n',
    'x:\n  a: 1\n- a\n',
    'q: "1"\nr: 1\ns: \'1\'\n',
  ];
  for (const doc of [...docs, ...docs]) {
    const { slow, fast } = both(doc);
    t.same(fast, slow, JSON.stringify(doc));
  }
  // More distinct lines than the memo holds, then the first documents again.
  const many = Array.from({ length: 20_000 }, (_, i) => `k${i}: v${i}`).join('\n');
  const { slow, fast } = both(`${many}\n`);
  t.same(fast, slow, '20,000 distinct lines');
  for (const doc of docs) t.same(both(doc).fast, both(doc).slow, `after the memo was emptied: ${JSON.stringify(doc)}`);
});

t.test("a key list's order is reused across documents, only for the very same list, and the memo stays bounded", async (t) => {
  // The same keys in other orders, a list that is a prefix of another, nested maps with the
  // root's keys: each gets Go's order, whether its order was made now or kept.
  const docs = [
    'kind: K\napiVersion: v\nmaxPods: 1\n',
    'apiVersion: v\nkind: K\nmaxPods: 1\n',
    'maxPods: 1\nkind: K\napiVersion: v\n',
    'kind: K\napiVersion: v\n',
    'kind: K\napiVersion: v\nmaxPods: 1\nB: 2\n',
    'x:\n  kind: K\n  apiVersion: v\n  maxPods: 1\nkind: K\n',
  ];
  for (const doc of [...docs, ...docs]) {
    const { slow, fast } = both(doc);
    t.same(fast, slow, JSON.stringify(doc));
    const keys = fastBlockYaml(doc, resolvePlainScalar)!.entries.map(([k]) => k);
    t.same(keys, [...keys].sort(), `sorted: ${JSON.stringify(doc)}`);
  }
  // More distinct key lists than the memo holds, then the first documents again.
  const differ = Array.from({ length: 1500 }, (_, i) => `k${i}: 1\nj${i}: 2\n`).filter((doc) => JSON.stringify(both(doc).fast) !== JSON.stringify(both(doc).slow));
  t.same(differ, [], '1,500 distinct key lists');
  for (const doc of docs) t.same(both(doc).fast, both(doc).slow, `after the memo was emptied: ${JSON.stringify(doc)}`);
});

t.test('sorted keys: many key lists with the same count and first and last keys each get their own order (the memo buckets them, at most a few per bucket)', async (t) => {
  const plain = (s: string) => resolvePlainScalar(s);
  for (let i = 0; i < 40; i++) {
    const middle = [`m${(i * 7) % 40}`, `a${i}`, `z${39 - i}`];
    const text = ['kind: KubeletConfiguration', ...middle.map((k) => `${k}: 1`), 'zzLast: 2'].join('\n') + '\n';
    const doc = fastBlockYaml(text, plain);
    t.same(doc?.entries.map(([k]) => k), ['kind', ...middle, 'zzLast'].sort(), `list ${i}`);
  }
});
