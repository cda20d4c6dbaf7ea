import t from 'tap';
import { decodeKubeletConfig } from '../../../lib/config/decode.js';

const FILE = '/var/lib/kubelet/dynamic-config/store/checkpoints/u/1/kubelet';
const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
const SCHEME = '"k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"';

t.test('load errors carry the kubelet text', async (t) => {
  const table: [string, string, string][] = [
    ['empty file', '', `kubelet config file "${FILE}" was empty`],
    ['kind missing (YAML kept in the message)', 'apiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 5\n',
      "failed to decode: Object 'Kind' is missing in 'apiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 5\n'"],
    ['kind checked before apiVersion', 'maxPods: 5\n', "failed to decode: Object 'Kind' is missing in 'maxPods: 5\n'"],
    ['apiVersion missing', 'kind: KubeletConfiguration\n', "failed to decode: Object 'apiVersion' is missing in 'kind: KubeletConfiguration\n'"],
    ['apiVersion without version', 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/\n',
      "failed to decode: Object 'apiVersion' is missing in 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/\n'"],
    ['whitespace only', '  \n', "failed to decode: Object 'Kind' is missing in '  \n'"],
    ['old version', 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1alpha1\n',
      `failed to decode: no kind "KubeletConfiguration" is registered for version "kubelet.config.k8s.io/v1alpha1" in scheme ${SCHEME}`],
    ['wrong kind', 'kind: ConfigMap\napiVersion: v1\n', `failed to decode: no kind "ConfigMap" is registered for version "v1" in scheme ${SCHEME}`],
    ['kind is case-sensitive for the scheme', 'kind: kubeletconfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n',
      `failed to decode: no kind "kubeletconfiguration" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme ${SCHEME}`],
    ['meta kind', 'kind: SerializedNodeConfigSource\napiVersion: kubelet.config.k8s.io/v1beta1\n',
      'failed to cast object to KubeletConfiguration, unexpected type: kubelet.config.k8s.io/v1beta1, Kind=SerializedNodeConfigSource'],
    ['bad group/version', 'kind: KubeletConfiguration\napiVersion: a/b/c\n', 'failed to decode: unexpected GroupVersion string: a/b/c'],
    ['kind not a string', 'kind: 5\napiVersion: v1\n', "failed to decode: couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string"],
    ['top-level scalar', 'hello\n', `failed to decode: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ${STRUCT}`],
    ['top-level list', '- a\n', `failed to decode: couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${STRUCT}`],
    ['JSON syntax', '{"kind": "KubeletConfiguration",}', "failed to decode: couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string"],
    ['YAML syntax', `${HEAD}maxPods: "5\n`, 'failed to decode: yaml: line 4: found unexpected end of stream'],
    ['number for a duration', `${HEAD}syncFrequency: 60\n`, 'failed to decode: json: cannot unmarshal number into Go struct field KubeletConfiguration.syncFrequency of type string'],
    ['bad duration', `${HEAD}syncFrequency: bogus\n`, 'failed to decode: time: invalid duration "bogus"'],
    ['duration without unit', `${HEAD}syncFrequency: "10"\n`, 'failed to decode: time: missing unit in duration "10"'],
    ['unknown duration unit', `${HEAD}syncFrequency: 10d\n`, 'failed to decode: time: unknown unit "d" in duration "10d"'],
    ['null duration', `${HEAD}syncFrequency:\n`, 'failed to decode: time: invalid duration ""'],
    ['nested duration', `${HEAD}authentication:\n  webhook:\n    cacheTTL: 5\n`,
      'failed to decode: json: cannot unmarshal number into Go struct field KubeletWebhookAuthentication.authentication.webhook.cacheTTL of type string'],
    ['string for an int', `${HEAD}maxPods: "10"\n`, 'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32'],
    ['int32 overflow', `${HEAD}maxPods: 2147483648\n`, 'failed to decode: json: cannot unmarshal number 2147483648 into Go struct field KubeletConfiguration.maxPods of type int32'],
    ['fraction for an int', `${HEAD}maxPods: 1.5\n`, 'failed to decode: json: cannot unmarshal number 1.5 into Go struct field KubeletConfiguration.maxPods of type int32'],
    ['int64 overflow', `${HEAD}maxOpenFiles: 9223372036854775808\n`, 'failed to decode: json: cannot unmarshal number 9223372036854775808 into Go struct field KubeletConfiguration.maxOpenFiles of type int64'],
    ['list for a string', `${HEAD}cgroupDriver: [a]\n`, 'failed to decode: json: cannot unmarshal array into Go struct field KubeletConfiguration.cgroupDriver of type string'],
    ['string for a list', `${HEAD}clusterDNS: 10.96.0.10\n`, 'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.clusterDNS of type []string'],
    ['string for a struct', `${HEAD}authentication: none\n`, 'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.authentication of type v1beta1.KubeletAuthentication'],
    ['string for a gate', `${HEAD}featureGates: {NodeSwap: "true"}\n`, 'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.featureGates of type bool'],
    ['taint field', `${HEAD}registerWithTaints:\n- key: 5\n`, 'failed to decode: json: cannot unmarshal number into Go struct field Taint.registerWithTaints.key of type string'],
    ['negative uint', `${HEAD}logging: {verbosity: -1}\n`, 'failed to decode: json: cannot unmarshal number -1 into Go struct field LoggingConfiguration.logging.verbosity of type uint32'],
    ['flushFrequency is nanoseconds', `${HEAD}logging: {flushFrequency: 5s}\n`,
      'failed to decode: json: cannot unmarshal string into Go struct field LoggingConfiguration.logging.flushFrequency of type time.Duration'],
    ['bad quantity', `${HEAD}reservedMemory:\n- numaNode: 0\n  limits: {memory: lots}\n`,
      "failed to decode: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ['bad quantity suffix', `${HEAD}reservedMemory:\n- numaNode: 0\n  limits: {memory: 1mm}\n`, "failed to decode: unable to parse quantity's suffix"],
    ['first type error wins (JSON order)', '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","port":"x","maxPods":"y"}',
      'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.port of type int32'],
    ['first type error wins (YAML: sorted keys)', `${HEAD}port: x\nmaxPods: z\n`,
      'failed to decode: json: cannot unmarshal string into Go struct field KubeletConfiguration.maxPods of type int32'],
    ['a duration error beats an earlier type error', `${HEAD}address: 5\nsyncFrequency: x\n`, 'failed to decode: time: invalid duration "x"'],
  ];
  for (const [name, text, want] of table) {
    const r = decodeKubeletConfig(Buffer.from(text), FILE);
    t.equal(r.ok, false, name);
    if (!r.ok) t.equal(r.error, want, name);
  }
});

t.test('unknown and duplicate fields are warnings, not errors', async (t) => {
  const text = `${HEAD}maxPods: 5\nMaxPods: 7\nnotAField: 1\nauthentication: {x509: {clientCAFile: /ca, extra: 1}}\nfeatureGates: {Anything: true}\nmaxPods: 6\n`;
  const r = decodeKubeletConfig(Buffer.from(text), FILE);
  t.ok(r.ok);
  if (!r.ok) return;
  t.equal(r.config.maxPods, 6, 'keys are case-sensitive: MaxPods is not maxPods');
  t.same(r.config.featureGates, { Anything: true }, 'gate names are checked by validation, not decoding');
  t.same(r.strict, [
    { kind: 'duplicate-field', path: 'maxPods', line: 8, message: 'line 8: key "maxPods" already set in map' },
    { kind: 'unknown-field', path: 'MaxPods', message: 'unknown field "MaxPods"' },
    { kind: 'unknown-field', path: 'authentication.x509.extra', message: 'unknown field "authentication.x509.extra"' },
    { kind: 'unknown-field', path: 'notAField', message: 'unknown field "notAField"' },
  ]);
});

t.test('fields are known per release', async (t) => {
  const text = `${HEAD}registerNode: false\nmemorySwap: {swapBehavior: LimitedSwap}\n`;
  const v23 = decodeKubeletConfig(Buffer.from(text), FILE, { version: '1.23' });
  const v21 = decodeKubeletConfig(Buffer.from(text), FILE, { version: '1.21' });
  t.match(v23, { ok: true, strict: [] });
  t.match(v21, { ok: true, strict: [{ path: 'memorySwap' }, { path: 'registerNode' }] });
  t.equal(v21.ok && v21.config.registerNode, undefined);
});

t.test('kind and apiVersion are found case-insensitively, as Go does', async (t) => {
  const r = decodeKubeletConfig(Buffer.from('{"KIND":"KubeletConfiguration","ApiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":3}'), FILE);
  t.match(r, { ok: true, format: 'json', config: { maxPods: 3 } });
});

t.test('JSON repeats merge like encoding/json: structs and maps merge, scalars and lists replace', async (t) => {
  const text = '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1",' +
    '"featureGates":{"A":true},"featureGates":{"B":false},"clusterDNS":["1.1.1.1","2.2.2.2"],"clusterDNS":["3.3.3.3"],' +
    '"authentication":{"x509":{"clientCAFile":"/a"}},"authentication":{"webhook":{"enabled":false}},"featureGates":null}';
  const r = decodeKubeletConfig(Buffer.from(text), FILE);
  t.ok(r.ok);
  if (!r.ok) return;
  t.equal(r.config.featureGates, undefined, 'null resets a map');
  t.same(r.config.clusterDNS, ['3.3.3.3']);
  t.same(r.config.authentication, { x509: { clientCAFile: '/a' }, webhook: { enabled: false } });
  t.same(r.strict.map((s) => s.path), ['featureGates', 'clusterDNS', 'authentication', 'featureGates']);
});

t.test('null leaves values and pointers unset', async (t) => {
  const r = decodeKubeletConfig(Buffer.from(`${HEAD}maxPods: null\nhealthzPort: ~\ncpuCFSQuotaPeriod:\nevictionHard: {}\nenforceNodeAllocatable: []\n`), FILE);
  t.match(r, { ok: true });
  if (r.ok) t.same(r.config, { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', evictionHard: {}, enforceNodeAllocatable: [] });
});

t.test('JSON after blank space: 1.21+ look at the whole buffer, 1.20 peeks 2048 bytes', async (t) => {
  // Found by review: we looked at 4096 bytes for every release (apimachinery: IsJSONBuffer from
  // 1.21, GuessJSONStream(peek, 2048) in 1.20).
  const doc = '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":110}';
  const at = (blank: number, version: '1.20' | '1.21' | '1.23') => {
    const r = decodeKubeletConfig(Buffer.from('\n'.repeat(blank) + doc), '/k', { version });
    return r.format;
  };
  t.equal(at(5000, '1.23'), 'json', 'past 4096 bytes: still JSON on 1.23');
  t.equal(at(5000, '1.21'), 'json');
  t.equal(at(2047, '1.20'), 'json', 'within the peek on 1.20');
  t.equal(at(3000, '1.20'), 'yaml', 'beyond the peek on 1.20: the YAML decoder');
});
