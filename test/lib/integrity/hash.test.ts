// kubectl --append-hash recomputation. Vectors: append-hash.md §5.3 (kubectl's hash_test.go)
// and fixtures/hash-vectors/vectors.json, made by scripts/hash-vectors.mjs with the real
// kubectl (and kubectl's algorithm under a pre-1.22 Go for the other escaping).

import t from 'tap';
import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';
import {
  checkCheckpointHash,
  configMapHash,
  configMapJson,
  goJsonString,
  parseHashedName,
  type CheckpointFile,
  type GoEscapes,
} from '../../../lib/integrity/hash.js';

interface Vector {
  id: string;
  note: string;
  tool: 'kubectl' | 'go';
  goEscapes: GoEscapes;
  base: string;
  data?: Record<string, string> | null;
  binaryData?: Record<string, string>;
  inputOf?: string;
  name: string;
  hash: string;
}
interface VectorFile {
  tools: { kubectl: { gitVersion: string; goVersion: string }; go: string | null };
  vectors: Vector[];
}

const fixture = JSON.parse(fs.readFileSync(new URL('../../../fixtures/hash-vectors/vectors.json', import.meta.url), 'utf8')) as VectorFile;
const byId = new Map(fixture.vectors.map((v) => [v.id, v]));

/** A vector's input as bytes, following inputOf. */
function inputOf(v: Vector): { data: Record<string, Buffer> | null; binaryData: Record<string, Buffer> } {
  const src = v.inputOf ? byId.get(v.inputOf)! : v;
  const bytes = (m: Record<string, string>): Record<string, Buffer> => Object.fromEntries(Object.entries(m).map(([k, b]) => [k, Buffer.from(b, 'base64')]));
  return { data: src.data === null || src.data === undefined ? null : bytes(src.data), binaryData: bytes(src.binaryData ?? {}) };
}

const strings = (m: Record<string, Buffer>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([k, b]) => [k, b.toString('utf8')]));
const filesOf = (m: Record<string, Buffer>): CheckpointFile[] => Object.entries(m).map(([name, bytes]) => ({ name, bytes }));
/** A test name that stays on one TAP line. */
const show = (s: unknown): string => JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
const other = (m: GoEscapes): GoEscapes => (m === 'go1.22' ? 'pre-1.22' : 'go1.22');
/** \b or \f anywhere: the only bytes whose escaping changed in Go 1.22. */
const hasBF = (bufs: Buffer[]): boolean => bufs.some((b) => b.includes(0x08) || b.includes(0x0c));

t.test('append-hash.md §5.3 (hash_test.go): encoded JSON and hash', async (t) => {
  const one = (s: string): Buffer => Buffer.from(s);
  const table: [string, Parameters<typeof configMapJson>[0], string, string][] = [
    ['empty', { name: '', data: {}, binaryData: {}, goEscapes: 'pre-1.22' }, '{"data":{},"kind":"ConfigMap","name":""}', '42745tchd9'],
    ['one key', { name: '', data: { one: '' }, goEscapes: 'pre-1.22' }, '{"data":{"one":""},"kind":"ConfigMap","name":""}', '9g67k2htb6'],
    ['three keys', { name: '', data: { two: '2', one: '', three: '3' }, goEscapes: 'pre-1.22' }, '{"data":{"one":"","three":"3","two":"2"},"kind":"ConfigMap","name":""}', 'f5h7t85m9b'],
    ['nil data', { name: '', data: null, binaryData: {}, goEscapes: 'pre-1.22' }, '{"data":null,"kind":"ConfigMap","name":""}', 'dk855m5d49'],
    ['binary one', { name: '', data: null, binaryData: { one: one('') }, goEscapes: 'pre-1.22' }, '{"binaryData":{"one":""},"data":null,"kind":"ConfigMap","name":""}', 'mk79584b8c'],
    [
      'binary three',
      { name: '', data: null, binaryData: { two: one('2'), one: one(''), three: one('3') }, goEscapes: 'pre-1.22' },
      '{"binaryData":{"one":"","three":"Mw==","two":"Mg=="},"data":null,"kind":"ConfigMap","name":""}',
      't458mc6db2',
    ],
    ['both', { name: '', data: { one: '' }, binaryData: { two: one('') }, goEscapes: 'pre-1.22' }, '{"binaryData":{"two":""},"data":{"one":""},"kind":"ConfigMap","name":""}', '698h7c7t9m'],
  ];
  for (const [label, input, json, hash] of table) {
    t.equal(configMapJson(input).toString(), json, `${label}: JSON`);
    t.equal(configMapHash(input), hash, `${label}: hash`);
    t.equal(configMapHash({ ...input, goEscapes: 'go1.22' }), hash, `${label}: same under go1.22`);
  }
});

t.test('the fixture records the tools that made it', async (t) => {
  t.match(fixture.tools.kubectl.gitVersion, /^v1\.\d+/);
  t.match(fixture.tools.kubectl.goVersion, /^go1\.\d+/);
  t.comment(`kubectl ${fixture.tools.kubectl.gitVersion} built with ${fixture.tools.kubectl.goVersion}; go helper ${fixture.tools.go}`);
  t.ok(fixture.vectors.some((v) => v.tool === 'kubectl' && v.goEscapes === 'go1.22'), 'kubectl vectors under Go >= 1.22 escaping');
  t.ok(fixture.vectors.some((v) => v.goEscapes === 'pre-1.22'), 'vectors under pre-1.22 escaping');
  t.ok(fixture.vectors.length >= 40);
});

t.test('every fixture vector: configMapHash', async (t) => {
  for (const v of fixture.vectors) {
    const { data, binaryData } = inputOf(v);
    t.equal(v.name, `${v.base}-${v.hash}`, `${v.id}: name`);
    if (data !== null && !Object.values(data).every((b) => isUtf8(b))) continue; // not expressible as strings: see checkCheckpointHash below
    const input = { name: v.base, data: data && strings(data), binaryData, goEscapes: v.goEscapes };
    t.equal(configMapHash(input), v.hash, `${show(v.id)} (${v.goEscapes})`);
    const all = [...Object.entries(data ?? {}).flat(), ...Object.keys(binaryData), v.base].map((x) => Buffer.from(x));
    const sameUnderOther = configMapHash({ ...input, goEscapes: other(v.goEscapes) }) === v.hash;
    t.equal(sameUnderOther, !hasBF(all), `${v.id}: the other escaping differs exactly when \\b or \\f occur`);
  }
});

t.test('every fixture vector with data only: checkCheckpointHash from files', async (t) => {
  for (const v of fixture.vectors) {
    const { data, binaryData } = inputOf(v);
    if (data === null || Object.keys(binaryData).length > 0) continue; // a checkpoint holds data only
    const files = filesOf(data);
    const r = checkCheckpointHash(v.name, files);
    const bf = hasBF([...files.map((f) => f.bytes), ...files.map((f) => Buffer.from(f.name)), Buffer.from(v.base)]);
    t.same(
      r,
      {
        applies: true,
        ok: true,
        matchedWith: bf ? v.goEscapes : 'pre-1.22',
        expected: v.hash,
        actual: v.hash,
        notUtf8: files.filter((f) => !isUtf8(f.bytes)).map((f) => f.name),
      },
      v.id,
    );
  }
});

t.test('\\b and \\f: kubectl built with Go >= 1.22 vs before', async (t) => {
  const files = filesOf(inputOf(byId.get('kubectl/backspace-formfeed')!).data!);
  t.match(checkCheckpointHash(byId.get('kubectl/backspace-formfeed')!.name, files), { ok: true, matchedWith: 'go1.22' });
  t.match(checkCheckpointHash(byId.get('go/kubectl/backspace-formfeed')!.name, files), { ok: true, matchedWith: 'pre-1.22' });
  t.not(byId.get('kubectl/backspace-formfeed')!.hash, byId.get('go/kubectl/backspace-formfeed')!.hash);
});

t.test('keys sort by UTF-8 bytes, not UTF-16 code units', async (t) => {
  const v = byId.get('go/key-order-bytes-vs-utf16')!;
  const data = strings(inputOf(v).data!);
  const json = configMapJson({ name: v.base, data, goEscapes: 'pre-1.22' }).toString();
  const pos = (k: string): number => json.indexOf(`"${k}":`);
  t.ok(pos('\uff61') < pos('\ufffd') && pos('\ufffd') < pos('\u{10000}') && pos('\u{10000}') < pos('\u{1f600}'), 'U+FF61 < U+FFFD < U+10000 < U+1F600');
  t.ok(Object.keys(data).sort().indexOf('\u{10000}') < Object.keys(data).sort().indexOf('\uff61'), 'while JS sort orders them the other way');
  t.equal(configMapHash({ name: v.base, data, goEscapes: 'pre-1.22' }), v.hash);
});

t.test('goJsonString: Go encoding/json string escaping', async (t) => {
  const table: [number[] | string, string, string?][] = [
    ['plain', '"plain"'],
    ['<a>&', '"\\u003ca\\u003e\\u0026"'],
    ['"\\', '"\\"\\\\"'],
    ['\n\r\t', '"\\n\\r\\t"'],
    ['\b\f', '"\\u0008\\u000c"', '"\\b\\f"'],
    ['\u0000\u0001\u001f', '"\\u0000\\u0001\\u001f"'],
    ['\u007f', '"\u007f"'],
    ['\u2028\u2029', '"\\u2028\\u2029"'],
    ['é😀\ufffd', '"é😀\ufffd"'],
    [[0x61, 0xff, 0x62], '"a\\ufffdb"'],
    [[0xed, 0xa0, 0x80], '"\\ufffd\\ufffd\\ufffd"'],
    [[0xe0, 0x80, 0x80], '"\\ufffd\\ufffd\\ufffd"'],
    [[0xf4, 0x90, 0x80, 0x80], '"\\ufffd\\ufffd\\ufffd\\ufffd"'],
    [[0xc3], '"\\ufffd"'],
  ];
  for (const [input, pre, go122 = pre] of table) {
    const b = typeof input === 'string' ? Buffer.from(input) : Buffer.from(input);
    t.equal(goJsonString(b, 'pre-1.22').toString(), pre, `${show(input)} pre-1.22`);
    t.equal(goJsonString(b, 'go1.22').toString(), go122, `${show(input)} go1.22`);
  }
});

t.test('parseHashedName', async (t) => {
  const table: [string, { base: string; suffix: string } | null][] = [
    ['my-node-config-9mbkccg2cc', { base: 'my-node-config', suffix: '9mbkccg2cc' }],
    ['cfg-hc2fdh24hc', { base: 'cfg', suffix: 'hc2fdh24hc' }],
    ['-42745tchd9', { base: '', suffix: '42745tchd9' }],
    ['kubelet-config-1.23', null], // kubeadm's name: no hash
    ['cfg-9mbkccg2c', null], // 9 characters
    ['cfg-9mbkccg2ccc', null], // 11 after the last dash
    ['cfg9mbkccg2cc', null], // no dash
    ['cfg-9mbkccg2ca', null], // 'a' is not in the alphabet (a -> m)
    ['cfg-0123456789', null], // 0 1 3 are not in the alphabet
    ['cfg-9MBKCCG2CC', null],
  ];
  for (const [name, want] of table) t.same(parseHashedName(name), want, show(name));
});

t.test('names without a hash suffix: the check does not apply', async (t) => {
  t.same(checkCheckpointHash('kubelet-config-1.23', [{ name: 'kubelet', bytes: Buffer.from('x') }]), { applies: false });
});

t.test('one changed byte, key, file or name flips the result', async (t) => {
  for (const v of fixture.vectors.filter((x) => x.tool === 'kubectl')) {
    const { data, binaryData } = inputOf(v);
    if (data === null || Object.keys(binaryData).length > 0 || Object.keys(data).length === 0) continue;
    const files = filesOf(data);
    const mutants: [string, CheckpointFile[], string][] = [];
    files.forEach((f, i) => {
      const changed = Buffer.from(f.bytes.length ? f.bytes : Buffer.from(' '));
      if (f.bytes.length) changed[changed.length - 1] ^= 0x01; // stays ASCII or a continuation byte flip
      mutants.push([`byte of ${f.name}`, files.map((g, j) => (j === i ? { name: g.name, bytes: changed } : g)), v.name]);
      mutants.push([`key ${f.name}`, files.map((g, j) => (j === i ? { name: g.name + 'x', bytes: g.bytes } : g)), v.name]);
    });
    mutants.push(['extra file', [...files, { name: 'extra', bytes: Buffer.from('') }], v.name]);
    mutants.push(['missing file', files.slice(1), v.name]);
    mutants.push(['base name', files, `${v.base}x-${v.hash}`]);
    for (const [what, mutated, name] of mutants) {
      const r = checkCheckpointHash(name, mutated);
      if (!r.applies) throw new Error('applies');
      if (r.notUtf8.length) {
        t.same({ ok: r.ok, matchedWith: r.matchedWith }, { ok: true, matchedWith: null }, `${v.id}: ${what} (now not UTF-8: not judged)`);
        continue;
      }
      t.same({ ok: r.ok, matchedWith: r.matchedWith, actual: r.actual }, { ok: false, matchedWith: null, actual: v.hash }, `${v.id}: ${what}`);
      t.not(r.expected, v.hash);
    }
  }
});

t.test('a file that is not UTF-8 is reported, never called a mismatch', async (t) => {
  // kubectl put the non-UTF-8 file in binaryData, which the kubelet does not checkpoint.
  const v = byId.get('kubectl/binary')!;
  const { data, binaryData } = inputOf(v);
  const onlyData = checkCheckpointHash(v.name, filesOf(data!));
  t.match(onlyData, { applies: true, ok: false, matchedWith: null, actual: v.hash, notUtf8: [] }, 'data alone: an innocent mismatch (had binaryData)');
  const withBlob = checkCheckpointHash(v.name, filesOf({ ...data!, ...binaryData }));
  t.same(withBlob, { applies: true, ok: true, matchedWith: null, expected: (withBlob as { expected: string }).expected, actual: v.hash, notUtf8: ['blob'] });
  // Go hashes invalid bytes as \ufffd: a checkpoint holding them can still match.
  const bad = byId.get('go/invalid-utf8-values')!;
  const r = checkCheckpointHash(bad.name, filesOf(inputOf(bad).data!));
  t.same(r, { applies: true, ok: true, matchedWith: 'pre-1.22', expected: bad.hash, actual: bad.hash, notUtf8: ['ff', 'truncated', 'surrogate', 'overlong', 'too-big'] });
});

t.test('strings with lone surrogates hash as U+FFFD', async (t) => {
  t.equal(configMapHash({ name: 'n', data: { k: 'a\ud800' }, goEscapes: 'pre-1.22' }), configMapHash({ name: 'n', data: { k: 'a\ufffd' }, goEscapes: 'pre-1.22' }));
});
