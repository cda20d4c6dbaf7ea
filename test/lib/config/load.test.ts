import t from 'tap';
import { loadCheckpointConfig, STATUS_ERRORS } from '../../../lib/config/load.js';

const FILE = '/var/lib/kubelet/dynamic-config/store/checkpoints/u1/7/kubelet';
const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
const load = (text: string, argv: string[] = [], extra: object = {}) => loadCheckpointConfig(Buffer.from(text), FILE, { version: '1.23', argv, ...extra });

t.test('stages and kubelet texts', async (t) => {
  const table: [string, string, string[], string, string | null][] = [
    ['ok', `${HEAD}maxPods: 50\n`, [], 'ok', null],
    ['load error', `${HEAD}syncFrequency: 5\n`, [], 'load-error', 'failed to decode: json: cannot unmarshal number into Go struct field KubeletConfiguration.syncFrequency of type string'],
    ['empty', '', [], 'load-error', `kubelet config file "${FILE}" was empty`],
    ['validation', `${HEAD}maxPods: -1\n`, [], 'validate-error', 'invalid configuration: maxPods (--max-pods) -1 must not be a negative number'],
    ['a flag fixes the payload', `${HEAD}maxPods: -1\n`, ['--max-pods=10'], 'ok', null],
    ['a flag breaks the payload', `${HEAD}maxPods: 50\n`, ['--max-pods=-3'], 'validate-error', 'invalid configuration: maxPods (--max-pods) -3 must not be a negative number'],
    ['a flag gate unlocks a field', `${HEAD}memorySwap: {swapBehavior: LimitedSwap}\n`, ['--feature-gates=NodeSwap=true'], 'ok', null],
    ['a flag gate the release does not know', `${HEAD}`, ['--feature-gates=Bogus=true'], 'validate-error', 'unrecognized feature gate: Bogus'],
    ['bad command line', `${HEAD}`, ['--max-pods=x'], 'internal-error', 'invalid argument "x" for "--max-pods" flag: strconv.ParseInt: parsing "x": invalid syntax'],
  ];
  for (const [name, text, argv, stage, error] of table) {
    const out = load(text, argv);
    t.equal(out.stage, stage, `${name}: stage`);
    t.equal(out.error, error, `${name}: error`);
    t.equal(out.statusError, stage === 'ok' ? null : STATUS_ERRORS[stage as keyof typeof STATUS_ERRORS], `${name}: status`);
  }
});

t.test('the outcome carries payload, config, strict issues, paths and overrides', async (t) => {
  const text = `${HEAD}maxPods: 50\nstaticPodPath: manifests\nfeatureGates: {NodeSwap: true, MemoryQoS: false}\nnotAField: 1\nlogging: {flushFrequency: 1000000000}\n`;
  const out = load(text, ['--max-pods=60', '--feature-gates=MemoryQoS=true', '--cgroup-driver=systemd', '--kubeconfig=/k']);
  t.equal(out.stage, 'ok');
  t.equal(out.format, 'yaml');
  t.same(out.payload?.maxPods, 50);
  t.equal(out.config?.maxPods, 60);
  t.equal(out.config?.cgroupDriver, 'systemd');
  t.same(out.config?.featureGates, { NodeSwap: true, MemoryQoS: true });
  t.equal(out.config?.staticPodPath, '/var/lib/kubelet/dynamic-config/store/checkpoints/u1/7/manifests');
  t.same(out.relativePaths, [{ field: 'staticPodPath', value: 'manifests', resolved: '/var/lib/kubelet/dynamic-config/store/checkpoints/u1/7/manifests' }]);
  t.same(out.strict.map((s) => s.path), ['notAField']);
  t.same(out.overrides.map((o) => o.flag), ['--max-pods', '--feature-gates'], 'only flags over fields the payload sets');
  t.same(out.flagOverrides.map((o) => o.flag), ['--max-pods', '--feature-gates', '--cgroup-driver']);
  t.same(out.ignoredFlags, ['--kubeconfig']);
  t.same(out.resets, [{ path: 'logging.flushFrequency', from: 1000000000, to: 5000000000 }]);
  t.same(out.failures, []);
});

t.test('local config gates reach checkpoint validation', async (t) => {
  const text = `${HEAD}memorySwap: {swapBehavior: LimitedSwap}\n`;
  t.equal(load(text).stage, 'validate-error');
  t.equal(load(text, [], { localGates: { NodeSwap: true } }).stage, 'ok');
});

t.test('a gate the flags do not name survives from the payload', async (t) => {
  const out = load(`${HEAD}featureGates: {Bogus: true}\n`, ['--feature-gates=NodeSwap=true']);
  t.equal(out.error, 'unrecognized feature gate: Bogus');
  t.same(out.overrides, [], 'the flag names another gate than the payload');
});

t.test('hostile payloads end in a load error, never an exception', async (t) => {
  const garbage = Buffer.alloc(64 * 1024);
  for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919) & 0xff;
  const table: [string, Buffer][] = [
    ['binary', garbage],
    ['NUL bytes', Buffer.from(`${HEAD}maxPods: 1\u0000\u0000\n`)],
    ['JSON with NUL', Buffer.from('{"kind":"KubeletConfiguration\u0000"}')],
    ['huge number', Buffer.from(`${HEAD}maxPods: ${'9'.repeat(5000)}\n`)],
    ['deep JSON', Buffer.from('{"a":' + '['.repeat(20000) + ']'.repeat(20000) + '}')],
    ['deep YAML', Buffer.from(`${HEAD}x: ${'['.repeat(20000)}${']'.repeat(20000)}\n`)],
    ['only a BOM', Buffer.from([0xef, 0xbb, 0xbf])],
  ];
  for (const [name, bytes] of table) {
    const out = loadCheckpointConfig(bytes, FILE, { version: '1.23' });
    t.equal(out.stage, 'load-error', name);
    t.match(out.error, /^(failed to decode: |kubelet config file )/, name);
  }
});

t.test('an __internal payload gets no v1beta1 defaults, so validation refuses it', async (t) => {
  const zeroRules = [
    'invalid configuration: nodeLeaseDurationSeconds must be greater than 0',
    'invalid configuration: cpuCFSQuotaPeriod {0s} requires feature gate CustomCPUCFSQuotaPeriod',
    'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 0 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 0',
    'invalid configuration: port (--port) 0 must be between 1 and 65535, inclusive',
    'invalid configuration: topologyManagerPolicy non-allowable value: ',
    'invalid configuration: topologyManagerScope non-allowable value: ',
    'invalid configuration: option "" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"',
  ];
  const text = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/__internal\nmaxPods: 50\nstaticPodPath: /etc/kubernetes/manifests\n';
  for (const version of ['1.20', '1.21', '1.22', '1.23'] as const) {
    const out = loadCheckpointConfig(Buffer.from(text), FILE, { version });
    const logging = version >= '1.22' ? ['logging.format: Invalid value: "": Unsupported log format'] : [];
    t.equal(out.stage, 'validate-error', version);
    t.equal(out.statusError, 'failed to validate config, see Kubelet log for details', version);
    t.equal(out.error, `[${[...zeroRules, ...logging].join(', ')}]`, version);
    t.same(out.strict.map((s) => s.message), ['unknown field "maxPods"', 'unknown field "staticPodPath"'], `${version}: v1beta1 names are unknown to the internal type`);
  }
  const cast = load('kind: SerializedNodeConfigSource\napiVersion: kubelet.config.k8s.io/__internal\n');
  t.equal(cast.error, 'failed to cast object to KubeletConfiguration, unexpected type: kubelet.config.k8s.io/__internal, Kind=SerializedNodeConfigSource');
  const other = load('kind: Pod\napiVersion: kubelet.config.k8s.io/__internal\n');
  t.equal(other.error, 'failed to decode: no kind "Pod" is registered for the internal version of group "kubelet.config.k8s.io" in scheme "k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32"');
});

t.test('a bad value for a config flag names the field it sets; the kubelet text is kept', async (t) => {
  const out = load(HEAD, ['--max-pods=x']);
  t.equal(out.stage, 'internal-error');
  t.equal(out.error, 'invalid argument "x" for "--max-pods" flag: strconv.ParseInt: parsing "x": invalid syntax');
  t.same(out.failures.map((f) => f.fields), [['maxPods']]);
  t.same(load(HEAD, ['--max-pods']).failures, [], 'a syntax error names no field');
});
