import t from 'tap';
import { applyDefaults, applyDefaultsDetailed, defaultsFor, DEFAULT_EVICTION_HARD, V1BETA1_DEFAULTS } from '../../../lib/config/defaults.js';
import { getAt } from '../../../lib/config/objpath.js';
import { lookupField } from '../../../lib/config/schema.js';
import { SUPPORTED_VERSIONS } from '../../../lib/config/version.js';

const EMPTY = { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1' };

t.test('every default fills an empty config', async (t) => {
  const out = applyDefaults(EMPTY, '1.23');
  for (const rule of defaultsFor('1.23')) t.same(getAt(out, rule.path), rule.value, rule.path);
  t.same(Object.keys(out).length, 2 + new Set(defaultsFor('1.23').map((r) => r.path.split('.')[0])).size);
});

t.test('every rule names a real field of its kind', async (t) => {
  for (const rule of V1BETA1_DEFAULTS) {
    const field = lookupField(rule.path);
    t.ok(field, rule.path);
    if (rule.when === 'absent' && field?.kind !== 'map' && field?.kind !== 'list' && !rule.path.startsWith('logging.options')) {
      t.ok(field?.pointer, `${rule.path} is a pointer, so only absence is defaulted`);
    }
  }
});

t.test('pointer fields keep an explicit zero; plain fields do not', async (t) => {
  const table: [string, unknown, unknown][] = [
    ['imageGCHighThresholdPercent', 0, 0],
    ['imageGCLowThresholdPercent', 0, 0],
    ['healthzPort', 0, 0],
    ['registryPullQPS', 0, 0],
    ['eventRecordQPS', 0, 0],
    ['kubeAPIQPS', 0, 0],
    ['oomScoreAdj', 0, 0],
    ['nodeStatusMaxImages', 0, 0],
    ['iptablesMasqueradeBit', 0, 0],
    ['containerLogMaxFiles', 0, 0],
    ['memoryThrottlingFactor', 0, 0],
    ['cgroupsPerQOS', false, false],
    ['enableServer', false, false],
    ['resolvConf', '', ''],
    ['cpuCFSQuotaPeriod', '0s', '0s'],
    ['maxPods', 0, 110],
    ['nodeLeaseDurationSeconds', 0, 40],
    ['registryBurst', 0, 10],
    ['port', 0, 10250],
    ['readOnlyPort', 0, 0],
    ['maxOpenFiles', 0, 1000000],
    ['hairpinMode', '', 'promiscuous-bridge'],
    ['syncFrequency', '0s', '1m0s'],
    ['syncFrequency', '0', '1m0s'],
    ['syncFrequency', '0m0s', '1m0s'],
    ['syncFrequency', '30s', '30s'],
    ['podPidsLimit', 0, 0],
    ['podPidsLimit', -5, -1],
    ['podPidsLimit', 4096, 4096],
    ['evictionHard', {}, {}],
    ['evictionHard', { 'memory.available': '1Gi' }, { 'memory.available': '1Gi' }],
    ['enforceNodeAllocatable', [], []],
    ['enforceNodeAllocatable', ['none'], ['none']],
    ['authentication', { webhook: { enabled: false } }, { webhook: { enabled: false, cacheTTL: '2m0s' }, anonymous: { enabled: false } }],
  ];
  for (const [path, given, want] of table) {
    const out = applyDefaults({ ...EMPTY, [path]: given }, '1.23');
    t.same(getAt(out, path), want, `${path}: ${JSON.stringify(given)}`);
  }
});

t.test('absent maps and lists get their defaults', async (t) => {
  const out = applyDefaults(EMPTY, '1.23');
  t.same(out.evictionHard, DEFAULT_EVICTION_HARD);
  t.same(out.enforceNodeAllocatable, ['pods']);
  t.equal(out.featureGates, undefined, 'featureGates has no default');
});

t.test('nodeStatusReportFrequency follows an explicit nodeStatusUpdateFrequency', async (t) => {
  const table: [Record<string, unknown>, string, string][] = [
    [{}, '5m0s', '10s'],
    [{ nodeStatusUpdateFrequency: '20s' }, '20s', '20s'],
    [{ nodeStatusUpdateFrequency: '0s' }, '5m0s', '10s'],
    [{ nodeStatusUpdateFrequency: '20s', nodeStatusReportFrequency: '1m' }, '1m', '20s'],
  ];
  for (const [given, report, update] of table) {
    const out = applyDefaults({ ...EMPTY, ...given }, '1.23');
    t.same([out.nodeStatusReportFrequency, out.nodeStatusUpdateFrequency], [report, update], JSON.stringify(given));
  }
});

t.test('logging defaults per release', async (t) => {
  t.same(applyDefaults(EMPTY, '1.23').logging, { format: 'text', options: { json: { infoBufferSize: '0' } }, flushFrequency: 5000000000 });
  t.same(applyDefaults(EMPTY, '1.22').logging, { format: 'text' });
  t.same(applyDefaults({ ...EMPTY, logging: { format: 'json', flushFrequency: 1 } }, '1.23').logging, { format: 'json', flushFrequency: 1, options: { json: { infoBufferSize: '0' } } });
});

t.test('fields added in later releases are not defaulted in earlier ones', async (t) => {
  const table: [string, string[]][] = [
    ['1.20', ['enableSystemLogHandler']],
    ['1.21', ['memoryManagerPolicy', 'enableProfilingHandler', 'enableDebugFlagsHandler']],
    ['1.22', ['seccompDefault', 'memoryThrottlingFactor']],
    ['1.23', ['registerNode', 'logging.flushFrequency']],
  ];
  for (const [since, paths] of table) {
    for (const v of SUPPORTED_VERSIONS) {
      const out = applyDefaults(EMPTY, v);
      for (const p of paths) t.equal(getAt(out, p) !== undefined, Number(v.slice(2)) >= Number(since.slice(2)), `${p} in ${v}`);
    }
  }
});

t.test('applyDefaultsDetailed reports what it filled, and leaves its input alone', async (t) => {
  const input = { ...EMPTY, maxPods: 0, imageGCHighThresholdPercent: 0 };
  const frozen = JSON.stringify(input);
  const { applied } = applyDefaultsDetailed(input, '1.23');
  t.equal(JSON.stringify(input), frozen);
  t.same(applied.find((a) => a.path === 'maxPods'), { path: 'maxPods', value: 110, was: 0 });
  t.notOk(applied.some((a) => a.path === 'imageGCHighThresholdPercent'));
});
