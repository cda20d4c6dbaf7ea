// What stops the kubelet once a valid config is in force (lib/config/after-bootstrap.ts),
// from a source review of 1.20–1.23 (server.go InitializeTLS and run(), NewMainKubelet).
import t from 'tap';
import { afterBootstrap } from '../../../lib/config/after-bootstrap.js';

const on = () => true;
const off = () => false;
const err = (c: Record<string, unknown>, enabled = on) => afterBootstrap(c, enabled)?.error ?? null;

t.test('a config with none of these fields, or good values, passes', async (t) => {
  t.equal(err({}), null);
  t.equal(err({ tlsMinVersion: 'VersionTLS12', tlsCipherSuites: ['TLS_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305'], authorization: { mode: 'Webhook' }, kubeReserved: { cpu: '100m', memory: '1Gi', 'ephemeral-storage': '1Gi', pid: '100' }, evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' }, qosReserved: { memory: '50%%' }, cpuManagerPolicy: 'static', memoryManagerPolicy: 'Static', reservedMemory: [{ numaNode: 0, limits: { memory: '1124Mi' } }], syncFrequency: '1m0s', iptablesMasqueradeBit: 14, iptablesDropBit: 15, evictionSoft: { 'memory.available': '1Gi' }, evictionSoftGracePeriod: { 'memory.available': '1m' }, configMapAndSecretChangeDetectionStrategy: 'Cache' }), null);
});

t.test('each check, worded as the kubelet words it, in its order', async (t) => {
  t.equal(err({ tlsCipherSuites: ['TLS_RSA_WITH_NULL_SHA'] }), "Cipher suite TLS_RSA_WITH_NULL_SHA not supported or doesn't exist");
  t.equal(err({ tlsMinVersion: 'TLSv1.2' }), 'unknown tls version "TLSv1.2"');
  t.equal(err({ authorization: { mode: 'RBAC' } }), 'failed to run Kubelet: unknown authorization mode RBAC');
  t.equal(err({ kubeReserved: { gpu: '1' } }), 'failed to run Kubelet: cannot reserve "gpu" resource');
  t.equal(err({ systemReserved: { memory: '-1Gi' } }), 'failed to run Kubelet: resource quantity for "memory" cannot be negative: -1Gi');
  t.match(err({ kubeReserved: { memory: 'lots' } }), /^failed to run Kubelet: quantities must match the regular expression/);
  t.equal(err({ kubeReserved: { cpu: 'x' }, reservedSystemCPUs: '0-1' }), null, 'reservedSystemCPUs replaces the cpu entry before it is parsed');
  t.equal(err({ evictionHard: { 'memory.availble': '100Mi' } }), 'failed to run Kubelet: unsupported eviction signal memory.availble');
  t.equal(err({ qosReserved: { cpu: '10%' } }), 'failed to run Kubelet: cannot reserve "cpu" resource');
  t.equal(err({ qosReserved: { memory: '10' } }), "failed to run Kubelet: percentage expected, got '10'");
  t.equal(err({ qosReserved: { memory: 'x%' } }), "failed to run Kubelet: invalid number in percentage 'x%'");
  t.equal(err({ qosReserved: { memory: '101%' } }), 'failed to run Kubelet: percentage must be between 0 and 100');
  t.equal(err({ cpuManagerPolicy: 'Static' }), 'failed to run Kubelet: unknown policy: "Static"', 'policies are lower case');
  t.equal(err({ cpuManagerPolicy: 'Static' }, off), null, 'only with the CPUManager gate');
  t.equal(err({ memoryManagerPolicy: 'static' }), 'failed to run Kubelet: unknown policy: "static"', 'policies are capitalised');
  t.equal(err({ syncFrequency: '-1s' }), 'failed to run Kubelet: failed to create kubelet: invalid sync frequency -1000000000');
  t.equal(err({ iptablesMasqueradeBit: 14, iptablesDropBit: 14 }), 'failed to run Kubelet: failed to create kubelet: iptables-masquerade-bit and iptables-drop-bit must be different');
  t.equal(err({ iptablesMasqueradeBit: 14, iptablesDropBit: 14, makeIPTablesUtilChains: false }), null, 'only when it makes the chains');
  t.equal(err({ evictionSoft: { 'memory.available': '1Gi' } }), 'failed to run Kubelet: failed to create kubelet: grace period must be specified for the soft eviction threshold memory.available');
  t.equal(err({ evictionMinimumReclaim: { 'disk.available': '1Gi' } }), 'failed to run Kubelet: failed to create kubelet: unsupported eviction signal disk.available');
  t.equal(err({ configMapAndSecretChangeDetectionStrategy: 'Poll' }), 'failed to run Kubelet: failed to create kubelet: unknown configmap and secret manager mode: Poll');
  t.equal(err({ evictionSoft: { 'memory.available': '0%', 'nodefs.available': '100%' } }), null, '0% and 100% are no threshold, and need no grace period');
  t.equal(err({ evictionHard: { 'memory.available': 'abc' } }), "failed to run Kubelet: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  t.equal(err({ evictionHard: { 'memory.available': '0' } }), 'failed to run Kubelet: eviction threshold memory.available must be positive: 0');
  t.equal(err({ evictionHard: { 'memory.available': 'x%' } }), 'failed to run Kubelet: strconv.ParseFloat: parsing "x": invalid syntax');
  t.equal(err({ evictionHard: { 'nodefs.available': '-5%' } }), 'failed to run Kubelet: eviction percentage threshold nodefs.available must be >= 0%: -5%');
  t.equal(err({ evictionHard: { 'nodefs.available': '150%' } }), 'failed to run Kubelet: eviction percentage threshold nodefs.available must be <= 100%: 150%');
  t.equal(afterBootstrap({ evictionHard: { 'nodefs.available': '150%' } }, on, '1.20'), null, '1.20 compared the fraction with 100');
  t.equal(err({ evictionSoft: { 'memory.available': '1Gi' }, evictionSoftGracePeriod: { 'memory.available': 'x' } }), 'failed to run Kubelet: failed to create kubelet: time: invalid duration "x"');
  t.equal(err({ evictionSoft: { 'memory.available': '1Gi' }, evictionSoftGracePeriod: { 'memory.available': '-1m' } }), 'failed to run Kubelet: failed to create kubelet: invalid eviction grace period specified: -1m, must be a positive value');
  t.equal(err({ evictionMinimumReclaim: { 'memory.available': '-1Gi' } }), 'failed to run Kubelet: failed to create kubelet: negative eviction minimum reclaim specified for memory.available');
  t.equal(err({ evictionMinimumReclaim: { 'memory.available': '0%' } }), 'failed to run Kubelet: failed to create kubelet: eviction percentage minimum reclaim memory.available must be positive: 0%');
  t.equal(err({ evictionSoft: { 'memory.available': 'x' } }), "failed to run Kubelet: failed to create kubelet: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'", 'a bad soft value fails before the grace check');
  t.equal(err({ tlsMinVersion: 'x', authorization: { mode: 'RBAC' } }), 'unknown tls version "x"', 'InitializeTLS comes first');
});

t.test('found by a fidelity review: the static CPU policy with no CPU reserved stops the kubelet (cpumanager.NewManager)', async (t) => {
  const stop = 'failed to run Kubelet: [cpumanager] unable to determine reserved CPU resources for static policy';
  t.equal(err({ cpuManagerPolicy: 'static' }), stop);
  t.equal(err({ cpuManagerPolicy: 'static', kubeReserved: { cpu: '0', memory: '1Gi' }, systemReserved: { cpu: '0m' } }), stop, 'zero is no reservation');
  t.equal(err({ cpuManagerPolicy: 'static', evictionHard: { 'memory.available': '1Gi' } }), stop, 'eviction reserves no CPU');
  t.equal(err({ cpuManagerPolicy: 'static' }, off), null, 'only with the CPUManager gate');
  t.equal(err({ cpuManagerPolicy: 'static', systemReserved: { cpu: '500m' } }), null);
  t.equal(err({ cpuManagerPolicy: 'static', kubeReserved: { cpu: '1' } }), null);
  t.equal(err({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0' }), null, 'reservedSystemCPUs reserves its CPUs');
  t.equal(err({ cpuManagerPolicy: 'none' }), null);
});

t.test('found by a fidelity review: the container log manager of a CRI runtime refuses one file, or a size that is no whole number of bytes', async (t) => {
  const remote = (c: Record<string, unknown>, version: '1.20' | '1.21' | '1.22' | '1.23' = '1.23', enabled = on) => afterBootstrap(c, enabled, version, 'remote')?.error ?? null;
  const pre = 'failed to run Kubelet: failed to create kubelet: failed to initialize container log manager: ';
  t.equal(remote({ containerLogMaxFiles: 1 }), `${pre}invalid MaxFiles 1, must be > 1`);
  t.equal(remote({ containerLogMaxFiles: 0 }), `${pre}invalid MaxFiles 0, must be > 1`);
  t.match(remote({ containerLogMaxSize: '10MB' }), `${pre}failed to parse container log max size "10MB": quantities must match the regular expression`);
  t.equal(remote({ containerLogMaxSize: '10Mx' }), `${pre}failed to parse container log max size "10Mx": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  t.equal(remote({ containerLogMaxSize: '1.5' }), `${pre}failed to parse container log max size "1.5": invalid max log size`);
  t.equal(remote({ containerLogMaxSize: '100m' }), `${pre}failed to parse container log max size "100m": invalid max log size`);
  t.equal(remote({ containerLogMaxSize: '1.5Ki' }), null, '1536 bytes');
  t.equal(remote({ containerLogMaxSize: '-1' }), null, 'a negative size turns rotation off');
  t.equal(remote({ containerLogMaxSize: '10Mi', containerLogMaxFiles: 2 }), null);
  t.equal(remote({}), null, 'the defaults: 10Mi, 5');
  t.equal(remote({ containerLogMaxFiles: 1 }, '1.20', off), null, 'on 1.20, only with CRIContainerLogRotation');
  t.equal(remote({ containerLogMaxFiles: 1 }, '1.22', off), `${pre}invalid MaxFiles 1, must be > 1`, 'the gate is gone in 1.22: always');
  t.equal(afterBootstrap({ containerLogMaxFiles: 1 }, on, '1.23', null), null, 'docker (the default runtime) has no such manager');
  t.equal(afterBootstrap({ containerLogMaxFiles: 1 }, on, '1.23', 'docker'), null);
});

t.test('found by a fidelity review: an eviction threshold of zero is printed as Go prints the quantity', async (t) => {
  t.equal(err({ evictionHard: { 'memory.available': '0Mi' } }), 'failed to run Kubelet: eviction threshold memory.available must be positive: 0');
  t.equal(err({ evictionHard: { 'nodefs.available': '0.0Gi' } }), 'failed to run Kubelet: eviction threshold nodefs.available must be positive: 0');
});

t.test('found by a review of this session\'s diff: a negative eviction threshold is printed canonical too', async (t) => {
  t.equal(err({ evictionHard: { 'memory.available': '-1024Ki' } }), 'failed to run Kubelet: eviction threshold memory.available must be positive: -1Mi');
  t.equal(err({ evictionHard: { 'memory.available': '-1000m' } }), 'failed to run Kubelet: eviction threshold memory.available must be positive: -1');
});

t.test('found this session: the static memory manager needs reservedMemory to add up to what Node Allocatable reserves (memorymanager.NewManager)', async (t) => {
  const unequal = (mine: string, type: string, node: string) => `failed to run Kubelet: the total amount "${mine}" of type "${type}" is not equal to the value "${node}" determined by Node Allocatable feature`;
  const hard = { 'memory.available': '100Mi', 'nodefs.available': '10%' };
  // The kubelet's words from a node that set only the policy: kubeReserved 16Gi + the default 100Mi.
  t.equal(err({ memoryManagerPolicy: 'Static', kubeReserved: { cpu: '4', memory: '16Gi' }, evictionHard: hard }), unequal('0', 'memory', '16484Mi'));
  t.equal(err({ memoryManagerPolicy: 'Static', kubeReserved: { memory: '16Gi' }, evictionHard: hard, reservedMemory: [{ numaNode: 0, limits: { memory: '16548Mi' } }] }), unequal('16548Mi', 'memory', '16484Mi'));
  t.equal(err({ memoryManagerPolicy: 'Static', kubeReserved: { memory: '16Gi' }, evictionHard: hard, reservedMemory: [{ numaNode: 0, limits: { memory: '16484Mi' } }] }), null, 'equal: it starts');
  t.equal(err({ memoryManagerPolicy: 'Static', kubeReserved: { memory: '16Gi' }, evictionHard: hard, reservedMemory: [{ numaNode: 0, limits: { memory: '8242Mi' } }, { numaNode: 1, limits: { memory: '8242Mi' } }] }), null, 'summed over NUMA nodes');
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: hard }), unequal('0', 'memory', '100Mi'), 'the default eviction threshold alone');
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: { 'nodefs.available': '10%' } }), null, 'nothing reserved for memory: nothing to add up to');
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: { 'nodefs.available': '10%' }, reservedMemory: [{ numaNode: 0, limits: { memory: '1G' } }] }), unequal('1G', 'memory', '0'));
  // The first non-zero addend's format prints Node Allocatable's sum (systemReserved, then kubeReserved, then eviction).
  t.equal(err({ memoryManagerPolicy: 'Static', systemReserved: { memory: '1G' }, evictionHard: hard }), unequal('0', 'memory', '1104857600'));
  // reservedMemory's total: each NUMA node's quantity plus the total so far, so the last one's format.
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: hard, reservedMemory: [{ numaNode: 0, limits: { memory: '1G' } }, { numaNode: 1, limits: { memory: '1Mi' } }] }), unequal('1001048576', 'memory', '100Mi'));
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: hard, reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi', 'hugepages-2Mi': '2Mi' } }] }), unequal('2Mi', 'hugepages-2Mi', '0'), 'hugepages are never in Node Allocatable\'s reservation');
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: { 'memory.available': '5%' } }), unequal('0', 'memory', "<5% of the node's memory>"), 'a percentage reserves some of any node\'s memory');
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: { 'memory.available': '5%' }, reservedMemory: [{ numaNode: 0, limits: { memory: '1Gi' } }] }), null, 'whether that equals 5% of the node\'s memory is the host\'s to say');
  t.equal(err({ memoryManagerPolicy: 'Static', evictionHard: hard }, off), null, 'only with the MemoryManager gate');
  t.equal(err({ memoryManagerPolicy: 'None', evictionHard: hard }), null, 'only for the static policy');
});
