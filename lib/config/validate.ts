// ValidateKubeletConfiguration (pkg/kubelet/apis/config/validation) for 1.20–1.23, applied
// to a defaulted config with flags applied. Rules run in the Go code's order, so the
// aggregate error text matches: one error prints as itself, several as `[a, b, c]`
// (duplicates dropped, as apimachinery's aggregate does). A bad feature gate stops
// validation with that single error. Release differences: 1.21 adds reservedMemory,
// 1.22 memorySwap + memoryThrottlingFactor and field-error logging checks, 1.23
// registerWithTaints, shutdownGracePeriodByPodPriority and logging verbosity/vmodule.
// Go's `%v` matters: durations print as `{2s}`, taints as structs, and in 1.22/1.23
// memoryThrottlingFactor prints a pointer (GO_POINTER_PLACEHOLDER stands in for it).

import { cpuSetError } from './cpuset.js';
import { formatMetaDuration, NANOS, tryParseGoDuration } from './duration.js';
import { effectiveGates, gateEnabled, type GateState } from './gates.js';
import { goQuote } from './gostrconv.js';
import { getAt, type ConfigObject } from './objpath.js';
import { isQuantity, parseQuantity } from './quantity.js';
import { formatTaint, invalidTaintPart, type Taint } from './taints.js';
import { validateLogging } from './validate-logging.js';
import { atLeast, DEFAULT_VERSION, minorOf, type KubeletVersion } from './version.js';

export interface ValidationFailure {
  /** v1beta1 JSON path of the field at fault (the first, when the rule is about several). */
  field: string;
  /** Every v1beta1 JSON path the rule is about ("featureGates.X", "registerWithTaints[1].effect"). */
  fields: string[];
  /** A stable id for the rule ("port-range", "feature-gate" …). */
  rule: string;
  /** The kubelet's message for this failure. */
  message: string;
}

export interface ValidationResult {
  failures: ValidationFailure[];
  /** The kubelet's error text (what it logs after "failed to validate config"), or null. */
  error: string | null;
}

export interface ValidateOptions {
  version?: KubeletVersion;
  /** featureGates of the node's local --config file. */
  localGates?: Record<string, boolean>;
  /** klog flags on the kubelet command line (name without dashes → value). */
  klogFlags?: Record<string, string>;
}

/** What 1.22/1.23 print for `%v` of the *float64 memoryThrottlingFactor. */
export const GO_POINTER_PLACEHOLDER = '0xc000000000';
/** Matches any Go heap pointer as printed by `%v`. */
export const GO_POINTER_RE = /0xc[0-9a-f]+/;

const PREFIX = 'invalid configuration: ';

/** utilerrors.NewAggregate(...).Error(). */
export function aggregateError(messages: readonly string[]): string | null {
  if (messages.length === 0) return null;
  if (messages.length === 1) return messages[0]!;
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** Typed reads of a (defaulted) config; absent reads as Go's zero value. */
class Reader {
  constructor(private readonly c: ConfigObject) {}
  num(path: string): number {
    const v = getAt(this.c, path);
    // An int64 past 2^53 is held as a bigint (gostrconv goIntValue); the rules only compare it.
    return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : 0;
  }
  /** A number as Go's %d prints it: exact, an int64 past 2^53 included. */
  digits(path: string): string {
    const v = getAt(this.c, path);
    return typeof v === 'number' || typeof v === 'bigint' ? String(v) : '0';
  }
  str(path: string): string {
    const v = getAt(this.c, path);
    return typeof v === 'string' ? v : '';
  }
  bool(path: string): boolean {
    return getAt(this.c, path) === true;
  }
  dur(path: string): bigint {
    const v = getAt(this.c, path);
    return typeof v === 'string' ? (tryParseGoDuration(v) ?? 0n) : 0n;
  }
  list<T = unknown>(path: string): T[] {
    const v = getAt(this.c, path);
    return Array.isArray(v) ? (v as T[]) : [];
  }
  has(path: string): boolean {
    return getAt(this.c, path) !== undefined;
  }
}

/** One field's JSON path, or several when a rule compares fields. */
type Fields = string | readonly string[];
type Push = (field: Fields, rule: string, message: string) => void;

interface RuleCtx {
  r: Reader;
  gates: GateState;
  version: KubeletVersion;
  push: Push;
  opts: ValidateOptions;
}

const isPort = (n: number) => n >= 1 && n <= 65535;
const inRange = (n: number | bigint, lo: number | bigint, hi: number | bigint) => n >= lo && n <= hi;
const on = (ctx: RuleCtx, gate: string) => gateEnabled(ctx.gates, gate);

function basicRules({ r, push, gates }: RuleCtx): void {
  const p = (field: Fields, rule: string, msg: string) => push(field, rule, PREFIX + msg);
  if (r.num('nodeLeaseDurationSeconds') <= 0) p('nodeLeaseDurationSeconds', 'node-lease-positive', 'nodeLeaseDurationSeconds must be greater than 0');
  if (!r.bool('cgroupsPerQOS') && r.list('enforceNodeAllocatable').length > 0) {
    p(['enforceNodeAllocatable', 'cgroupsPerQOS'], 'enforce-needs-cgroups-per-qos', 'enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) is set to true');
  }
  if (r.str('systemCgroups') !== '' && r.str('cgroupRoot') === '') {
    p(['systemCgroups', 'cgroupRoot'], 'system-cgroups-needs-root', 'systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  }
  const nonNegative = (field: string, flag: string) => {
    if (r.num(field) < 0) p(field, 'non-negative', `${field} (--${flag}) ${r.digits(field)} must not be a negative number`);
  };
  nonNegative('eventBurst', 'event-burst');
  nonNegative('eventRecordQPS', 'event-qps');
  const healthz = r.num('healthzPort');
  if (healthz !== 0 && !isPort(healthz)) p('healthzPort', 'port-range', `healthzPort (--healthz-port) ${healthz} must be between 1 and 65535, inclusive`);
  const period = r.dur('cpuCFSQuotaPeriod');
  const custom = gateEnabled(gates, 'CustomCPUCFSQuotaPeriod');
  if (!custom && period !== 100n * NANOS.millisecond) {
    p('cpuCFSQuotaPeriod', 'cpu-cfs-quota-period-gate', `cpuCFSQuotaPeriod ${formatMetaDuration(period)} requires feature gate CustomCPUCFSQuotaPeriod`);
  }
  if (custom && !inRange(period, NANOS.microsecond, NANOS.second)) {
    p('cpuCFSQuotaPeriod', 'cpu-cfs-quota-period-range', `cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${formatMetaDuration(period)} must be between 1usec and 1sec, inclusive`);
  }
  const high = r.num('imageGCHighThresholdPercent');
  const low = r.num('imageGCLowThresholdPercent');
  if (!inRange(high, 0, 100)) p('imageGCHighThresholdPercent', 'percent-range', `imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`);
  if (!inRange(low, 0, 100)) p('imageGCLowThresholdPercent', 'percent-range', `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`);
  if (low >= high) {
    p(['imageGCLowThresholdPercent', 'imageGCHighThresholdPercent'], 'image-gc-low-below-high', `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`);
  }
  for (const [field, flag] of [['iptablesDropBit', 'iptables-drop-bit'], ['iptablesMasqueradeBit', 'iptables-masquerade-bit']] as const) {
    if (!inRange(r.num(field), 0, 31)) p(field, 'bit-range', `${field} (--${flag}) ${r.num(field)} must be between 0 and 31, inclusive`);
  }
  nonNegative('kubeAPIBurst', 'kube-api-burst');
  nonNegative('kubeAPIQPS', 'kube-api-qps');
  if (r.num('nodeStatusMaxImages') < -1) p('nodeStatusMaxImages', 'node-status-max-images', 'nodeStatusMaxImages (--node-status-max-images) must be -1 or greater');
  nonNegative('maxOpenFiles', 'max-open-files');
  nonNegative('maxPods', 'max-pods');
  const oom = r.num('oomScoreAdj');
  if (!inRange(oom, -1000, 1000)) p('oomScoreAdj', 'oom-score-adj-range', `oomScoreAdj (--oom-score-adj) ${oom} must be between -1000 and 1000, inclusive`);
  nonNegative('podsPerCore', 'pods-per-core');
  if (!isPort(r.num('port'))) p('port', 'port-range', `port (--port) ${r.num('port')} must be between 1 and 65535, inclusive`);
  const ro = r.num('readOnlyPort');
  if (ro !== 0 && !isPort(ro)) p('readOnlyPort', 'port-range', `readOnlyPort (--read-only-port) ${ro} must be between 0 and 65535, inclusive`);
  nonNegative('registryBurst', 'registry-burst');
  nonNegative('registryPullQPS', 'registry-qps');
}

const TOPOLOGY_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'];

function topologyAndTaintRules(ctx: RuleCtx): void {
  const { r, push } = ctx;
  const p = (field: Fields, rule: string, msg: string) => push(field, rule, PREFIX + msg);
  if (r.bool('serverTLSBootstrap') && !on(ctx, 'RotateKubeletServerCertificate')) {
    p('serverTLSBootstrap', 'server-tls-bootstrap-gate', 'serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate');
  }
  const policy = r.str('topologyManagerPolicy');
  if (policy !== 'none' && !on(ctx, 'TopologyManager')) p('topologyManagerPolicy', 'topology-manager-gate', `topologyManagerPolicy ${policy} requires feature gate TopologyManager`);
  if (atLeast(ctx.version, '1.23')) {
    r.list<Taint>('registerWithTaints').forEach((taint, i) => {
      const t = taint ?? {};
      const part = invalidTaintPart(t);
      if (part) push(`registerWithTaints[${i}].${part}`, 'taint-valid', `invalid taint: ${formatTaint(t)}`);
      if (t.timeAdded !== undefined) push(`registerWithTaints[${i}].timeAdded`, 'taint-time-added', 'taint TimeAdded is not nil');
    });
  }
  if (!TOPOLOGY_POLICIES.includes(policy)) p('topologyManagerPolicy', 'topology-manager-policy', `topologyManagerPolicy non-allowable value: ${policy}`);
  const scope = r.str('topologyManagerScope');
  if (scope !== 'container' && !on(ctx, 'TopologyManager')) p('topologyManagerScope', 'topology-manager-gate', `topologyManagerScope ${scope} requires feature gate TopologyManager`);
  if (scope !== 'container' && scope !== 'pod') p('topologyManagerScope', 'topology-manager-scope', `topologyManagerScope non-allowable value: ${scope}`);
}

function shutdownRules(ctx: RuleCtx): void {
  const { r } = ctx;
  const p = (field: Fields, rule: string, msg: string) => ctx.push(field, rule, PREFIX + msg);
  const total = r.dur('shutdownGracePeriod');
  const critical = r.dur('shutdownGracePeriodCriticalPods');
  const T = formatMetaDuration(total);
  const C = formatMetaDuration(critical);
  const graceful = on(ctx, 'GracefulNodeShutdown');
  const both = ['shutdownGracePeriod', 'shutdownGracePeriodCriticalPods'];
  if (graceful) {
    if (total < 0n || critical < 0n || critical > total) {
      p(both, 'shutdown-grace-order', `ShutdownGracePeriod ${T} must be >= 0, ShutdownGracePeriodCriticalPods ${C} must be >= 0, and ShutdownGracePeriodCriticalPods ${C} must be <= ShutdownGracePeriod ${T}`);
    }
    if (total > 0n && total < NANOS.second) p('shutdownGracePeriod', 'shutdown-grace-second', `ShutdownGracePeriod ${T} must be either zero or otherwise >= 1 sec`);
    if (critical > 0n && critical < NANOS.second) p('shutdownGracePeriodCriticalPods', 'shutdown-grace-second', `ShutdownGracePeriodCriticalPods ${C} must be either zero or otherwise >= 1 sec`);
  }
  if ((total > 0n || critical > 0n) && !graceful) {
    p(both, 'shutdown-grace-gate', 'Specifying ShutdownGracePeriod or ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown');
  }
  if (!atLeast(ctx.version, '1.23')) return;
  const byPriority = r.list('shutdownGracePeriodByPodPriority').length > 0;
  if (on(ctx, 'GracefulNodeShutdownBasedOnPodPriority')) {
    if (byPriority && (total > 0n || critical > 0n)) {
      const set = both.filter((_, i) => (i === 0 ? total : critical) > 0n);
      p(['shutdownGracePeriodByPodPriority', ...set], 'shutdown-by-priority-exclusive', 'Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time');
    }
  } else if (byPriority) {
    p('shutdownGracePeriodByPodPriority', 'shutdown-by-priority-gate', 'Specifying shutdownGracePeriodByPodPriority requires feature gate GracefulNodeShutdownBasedOnPodPriority');
  }
}

function memorySwapRules(ctx: RuleCtx): void {
  if (!atLeast(ctx.version, '1.22')) return;
  const behavior = ctx.r.str('memorySwap.swapBehavior');
  if (on(ctx, 'NodeSwap')) {
    if (!['', 'LimitedSwap', 'UnlimitedSwap'].includes(behavior)) {
      ctx.push('memorySwap.swapBehavior', 'swap-behavior', `${PREFIX}MemorySwap.SwapBehavior ${behavior} must be one of: LimitedSwap, UnlimitedSwap`);
    }
  } else if (behavior !== '') {
    ctx.push('memorySwap.swapBehavior', 'swap-behavior-gate', `${PREFIX}MemorySwap.SwapBehavior cannot be set when NodeSwap feature flag is disabled`);
  }
}

const ENFORCE_OPTIONS = ['pods', 'system-reserved', 'kube-reserved', 'none'];

function allocatableRules(ctx: RuleCtx): void {
  const { r, push } = ctx;
  const p = (field: Fields, rule: string, msg: string) => push(field, rule, PREFIX + msg);
  const enforce = r.list<string>('enforceNodeAllocatable');
  enforce.forEach((val, i) => {
    const item = `enforceNodeAllocatable[${i}]`;
    if (val === 'pods') return;
    if (val === 'system-reserved') {
      if (r.str('systemReservedCgroup') === '') p(['systemReservedCgroup', item], 'system-reserved-cgroup', "systemReservedCgroup (--system-reserved-cgroup) must be specified when 'system-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)");
    } else if (val === 'kube-reserved') {
      if (r.str('kubeReservedCgroup') === '') p(['kubeReservedCgroup', item], 'kube-reserved-cgroup', "kubeReservedCgroup (--kube-reserved-cgroup) must be specified when 'kube-reserved' contained in enforceNodeAllocatable (--enforce-node-allocatable)");
    } else if (val === 'none') {
      if (enforce.length > 1) p('enforceNodeAllocatable', 'enforce-none-alone', "enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when 'none' is specified");
    } else {
      const opts = ENFORCE_OPTIONS.map(goQuote);
      p(item, 'enforce-option', `option ${goQuote(String(val))} specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are ${opts[0]}, ${opts[1]}, ${opts[2]}, or ${opts[3]}`);
    }
  });
  const hairpin = r.str('hairpinMode');
  if (!['none', 'hairpin-veth', 'promiscuous-bridge'].includes(hairpin)) {
    p('hairpinMode', 'hairpin-mode', `option ${goQuote(hairpin)} specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`);
  }
  const cpus = r.str('reservedSystemCPUs');
  if (cpus !== '') {
    if (r.str('systemReservedCgroup') !== '' || r.str('kubeReservedCgroup') !== '') {
      const cgroups = ['systemReservedCgroup', 'kubeReservedCgroup'].filter((c) => r.str(c) !== '');
      push(['reservedSystemCPUs', ...cgroups], 'reserved-cpus-cgroups', "can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)");
    }
    const err = cpuSetError(cpus, ctx.version);
    if (err) push('reservedSystemCPUs', 'reserved-cpus-parse', `unable to parse reservedSystemCPUs (--reserved-cpus), error: ${err}`);
  }
}

interface Reservation {
  numaNode?: number;
  limits?: Record<string, unknown>;
}

/**
 * validateReservedMemoryConfiguration (1.21+). Go walks each limits map in random order; we
 * sort. Its messages carry no "invalid configuration: " prefix in 1.21–1.23 (added later).
 */
function reservedMemoryRules(ctx: RuleCtx): void {
  if (!atLeast(ctx.version, '1.21')) return;
  const seen = new Map<number, Set<string>>();
  ctx.r.list<Reservation>('reservedMemory').forEach((res, i) => {
    const numa = res?.numaNode ?? 0;
    if (!seen.has(numa)) seen.set(numa, new Set());
    for (const name of Object.keys(res?.limits ?? {}).sort()) {
      const field = `reservedMemory[${i}].limits${/^[A-Za-z0-9_-]+$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`}`;
      const q = String(res!.limits![name]);
      if (name !== 'memory' && !name.startsWith('hugepages-')) {
        ctx.push(field, 'reserved-memory-type', `the limit type ${goQuote(name)} for NUMA node ${numa} is not supported, only [memory hugepages-<HugePageSize>] is accepted`);
      }
      if (isQuantity(q) && parseQuantity(q).zero) {
        ctx.push(field, 'reserved-memory-zero', `reserved memory may not be zero for NUMA node ${numa} and resource ${goQuote(name)}`);
      }
      if (seen.get(numa)!.has(name)) {
        ctx.push(field, 'reserved-memory-duplicate', `the reserved memory has a duplicate value for NUMA node ${numa} and resource ${goQuote(name)}`);
      }
      seen.get(numa)!.add(name);
    }
  });
}

function metricsAndLoggingRules(ctx: RuleCtx): void {
  const { r } = ctx;
  const shown = r.str('showHiddenMetricsForVersion');
  const previous = `1.${minorOf(ctx.version) - 1}`;
  if (shown !== '' && shown !== previous) {
    ctx.push('showHiddenMetricsForVersion', 'show-hidden-metrics', `--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`);
  }
  const logging = validateLogging(
    { format: r.str('logging.format'), verbosity: r.num('logging.verbosity'), vmodule: r.list('logging.vmodule') },
    ctx.version,
    ctx.opts.klogFlags,
  );
  for (const f of logging) ctx.push(f.field, f.rule, f.message);
}

function memoryQoSRules(ctx: RuleCtx): void {
  if (!atLeast(ctx.version, '1.22')) return;
  const has = ctx.r.has('memoryThrottlingFactor');
  if (on(ctx, 'MemoryQoS') && !has) {
    ctx.push('memoryThrottlingFactor', 'memory-throttling-required', `${PREFIX}memoryThrottlingFactor is required when MemoryQoS feature flag is enabled`);
  }
  const factor = ctx.r.num('memoryThrottlingFactor');
  if (has && (factor <= 0 || factor > 1.0)) {
    ctx.push('memoryThrottlingFactor', 'memory-throttling-range', `${PREFIX}memoryThrottlingFactor ${GO_POINTER_PLACEHOLDER} must be greater than 0 and less than or equal to 1.0`);
  }
}

/**
 * A failure for people: the kubelet's own text, then the v1beta1 JSON path(s) it is about
 * when that text does not spell them (it often uses Go or flag names: "ShutdownGracePeriod",
 * "--show-hidden-metrics-for-version", "invalid taint: {…}", "unrecognized feature gate: X").
 */
export function describeFailure(f: Pick<ValidationFailure, 'fields' | 'message'>): string {
  if (f.fields.every((path) => f.message.includes(path))) return f.message;
  return `${f.message} (${f.fields.length === 1 ? 'field' : 'fields'}: ${f.fields.join(', ')})`;
}

/** ValidateKubeletConfiguration of `version` over a defaulted config with flags applied. */
export function validateKubeletConfig(config: ConfigObject, opts: ValidateOptions = {}): ValidationResult {
  const version = opts.version ?? DEFAULT_VERSION;
  const configGates = (getAt(config, 'featureGates') ?? {}) as Record<string, boolean>;
  const gates = effectiveGates({ version, localGates: opts.localGates, configGates });
  if (gates.error) {
    const field = gates.errorGate !== undefined ? `featureGates.${gates.errorGate}` : 'featureGates';
    return { failures: [{ field, fields: [field], rule: 'feature-gate', message: gates.error }], error: gates.error };
  }
  const failures: ValidationFailure[] = [];
  const ctx: RuleCtx = {
    r: new Reader(config),
    gates: gates.state,
    version,
    opts,
    push: (field, rule, message) => {
      const fields = typeof field === 'string' ? [field] : [...field];
      failures.push({ field: fields[0]!, fields, rule, message });
    },
  };
  basicRules(ctx);
  topologyAndTaintRules(ctx);
  shutdownRules(ctx);
  memorySwapRules(ctx);
  allocatableRules(ctx);
  reservedMemoryRules(ctx);
  metricsAndLoggingRules(ctx);
  memoryQoSRules(ctx);
  return { failures, error: aggregateError(failures.map((f) => f.message)) };
}
