import t from 'tap';
import { applyDefaults } from '../../../lib/config/defaults.js';
import { aggregateError, describeFailure, GO_POINTER_RE, validateKubeletConfig } from '../../../lib/config/validate.js';
import { formatGoDuration, parseGoDuration } from '../../../lib/config/duration.js';
import { parseCpuSet } from '../../../lib/config/cpuset.js';
import { formatTaint, isValidTaint } from '../../../lib/config/taints.js';
import type { KubeletVersion } from '../../../lib/config/version.js';

const EMPTY = { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1' };
const P = 'invalid configuration: ';

function check(fields: Record<string, unknown>, version: KubeletVersion = '1.23', extra: { localGates?: Record<string, boolean>; klogFlags?: Record<string, string> } = {}) {
  return validateKubeletConfig(applyDefaults({ ...EMPTY, ...fields }, version), { version, ...extra });
}

t.test('the defaults are valid in every release', async (t) => {
  for (const v of ['1.20', '1.21', '1.22', '1.23'] as const) t.same(check({}, v), { failures: [], error: null }, v);
});

t.test('each 1.23 rule, with its exact message', async (t) => {
  const table: [string, Record<string, unknown>, string][] = [
    ['nodeLease', { nodeLeaseDurationSeconds: -1 }, `${P}nodeLeaseDurationSeconds must be greater than 0`],
    ['enforce needs QoS', { cgroupsPerQOS: false }, `${P}enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true`],
    ['systemCgroups', { systemCgroups: '/system' }, `${P}systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified`],
    ['eventBurst', { eventBurst: -1 }, `${P}eventBurst (--event-burst) -1 must not be a negative number`],
    ['eventRecordQPS', { eventRecordQPS: -2 }, `${P}eventRecordQPS (--event-qps) -2 must not be a negative number`],
    ['healthzPort', { healthzPort: 65536 }, `${P}healthzPort (--healthz-port) 65536 must be between 1 and 65535, inclusive`],
    ['cfs period needs gate', { cpuCFSQuotaPeriod: '50ms' }, `${P}cpuCFSQuotaPeriod {50ms} requires feature gate CustomCPUCFSQuotaPeriod`],
    ['cfs period range', { cpuCFSQuotaPeriod: '2s', featureGates: { CustomCPUCFSQuotaPeriod: true } }, `${P}cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {2s} must be between 1usec and 1sec, inclusive`],
    ['gc high', { imageGCHighThresholdPercent: 101 }, `${P}imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive`],
    ['gc low >= high', { imageGCHighThresholdPercent: 0 }, `${P}imageGCLowThresholdPercent (--image-gc-low-threshold) 80 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 0`],
    ['drop bit', { iptablesDropBit: 32 }, `${P}iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive`],
    ['masquerade bit', { iptablesMasqueradeBit: -1 }, `${P}iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive`],
    ['kubeAPIBurst', { kubeAPIBurst: -2 }, `${P}kubeAPIBurst (--kube-api-burst) -2 must not be a negative number`],
    ['kubeAPIQPS', { kubeAPIQPS: -1 }, `${P}kubeAPIQPS (--kube-api-qps) -1 must not be a negative number`],
    ['maxImages', { nodeStatusMaxImages: -2 }, `${P}nodeStatusMaxImages (--node-status-max-images) must be -1 or greater`],
    ['maxOpenFiles', { maxOpenFiles: -1 }, `${P}maxOpenFiles (--max-open-files) -1 must not be a negative number`],
    ['maxPods', { maxPods: -1 }, `${P}maxPods (--max-pods) -1 must not be a negative number`],
    ['oomScoreAdj', { oomScoreAdj: 1001 }, `${P}oomScoreAdj (--oom-score-adj) 1001 must be between -1000 and 1000, inclusive`],
    ['podsPerCore', { podsPerCore: -1 }, `${P}podsPerCore (--pods-per-core) -1 must not be a negative number`],
    ['port', { port: 70000 }, `${P}port (--port) 70000 must be between 1 and 65535, inclusive`],
    ['readOnlyPort', { readOnlyPort: -1 }, `${P}readOnlyPort (--read-only-port) -1 must be between 0 and 65535, inclusive`],
    ['registryBurst', { registryBurst: -1 }, `${P}registryBurst (--registry-burst) -1 must not be a negative number`],
    ['registryPullQPS', { registryPullQPS: -1 }, `${P}registryPullQPS (--registry-qps) -1 must not be a negative number`],
    ['serverTLSBootstrap gate', { serverTLSBootstrap: true, featureGates: { RotateKubeletServerCertificate: false } }, `${P}serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate`],
    ['topology policy gate', { topologyManagerPolicy: 'restricted', featureGates: { TopologyManager: false } }, `${P}topologyManagerPolicy restricted requires feature gate TopologyManager`],
    ['invalid taint', { registerWithTaints: [{ key: 'a b', effect: 'NoSchedule' }] }, 'invalid taint: {a b  NoSchedule <nil>}'],
    ['taint effect', { registerWithTaints: [{ key: 'a', effect: 'Bogus' }] }, 'invalid taint: {a  Bogus <nil>}'],
    ['taint time', { registerWithTaints: [{ key: 'a', effect: 'NoSchedule', timeAdded: '2021-01-01T00:00:00Z' }] }, 'taint TimeAdded is not nil'],
    ['topology policy', { topologyManagerPolicy: 'bogus' }, `${P}topologyManagerPolicy non-allowable value: bogus`],
    ['topology scope gate', { topologyManagerScope: 'pod', featureGates: { TopologyManager: false } }, `${P}topologyManagerScope pod requires feature gate TopologyManager`],
    ['topology scope', { topologyManagerScope: 'bogus' }, `${P}topologyManagerScope non-allowable value: bogus`],
    ['shutdown order', { shutdownGracePeriod: '10s', shutdownGracePeriodCriticalPods: '1m' }, `${P}ShutdownGracePeriod {10s} must be >= 0, ShutdownGracePeriodCriticalPods {1m0s} must be >= 0, and ShutdownGracePeriodCriticalPods {1m0s} must be <= ShutdownGracePeriod {10s}`],
    ['shutdown second', { shutdownGracePeriod: '500ms' }, `${P}ShutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec`],
    ['shutdown gate', { shutdownGracePeriod: '30s', featureGates: { GracefulNodeShutdown: false } }, `${P}Specifying ShutdownGracePeriod or ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown`],
    ['by priority gate', { shutdownGracePeriodByPodPriority: [{ priority: 1, shutdownGracePeriodSeconds: 10 }] }, `${P}Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority`],
    ['by priority exclusive', { shutdownGracePeriod: '30s', shutdownGracePeriodByPodPriority: [{ priority: 1, shutdownGracePeriodSeconds: 10 }], featureGates: { GracefulNodeShutdownBasedOnPodPriority: true } }, `${P}Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time`],
    ['swap gate', { memorySwap: { swapBehavior: 'LimitedSwap' } }, `${P}MemorySwap.SwapBehavior cannot be set when NodeSwap feature flag is disabled`],
    ['swap value', { memorySwap: { swapBehavior: 'bogus' }, featureGates: { NodeSwap: true } }, `${P}MemorySwap.SwapBehavior bogus must be one of: LimitedSwap, UnlimitedSwap`],
    ['system-reserved cgroup', { enforceNodeAllocatable: ['pods', 'system-reserved'] }, `${P}systemReservedCgroup (--system-reserved-cgroup) must be specified when 'system-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)`],
    ['kube-reserved cgroup', { enforceNodeAllocatable: ['kube-reserved'] }, `${P}kubeReservedCgroup (--kube-reserved-cgroup) must be specified when 'kube-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)`],
    ['none alone', { enforceNodeAllocatable: ['none', 'pods'] }, `${P}enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when 'none' is specified`],
    ['enforce option', { enforceNodeAllocatable: ['bogus'] }, `${P}option "bogus" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"`],
    ['hairpin', { hairpinMode: 'bogus' }, `${P}option "bogus" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`],
    ['reserved cpus + cgroup', { reservedSystemCPUs: '0-1', kubeReservedCgroup: '/kube' }, "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)"],
    ['reserved cpus syntax', { reservedSystemCPUs: 'abc' }, 'unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "abc": invalid syntax'],
    ['reserved cpus range', { reservedSystemCPUs: '3-1' }, 'unable to parse reservedSystemCPUs (--reserved-cpus), error: invalid range "3-1" (3 >= 1)'],
    ['reserved cpus empty part', { reservedSystemCPUs: '0,' }, 'unable to parse reservedSystemCPUs (--reserved-cpus), error: strconv.Atoi: parsing "": invalid syntax'],
    ['reserved memory type', { reservedMemory: [{ numaNode: 0, limits: { cpu: '1' } }] }, `the limit type "cpu" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted`],
    ['reserved memory zero', { reservedMemory: [{ numaNode: 1, limits: { memory: '0Gi' } }] }, `reserved memory may not be zero for NUMA node 1 and resource "memory"`],
    ['reserved memory duplicate', { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }, { numaNode: 0, limits: { memory: '2Gi' } }] }, `the reserved memory has a duplicate value for NUMA node 0 and resource "memory"`],
    ['hidden metrics', { showHiddenMetricsForVersion: '1.21' }, "--show-hidden-metrics-for-version must be omitted or have the value '1.22'. Only the previous minor version is allowed"],
    ['log format', { logging: { format: 'bogus' } }, 'logging.format: Invalid value: "bogus": Unsupported log format'],
    ['log verbosity', { logging: { verbosity: 4294967295 } }, 'logging.verbosity: Invalid value: 0xffffffff: Must be <= 2147483647'],
    ['vmodule with json', { logging: { format: 'json', vmodule: [{ filePattern: 'x', verbosity: 1 }] } }, 'logging.vmodule: Forbidden: Only supported for text log format'],
    ['vmodule pattern', { logging: { vmodule: [{ filePattern: 'a=b', verbosity: 1 }] } }, 'logging.vmodule[0]: Invalid value: "a=b": File pattern must not contain equal sign or comma'],
    ['vmodule empty', { logging: { vmodule: [{ verbosity: 1 }] } }, 'logging.vmodule[0]: Required value: File pattern must not be empty'],
    ['bad gate stops validation', { featureGates: { Bogus: true }, maxPods: -1 }, 'unrecognized feature gate: Bogus'],
    ['locked gate', { featureGates: { IPv6DualStack: false } }, 'cannot set feature gate IPv6DualStack to false, feature is locked to true'],
  ];
  for (const [name, fields, want] of table) t.equal(check(fields).error, want, name);
});

t.test('memoryThrottlingFactor prints a Go pointer in 1.22/1.23', async (t) => {
  for (const v of [0, 1.5, -1]) {
    const err = check({ memoryThrottlingFactor: v }).error;
    t.match(err, /^invalid configuration: memoryThrottlingFactor 0xc[0-9a-f]+ must be greater than 0 and less than or equal to 1.0$/);
    t.match(err, GO_POINTER_RE);
  }
  t.equal(check({ memoryThrottlingFactor: 1 }).error, null);
  t.equal(check({ memoryThrottlingFactor: 1.5 }, '1.21').error, null, 'no such rule before 1.22');
});

t.test('several failures aggregate as [a, b] in rule order, duplicates dropped', async (t) => {
  const r = check({ maxPods: -1, port: 70000, enforceNodeAllocatable: ['bogus', 'bogus'] });
  t.equal(r.error, `[${P}maxPods (--max-pods) -1 must not be a negative number, ${P}port (--port) 70000 must be between 1 and 65535, inclusive, ${P}option "bogus" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"]`);
  t.equal(r.failures.length, 4);
  t.same(r.failures.map((f) => f.field), ['maxPods', 'port', 'enforceNodeAllocatable[0]', 'enforceNodeAllocatable[1]']);
  t.equal(aggregateError([]), null);
  t.equal(aggregateError(['a']), 'a');
  t.equal(aggregateError(['a', 'a']), 'a');
  t.equal(aggregateError(['a', 'b', 'a']), '[a, b]');
});

t.test('release differences', async (t) => {
  const table: [string, KubeletVersion, Record<string, unknown>, string | null][] = [
    ['graceful shutdown is alpha (off) in 1.20', '1.20', { shutdownGracePeriod: '30s' }, `${P}Specifying ShutdownGracePeriod or ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown`],
    ['graceful shutdown is beta (on) in 1.21', '1.21', { shutdownGracePeriod: '30s' }, null],
    ['hidden metrics previous minor, 1.20', '1.20', { showHiddenMetricsForVersion: '1.19' }, null],
    ['hidden metrics previous minor, 1.21', '1.21', { showHiddenMetricsForVersion: '1.19' }, "--show-hidden-metrics-for-version must be omitted or have the value '1.20'. Only the previous minor version is allowed"],
    ['no taint rule before 1.23', '1.22', { registerWithTaints: [{ key: 'a b' }] }, null],
    ['no reservedMemory rule in 1.20', '1.20', { reservedMemory: [{ numaNode: 0, limits: { cpu: '1' } }] }, null],
    ['reservedMemory rule in 1.21', '1.21', { reservedMemory: [{ numaNode: 0, limits: { memory: '0' } }] }, `reserved memory may not be zero for NUMA node 0 and resource "memory"`],
    ['no swap rule in 1.21', '1.21', { memorySwap: { swapBehavior: 'x' } }, null],
    ['NodeSwap unknown in 1.21', '1.21', { featureGates: { NodeSwap: true } }, 'unrecognized feature gate: NodeSwap'],
    ['log format wording 1.20', '1.20', { logging: { format: 'bogus' } }, 'unsupported log format: bogus'],
    ['log format wording 1.22', '1.22', { logging: { format: 'bogus' } }, 'logging.format: Invalid value: "bogus": Unsupported log format'],
    ['no verbosity rule in 1.22', '1.22', { logging: { verbosity: 4294967295 } }, null],
  ];
  for (const [name, v, fields, want] of table) t.equal(check(fields, v).error, want, name);
});

t.test('a non-text log format refuses non-default klog flags', async (t) => {
  const klogFlags = { 'log-dir': '/var/log/k', logtostderr: 'true', stderrthreshold: 'ERROR', 'log-file': '' };
  t.equal(check({ logging: { format: 'json' } }, '1.23', { klogFlags }).error, 'logging.format: Invalid value: "json": Non-default format doesn\'t honor flag: log-dir');
  t.equal(check({ logging: { format: 'json' } }, '1.22', { klogFlags }).error, 'logging.format: Invalid value: "json": Non-default format doesn\'t honor flag: log_dir');
  t.equal(check({ logging: { format: 'json' } }, '1.20', { klogFlags: { vmodule: 'x=2' } }).error, "non-default logging format doesn't honor flag: vmodule");
  t.equal(check({ logging: { format: 'text' } }, '1.23', { klogFlags }).error, null);
});

t.test('gates from the local config file count, the checkpoint overrides them', async (t) => {
  t.equal(check({ memorySwap: { swapBehavior: 'LimitedSwap' } }, '1.23', { localGates: { NodeSwap: true } }).error, null);
  t.match(check({ memorySwap: { swapBehavior: 'LimitedSwap' }, featureGates: { NodeSwap: false } }, '1.23', { localGates: { NodeSwap: true } }).error, /NodeSwap feature flag is disabled/);
});

t.test('Go formatting helpers', async (t) => {
  const durations: [string, string][] = [
    ['0', '0s'], ['0s', '0s'], ['1m', '1m0s'], ['90s', '1m30s'], ['1h', '1h0m0s'], ['500ms', '500ms'], ['1.5µs', '1.5µs'],
    ['1us', '1µs'], ['1ns', '1ns'], ['-1m', '-1m0s'], ['2h45m0.5s', '2h45m0.5s'], ['100000h', '100000h0m0s'], ['.5s', '500ms'], ['1.001s', '1.001s'], ['1.s', '1s'], ['+5m', '5m0s'],
  ];
  for (const [text, want] of durations) t.equal(formatGoDuration(parseGoDuration(text)), want, text);
  const bad: [string, string][] = [
    ['', 'time: invalid duration ""'], ['bogus', 'time: invalid duration "bogus"'], ['10', 'time: missing unit in duration "10"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'], ['.s', 'time: invalid duration ".s"'], ['1.5', 'time: missing unit in duration "1.5"'],
    ['9999999999999h', 'time: invalid duration "9999999999999h"'], ['5µx', 'time: unknown unit "\\xc2\\xb5x" in duration "5\\xc2\\xb5x"'],
  ];
  for (const [text, want] of bad) t.throws(() => parseGoDuration(text), { message: want }, JSON.stringify(text));
  t.same(parseCpuSet('0-2,5,7-7'), [{ start: 0, end: 2 }, { start: 5, end: 5 }, { start: 7, end: 7 }]);
  t.same(parseCpuSet('1-2-3', '1.21'), [], 'up to 1.21 three-part ranges are skipped, as in Go');
  t.throws(() => parseCpuSet('1-2-3', '1.22'), { message: 'strconv.Atoi: parsing "2-3": invalid syntax' }, 'from 1.22 a range splits at its first dash');
  t.throws(() => parseCpuSet('0-1-3'), { message: 'strconv.Atoi: parsing "1-3": invalid syntax' }, '1.23 is the default');
  t.same(parseCpuSet('3-1', '1.20'), [{ start: 3, end: 1 }], '1.20/1.21 have no range check');
  t.throws(() => parseCpuSet('3-1', '1.22'), { message: 'invalid range "3-1" (3 >= 1)' });
  t.throws(() => parseCpuSet('0--1', '1.22'), { message: 'invalid range "0--1" (0 >= -1)' }, 'the end bound keeps the second dash');
  t.same(parseCpuSet('0-4000000000'), [{ start: 0, end: 4000000000 }], 'huge ranges are not materialised');
  t.throws(() => parseCpuSet('0-'), { message: 'strconv.Atoi: parsing "": invalid syntax' });
  t.throws(() => parseCpuSet(' 1'), { message: 'strconv.Atoi: parsing " 1": invalid syntax' });
  t.throws(() => parseCpuSet('99999999999999999999'), { message: 'strconv.Atoi: parsing "99999999999999999999": value out of range' });
  t.equal(formatTaint({ key: 'a', value: 'b', effect: 'NoSchedule' }), '{a b NoSchedule <nil>}');
  t.equal(formatTaint({}), '{   <nil>}');
  t.equal(formatTaint({ key: 'k', timeAdded: '2021-02-03T04:05:06Z' }), '{k   2021-02-03 04:05:06 +0000 UTC}');
  const taints: [object, boolean][] = [
    [{ key: 'a' }, true], [{ key: 'example.com/a', value: 'v1', effect: 'NoExecute' }, true], [{ key: '' }, false],
    [{ key: 'a', value: 'b c' }, false], [{ key: 'Upper.Example/x' }, false], [{ key: 'a', effect: 'Never' }, false], [{ key: 'x'.repeat(64) }, false],
  ];
  for (const [taint, ok] of taints) t.equal(isValidTaint(taint), ok, JSON.stringify(taint));
});

t.test('each failure names its v1beta1 JSON field(s), also where the kubelet uses Go or flag names', async (t) => {
  const gates = { featureGates: { GracefulNodeShutdown: true, NodeSwap: true } };
  const table: [string, Record<string, unknown>, string[], string][] = [
    ['plain', { maxPods: -1 }, ['maxPods'], `${P}maxPods (--max-pods) -1 must not be a negative number`],
    ['shutdown order', { ...gates, shutdownGracePeriod: '10s', shutdownGracePeriodCriticalPods: '1m' }, ['shutdownGracePeriod', 'shutdownGracePeriodCriticalPods'],
      `${P}ShutdownGracePeriod {10s} must be >= 0, ShutdownGracePeriodCriticalPods {1m0s} must be >= 0, and ShutdownGracePeriodCriticalPods {1m0s} must be <= ShutdownGracePeriod {10s} (fields: shutdownGracePeriod, shutdownGracePeriodCriticalPods)`],
    ['shutdown second', { ...gates, shutdownGracePeriod: '500ms' }, ['shutdownGracePeriod'], `${P}ShutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec (field: shutdownGracePeriod)`],
    ['swap', { ...gates, memorySwap: { swapBehavior: 'x' } }, ['memorySwap.swapBehavior'], `${P}MemorySwap.SwapBehavior x must be one of: LimitedSwap, UnlimitedSwap (field: memorySwap.swapBehavior)`],
    ['taint effect', { registerWithTaints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'Never' }] }, ['registerWithTaints[1].effect'], 'invalid taint: {b  Never <nil>} (field: registerWithTaints[1].effect)'],
    ['taint key', { registerWithTaints: [{ key: 'a b' }] }, ['registerWithTaints[0].key'], 'invalid taint: {a b   <nil>} (field: registerWithTaints[0].key)'],
    ['taint value', { registerWithTaints: [{ key: 'a', value: 'b c' }] }, ['registerWithTaints[0].value'], 'invalid taint: {a b c  <nil>} (field: registerWithTaints[0].value)'],
    ['reserved memory', { reservedMemory: [{ numaNode: 0, limits: { cpu: '1' } }] }, ['reservedMemory[0].limits.cpu'], 'the limit type "cpu" for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted (field: reservedMemory[0].limits.cpu)'],
    ['reserved memory duplicate', { reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }, { numaNode: 0, limits: { memory: '2Gi' } }] }, ['reservedMemory[1].limits.memory'], 'the reserved memory has a duplicate value for NUMA node 0 and resource "memory" (field: reservedMemory[1].limits.memory)'],
    ['hidden metrics', { showHiddenMetricsForVersion: '1.1' }, ['showHiddenMetricsForVersion'], "--show-hidden-metrics-for-version must be omitted or have the value '1.22'. Only the previous minor version is allowed (field: showHiddenMetricsForVersion)"],
    ['unknown gate', { featureGates: { Bogus: true } }, ['featureGates.Bogus'], 'unrecognized feature gate: Bogus (field: featureGates.Bogus)'],
    ['locked gate', { featureGates: { IPv6DualStack: false } }, ['featureGates.IPv6DualStack'], 'cannot set feature gate IPv6DualStack to false, feature is locked to true (field: featureGates.IPv6DualStack)'],
    ['two fields named in the text', { imageGCHighThresholdPercent: 10, imageGCLowThresholdPercent: 20 }, ['imageGCLowThresholdPercent', 'imageGCHighThresholdPercent'],
      `${P}imageGCLowThresholdPercent (--image-gc-low-threshold) 20 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 10`],
    ['reserved cpus and cgroups', { reservedSystemCPUs: '0', kubeReservedCgroup: '/k' }, ['reservedSystemCPUs', 'kubeReservedCgroup'],
      "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)"],
    ['1.20 log format', { logging: { format: 'x' } }, ['logging.format'], 'unsupported log format: x (field: logging.format)'],
  ];
  for (const [name, fields, paths, described] of table) {
    const r = check(fields, name === '1.20 log format' ? '1.20' : '1.23');
    t.equal(r.failures.length, 1, `${name}: one failure`);
    t.same(r.failures[0]?.fields, paths, `${name}: fields`);
    t.equal(r.failures[0]?.field, paths[0], `${name}: first field`);
    t.equal(describeFailure(r.failures[0]!), described, `${name}: described`);
    t.equal(r.error, r.failures[0]?.message, `${name}: the kubelet's raw text is unchanged`);
  }
});
