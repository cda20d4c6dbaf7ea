import t from 'tap';
import { toPlain, type JNode } from '../../../lib/config/jnode.js';
import { firstDocument, parseYamlDocument, resolvePlainScalar } from '../../../lib/config/yaml.js';
import { decodeKubeletConfig } from '../../../lib/config/decode.js';

const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function valueOf(yamlText: string): JNode {
  const r = parseYamlDocument(Buffer.from(`v: ${yamlText}\n`));
  if (!r.ok) throw new Error(r.error);
  if (r.value.t !== 'obj') throw new Error('not a mapping');
  return r.value.entries.find(([k]) => k === 'v')![1];
}

t.test('YAML 1.1 scalars resolve as go-yaml v2 resolves them', async (t) => {
  const table: [string, JNode][] = [
    ...['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'].map((s): [string, JNode] => [s, { t: 'bool', v: true }]),
    ...['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'].map((s): [string, JNode] => [s, { t: 'bool', v: false }]),
    ...['~', 'null', 'Null', 'NULL', ''].map((s): [string, JNode] => [s, { t: 'null' }]),
    ['yES', { t: 'str', v: 'yES' }],
    ['oN', { t: 'str', v: 'oN' }],
    ['"yes"', { t: 'str', v: 'yes' }],
    ["'off'", { t: 'str', v: 'off' }],
    ['0x1F', { t: 'num', s: '31' }],
    ['0X1f', { t: 'num', s: '31' }],
    ['0o17', { t: 'num', s: '15' }],
    ['017', { t: 'num', s: '15' }],
    ['08', { t: 'num', s: '8' }],
    ['1_000', { t: 'num', s: '1000' }],
    ['0b101', { t: 'num', s: '5' }],
    ['-0b101', { t: 'num', s: '-5' }],
    ['+12', { t: 'num', s: '12' }],
    ['-0x10', { t: 'num', s: '-16' }],
    ['1e3', { t: 'num', s: '1000' }],
    ['1.0', { t: 'num', s: '1' }],
    ['1.5', { t: 'num', s: '1.5' }],
    ['.5', { t: 'num', s: '0.5' }],
    ['-.5e-7', { t: 'num', s: '-5e-8' }],
    ['1e21', { t: 'num', s: '1e+21' }],
    ['9223372036854775807', { t: 'num', s: '9223372036854775807' }],
    ['18446744073709551615', { t: 'num', s: '18446744073709551615' }],
    ['99999999999999999999', { t: 'num', s: '100000000000000000000' }],
    ['1e400', { t: 'str', v: '1e400' }],
    ['1:30', { t: 'str', v: '1:30' }], // go-yaml v2 has no base-60 numbers
    ['190:20:30', { t: 'str', v: '190:20:30' }],
    ['2001-12-14', { t: 'str', v: '2001-12-14' }], // timestamps stay strings in interface{}
    ['0x', { t: 'str', v: '0x' }],
    ['1_0.5', { t: 'num', s: '10.5' }],
    ['!!str 5', { t: 'str', v: '5' }],
    ['!!float 5', { t: 'num', s: '5' }],
    ['!!int "0x10"', { t: 'num', s: '16' }],
    ['!custom 5', { t: 'str', v: '5' }],
  ];
  for (const [text, want] of table) t.same(valueOf(text), want, `v: ${text}`);
});

t.test('resolvePlainScalar keeps plain words as strings', async (t) => {
  for (const s of ['hello', 'systemd', 'None', 'nope', 'yess', '.', '-', '+', '1.2.3', '10.96.0.10']) t.equal(resolvePlainScalar(s), s, s);
});

t.test('cgroupsPerQOS: off is a boolean false to the kubelet', async (t) => {
  const r = decodeKubeletConfig(Buffer.from(`${HEAD}cgroupsPerQOS: off\nfailSwapOn: Yes\n`), '/k');
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.config.cgroupsPerQOS, false);
    t.equal(r.config.failSwapOn, true);
  }
});

t.test('a YAML 1.1 boolean where a string is expected is a decode error', async (t) => {
  const r = decodeKubeletConfig(Buffer.from(`${HEAD}cgroupDriver: no\n`), '/k');
  t.same(r, { ok: false, format: 'yaml', error: 'failed to decode: json: cannot unmarshal bool into Go struct field KubeletConfiguration.cgroupDriver of type string' });
});

t.test('keys resolve too (y: and 1: become "true" and "1")', async (t) => {
  const r = parseYamlDocument(Buffer.from('y: 1\n1: 2\n1.5: 3\nyes: 4\n'));
  t.ok(r.ok);
  if (r.ok) t.same(toPlain(r.value), { '1': 2, '1.5': 3, true: 4 });
  const bad = parseYamlDocument(Buffer.from('~: 1\n'));
  t.match(bad, { ok: false, error: /^Unsupported map key of type: %!s\(<nil>\)/ });
});

t.test('duplicate keys: the last value wins and each repeat is reported', async (t) => {
  const text = `${HEAD}maxPods: 10\nfeatureGates:\n  NodeSwap: true\n  NodeSwap: false\nmaxPods: 20\nauthentication:\n  webhook:\n    enabled: true\n    enabled: false\n`;
  const r = decodeKubeletConfig(Buffer.from(text), '/k');
  t.ok(r.ok);
  if (!r.ok) return;
  t.equal(r.config.maxPods, 20);
  t.same(r.config.featureGates, { NodeSwap: false });
  t.same(r.config.authentication, { webhook: { enabled: false } });
  t.same(r.strict.map((s) => [s.kind, s.path, s.line]), [
    ['duplicate-field', 'featureGates.NodeSwap', 6],
    ['duplicate-field', 'maxPods', 7],
    ['duplicate-field', 'authentication.webhook.enabled', 11],
  ]);
  t.equal(r.strict.find((s) => s.path === 'maxPods')!.message, 'line 7: key "maxPods" already set in map');
  // A key with dots is named whole, as go-yaml's setMapIndex names it (found by review).
  const dotted = decodeKubeletConfig(Buffer.from(`${HEAD}evictionHard:\n  memory.available: 100Mi\n  memory.available: 200Mi\n`), '/k');
  t.same(dotted.ok && dotted.strict.map((s) => s.message), ['line 5: key "memory.available" already set in map']);
  const json = decodeKubeletConfig(Buffer.from('{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","evictionHard":{"memory.available":"1Mi",\n"memory.available":"2Mi"}}'), '/k', { version: '1.22' });
  t.same(json.ok && json.strict.map((s) => s.message), ['line 2: key "memory.available" already set in map'], 'JSON before 1.23 too');
});

t.test('JSON and YAML spellings of one config decode identically', async (t) => {
  const json = JSON.stringify({
    kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', maxPods: 50, cgroupsPerQOS: false,
    featureGates: { NodeSwap: true }, evictionHard: { 'memory.available': '100Mi' }, clusterDNS: ['10.96.0.10'],
    memoryThrottlingFactor: 0.5, syncFrequency: '30s', registerWithTaints: [{ key: 'a', value: 'b', effect: 'NoSchedule' }],
  }, null, 2);
  const yamlText = `${HEAD}maxPods: 50\ncgroupsPerQOS: false\nfeatureGates: {NodeSwap: true}\nevictionHard:\n  memory.available: 100Mi\nclusterDNS: [10.96.0.10]\nmemoryThrottlingFactor: 0.5\nsyncFrequency: 30s\nregisterWithTaints:\n- {key: a, value: b, effect: NoSchedule}\n`;
  const a = decodeKubeletConfig(Buffer.from(json), '/k');
  const b = decodeKubeletConfig(Buffer.from(yamlText), '/k');
  t.equal(a.ok && a.format, 'json');
  t.equal(b.ok && b.format, 'yaml');
  t.same(a.ok && a.config, b.ok && b.config);
  t.same(a.ok && a.config, JSON.parse(json), 'JSON decodes as JSON.parse would');
});

t.test('only the first document of a stream is read', async (t) => {
  t.equal(firstDocument('a: 1\n---\nb: 2\n'), 'a: 1\n');
  t.equal(firstDocument('# c\n---\na: 1\n...\nb: [\n'), '# c\n---\na: 1\n');
  t.equal(firstDocument('%YAML 1.1\n---\na: 1\n---\n'), '%YAML 1.1\n---\na: 1\n');
  t.equal(firstDocument('--- {a: 1}\n--- {b: 2}\n'), '--- {a: 1}\n');
  const r = decodeKubeletConfig(Buffer.from(`${HEAD}maxPods: 5\n---\nmaxPods: [broken\n`), '/k');
  t.match(r, { ok: true, config: { maxPods: 5 } });
  const empty = decodeKubeletConfig(Buffer.from(`---\n---\n${HEAD}`), '/k');
  t.match(empty, { ok: false, error: /^failed to decode: Object 'Kind' is missing in '---\n---\n/ });
});

t.test('merge keys and aliases expand as go-yaml does', async (t) => {
  const r = parseYamlDocument(Buffer.from('base: &b {x: 1, z: 3}\nc:\n  <<: *b\n  x: 2\nd: *b\n'));
  t.ok(r.ok);
  if (r.ok) t.same(toPlain(r.value), { base: { x: 1, z: 3 }, c: { x: 2, z: 3 }, d: { x: 1, z: 3 } });
});

t.test('merge keys in document order, as go-yaml v2 builds a map (a later entry wins)', async (t) => {
  const plain = (text: string) => {
    const r = parseYamlDocument(Buffer.from(text));
    return r.ok ? { value: toPlain(r.value), duplicates: r.duplicates } : { error: r.error };
  };
  // A merge after an explicit key replaces it; before it, the explicit key replaces the merged one. Both are strict errors.
  t.same(plain('maxPods: 110\n<<: {maxPods: -3}\n'), { value: { maxPods: -3 }, duplicates: [{ path: 'maxPods', key: 'maxPods', line: 2 }] });
  t.same(plain('<<: {maxPods: -3}\nmaxPods: 110\n'), { value: { maxPods: 110 }, duplicates: [{ path: 'maxPods', key: 'maxPods', line: 2 }] });
  // A sequence of mappings: the earlier one wins (merged last to first).
  t.same(plain('<<: [{a: 1, b: 1}, {a: 2, c: 2}]\n'), { value: { a: 1, b: 1, c: 2 }, duplicates: [{ path: 'a', key: 'a', line: 1 }] });
  t.same(plain('b: &b {x: 1}\nm:\n  x: 0\n  <<: *b\n'), { value: { b: { x: 1 }, m: { x: 1 } }, duplicates: [{ path: 'm.x', key: 'x', line: 1 }] });
  for (const bad of ['<<: 5\n', '<<: ~\n', '<<: abc\n', '<<: [5]\n', '<<: [{a: 1}, x]\n']) {
    t.same(plain(bad), { error: 'yaml: map merge requires map or sequence of maps as the value' }, JSON.stringify(bad));
  }
  t.same(plain('"<<": {a: 1}\n'), { value: { '<<': { a: 1 } }, duplicates: [] }, 'a quoted << is a key like any other');
});

t.test('sequence and mapping keys are refused, as go-yaml refuses them', async (t) => {
  t.same(parseYamlDocument(Buffer.from('? [a]\n: 5\n')), { ok: false, error: 'yaml: invalid map key: []interface {}{"a"}' });
  t.same(parseYamlDocument(Buffer.from('[a, 1]: 5\n')), { ok: false, error: 'yaml: invalid map key: []interface {}{"a", 1}' });
  t.same(parseYamlDocument(Buffer.from('? {b: 1, a: x}\n: 5\n')), { ok: false, error: 'yaml: invalid map key: map[interface {}]interface {}{"a":"x", "b":1}' });
});

t.test('directives: only %YAML 1.1 and %TAG, as go-yaml v2', async (t) => {
  const err = (text: string) => {
    const r = parseYamlDocument(Buffer.from(text));
    return r.ok ? null : r.error;
  };
  t.equal(err('%YAML 1.2\n---\na: 1\n'), 'yaml: found incompatible YAML document');
  t.equal(err('# c\n%YAML 2.0\n---\na: 1\n'), 'yaml: line 1: found incompatible YAML document');
  t.equal(err('%FOO bar\n---\na: 1\n'), 'yaml: found unknown directive name');
  t.equal(err('# c\n%FOO bar\n---\na: 1\n'), 'yaml: line 2: found unknown directive name');
  t.equal(err('%YAML 1.1\n---\na: 1\n'), null);
  t.equal(err('%TAG ! tag:x,2000:\n---\na: 1\n'), null);
  t.equal(err('a: "%FOO"\n'), null, 'a % inside the document is no directive');
});

t.test('hostile input never throws and stays bounded', async (t) => {
  let laughs = 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < 12; i++) laughs += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]\n`;
  const deepFlow = '['.repeat(100_000) + ']'.repeat(100_000);
  let deepBlock = '';
  for (let i = 0; i < 5000; i++) deepBlock += ' '.repeat(i) + `k${i}:\n`;
  const random = Buffer.alloc(1 << 20);
  let seed = 42;
  for (let i = 0; i < random.length; i++) random[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const table: [string, Buffer, RegExp][] = [
    ['billion laughs', Buffer.from(laughs), /^yaml: document contains excessive aliasing$/],
    ['self-referencing anchor', Buffer.from('a: &a [*a]\n'), /contains itself/],
    ['deep flow nesting', Buffer.from(deepFlow), /^yaml: /],
    ['deep block nesting', Buffer.from(deepBlock), /^yaml: /],
    ['NUL byte', Buffer.from('kind: Kubelet\u0000Configuration\n'), /^yaml: control characters are not allowed$/],
    ['invalid UTF-8', Buffer.from([0x6b, 0x3a, 0x20, 0xc3, 0x28, 0x0a]), /^yaml: invalid trailing UTF-8 octet$/],
    ['lone continuation byte', Buffer.from([0x80, 0x41]), /^yaml: invalid leading UTF-8 octet$/],
    ['truncated sequence', Buffer.from([0x61, 0xe2, 0x82]), /^yaml: incomplete UTF-8 octet sequence$/],
    ['1 MiB of random bytes', random, /^yaml: /],
    ['.inf', Buffer.from('v: .inf\n'), /^json: unsupported value: \+Inf$/],
    ['.nan', Buffer.from('v: .NaN\n'), /^json: unsupported value: NaN$/],
  ];
  for (const [name, bytes, want] of table) {
    const start = Date.now();
    const r = parseYamlDocument(bytes);
    t.match(r, { ok: false, error: want }, name);
    t.ok(Date.now() - start < 5000, `${name} finishes quickly`);
  }
});

t.test('syntax errors come back as values with go-yaml wording where it is known', async (t) => {
  const table: [string, string][] = [
    ['a: "open\n', 'yaml: line 2: found unexpected end of stream'],
    ['a: 1\nb:\n\t- x\n', 'yaml: line 3: found character that cannot start any token'],
    ['a: *nowhere\n', "yaml: unknown anchor 'nowhere' referenced"],
    // libyaml puts STREAM-END on a line of its own and reports parser errors at it (0-based).
    ['a: [1, 2\n', "yaml: line 1: did not find expected ',' or ']'"],
    ['garbage: [', 'yaml: line 1: did not find expected node content'],
    ['a: {b: 1\n', "yaml: line 1: did not find expected ',' or '}'"],
    ['a: [x,\n', 'yaml: line 1: did not find expected node content'],
    ['a: ["]", \'[\'\n', "yaml: line 1: did not find expected ',' or ']'"],
  ];
  for (const [text, want] of table) t.same(parseYamlDocument(Buffer.from(text)), { ok: false, error: want }, JSON.stringify(text));
});

t.test("double-quoted escapes are go-yaml v2's: \\' is one, \\/ is none (found by review)", async (t) => {
  const str = (v: JNode) => (v.t === 'str' ? v.v : `(${v.t})`);
  t.equal(str(valueOf(`"it\\'s"`)), "it's");
  t.equal(str(valueOf(`"a\\'b\\'c\\"d"`)), `a'b'c"d`, 'several, with other escapes');
  t.equal(str(valueOf(`"a\\\\/b"`)), 'a\\/b', 'an escaped backslash before a slash is no slash escape');
  t.equal(str(valueOf(`'a\\/b'`)), 'a\\/b', 'single quotes: no escapes at all');
  t.equal(str(valueOf(`a\\/b`)), 'a\\/b', 'plain: no escapes');
  t.equal(str(valueOf(`"a" # "\\/"`)), 'a', 'in a comment: nothing');
  t.same(parseYamlDocument(Buffer.from('a: 1\nb: "\\/etc\\/kubernetes"\n')), { ok: false, error: 'yaml: line 2: found unknown escape character' });
  t.same(parseYamlDocument(Buffer.from('a: "x\\\\\\/"\n')), { ok: false, error: 'yaml: found unknown escape character' }, '\\\\ then \\/');
  t.same(parseYamlDocument(Buffer.from(`a: "it\\'s"\nb: "\\/"\n`)), { ok: false, error: 'yaml: line 2: found unknown escape character' }, 'after a \\\' escape');
  t.same(parseYamlDocument(Buffer.from('a: *nowhere\nb: "\\/"\n')), { ok: false, error: "yaml: unknown anchor 'nowhere' referenced" }, 'an earlier error is the one said');
  t.same(parseYamlDocument(Buffer.from('a: "\\q"\n')), { ok: false, error: 'yaml: found unknown escape character' }, 'an escape neither knows');
  // Any number of them, in any number of scalars (found by a review: past 64 a false error; and
  // each one loaded the document again, 25 s for a hostile 1 MB payload).
  const many = parseYamlDocument(Buffer.from(`a: "${"\\'".repeat(1000)}"\n${Array.from({ length: 300 }, (_, i) => `k${i}: "x\\'y"`).join('\n')}\n`));
  t.ok(many.ok, 'a thousand in one scalar, one in each of 300 more');
  if (many.ok && many.value.t === 'obj') {
    t.equal(many.value.entries.find(([k]) => k === 'a')![1].t === 'str' && (many.value.entries.find(([k]) => k === 'a')![1] as { v: string }).v, "'".repeat(1000));
    t.equal(many.value.entries.length, 301);
  }
  // Outside double quotes a backslash stays, and a \/ there is no escape, whatever is near.
  const mixed = parseYamlDocument(Buffer.from(`# a \\/ in a comment\na: 'it\\'\nb: x\\'y\nc: |\n  \\' and \\/\nd: ["q\\'", 'r\\']\ne: "s\\'"\n`));
  t.same(mixed.ok && toPlain(mixed.value), { a: 'it\\', b: "x\\'y", c: "\\' and \\/\n", d: ["q'", 'r\\'], e: "s'" });
  t.same(parseYamlDocument(Buffer.from(`a: "it\\'s"\nb: ['\\/', "\\/"]\n`)), { ok: false, error: 'yaml: line 2: found unknown escape character' }, 'in a flow sequence, after a \\\' escape');
  // A plain scalar that starts with \' is no single-quoted one, and hides nothing after it (found by review).
  t.same(parseYamlDocument(Buffer.from(`a: 1\nb: \\'x\nc: 2\nd: "\\/etc"\n`)), { ok: false, error: 'yaml: line 4: found unknown escape character' });
  t.same(parseYamlDocument(Buffer.from(`a: [\\'a, "x\\/", b']\n`)), { ok: false, error: 'yaml: found unknown escape character' });
  const plain = parseYamlDocument(Buffer.from(`b: \\'x\nc: "y\\'z"\n`));
  t.same(plain.ok && toPlain(plain.value), { b: "\\'x", c: "y'z" });
  // A \' that starts a continuation line of a double-quoted scalar is still its escape.
  const cont = parseYamlDocument(Buffer.from(`a: "one\n  \\'two"\nb: "\\'"\n`));
  t.same(cont.ok && toPlain(cont.value), { a: "one 'two", b: "'" });
});

t.test("anchor names are go-yaml v2's: [0-9A-Za-z_-], then a blank or an indicator (found by review)", async (t) => {
  const err = (text: string) => { const r = parseYamlDocument(Buffer.from(text)); return r.ok ? null : r.error; };
  t.equal(err('a: 1\nevictionHard: &eviction.hard\n  memory.available: 1Mi\nb: *eviction.hard\n'), 'yaml: line 2: did not find expected alphabetic or numeric character');
  t.equal(err('x: &.a 1\n'), 'yaml: did not find expected alphabetic or numeric character', 'no valid character at all; first line');
  t.equal(err('a: &ok-name_1 {x: 1}\nb: *ok-name_1\n'), null);
  t.equal(err('seq:\n- &v1 1\n- *v1\n'), null);
  t.equal(err('a: "&not.an.anchor"\n'), null, 'inside quotes it is text');
});

t.test('!!binary is base64.StdEncoding: CR and LF skipped, padding required (found by review)', async (t) => {
  const r = (text: string) => { const p = parseYamlDocument(Buffer.from(text)); return p.ok ? toPlain(p.value) : p.error; };
  t.same(r('p: !!binary L2V0Yw==\n'), { p: '/etc' });
  t.same(r('p: !!binary |\n  L2V0\n  Yw==\n'), { p: '/etc' }, 'line feeds inside are skipped');
  t.same(r('p: !!binary ""\n'), { p: '' });
  for (const bad of ['p: !!binary L2V0Yw\n', 'p: !!binary "L2V0 Yw=="\n', 'p: !!binary L2V0Yw=x\n', 'p: !!binary A===\n']) {
    t.equal(r(bad), 'yaml: !!binary value contains invalid base64 data', bad);
  }
});

t.test('a key above int64 is a uint64, which sigs.k8s.io/yaml v1.2.0 refuses (found by review)', async (t) => {
  const r = (text: string) => { const p = parseYamlDocument(Buffer.from(text)); return p.ok ? toPlain(p.value) : p.error; };
  t.equal(r('featureGates:\n  18446744073709551615: true\n'), 'Unsupported map key of type: uint64, key: 0xffffffffffffffff, value: true');
  t.equal(r('{9223372036854775808: x}\n'), 'Unsupported map key of type: uint64, key: 0x8000000000000000, value: "x"');
  t.same(r('9223372036854775807: 1\n-9223372036854775808: 2\n'), { '9223372036854775807': 1, '-9223372036854775808': 2 }, 'int64 keys are keys');
});

t.test('UTF-8 and UTF-16 byte order marks are honoured', async (t) => {
  const bom8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a: yes\n')]);
  t.same(parseYamlDocument(bom8), { ok: true, value: { t: 'obj', entries: [['a', { t: 'bool', v: true }]] }, duplicates: [] });
  const bom16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a: 1\n', 'utf16le')]);
  t.same(parseYamlDocument(bom16), { ok: true, value: { t: 'obj', entries: [['a', { t: 'num', s: '1' }]] }, duplicates: [] });
});

t.test('goKeyOrder sorts as Go does: by UTF-8 bytes', async (t) => {
  const fc = (await import('fast-check')).default;
  const { goKeyOrder } = await import('../../../lib/config/yaml.js');
  const sign = (n: number) => Math.sign(n);
  const chars = fc.constantFrom('a', 'b', 'Z', '\u00e9', '\uffff', '\ue000', '\ud7ff', '\u{1f600}', '\u{10000}', '0', '');
  const str = fc.array(chars, { maxLength: 6 }).map((a) => a.join(''));
  fc.assert(fc.property(str, str, (a, b) => sign(goKeyOrder(a, b)) === sign(Buffer.compare(Buffer.from(a), Buffer.from(b)))), { numRuns: 5000, seed: 42 });
  t.pass('5000 random pairs agree with Buffer.compare');
});

t.test('NEL, LS and PS are line breaks, as libyaml reads them', async (t) => {
  const ok = (text: string) => {
    const r = parseYamlDocument(Buffer.from(text));
    return r.ok ? toPlain(r.value) : r.error;
  };
  // A plain scalar ends at the break; the next line starts at column 0.
  t.same(ok('a: x\u2028b: z\n'), { a: 'x', b: 'z' }, 'LS ends a plain scalar and a line');
  t.same(ok('a: x\u2029b: z\n'), { a: 'x', b: 'z' }, 'PS too');
  t.same(ok('a: x\u0085b: z\n'), { a: 'x', b: 'z' }, 'NEL too');
  t.same(ok('a: x  \u2028b: z\n'), { a: 'x', b: 'z' }, 'blanks before the break are not content');
  t.same(ok('a: x # note\u2028b: z\n'), { a: 'x', b: 'z' }, 'a comment ends there too');
  // Inside quotes NEL folds like a LF; LS and PS stay and drop the indentation after them.
  t.same(ok("a: 'x\u2028      y'\n"), { a: 'x\u2028y' }, 'single-quoted LS kept, indentation dropped');
  t.same(ok('a: "x\u2029  y"\n'), { a: 'x\u2029y' }, 'double-quoted PS kept');
  t.same(ok("a: 'x\u0085  y'\n"), { a: 'x y' }, 'NEL folds to a space');
  t.same(ok("a: 'x \u2028'\n"), { a: 'x\u2028' }, 'blanks before LS dropped, LS kept at the end');
  t.same(ok("a: '\u2028x'\n"), { a: '\u2028x' }, 'LS first');
  t.same(ok("a: 'x\u2028\u2028y'\n"), { a: 'x\u2028\u2028y' }, 'two LS');
  t.same(ok('a: x\n  \u2028  y\n'), { a: 'x\u2028y' }, 'a LS on a blank line of a plain scalar is kept');
  t.equal(ok('a: b\u2028  c: d\n'), ok('a: b\n  c: d\n'), 'errors as for a LF (line numbers count LS)');
  t.same(ok('a: x\u3000\n'), { a: 'x\u3000' }, 'U+3000 is not a YAML blank');
  t.same(ok('a: x\u00a0\n'), { a: 'x\u00a0' }, 'nor is U+00A0');
  t.same(ok('k\u2028ey: 1\n'), ok('k\ney: 1\n'), 'a break inside a key splits it');
  // A break that ends a plain scalar is not part of it: the value still resolves (YAML 1.1).
  t.same(ok('a: true\u2028\nb: 0x1F\u2029\nc: ~\u2028\n'), { a: true, b: 31, c: null }, 'LS/PS at the end of a line ends the scalar');
  t.same(ok('a: {b: 1}\u2028\nc: "x"\u2029\nd: [1]\u2028\n'), { a: { b: 1 }, c: 'x', d: [1] }, 'after a flow collection or a closed quote');
});

t.test('nesting past MAX_YAML_DEPTH is refused by count, however warm (a worker: parallel-verify.test.ts)', async (t) => {
  // Found by review: at a cap of 2000, js-yaml's recursion ran the main thread's stack out from
  // ~1200 levels of flow mappings and the RangeError read as "exceeded max depth", while a
  // worker (4 MiB of stack) parsed the payload: ls/verify worded it by the thread that judged it.
  const head = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n';
  const docs: Record<string, (d: number) => string> = {
    flow: (d) => `${head}evictionHard: ${'['.repeat(d)}${']'.repeat(d)}\n`,
    flowmap: (d) => `${head}evictionHard: ${'{a: '.repeat(d)}1${'}'.repeat(d)}\n`,
    block: (d) => `${head}foo:\n${Array.from({ length: d }, (_, i) => `${' '.repeat(i + 1)}a:\n`).join('')}`,
    alias: (d) => `${head}x0: &a0 [1]\n${Array.from({ length: d }, (_, i) => `x${i + 1}: &a${i + 1} [*a${i}]\n`).join('')}`,
  };
  const verdicts = (d: number) => Object.entries(docs).map(([kind, make]) => {
    const r = parseYamlDocument(Buffer.from(make(d)));
    return `${kind} ${d}: ${r.ok ? 'ok' : r.error}`;
  });
  const depths = [10, 400, 499, 500, 1300, 2500];
  const here = depths.flatMap(verdicts);
  t.ok(here.includes('flowmap 400: ok') && here.includes('block 400: ok') && here.includes('flow 400: ok'), 'well under the cap: parsed');
  for (const d of [1300, 2500]) for (const k of ['flow', 'flowmap', 'block']) t.ok(here.includes(`${k} ${d}: yaml: exceeded max depth`), `${k} ${d}: refused`);
  t.ok(here.includes('alias 2500: yaml: exceeded max depth'), 'a chain of aliases nests without js-yaml counting it: the converter counts');
  // The same on a warm parser (the stack a frame takes shrinks as code is optimised).
  for (let i = 0; i < 50; i++) verdicts(100);
  t.same(depths.flatMap(verdicts), here, 'warm, the same verdicts');
});
