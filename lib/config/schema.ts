// The kubelet.config.k8s.io/v1beta1 KubeletConfiguration type for kubelets 1.20–1.23, as
// data: JSON name → Go type, pointer-ness, the release that added the field. The decoder
// uses it for Go's type errors and unknown-field detection, defaults and validation read
// fields through it, and other modules (diff) import FIELD_TABLE to know field kinds.
// Source: staging/src/k8s.io/kubelet/config/v1beta1/types.go of each release.

import { inRange, type KubeletVersion } from './version.js';

/** How a value is represented and checked. */
export type FieldKind =
  | 'bool' | 'int32' | 'int64' | 'uint32' | 'float64' | 'string'
  | 'duration'    // metav1.Duration: a Go duration string ("1m30s")
  | 'duration-ns' // time.Duration: integer nanoseconds in JSON
  | 'quantity'    // resource.Quantity: "100Mi", or a number
  | 'time'        // metav1.Time: RFC 3339 string
  | 'map' | 'list' | 'struct';

export interface TypeSpec {
  kind: FieldKind;
  /** The Go type as reflect prints it in "cannot unmarshal … of type X". */
  goType: string;
  /** Value type of a map, element type of a list. */
  elem?: TypeSpec;
  /** Fields of a struct. */
  struct?: StructSpec;
}

export interface StructSpec {
  /** Go struct name as encoding/json prints it ("KubeletConfiguration"). */
  name: string;
  fields: FieldSpec[];
}

export interface FieldSpec {
  /** JSON name. */
  name: string;
  type: TypeSpec;
  /** A pointer in v1beta1: only an absent (null) value is defaulted; an explicit zero stays. */
  pointer?: boolean;
  /** First release with the field (1.20 when older). */
  since?: KubeletVersion;
}

const scalar = (kind: FieldKind, goType: string): TypeSpec => ({ kind, goType });
const BOOL = scalar('bool', 'bool');
const INT32 = scalar('int32', 'int32');
const INT64 = scalar('int64', 'int64');
const UINT32 = scalar('uint32', 'uint32');
const FLOAT64 = scalar('float64', 'float64');
const STRING = scalar('string', 'string');
const DURATION = scalar('duration', 'v1.Duration');
const DURATION_NS = scalar('duration-ns', 'time.Duration');
const QUANTITY = scalar('quantity', 'resource.Quantity');
const TIME = scalar('time', 'v1.Time');
const named = (goType: string): TypeSpec => scalar('string', goType);
const map = (elem: TypeSpec, goType: string): TypeSpec => ({ kind: 'map', goType, elem });
const list = (elem: TypeSpec, goType: string): TypeSpec => ({ kind: 'list', goType, elem });
const struct = (name: string, pkg: string, fields: FieldSpec[]): TypeSpec => ({ kind: 'struct', goType: `${pkg}.${name}`, struct: { name, fields } });
const f = (name: string, type: TypeSpec, opts: Omit<FieldSpec, 'name' | 'type'> = {}): FieldSpec => ({ name, type, ...opts });
const ptr = (name: string, type: TypeSpec, since?: KubeletVersion): FieldSpec => ({ name, type, pointer: true, ...(since ? { since } : {}) });

const STRING_MAP = map(STRING, 'map[string]string');

const AUTHENTICATION = struct('KubeletAuthentication', 'v1beta1', [
  f('x509', struct('KubeletX509Authentication', 'v1beta1', [f('clientCAFile', STRING)])),
  f('webhook', struct('KubeletWebhookAuthentication', 'v1beta1', [ptr('enabled', BOOL), f('cacheTTL', DURATION)])),
  f('anonymous', struct('KubeletAnonymousAuthentication', 'v1beta1', [ptr('enabled', BOOL)])),
]);

const AUTHORIZATION = struct('KubeletAuthorization', 'v1beta1', [
  f('mode', named('v1beta1.KubeletAuthorizationMode')),
  f('webhook', struct('KubeletWebhookAuthorization', 'v1beta1', [f('cacheAuthorizedTTL', DURATION), f('cacheUnauthorizedTTL', DURATION)])),
]);

const VMODULE_ITEM = struct('VModuleItem', 'v1alpha1', [f('filePattern', STRING), f('verbosity', UINT32)]);

const LOGGING = struct('LoggingConfiguration', 'v1alpha1', [
  f('format', STRING),
  f('flushFrequency', DURATION_NS, { since: '1.23' }),
  f('verbosity', UINT32, { since: '1.23' }),
  f('vmodule', list(VMODULE_ITEM, 'v1alpha1.VModuleConfiguration'), { since: '1.23' }),
  f('sanitization', BOOL),
  f('options', struct('FormatOptions', 'v1alpha1', [
    f('json', struct('JSONOptions', 'v1alpha1', [f('splitStream', BOOL), f('infoBufferSize', QUANTITY)])),
  ]), { since: '1.23' }),
]);

const TAINT = struct('Taint', 'v1', [
  f('key', STRING),
  f('value', STRING),
  f('effect', named('v1.TaintEffect')),
  ptr('timeAdded', TIME),
]);

const MEMORY_RESERVATION = struct('MemoryReservation', 'v1beta1', [
  f('numaNode', INT32),
  f('limits', map(QUANTITY, 'v1.ResourceList')),
]);

const SHUTDOWN_BY_PRIORITY = struct('ShutdownGracePeriodByPodPriority', 'v1beta1', [
  f('priority', INT32),
  f('shutdownGracePeriodSeconds', INT64),
]);

/** The v1beta1 SerializedNodeConfigSource of a meta file (TypeMeta inline, then Source; core/v1's NodeConfigSource). */
export const SERIALIZED_NODE_CONFIG_SOURCE: TypeSpec = struct('SerializedNodeConfigSource', 'v1beta1', [
  f('kind', STRING),
  f('apiVersion', STRING),
  f('source', struct('NodeConfigSource', 'v1', [
    ptr('configMap', struct('ConfigMapNodeConfigSource', 'v1', [
      f('namespace', STRING),
      f('name', STRING),
      f('uid', named('types.UID')),
      f('resourceVersion', STRING),
      f('kubeletConfigKey', STRING),
    ])),
  ])),
]);

/** KubeletConfiguration, fields in the order of the Go struct (the order of errors). */
export const KUBELET_CONFIGURATION: TypeSpec = struct('KubeletConfiguration', 'v1beta1', [
  f('kind', STRING),
  f('apiVersion', STRING),
  ptr('enableServer', BOOL),
  f('staticPodPath', STRING),
  f('syncFrequency', DURATION),
  f('fileCheckFrequency', DURATION),
  f('httpCheckFrequency', DURATION),
  f('staticPodURL', STRING),
  f('staticPodURLHeader', map(list(STRING, '[]string'), 'map[string][]string')),
  f('address', STRING),
  f('port', INT32),
  f('readOnlyPort', INT32),
  f('tlsCertFile', STRING),
  f('tlsPrivateKeyFile', STRING),
  f('tlsCipherSuites', list(STRING, '[]string')),
  f('tlsMinVersion', STRING),
  f('rotateCertificates', BOOL),
  f('serverTLSBootstrap', BOOL),
  f('authentication', AUTHENTICATION),
  f('authorization', AUTHORIZATION),
  ptr('registryPullQPS', INT32),
  f('registryBurst', INT32),
  ptr('eventRecordQPS', INT32),
  f('eventBurst', INT32),
  ptr('enableDebuggingHandlers', BOOL),
  f('enableContentionProfiling', BOOL),
  ptr('healthzPort', INT32),
  f('healthzBindAddress', STRING),
  ptr('oomScoreAdj', INT32),
  f('clusterDomain', STRING),
  f('clusterDNS', list(STRING, '[]string')),
  f('streamingConnectionIdleTimeout', DURATION),
  f('nodeStatusUpdateFrequency', DURATION),
  f('nodeStatusReportFrequency', DURATION),
  f('nodeLeaseDurationSeconds', INT32),
  f('imageMinimumGCAge', DURATION),
  ptr('imageGCHighThresholdPercent', INT32),
  ptr('imageGCLowThresholdPercent', INT32),
  f('volumeStatsAggPeriod', DURATION),
  f('kubeletCgroups', STRING),
  f('systemCgroups', STRING),
  f('cgroupRoot', STRING),
  ptr('cgroupsPerQOS', BOOL),
  f('cgroupDriver', STRING),
  f('cpuManagerPolicy', STRING),
  f('cpuManagerPolicyOptions', STRING_MAP, { since: '1.22' }),
  f('cpuManagerReconcilePeriod', DURATION),
  f('memoryManagerPolicy', STRING, { since: '1.21' }),
  f('topologyManagerPolicy', STRING),
  f('topologyManagerScope', STRING),
  f('qosReserved', STRING_MAP),
  f('runtimeRequestTimeout', DURATION),
  f('hairpinMode', STRING),
  f('maxPods', INT32),
  f('podCIDR', STRING),
  ptr('podPidsLimit', INT64),
  ptr('resolvConf', STRING),
  f('runOnce', BOOL),
  ptr('cpuCFSQuota', BOOL),
  ptr('cpuCFSQuotaPeriod', DURATION),
  ptr('nodeStatusMaxImages', INT32),
  f('maxOpenFiles', INT64),
  f('contentType', STRING),
  ptr('kubeAPIQPS', INT32),
  f('kubeAPIBurst', INT32),
  ptr('serializeImagePulls', BOOL),
  f('evictionHard', STRING_MAP),
  f('evictionSoft', STRING_MAP),
  f('evictionSoftGracePeriod', STRING_MAP),
  f('evictionPressureTransitionPeriod', DURATION),
  f('evictionMaxPodGracePeriod', INT32),
  f('evictionMinimumReclaim', STRING_MAP),
  f('podsPerCore', INT32),
  ptr('enableControllerAttachDetach', BOOL),
  f('protectKernelDefaults', BOOL),
  ptr('makeIPTablesUtilChains', BOOL),
  ptr('iptablesMasqueradeBit', INT32),
  ptr('iptablesDropBit', INT32),
  f('featureGates', map(BOOL, 'map[string]bool')),
  ptr('failSwapOn', BOOL),
  f('memorySwap', struct('MemorySwapConfiguration', 'v1beta1', [f('swapBehavior', STRING)]), { since: '1.22' }),
  f('containerLogMaxSize', STRING),
  ptr('containerLogMaxFiles', INT32),
  f('configMapAndSecretChangeDetectionStrategy', named('v1beta1.ResourceChangeDetectionStrategy')),
  f('systemReserved', STRING_MAP),
  f('kubeReserved', STRING_MAP),
  f('reservedSystemCPUs', STRING),
  f('showHiddenMetricsForVersion', STRING),
  f('systemReservedCgroup', STRING),
  f('kubeReservedCgroup', STRING),
  f('enforceNodeAllocatable', list(STRING, '[]string')),
  f('allowedUnsafeSysctls', list(STRING, '[]string')),
  f('volumePluginDir', STRING),
  f('providerID', STRING),
  f('kernelMemcgNotification', BOOL),
  f('logging', LOGGING),
  ptr('enableSystemLogHandler', BOOL),
  f('shutdownGracePeriod', DURATION),
  f('shutdownGracePeriodCriticalPods', DURATION),
  f('shutdownGracePeriodByPodPriority', list(SHUTDOWN_BY_PRIORITY, '[]v1beta1.ShutdownGracePeriodByPodPriority'), { since: '1.23' }),
  f('reservedMemory', list(MEMORY_RESERVATION, '[]v1beta1.MemoryReservation'), { since: '1.21' }),
  ptr('enableProfilingHandler', BOOL, '1.21'),
  ptr('enableDebugFlagsHandler', BOOL, '1.21'),
  ptr('seccompDefault', BOOL, '1.22'),
  ptr('memoryThrottlingFactor', FLOAT64, '1.22'),
  f('registerWithTaints', list(TAINT, '[]v1.Taint'), { since: '1.23' }),
  ptr('registerNode', BOOL, '1.23'),
]);

/** The fields of a struct that exist in `version`. */
export function fieldsOf(spec: StructSpec, version: KubeletVersion): FieldSpec[] {
  return spec.fields.filter((fld) => inRange(version, fld.since));
}

/** One row of the flattened field table. */
export interface FieldInfo {
  /** Dotted v1beta1 JSON path ("authentication.webhook.cacheTTL"). */
  path: string;
  kind: FieldKind;
  goType: string;
  pointer: boolean;
  since: KubeletVersion;
  /** For maps and lists: the kind of the values / elements. */
  elemKind?: FieldKind;
}

function flatten(spec: StructSpec, prefix: string, since: KubeletVersion, out: FieldInfo[]): void {
  for (const fld of spec.fields) {
    const path = prefix ? `${prefix}.${fld.name}` : fld.name;
    const fieldSince = fld.since ?? since;
    out.push({
      path,
      kind: fld.type.kind,
      goType: fld.type.goType,
      pointer: fld.pointer ?? false,
      since: fieldSince,
      ...(fld.type.elem ? { elemKind: fld.type.elem.kind } : {}),
    });
    if (fld.type.kind === 'struct') flatten(fld.type.struct!, path, fieldSince, out);
  }
}

/** Every field and sub-field of KubeletConfiguration (struct-list elements not expanded). */
export const FIELD_TABLE: readonly FieldInfo[] = (() => {
  const out: FieldInfo[] = [];
  flatten(KUBELET_CONFIGURATION.struct!, '', '1.20', out);
  return out;
})();

const BY_PATH = new Map(FIELD_TABLE.map((row) => [row.path, row]));

/** The field at a dotted path, when it exists in `version` (any version when omitted). */
export function lookupField(path: string, version?: KubeletVersion): FieldInfo | undefined {
  const row = BY_PATH.get(path);
  if (!row || (version && !inRange(version, row.since))) return undefined;
  return row;
}

/** The API group/version and kinds the kubelet's scheme registers (1.20–1.23). */
export const KUBELET_CONFIG_GROUP = 'kubelet.config.k8s.io';
export const KUBELET_CONFIG_VERSION = 'v1beta1';
export const KUBELET_CONFIG_API_VERSION = `${KUBELET_CONFIG_GROUP}/${KUBELET_CONFIG_VERSION}`;
export const KUBELET_SCHEME_NAME = 'k8s.io/kubernetes/pkg/kubelet/apis/config/scheme/scheme.go:32';
