// Message → event kind and the ids the message names. Both kubelet eras (legacy
// `kubelet config controller: …` 1.10–1.20, structured `"Kubelet config controller …" k="v"`
// 1.21–1.23), the server.go startup lines, and systemd's lines about the kubelet unit
// across systemd versions (reference/journal-lines.md §2, §2.9, §4.4).

import type { EventKind } from './events.js';
import { parseStructured, type KlogHeader } from './klog.js';

export interface Ids {
  uid: string | null;
  resourceVersion: string | null;
  apiPath: string | null;
  key: string | null;
}

export interface Classified extends Ids {
  kind: EventKind;
  exitStatus: number | null;
  /** A legacy printf line: header-less lines after it continue its message. */
  continues: boolean;
}

const LEGACY_PREFIX = 'kubelet config controller: ';
const STRUCTURED_PREFIX = 'Kubelet config controller';

// Node.Status.Config.Error reasons the bootstrap logs before falling back (§2.7), and the 1.10 forms.
const REASONS: Array<[RegExp, EventKind]> = [
  [/^failed to load config, see Kubelet log for details/, 'load-failed'],
  [/^failed to validate config, see Kubelet log for details/, 'validate-failed'],
  [/^internal failure, see Kubelet log for details/, 'internal-error'],
  [/^failed to (?:load|parse) current\b/, 'load-failed'],
  [/^failed to validate current\b/, 'validate-failed'],
];

// The informer-store errors of configsync.go; as the text of a sync error they are sync failures.
const INFORMER_ERROR = /informer's store|failed to retrieve Node/;

const P = '(/api/v1/namespaces/[^/\\s,]+/configmaps/[^\\s,]+)';
const V = '([^\\s,]+)';
type IdFn = (m: RegExpExecArray) => Partial<Ids>;
const pur: IdFn = (m) => ({ apiPath: m[1]!, uid: m[2]!, resourceVersion: m[3]! });

// Legacy message texts after the `kubelet config controller: ` prefix.
const LEGACY: Array<[RegExp, EventKind, IdFn?]> = [
  [/^starting controller$/, 'controller-start'],
  [/^initializing config checkpoints directory /, 'store-init'],
  [new RegExp(`^loading Kubelet configuration checkpoint for source ${P}, UID: ${V}, ResourceVersion: ${V}$`), 'checkpoint-load', pur],
  [new RegExp(`^loading kubelet configuration checkpoint for source ${P}:${V}$`), 'checkpoint-load', (m) => ({ apiPath: m[1]!, uid: m[2]! })],
  [/^failed to sync: /, 'sync-failed'],
  [/^(?:Node\.Spec\.ConfigSource was updated|assigned ConfigMap was updated|assigned ConfigMap was deleted)$/, 'source-updated'],
  [new RegExp(`^successfully downloaded ${P}, UID: ${V}, ResourceVersion: ${V}$`), 'downloaded', pur],
  [new RegExp(`^found ${P} in in-memory store, UID: ${V}, ResourceVersion: ${V}$`), 'downloaded', pur],
  [new RegExp(`^checkpoint already exists for ${P}, UID: ${V}, ResourceVersion: ${V}$`), 'checkpoint-exists', pur],
  [new RegExp(`^checkpoint already exists for object ${P} with UID ${V}(?: and ResourceVersion ${V})?`), 'checkpoint-exists', pur],
  [/^Kubelet (?:restarting to use|will restart to use:) local config$/, 'restart-for-local'],
  [
    new RegExp(`^Kubelet (?:restarting to use|will restart to use:) ${P}(?:, UID: ${V}, ResourceVersion: ${V}(?:, KubeletConfigKey: (\\S+))?)?$`),
    'restart-for-config',
    (m) => ({ apiPath: m[1]!, uid: m[2] ?? null, resourceVersion: m[3] ?? null, key: m[4] ?? null }),
  ],
  [/^Node\.Spec\.ConfigSource is empty, will reset /, 'reset-requested'],
  [new RegExp(`^updated last-known-good config to ${P}, UID: ${V}, ResourceVersion: ${V}$`), 'lkg-updated', pur],
  [/^assigned config passed trial period, will set as last-known-good$/, 'lkg-updated'],
];

// Structured (1.21+) message texts after `Kubelet config controller `.
const STRUCTURED: Array<[string, EventKind]> = [
  ['starting controller', 'controller-start'],
  ['initializing config checkpoints directory', 'store-init'],
  ['loading Kubelet configuration checkpoint for source', 'checkpoint-load'],
  ['Node.Spec.ConfigSource was updated', 'source-updated'],
  ['assigned ConfigMap was updated', 'source-updated'],
  ['assigned ConfigMap was deleted', 'source-updated'],
  ['successfully downloaded remoteConfigMap', 'downloaded'],
  ['found remoteConfigMap in in-memory store', 'downloaded'],
  ['checkpoint already exists for source', 'checkpoint-exists'],
  ['Node.Spec.ConfigSource is empty, will reset assigned and last-known-good to defaults', 'reset-requested'],
  ['updated last-known-good config to new checkpointStore', 'lkg-updated'],
];

/** Ids named anywhere in a free text (error messages embed fsstore's `source P, UID: U, ResourceVersion: R`). */
const API_PATH = new RegExp(P);

export function idsInText(text: string): Ids {
  const api = API_PATH.exec(text);
  const uid = /\bUID:? ([^\s,]+?)(?:,|\s|$)/.exec(text);
  const rv = /\bResourceVersion:? ([^\s,]+?)(?:,|\s|$)/.exec(text);
  const key = /\bKubeletConfigKey:? ([^\s,]+?)(?:,|\s|$)/.exec(text);
  return { apiPath: api?.[1] ?? null, uid: uid?.[1] ?? null, resourceVersion: rv?.[1] ?? null, key: key?.[1] ?? null };
}

// One object shape for every result (spreading partial id objects is slow on a cold path).
function make(kind: EventKind, ids: Partial<Ids>, continues: boolean, exitStatus: number | null = null): Classified {
  return { uid: ids.uid ?? null, resourceVersion: ids.resourceVersion ?? null, apiPath: ids.apiPath ?? null, key: ids.key ?? null, kind, exitStatus, continues };
}

/** Classify a kubelet message (the text after the klog header, or a header-less stderr line). */
export function classifyKubelet(text: string, header: KlogHeader | null): Classified | null {
  if (header) return classifyKlogBody(text, header.file);
  if (text.startsWith(LEGACY_PREFIX)) return classifyLegacy(text.slice(LEGACY_PREFIX.length), null, true);
  if (text[0] === '"') return classifyStructured(text, null);
  if (text.startsWith('Flag --dynamic-config-dir has been deprecated')) return make('deprecated-flag', {}, false);
  return null;
}

/**
 * The message after a klog header whose caller is `file`. Of the file only "is it
 * configsync.go" counts: the result is the same for any two files that agree on that.
 */
export function classifyKlogBody(text: string, file: string | null): Classified | null {
  if (text.startsWith(LEGACY_PREFIX)) return classifyLegacy(text.slice(LEGACY_PREFIX.length), file, true);
  if (text[0] === '"') return classifyStructured(text, file);
  // server.go lines without the controller prefix (klog.Fatal(err) before 1.21).
  if (/^failed to determine a valid configuration\b|^cannot bootstrap Kubelet config controller\b|^failed to bootstrap Kubelet config controller\b|^failed to get absolute path for --dynamic-config-dir/.test(text)) {
    return make('bootstrap-failed', idsInText(text), true);
  }
  if (/the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag/.test(text)) return make('feature-gate-off', {}, true);
  return null;
}

function classifyLegacy(t: string, file: string | null, continues: boolean): Classified | null {
  // Every catalogue text starts with one of a few words: skip the regexes when it cannot match.
  if (!LEGACY_STARTS.test(t)) return null;
  for (const [re, kind] of REASONS) {
    if (!re.test(t)) continue;
    // configsync.go uses the internal-failure reason for informer errors: a sync failure.
    if (kind === 'internal-error' && (isSyncFile(file) || INFORMER_ERROR.test(t))) return make('sync-failed', idsInText(t), continues);
    return make(kind, idsInText(t), continues);
  }
  for (const [re, kind, ids] of LEGACY) {
    const m = re.exec(t);
    if (!m) continue;
    const found = ids ? ids(m) : kind === 'sync-failed' ? idsInText(t) : {};
    return make(kind, found, continues);
  }
  return null;
}

const LEGACY_STARTS = /^(?:starting controller$|initializing |loading |failed to |internal failure|Node\.Spec|assigned |successfully |found |checkpoint already|Kubelet |updated last)/;

function isSyncFile(file: string | null): boolean {
  return file !== null && /(^|\/)configsync\.go$/.test(file);
}

function classifyStructured(text: string, file: string | null): Classified | null {
  const s = parseStructured(text);
  if (!s) return null;
  const kv = s.kv;
  const err = kv.get('err') ?? null;
  if (s.msg === 'Failed to bootstrap a configuration controller') return make('bootstrap-failed', idsInText(err ?? ''), false);
  if (err && /DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag/.test(err)) return make('feature-gate-off', {}, false);
  if (!s.msg.startsWith(STRUCTURED_PREFIX)) return null;
  const rest = s.msg.slice(STRUCTURED_PREFIX.length).trim();
  if (rest === '' || rest === 'event') return classifyBare(kv, err, file);
  for (const [msg, kind] of STRUCTURED) if (rest === msg) return make(kind, structuredIds(kv), false);
  return null;
}

// `"Kubelet config controller" err=… reason=…` (bootstrap), `err=` alone (sync / informer /
// status errors), and `message=` (the 1.23 event line and the transitional util/log shim).
function classifyBare(kv: Map<string, string>, err: string | null, file: string | null): Classified | null {
  const reason = kv.get('reason');
  if (reason !== undefined) {
    for (const [re, kind] of REASONS) if (re.test(reason)) return make(kind, idsInText(err ?? ''), false);
  }
  const message = kv.get('message');
  if (message !== undefined) return classifyLegacy(message, file, false);
  if (err === null) return null;
  if (/^failed to sync: /.test(err) || isSyncFile(file) || INFORMER_ERROR.test(err)) return make('sync-failed', idsInText(err), false);
  return null;
}

function structuredIds(kv: Map<string, string>): Partial<Ids> {
  return {
    apiPath: kv.get('apiPath') ?? null,
    uid: kv.get('sourceUID') ?? kv.get('checkpointUID') ?? kv.get('configMapUID') ?? kv.get('uid') ?? null,
    resourceVersion: kv.get('resourceVersion') ?? null,
    key: kv.get('kubeletConfigKey') ?? kv.get('key') ?? null,
  };
}

// ---- systemd ----

// `kubelet.service: …` (v230+), `kubelet.service …` (v219). The kubelet's unit is `kubelet`, or
// ends in it (`snap.microk8s.daemon-kubelet`, `k8s-kubelet`), or is an instance of it
// (`kubelet@x`): never a unit named after it (`kubelet-monitor`, GKE's health check of it).
const KUBELET_UNIT = String.raw`(?:[\w@.:\-]*[-.])?kubelet(?:@[\w.:\-]*)?\.service`;
const UNIT = new RegExp(String.raw`^(?:Unit )?(${KUBELET_UNIT}):? `);
const UNIT_NAME = new RegExp(String.raw`^${KUBELET_UNIT}$`);
const START_LIMIT = new RegExp(String.raw`^start request repeated too quickly for ${KUBELET_UNIT}`);
/** `Started <description>.` of the kubelet's unit, when no UNIT= field says which unit: `kubelet: The Kubernetes Node Agent.`, `Kubernetes Kubelet.`, `kubelet.service - …` (never `Kubernetes health monitoring for kubelet.`). */
const STARTED_KUBELET = new RegExp(String.raw`^(?:(?:kubernetes )?kubelet|${KUBELET_UNIT})(?![\w@-]|\.\w)`, 'i');

/**
 * Classify a line systemd wrote. `unit` is the `UNIT=` field when the source has one
 * (journald); text sources rely on the unit named in the message.
 */
export function classifySystemd(message: string, unit: string | null): Classified | null {
  const m = UNIT.exec(message);
  if (m) return classifyUnitMessage(message.slice(m[0].length));
  if (START_LIMIT.test(message)) return make('start-limit-hit', {}, false);
  // `Started kubelet: The Kubernetes Node Agent.`, `Started kubelet.service - …`, `Started Kubernetes Kubelet.`
  const started = /^Started (.*)$/.exec(message);
  if (started && ((unit !== null && isKubeletUnit(unit)) || (unit === null && STARTED_KUBELET.test(started[1]!)))) return make('kubelet-started', {}, false);
  return null;
}

export function isKubeletUnit(unit: string): boolean {
  return UNIT_NAME.test(unit);
}

function classifyUnitMessage(t: string): Classified | null {
  if (/^(?:Succeeded\.|Deactivated successfully\.)$/.test(t)) return make('kubelet-exited', {}, false, 0);
  const exited = /^[Mm]ain process exited, code=(\w+), status=(\d+)/.exec(t);
  if (exited) return make('kubelet-exited', {}, false, +exited[2]!);
  if (/^Scheduled restart job, restart counter is at \d+/.test(t) || /scheduling restart\.?$/.test(t)) return make('restart-scheduled', {}, false);
  if (/^Start request repeated too quickly\.?$/.test(t)) return make('start-limit-hit', {}, false);
  return null;
}

/** Could this message be systemd's, with nothing else to tell (cat output)? */
/** systemd's job lines about the kubelet's unit by its description: `Stopping kubelet: The Kubernetes Node Agent...`, `Failed to start Kubernetes Kubelet.` */
const JOB_LINE = new RegExp(String.raw`^(?:Starting|Started|Stopping|Stopped|Failed to start|Reloading|Reloaded) (?:(?:kubernetes )?kubelet\b|${KUBELET_UNIT})`, 'i');

export function looksLikeSystemd(message: string): boolean {
  return UNIT.test(message) || /^Started /.test(message) || /^start request repeated too quickly/.test(message) || JOB_LINE.test(message);
}
