import t from 'tap';
import { decodeDocument, isKubeletConfig, sameKubeletValue, MAX_DOC_DEPTH } from '../../../lib/diff/decode.js';
import { compareValues } from '../../../lib/diff/semantic.js';

const YAML = `kind: KubeletConfiguration
apiVersion: kubelet.config.k8s.io/v1beta1
maxPods: 110
cgroupsPerQOS: on
clusterDNS:
- 10.96.0.10
evictionHard:
  memory.available: 100Mi
nodeLabels:
  région: "Zürich ☃"
`;
const JSON_SAME = '{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","maxPods":110,"cgroupsPerQOS":true,' +
  '"clusterDNS":["10.96.0.10"],"evictionHard":{"memory.available":"100Mi"},"nodeLabels":{"région":"Zürich ☃"}}';

t.test('YAML 1.1 and JSON spellings of one config decode to the same value', async (t) => {
  const y = decodeDocument(Buffer.from(YAML));
  const j = decodeDocument(Buffer.from(JSON_SAME));
  t.ok(y.ok && j.ok);
  if (!y.ok || !j.ok) return;
  t.equal(y.value.cgroupsPerQOS, true, '`on` is a boolean, as go-yaml v2 reads it');
  t.same(compareValues(y.value, j.value), []);
});

t.test('what does not decode says why', async (t) => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['empty', Buffer.alloc(0), /empty/],
    ['binary', Buffer.from([0, 1, 2, 0xff]), /binary/],
    ['not UTF-8', Buffer.from([0x61, 0xc3, 0x28]), /binary/],
    ['bad YAML', Buffer.from('kind: x\n  bad: [\n'), /^yaml: line 2/],
    ['bad JSON', Buffer.from('{"a": }'), /invalid character/],
    ['a scalar', Buffer.from('just text\n'), /a string, not a map/],
    ['a list', Buffer.from('- a\n- b\n'), /a list, not a map/],
    ['too deep', Buffer.from(`${'{"a":'.repeat(MAX_DOC_DEPTH + 1)}1${'}'.repeat(MAX_DOC_DEPTH + 1)}`), /nested more than/],
  ];
  for (const [name, bytes, re] of cases) {
    const d = decodeDocument(bytes);
    t.notOk(d.ok, name);
    if (!d.ok) t.match(d.error, re, name);
  }
  t.ok(decodeDocument(Buffer.from(`${'{"a":'.repeat(MAX_DOC_DEPTH - 1)}1${'}'.repeat(MAX_DOC_DEPTH - 1)}`)).ok, 'deep but within the limit');
});

t.test('kubelet-aware equality: durations by value, nothing else', async (t) => {
  const cases: Array<[string[], unknown, unknown, boolean]> = [
    [['syncFrequency'], '60s', '1m0s', true],
    [['authentication', 'webhook', 'cacheTTL'], '120s', '2m', true],
    [['syncFrequency'], '60s', '61s', false],
    [['syncFrequency'], 'bogus', 'bogus2', false],
    [['staticPodPath'], '/a', '/a/', false],
    [['evictionHard', 'memory.available'], '1Gi', '1024Mi', false],
    [['syncFrequency'], 60, '1m', false],
  ];
  for (const [keys, a, b, want] of cases) t.equal(sameKubeletValue(keys, a as never, b as never), want, `${keys.join('.')}: ${a} vs ${b}`);
  t.ok(isKubeletConfig({ kind: 'KubeletConfiguration' }));
  t.ok(isKubeletConfig({ maxPods: 1 }));
  t.notOk(isKubeletConfig({ kind: 'SerializedNodeConfigSource' }));
});
