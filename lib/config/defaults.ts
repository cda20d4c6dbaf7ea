// SetDefaults_KubeletConfiguration (pkg/kubelet/apis/config/v1beta1/defaults.go) for
// 1.20–1.23, as a table. Two kinds of rule, matching the Go types:
// - 'absent': the v1beta1 field is a pointer (or a map/slice compared with nil): only a
//   missing/null value is defaulted; an explicit 0, false or [] / {} survives.
// - 'zero':   a plain value: the Go zero value ("" / 0 / a 0 duration) is replaced too.
// Order matters once: nodeStatusReportFrequency copies nodeStatusUpdateFrequency when
// that one was set explicitly, so it is evaluated first. A partial evictionHard is not
// merged with the defaults, and a negative podPidsLimit becomes -1.

import { formatGoDuration, tryParseGoDuration } from './duration.js';
import { deepClone, getAt, setAt, type ConfigObject } from './objpath.js';
import { lookupField } from './schema.js';
import { inRange, type KubeletVersion } from './version.js';

export interface DefaultRule {
  /** Dotted v1beta1 JSON path. */
  path: string;
  /** The default, in its JSON form (durations as Go prints them). */
  value: unknown;
  when: 'absent' | 'zero' | 'absent-or-negative';
  /** Computes the value from the not-yet-defaulted config (order-dependent defaults). */
  derive?: (config: ConfigObject) => unknown;
  /** First release with this default (otherwise: the field's own release). */
  since?: KubeletVersion;
  note?: string;
}

export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
};

const zero = (path: string, value: unknown, extra: Partial<DefaultRule> = {}): DefaultRule => ({ path, value, when: 'zero', ...extra });
const absent = (path: string, value: unknown, extra: Partial<DefaultRule> = {}): DefaultRule => ({ path, value, when: 'absent', ...extra });

function isZeroDuration(v: unknown): boolean {
  return v === undefined || (typeof v === 'string' && tryParseGoDuration(v) === 0n);
}

/** Every v1beta1 default, in the order SetDefaults_KubeletConfiguration applies them. */
export const V1BETA1_DEFAULTS: readonly DefaultRule[] = [
  absent('enableServer', true),
  zero('syncFrequency', '1m0s'),
  zero('fileCheckFrequency', '20s'),
  zero('httpCheckFrequency', '20s'),
  zero('address', '0.0.0.0'),
  zero('port', 10250),
  absent('authentication.anonymous.enabled', false),
  absent('authentication.webhook.enabled', true),
  zero('authentication.webhook.cacheTTL', '2m0s'),
  zero('authorization.mode', 'Webhook'),
  zero('authorization.webhook.cacheAuthorizedTTL', '5m0s'),
  zero('authorization.webhook.cacheUnauthorizedTTL', '30s'),
  absent('registryPullQPS', 5),
  zero('registryBurst', 10),
  absent('eventRecordQPS', 5),
  zero('eventBurst', 10),
  absent('enableDebuggingHandlers', true),
  absent('healthzPort', 10248),
  zero('healthzBindAddress', '127.0.0.1'),
  absent('oomScoreAdj', -999),
  zero('streamingConnectionIdleTimeout', '4h0m0s'),
  zero('nodeStatusReportFrequency', '5m0s', {
    derive: (c) => (isZeroDuration(getAt(c, 'nodeStatusUpdateFrequency')) ? '5m0s' : getAt(c, 'nodeStatusUpdateFrequency')),
    note: 'the value of nodeStatusUpdateFrequency when that one is set explicitly, else 5m',
  }),
  zero('nodeStatusUpdateFrequency', '10s'),
  zero('nodeLeaseDurationSeconds', 40),
  zero('imageMinimumGCAge', '2m0s'),
  absent('imageGCHighThresholdPercent', 85),
  absent('imageGCLowThresholdPercent', 80),
  zero('volumeStatsAggPeriod', '1m0s'),
  absent('cgroupsPerQOS', true),
  zero('cgroupDriver', 'cgroupfs'),
  zero('cpuManagerPolicy', 'none'),
  zero('cpuManagerReconcilePeriod', '10s'),
  zero('memoryManagerPolicy', 'None'),
  zero('topologyManagerPolicy', 'none'),
  zero('topologyManagerScope', 'container'),
  zero('runtimeRequestTimeout', '2m0s'),
  zero('hairpinMode', 'promiscuous-bridge'),
  zero('maxPods', 110),
  { path: 'podPidsLimit', value: -1, when: 'absent-or-negative', note: 'a negative value is also forced to -1' },
  absent('resolvConf', '/etc/resolv.conf'),
  absent('cpuCFSQuota', true),
  absent('cpuCFSQuotaPeriod', '100ms'),
  absent('nodeStatusMaxImages', 50),
  zero('maxOpenFiles', 1000000),
  zero('contentType', 'application/vnd.kubernetes.protobuf'),
  absent('kubeAPIQPS', 5),
  zero('kubeAPIBurst', 10),
  absent('serializeImagePulls', true),
  absent('evictionHard', DEFAULT_EVICTION_HARD, { note: 'only when absent: a partial map is not merged with the defaults' }),
  zero('evictionPressureTransitionPeriod', '5m0s'),
  absent('enableControllerAttachDetach', true),
  absent('makeIPTablesUtilChains', true),
  absent('iptablesMasqueradeBit', 14),
  absent('iptablesDropBit', 15),
  absent('failSwapOn', true),
  zero('containerLogMaxSize', '10Mi'),
  absent('containerLogMaxFiles', 5),
  zero('configMapAndSecretChangeDetectionStrategy', 'Watch'),
  absent('enforceNodeAllocatable', ['pods'], { note: 'only when absent: an explicit [] stays empty' }),
  zero('volumePluginDir', '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/'),
  zero('logging.format', 'text'),
  absent('logging.options.json.infoBufferSize', '0', { since: '1.23' }),
  zero('logging.flushFrequency', 5_000_000_000, { since: '1.23', note: 'nanoseconds (5s)' }),
  absent('enableSystemLogHandler', true),
  absent('enableProfilingHandler', true),
  absent('enableDebugFlagsHandler', true),
  absent('seccompDefault', false),
  absent('memoryThrottlingFactor', 0.8),
  absent('registerNode', true),
];

/** The rules that apply to `version` (fields it lacks have no default). */
const rulesByVersion = new Map<KubeletVersion, readonly DefaultRule[]>();

/** The rules of one release (computed once: they are applied to every payload). */
export function defaultsFor(version: KubeletVersion): readonly DefaultRule[] {
  let rules = rulesByVersion.get(version);
  if (!rules) {
    rules = V1BETA1_DEFAULTS.filter((r) => inRange(version, r.since ?? lookupField(r.path)?.since));
    rulesByVersion.set(version, rules);
  }
  return rules;
}

function isZero(path: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  const kind = lookupField(path)?.kind;
  if (kind === 'duration') return isZeroDuration(v);
  return v === '' || v === 0;
}

function needsDefault(rule: DefaultRule, v: unknown): boolean {
  switch (rule.when) {
    case 'absent': return v === undefined || v === null;
    case 'zero': return isZero(rule.path, v);
    case 'absent-or-negative': return v === undefined || v === null || ((typeof v === 'number' || typeof v === 'bigint') && v < 0);
  }
}

export interface AppliedDefault {
  path: string;
  value: unknown;
  /** What the payload held (undefined when absent). */
  was: unknown;
}

/** Apply the v1beta1 defaults of `version`; returns a new object (unless `inPlace`) and what was filled in. */
export function applyDefaultsDetailed(config: ConfigObject, version: KubeletVersion, inPlace = false): { config: ConfigObject; applied: AppliedDefault[] } {
  const out = inPlace ? config : deepClone(config);
  const applied: AppliedDefault[] = [];
  for (const rule of defaultsFor(version)) {
    const was = getAt(out, rule.path);
    if (!needsDefault(rule, was)) continue;
    const value = deepClone(rule.derive ? rule.derive(out) : rule.value);
    setAt(out, rule.path, value);
    applied.push({ path: rule.path, value, was });
  }
  return { config: out, applied };
}

/** Apply the v1beta1 defaults of `version` (a new object unless `inPlace`; then the input is changed). */
export function applyDefaults(config: ConfigObject, version: KubeletVersion, inPlace = false): ConfigObject {
  return applyDefaultsDetailed(config, version, inPlace).config;
}

/** A duration field's value in nanoseconds, treating absent as zero. */
export function durationNanos(v: unknown): bigint {
  return typeof v === 'string' ? (tryParseGoDuration(v) ?? 0n) : 0n;
}

/** Go's spelling of a duration value (for display next to defaults). */
export function showDuration(v: unknown): string {
  return formatGoDuration(durationNanos(v));
}
