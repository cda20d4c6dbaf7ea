#!/usr/bin/env node
// Regenerates fixtures/hash-vectors/vectors.json: kubectl --append-hash test vectors made by
// the real tools, for test/lib/integrity/hash.test.ts.
//
//   node scripts/hash-vectors.mjs        (needs kubectl and go on PATH; Debian: golang-go)
//
// kubectl vectors: input files and literals are written to a temp dir and passed to
//   kubectl create configmap NAME --from-file=KEY=PATH --from-literal=K=V ... \
//     --append-hash --dry-run=client -o json
// (offline; the JSON shows the data/binaryData split kubectl made and the hashed name).
// Go vectors: scripts/hash-vectors.go runs kubectl's
// ConfigMapHash algorithm with that Go's encoding/json, for inputs the kubectl CLI cannot
// express (keys outside [-._a-zA-Z0-9], invalid UTF-8 data, nil data) and to hash every
// kubectl input under that Go release's escaping (\b and \f differ before/after Go 1.22;
// a Go older than 1.22 gives the tests their pre-1.22 vectors).
// Every byte string is stored as base64; `goEscapes` records which escaping produced a hash.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outFile = path.join(root, 'fixtures/hash-vectors/vectors.json');
const b64 = (b) => Buffer.from(b).toString('base64');
const utf8 = (s) => Buffer.from(s, 'utf8');

/** Go release "go1.X.Y" -> the escaping of \b and \f it uses. */
function escapesOf(goVersion) {
  const m = /^go(\d+)\.(\d+)/.exec(goVersion);
  if (!m) throw new Error(`cannot read Go version ${goVersion}`);
  return Number(m[1]) > 1 || Number(m[2]) >= 22 ? 'go1.22' : 'pre-1.22';
}

/** 100 KiB of valid UTF-8 text mixing ASCII, HTML characters, escapes and multi-byte characters. */
function largeValue() {
  const unit = utf8('line <a href="x">&amp;</a> \\ "q" \t é 日本 😀 \u2028 end\n');
  const size = 100 * 1024;
  const parts = [];
  let n = 0;
  while (n + unit.length <= size) {
    parts.push(unit);
    n += unit.length;
  }
  parts.push(Buffer.alloc(size - n, 'x'));
  return Buffer.concat(parts);
}

const KUBELET_CONFIG = utf8(
  'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nclusterDNS:\n- 10.96.0.10\nclusterDomain: cluster.local\nstaticPodPath: /etc/kubernetes/manifests\nevictionHard:\n  memory.available: "<100Mi"\n',
);
const ALL_CONTROLS = Buffer.from([...Array(32).keys(), 0x7f, 0x41]);

/** kubectl vectors: files (key -> bytes) and literals (key -> string), in command-line order. */
const KUBECTL_CASES = [
  { id: 'kubelet-config', note: 'a typical KubeletConfiguration', base: 'node-config', files: [['kubelet', KUBELET_CONFIG]] },
  { id: 'no-data', note: 'no keys at all: data is {}', base: 'empty-config', files: [] },
  { id: 'empty-file', note: 'an empty file: ""', base: 'cfg', files: [['empty', Buffer.alloc(0)]] },
  { id: 'empty-and-kubelet', note: 'an empty value beside a payload', base: 'cfg', files: [['kubelet', KUBELET_CONFIG], ['unused', Buffer.alloc(0)]] },
  { id: 'unicode', note: 'multi-byte characters, NBSP, BOM, a raw U+FFFD: written raw by Go', base: 'cfg', files: [['kubelet', utf8('héllo wörld 日本語 😀 \u00a0 \ufeff \ufffd \u{10ffff}\n')]] },
  { id: 'html', note: '< > & become \\u003c \\u003e \\u0026', base: 'cfg', files: [['kubelet', utf8('<tag attr="v">a & b</tag>\n')]] },
  { id: 'quotes-backslash', note: '" and \\ escaped', base: 'cfg', files: [['kubelet', utf8('say "hi" \\ C:\\path\\to\\n\n')]] },
  { id: 'newlines-tabs', note: '\\n \\r \\t short escapes', base: 'cfg', files: [['kubelet', utf8('a\nb\r\nc\td\n')]] },
  { id: 'controls', note: 'every byte < 0x20 and DEL (DEL stays raw)', base: 'cfg', files: [['kubelet', ALL_CONTROLS]] },
  { id: 'backspace-formfeed', note: '\\b and \\f: \\u0008/\\u000c before Go 1.22, \\b/\\f after', base: 'cfg', files: [['kubelet', utf8('x\by\fz')]] },
  { id: 'line-separators', note: 'U+2028/U+2029 escaped', base: 'cfg', files: [['kubelet', utf8('a\u2028b\u2029c')]] },
  {
    id: 'many-keys',
    note: 'keys kubectl accepts, sorted by bytes',
    base: 'multi',
    files: [['kubelet', utf8('k')], ['Kubelet', utf8('K')], ['_a', utf8('1')], ['-a', utf8('2')], ['.a', utf8('3')], ['0', utf8('4')], ['a.b', utf8('5')], ['A-b', utf8('6')], ['z', utf8('7')], ['Z9', utf8('8')]],
  },
  { id: 'large', note: 'a 100 KiB value', base: 'big', files: [['kubelet', largeValue()]] },
  { id: 'binary', note: 'a file that is not UTF-8 goes to binaryData', base: 'bin', files: [['kubelet', KUBELET_CONFIG], ['blob', Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41])]] },
  { id: 'binary-only', note: 'binaryData only: data stays {}', base: 'bin', files: [['blob', Buffer.from([0xc3, 0x28])]] },
  { id: 'literals', note: '--from-literal (value after the first =)', base: 'lit', literals: [['a', 'x=y'], ['b', 'tab\there'], ['c', 'ünï <&>']] },
  {
    id: 'everything',
    note: 'files and literals with every special case at once',
    base: 'my-node-config',
    files: [['kubelet', Buffer.concat([KUBELET_CONFIG, utf8('# <&> "\\" \b\f\u2028\u2029 é 😀\u0001\u007f\n')])], ['extra', utf8('\t\r\n')]],
    literals: [['note', 'a=b=c']],
  },
];

/** Go-only vectors (kubectl's CLI rejects these keys, or cannot make these maps). */
const GO_CASES = [
  // hash_test.go's table (append-hash.md §5.3): name "".
  { id: 'upstream-empty', base: '', data: [], binaryData: [] },
  { id: 'upstream-one-empty', base: '', data: [['one', '']], binaryData: [] },
  { id: 'upstream-three', base: '', data: [['two', '2'], ['one', ''], ['three', '3']], binaryData: [] },
  { id: 'upstream-nil-data', base: '', data: null, binaryData: [] },
  { id: 'upstream-binary-one', base: '', data: null, binaryData: [['one', '']] },
  { id: 'upstream-binary-three', base: '', data: null, binaryData: [['two', '2'], ['one', ''], ['three', '3']] },
  { id: 'upstream-both', base: '', data: [['one', '']], binaryData: [['two', '']] },
  {
    id: 'key-order-bytes-vs-utf16',
    note: 'UTF-16 order puts U+10000 first; Go sorts UTF-8 bytes: U+FF61 < U+FFFD < U+10000',
    base: 'sort',
    data: [['\u{10000}', 'astral'], ['\uff61', 'halfwidth'], ['\ufffd', 'replacement'], ['\u{1f600}', 'emoji'], ['\ufb01', 'ligature'], ['é', 'e'], ['z', 'z'], ['~', 'tilde'], ['\u007f', 'del'], ['A', 'a']],
  },
  { id: 'key-escapes', note: 'keys are escaped like values', base: 'keys', data: [['<&>', '1'], ['a\u2028b', '2'], ['"q"', '3'], ['tab\t', '4'], ['\b', '5']] },
  { id: 'name-escapes', note: 'the name is escaped too', base: 'a<b>&c\u2028', data: [['k', 'v']] },
  {
    id: 'invalid-utf8-values',
    note: 'each invalid byte becomes \\ufffd; a raw U+FFFD stays raw',
    base: 'bad',
    data: [
      ['ff', Buffer.from([0x61, 0xff, 0x62])],
      ['truncated', Buffer.from([0x61, 0xc3])],
      ['surrogate', Buffer.from([0xed, 0xa0, 0x80])],
      ['overlong', Buffer.from([0xe0, 0x80, 0x80, 0xc0, 0xaf])],
      ['too-big', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
      ['raw-fffd', utf8('\ufffd')],
    ],
  },
  { id: 'nil-data-with-binary', base: 'nil', data: null, binaryData: [['b', Buffer.from([0, 1, 2])]] },
];

function kubectlVersion() {
  const v = JSON.parse(execFileSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' })).clientVersion;
  return { gitVersion: v.gitVersion, gitCommit: v.gitCommit, goVersion: v.goVersion, platform: v.platform };
}

function goVersion() {
  try {
    return execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

function runKubectl(c, dir) {
  const args = ['create', 'configmap', c.base];
  const shown = [...args];
  for (const [key, bytes] of c.files ?? []) {
    const p = path.join(dir, `${c.id}.${key}`);
    fs.writeFileSync(p, bytes);
    args.push(`--from-file=${key}=${p}`);
    shown.push(`--from-file=${key}=<file ${key}>`);
  }
  for (const [key, value] of c.literals ?? []) {
    args.push(`--from-literal=${key}=${value}`);
    shown.push(`--from-literal=${key}=${value}`);
  }
  const tail = ['--append-hash', '--dry-run=client', '-o', 'json'];
  const cm = JSON.parse(execFileSync('kubectl', [...args, ...tail], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '/dev/null' } }));
  return { cm, command: ['kubectl', ...shown, ...tail] };
}

/** The data/binaryData kubectl built, checked against what we gave it. */
function splitOf(c, cm) {
  const given = new Map([...(c.files ?? []), ...(c.literals ?? []).map(([k, v]) => [k, utf8(v)])]);
  const data = Object.fromEntries(Object.entries(cm.data ?? {}).map(([k, v]) => [k, b64(utf8(v))]));
  const binaryData = { ...(cm.binaryData ?? {}) };
  for (const [k, v] of Object.entries({ ...data, ...binaryData })) {
    if (!given.has(k) || b64(given.get(k)) !== v) throw new Error(`${c.id}: kubectl changed key ${k}`);
  }
  if (Object.keys(data).length + Object.keys(binaryData).length !== given.size) throw new Error(`${c.id}: kubectl dropped a key`);
  return { data, binaryData };
}

function goHashes(inputs) {
  const lines = inputs.map((i) =>
    JSON.stringify({
      name: b64(utf8(i.base)),
      data: i.data === null ? null : Object.entries(i.data).map(([k, v]) => [b64(utf8(k)), v]),
      binaryData: Object.entries(i.binaryData).map(([k, v]) => [b64(utf8(k)), v]),
    }),
  );
  const out = execFileSync('go', ['run', path.join(root, 'scripts/hash-vectors.go')], { input: lines.join('\n') + '\n', encoding: 'utf8', env: { ...process.env, GO111MODULE: 'off' } });
  return out.trim().split('\n');
}

const toB64Map = (pairs) => Object.fromEntries(pairs.map(([k, v]) => [k, b64(typeof v === 'string' ? utf8(v) : v)]));

function main() {
  const kubectl = kubectlVersion();
  const go = goVersion();
  if (!go) throw new Error('go not found on PATH: it is needed for the pre-1.22 and non-kubectl vectors (Debian: apt-get install golang-go)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hash-vectors-'));
  const vectors = [];
  try {
    for (const c of KUBECTL_CASES) {
      const { cm, command } = runKubectl(c, dir);
      const { data, binaryData } = splitOf(c, cm);
      const name = cm.metadata.name;
      vectors.push({ id: `kubectl/${c.id}`, note: c.note, tool: 'kubectl', goEscapes: escapesOf(kubectl.goVersion), command, base: c.base, data, binaryData, name, hash: name.slice(-10) });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  {
    const goInputs = [
      ...GO_CASES.map((c) => ({ id: `go/${c.id}`, note: c.note, base: c.base, data: c.data === null ? null : toB64Map(c.data), binaryData: toB64Map(c.binaryData ?? []) })),
      ...vectors.map((v) => ({ id: `go/${v.id}`, note: `the input of ${v.id}, hashed by ${go}`, base: v.base, data: v.data, binaryData: v.binaryData })),
    ];
    goHashes(goInputs).forEach((hash, i) => {
      const { id, note, base, data, binaryData } = goInputs[i];
      // A re-hash of a kubectl vector names that vector's input instead of repeating it.
      const input = id.startsWith('go/kubectl/') ? { inputOf: id.slice(3) } : { data, binaryData };
      vectors.push({ id, note: note ?? '', tool: 'go', goEscapes: escapesOf(go), base, ...input, name: `${base}-${hash}`, hash });
    });
  }
  const doc = {
    generatedBy: 'node scripts/hash-vectors.mjs',
    tools: { kubectl, go },
    encoding: 'data and binaryData map each key to base64 of its bytes; data null is a nil map; inputOf names the vector whose input was re-hashed',
    vectors,
  };
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(doc, null, 2) + '\n');
  process.stdout.write(`${vectors.length} vectors -> ${path.relative(root, outFile)} (kubectl ${kubectl.gitVersion} ${kubectl.goVersion}, ${go})\n`);
}

main();
