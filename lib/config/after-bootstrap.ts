// What stops the kubelet after its config bootstrap, on the final config alone (1.20–1.23):
// checks made once a config is in force (a checkpoint already adopted, or the local config),
// on fields ValidateKubeletConfiguration does not check in these releases. The kubelet then
// exits at every start. In the kubelet's order: InitializeTLS (UnsecuredDependencies, its error
// as is), then run() ("failed to run Kubelet: …"), then NewMainKubelet ("…failed to create
// kubelet: …"). Checks that need the host (files, CPUs, NUMA nodes, cgroups, swap) are left out.

import { goQuote } from './gostrconv.js';
import { canonicalQuantity, isWholeInt64, parseQuantity, QuantityError, sameQuantity, sumQuantities, type ParsedQuantity } from './quantity.js';
import { DurationError, parseGoDuration, tryParseGoDuration } from './duration.js';
import type { KubeletVersion } from './version.js';

/** What stops it, and why in words (status's reason). */
export interface AfterBootstrap {
  error: string;
  because: string;
}

/**
 * cliflag.TLSCipherSuites' names on 1.20–1.23: crypto/tls's suites, secure and insecure
 * (the IANA names), and the two short ChaCha20 names kept for old configs.
 */
const CIPHER_SUITES: ReadonlySet<string> = new Set([
  'TLS_RSA_WITH_RC4_128_SHA', 'TLS_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_RSA_WITH_AES_256_CBC_SHA',
  'TLS_RSA_WITH_AES_128_CBC_SHA256', 'TLS_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256',
]);

/** cliflag.TLSVersion's names (an empty value is the default). */
const TLS_VERSIONS: ReadonlySet<string> = new Set(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13']);

/** pkg/kubelet/eviction/api: the signals ParseThresholdConfig knows. */
const EVICTION_SIGNALS: ReadonlySet<string> = new Set(['memory.available', 'allocatableMemory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available']);
/** parseResourceList: what kubeReserved/systemReserved may reserve. */
const RESERVABLE: ReadonlySet<string> = new Set(['cpu', 'memory', 'ephemeral-storage', 'pid']);

const RUN = 'failed to run Kubelet: ';
const CREATE = `${RUN}failed to create kubelet: `;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The first check the final config fails, in the kubelet's order, or null. `enabled` answers
 * for the feature gates in force (the config's over the node's); `containerRuntime` is the
 * --container-runtime flag's value (null: not given, docker).
 */
export function afterBootstrap(config: Obj | null, enabled: (gate: string) => boolean, version: KubeletVersion = '1.23', containerRuntime: string | null = null): AfterBootstrap | null {
  if (!config) return null;
  return tls(config) ?? run(config, enabled, version) ?? createKubelet(config, version, enabled, containerRuntime);
}

function tls(c: Obj): AfterBootstrap | null {
  const because = 'its tlsCipherSuites or tlsMinVersion name something the kubelet does not know (InitializeTLS)';
  const suites = c.tlsCipherSuites;
  if (Array.isArray(suites)) {
    for (const s of suites) if (!CIPHER_SUITES.has(String(s))) return { error: `Cipher suite ${String(s)} not supported or doesn't exist`, because };
  }
  const v = str(c.tlsMinVersion);
  if (v && !TLS_VERSIONS.has(v)) return { error: `unknown tls version ${goQuote(v)}`, because };
  return null;
}

function run(c: Obj, enabled: (gate: string) => boolean, version: KubeletVersion): AfterBootstrap | null {
  const mode = str(obj(c.authorization)?.mode);
  if (mode !== null && mode !== '' && mode !== 'AlwaysAllow' && mode !== 'Webhook') {
    return { error: `${RUN}unknown authorization mode ${mode}`, because: 'its authorization.mode is neither AlwaysAllow nor Webhook (BuildAuthz)' };
  }
  // With reservedSystemCPUs, the cpu entries are replaced before the lists are parsed.
  const cpusReserved = !!str(c.reservedSystemCPUs);
  for (const field of ['kubeReserved', 'systemReserved'] as const) {
    for (const [k, v] of Object.entries(obj(c[field]) ?? {})) {
      if (k === 'cpu' && cpusReserved) continue;
      const why = reservedError(k, String(v));
      if (why) return { error: `${RUN}${why}`, because: `its ${field} reserves what the kubelet cannot (parseResourceList)` };
    }
  }
  // evictionHard alone first (the allocatable thresholds), then everything in NewMainKubelet.
  const hard = thresholds(obj(c.evictionHard), version).error;
  if (hard) return { error: `${RUN}${hard}`, because: EVICTION_BECAUSE };
  for (const [k, v] of Object.entries(obj(c.qosReserved) ?? {})) {
    const why = qosError(k, String(v));
    if (why) return { error: `${RUN}${why}`, because: 'its qosReserved is not a memory percentage (ParseQOSReserved)' };
  }
  const cpu = str(c.cpuManagerPolicy);
  // The value first: the gates are worked out only for a policy that needs them (verify judges 10,000 payloads).
  if (cpu && cpu !== 'none' && cpu !== 'static' && enabled('CPUManager')) {
    return { error: `${RUN}unknown policy: ${goQuote(cpu)}`, because: 'its cpuManagerPolicy is neither none nor static (the CPU manager)' };
  }
  // The static policy needs CPUs reserved: GetNodeAllocatableReservation lists cpu only when
  // kubeReserved + systemReserved (or reservedSystemCPUs, which replaces them) is not zero, and
  // eviction never reserves CPU (cpumanager.NewManager; found by review).
  if (cpu === 'static' && !cpusReserved && zeroOrAbsent(obj(c.kubeReserved)?.cpu) && zeroOrAbsent(obj(c.systemReserved)?.cpu) && enabled('CPUManager')) {
    return { error: `${RUN}[cpumanager] unable to determine reserved CPU resources for static policy`, because: 'its cpuManagerPolicy is static with no CPU reserved by kubeReserved, systemReserved or reservedSystemCPUs (the CPU manager)' };
  }
  const mem = str(c.memoryManagerPolicy);
  if (mem && mem !== 'None' && mem !== 'Static' && enabled('MemoryManager')) {
    return { error: `${RUN}unknown policy: ${goQuote(mem)}`, because: 'its memoryManagerPolicy is neither None nor Static (the memory manager)' };
  }
  const unequal = mem === 'Static' && enabled('MemoryManager') ? staticMemoryError(c) : null;
  if (unequal) return { error: `${RUN}${unequal}`, because: 'its memoryManagerPolicy is Static and its reservedMemory does not add up to the memory that kubeReserved, systemReserved and evictionHard reserve (the memory manager)' };
  return null;
}

/**
 * The static memory manager's check of reservedMemory (memorymanager.NewManager,
 * validateReservedMemory): for memory and each hugepages size, what reservedMemory reserves over
 * all NUMA nodes must equal what Node Allocatable reserves: kubeReserved + systemReserved +
 * the hard eviction threshold for memory; hugepages are never reserved there (parseResourceList
 * takes cpu, memory, ephemeral-storage and pid only), so any hugepages entry differs. Left to
 * the host: NUMA nodes that do not exist (checked first), and an eviction threshold given as a
 * percentage of the node's memory when reservedMemory reserves some (a plain
 * `memoryManagerPolicy: Static` with the default 100Mi threshold fails at every start). Go
 * visits the types in map order: when several differ, the kubelet may name any; memory here.
 */
function staticMemoryError(c: Obj): string | null {
  const limits = (Array.isArray(c.reservedMemory) ? c.reservedMemory : []).map((r) => obj(obj(r)?.limits) ?? {});
  const reserved = (type: string) =>
    limits
      .filter((l) => l[type] !== undefined && l[type] !== null)
      .map((l) => String(l[type]))
      // Each NUMA node's quantity is added to the total so far: the last one's format prints it.
      .reverse();
  const allocatable = [obj(c.systemReserved)?.memory, obj(c.kubeReserved)?.memory].filter((v) => v !== undefined && v !== null).map(String);
  // The hard threshold: a quantity adds itself; a percentage (but 0% and 100%, no threshold) the node's memory's share.
  const given = obj(c.evictionHard)?.['memory.available'];
  const hard = given === undefined || given === null ? null : String(given);
  const share = hard?.endsWith('%') && hard !== '0%' && hard !== '100%' ? hard : null;
  if (hard !== null && !hard.endsWith('%')) allocatable.push(hard);
  const types = [...new Set(['memory', ...limits.flatMap((l) => Object.keys(l)).filter((k) => k.startsWith('hugepages-')).sort()])];
  for (const type of types) {
    const mine = sumQuantities(reserved(type));
    let node = type === 'memory' ? sumQuantities(allocatable) : sumQuantities([]);
    if (type === 'memory' && share !== null) {
      if (mine.n !== 0n) continue; // equal or not depends on the node's memory
      node = { ...node, text: `<${share} of the node's memory${node.n === 0n ? '' : ` + ${node.text}`}>` };
    } else if (sameQuantity(mine, node)) continue;
    return `the total amount ${goQuote(mine.text)} of type ${goQuote(type)} is not equal to the value ${goQuote(node.text)} determined by Node Allocatable feature`;
  }
  return null;
}

/** A reservation that adds nothing: absent, or a quantity equal to zero (a negative one was refused before). */
function zeroOrAbsent(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  const q = quantity(String(v));
  return typeof q !== 'string' && q.zero;
}

function createKubelet(c: Obj, version: KubeletVersion, enabled: (gate: string) => boolean, containerRuntime: string | null): AfterBootstrap | null {
  const sync = str(c.syncFrequency);
  const ns = sync === null ? null : tryParseGoDuration(sync);
  if (ns !== null && ns < 0n) return { error: `${CREATE}invalid sync frequency ${ns}`, because: 'its syncFrequency is negative (NewMainKubelet)' };
  if (c.makeIPTablesUtilChains !== false && c.iptablesMasqueradeBit !== undefined && c.iptablesMasqueradeBit === c.iptablesDropBit) {
    return { error: `${CREATE}iptables-masquerade-bit and iptables-drop-bit must be different`, because: 'its iptablesMasqueradeBit and iptablesDropBit are the same bit (NewMainKubelet)' };
  }
  const eviction = evictionError(c, version);
  if (eviction) return { error: `${CREATE}${eviction}`, because: EVICTION_BECAUSE };
  const mode = str(c.configMapAndSecretChangeDetectionStrategy);
  if (mode && mode !== 'Get' && mode !== 'Cache' && mode !== 'Watch') {
    return { error: `${CREATE}unknown configmap and secret manager mode: ${mode}`, because: 'its configMapAndSecretChangeDetectionStrategy is not Get, Cache or Watch (NewMainKubelet)' };
  }
  return containerLogs(c, version, enabled, containerRuntime);
}

/**
 * NewContainerLogManager, made for a CRI runtime (`--container-runtime=remote`; the default is
 * docker on 1.20–1.23) and, on 1.20/1.21, the CRIContainerLogRotation gate: at least two files,
 * and a size that is a whole number of bytes (a negative one turns rotation off). No validation
 * rule covers these fields in these releases (found by review).
 */
function containerLogs(c: Obj, version: KubeletVersion, enabled: (gate: string) => boolean, containerRuntime: string | null): AfterBootstrap | null {
  if (containerRuntime !== 'remote') return null;
  if ((version === '1.20' || version === '1.21') && !enabled('CRIContainerLogRotation')) return null;
  const because = 'its containerLogMaxFiles or containerLogMaxSize is one the container log manager refuses (NewMainKubelet, with a CRI runtime)';
  const files = typeof c.containerLogMaxFiles === 'number' ? c.containerLogMaxFiles : 5;
  if (files <= 1) return { error: `${CREATE}failed to initialize container log manager: invalid MaxFiles ${files}, must be > 1`, because };
  const size = typeof c.containerLogMaxSize === 'string' ? c.containerLogMaxSize : '10Mi';
  const q = quantity(size);
  const why = typeof q === 'string' ? q : isWholeInt64(size) ? null : 'invalid max log size';
  return why ? { error: `${CREATE}failed to initialize container log manager: failed to parse container log max size ${goQuote(size)}: ${why}`, because } : null;
}

const EVICTION_BECAUSE = 'its eviction thresholds hold what the kubelet refuses (ParseThresholdConfig)';

/**
 * ParseThresholdConfig, in its order: the hard statements, the soft ones, the grace periods,
 * the minimum reclaims, then a grace period for each soft threshold ("0%" and "100%" are no
 * threshold at all, so they need none).
 */
function evictionError(c: Obj, version: KubeletVersion): string | null {
  // The hard statements come first; run() parsed them already, and got here only when they passed.
  const soft = thresholds(obj(c.evictionSoft), version);
  if (soft.error) return soft.error;
  const grace = obj(c.evictionSoftGracePeriod) ?? {};
  for (const [k, v] of Object.entries(grace)) {
    if (!EVICTION_SIGNALS.has(k)) return `unsupported eviction signal ${k}`;
    let ns: bigint;
    try {
      ns = parseGoDuration(String(v));
    } catch (e) {
      if (e instanceof DurationError) return e.message;
      throw e;
    }
    if (ns < 0n) return `invalid eviction grace period specified: ${String(v)}, must be a positive value`;
  }
  for (const [k, v] of Object.entries(obj(c.evictionMinimumReclaim) ?? {})) {
    if (!EVICTION_SIGNALS.has(k)) return `unsupported eviction signal ${k}`;
    const val = String(v);
    if (val.endsWith('%')) {
      const p = percentage(val);
      if (typeof p === 'string') return p;
      if (p <= 0) return `eviction percentage minimum reclaim ${k} must be positive: ${val}`;
      continue;
    }
    const q = quantity(val);
    if (typeof q === 'string') return q;
    if (q.negative) return `negative eviction minimum reclaim specified for ${k}`;
  }
  const graceless = soft.signals.find((k) => !(k in grace));
  return graceless === undefined ? null : `grace period must be specified for the soft eviction threshold ${graceless}`;
}

/** parseThresholdStatements: the first error, or the signals that make a threshold. */
function thresholds(m: Obj | null, version: KubeletVersion): { error: string | null; signals: string[] } {
  const signals: string[] = [];
  for (const [k, v] of Object.entries(m ?? {})) {
    if (!EVICTION_SIGNALS.has(k)) return { error: `unsupported eviction signal ${k}`, signals };
    const val = String(v);
    if (val.endsWith('%')) {
      if (val === '0%' || val === '100%') continue;
      const p = percentage(val);
      if (typeof p === 'string') return { error: p, signals };
      if (p < 0) return { error: `eviction percentage threshold ${k} must be >= 0%: ${val}`, signals };
      // 1.20 compared the fraction with 100 (kubernetes#97321 made it 1 in 1.21).
      if (p > (version === '1.20' ? 100 : 1)) return { error: `eviction percentage threshold ${k} must be <= 100%: ${val}`, signals };
    } else {
      const q = quantity(val);
      if (typeof q === 'string') return { error: q, signals };
      // Go prints the parsed quantity (&quantity): its canonical form ("0", "-1Mi").
      if (q.negative || q.zero) return { error: `eviction threshold ${k} must be positive: ${canonicalQuantity(val)}`, signals };
    }
    signals.push(k);
  }
  return { error: null, signals };
}

/** parsePercentage: strconv.ParseFloat(TrimRight(v, "%"), 32) / 100, as a float32; or ParseFloat's error. */
function percentage(val: string): number | string {
  const n = val.replace(/%+$/, '');
  if (!/^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i.test(n)) return `strconv.ParseFloat: parsing ${goQuote(n)}: invalid syntax`;
  const x = /nan/i.test(n) ? NaN : /inf/i.test(n) ? (n.startsWith('-') ? -Infinity : Infinity) : Number(n);
  const f = Math.fround(x);
  if (Number.isFinite(x) && !Number.isFinite(f)) return `strconv.ParseFloat: parsing ${goQuote(n)}: value out of range`;
  return Math.fround(f / 100);
}

/** resource.ParseQuantity: the parsed quantity, or its error's words. */
function quantity(v: string): ParsedQuantity | string {
  try {
    return parseQuantity(v);
  } catch (e) {
    if (e instanceof QuantityError) return e.message;
    throw e;
  }
}

function reservedError(k: string, v: string): string | null {
  if (!RESERVABLE.has(k)) return `cannot reserve ${goQuote(k)} resource`;
  const q = quantity(v);
  if (typeof q === 'string') return q;
  return q.negative ? `resource quantity for ${goQuote(k)} cannot be negative: ${v}` : null;
}

function qosError(k: string, v: string): string | null {
  if (k !== 'memory') return `cannot reserve ${goQuote(k)} resource`;
  if (!v.endsWith('%')) return `percentage expected, got '${v}'`;
  // strings.TrimRight(v, "%"), then strconv.ParseInt(…, 10, 64).
  const n = v.replace(/%+$/, '');
  if (!/^[+-]?[0-9]+$/.test(n)) return `invalid number in percentage '${v}'`;
  const p = BigInt(n);
  if (p > 9223372036854775807n || p < -9223372036854775808n) return `invalid number in percentage '${v}'`;
  if (p < 0n || p > 100n) return 'percentage must be between 0 and 100';
  return null;
}
