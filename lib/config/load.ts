// The kubelet's whole pipeline for one checkpointed payload (controller.go, 1.12–1.23):
// checkpointStore.Load = read, decode, v1beta1 defaults, resolve relative paths
// (failure: "failed to load config") → transform = re-apply the command line
// (failure: "internal failure") → ValidateKubeletConfiguration (failure: "failed to
// validate config"). Bytes in, an outcome out; nothing is read or printed here.

import { decodeKubeletConfig, type PayloadFormat, type StrictIssue } from './decode.js';
import { applyDefaults } from './defaults.js';
import { applyFlagOverrides, applyFlagRegistrationResets, configFlags, parseKubeletFlags, type FlagOverride, type RegistrationReset } from './flags.js';
import { getAt, hasAt, type ConfigObject } from './objpath.js';
import { applyRelativePaths, relativePathFields, type RelativePath } from './paths.js';
import { validateKubeletConfig, type ValidationFailure } from './validate.js';
import type { KubeletVersion } from './version.js';

export { SUPPORTED_VERSIONS, DEFAULT_VERSION, parseKubeletVersion, resolveKubeletVersion, type KubeletVersion } from './version.js';

export type LoadStage = 'ok' | 'load-error' | 'validate-error' | 'internal-error';

/** Node.Status.Config.Error for each failing stage. */
export const STATUS_ERRORS: Readonly<Record<Exclude<LoadStage, 'ok'>, string>> = {
  'load-error': 'failed to load config, see Kubelet log for details',
  'validate-error': 'failed to validate config, see Kubelet log for details',
  'internal-error': 'internal failure, see Kubelet log for details',
};

export interface LoadOptions {
  version: KubeletVersion;
  /** The kubelet's command line (flags override payload fields). */
  argv?: readonly string[];
  /** featureGates of the node's local --config file. */
  localGates?: Record<string, boolean>;
  /**
   * false: the outcome's `payload` may be null (a judge needs it only for the fields a flag
   * overrides), which saves a deep copy per payload.
   */
  keepPayload?: boolean;
}

export interface LoadOutcome {
  stage: LoadStage;
  /** The kubelet's error text for the failing stage (what it logs), or null. */
  error: string | null;
  /** What the kubelet would put in Node.Status.Config.Error, or null. */
  statusError: string | null;
  version: KubeletVersion;
  format: PayloadFormat | null;
  /** The payload as decoded (typed, unknown fields dropped), before defaults. */
  payload: ConfigObject | null;
  /** Decoded, defaulted, paths resolved, command line applied: what gets validated. */
  config: ConfigObject | null;
  strict: StrictIssue[];
  relativePaths: RelativePath[];
  /** Flag overrides of fields the payload sets. */
  overrides: FlagOverride[];
  /** Every config-backed flag on the command line. */
  flagOverrides: FlagOverride[];
  /** 1.23: fields reset by flag registration whatever the payload said. */
  resets: RegistrationReset[];
  failures: ValidationFailure[];
  /** Command-line flags that are not config fields. */
  ignoredFlags: string[];
  /** Command-line errors (the kubelet would not have started with these). */
  flagErrors: string[];
}

/** True when a flag override changes something the payload itself sets. */
function touchesPayload(payload: ConfigObject, o: FlagOverride): boolean {
  if (!hasAt(payload, o.path)) return false;
  if (o.kind !== 'map-bool') return true;
  const gates = (getAt(payload, o.path) ?? {}) as Record<string, unknown>;
  return Object.keys(o.value as Record<string, boolean>).some((k) => Object.hasOwn(gates, k));
}

/** A bad value for a config-backed flag, as a failure naming the field the flag sets. */
function flagFailure(error: string, version: KubeletVersion): ValidationFailure[] {
  const name = /^invalid argument .* for "(?:-v, )?--([^"]+)" flag: /.exec(error)?.[1];
  const path = name === undefined ? undefined : configFlags(version).get(name)?.path;
  return path === undefined ? [] : [{ field: path, fields: [path], rule: 'flag-value', message: error }];
}

function failed(base: LoadOutcome, stage: Exclude<LoadStage, 'ok'>, error: string): LoadOutcome {
  return { ...base, stage, error, statusError: STATUS_ERRORS[stage] };
}

/** Decode, default, override and validate one payload as a kubelet of `opts.version` would. */
/** The command line is the same for every payload a judge sees: parse it once. */
const parsedFlags = new WeakMap<readonly string[], Map<KubeletVersion, ReturnType<typeof parseKubeletFlags>>>();
const NO_ARGV: readonly string[] = [];

function flagsOf(argv: readonly string[], version: KubeletVersion): ReturnType<typeof parseKubeletFlags> {
  let byVersion = parsedFlags.get(argv);
  if (!byVersion) parsedFlags.set(argv, (byVersion = new Map()));
  let f = byVersion.get(version);
  if (!f) byVersion.set(version, (f = parseKubeletFlags(argv, version)));
  return f;
}

export function loadCheckpointConfig(bytes: Uint8Array, filePath: string, opts: LoadOptions): LoadOutcome {
  const { version } = opts;
  const flags = flagsOf(opts.argv ?? NO_ARGV, version);
  const base: LoadOutcome = {
    stage: 'ok', error: null, statusError: null, version, format: null, payload: null, config: null,
    strict: [], relativePaths: [], overrides: [], flagOverrides: flags.overrides, resets: [], failures: [],
    ignoredFlags: flags.ignored, flagErrors: flags.errors,
  };
  const decoded = decodeKubeletConfig(bytes, filePath, { version });
  if (!decoded.ok) return failed({ ...base, format: decoded.format ?? null }, 'load-error', decoded.error);
  const payload = decoded.config;
  // applyDefaults copies the payload when it is kept for the caller (or a flag override needs
  // its values); the later stages work on that copy in place: verify runs this 10,000 times.
  const keep = opts.keepPayload !== false || flags.overrides.length > 0;
  const overrides = flags.overrides.filter((o) => touchesPayload(payload, o));
  // An __internal payload gets no v1beta1 defaults (the kubelet converts nothing).
  const defaulted = decoded.internal ? structuredClone(payload) : applyDefaults(payload, version, !keep);
  const relativePaths = relativePathFields(defaulted, filePath, version);
  const loaded = applyRelativePaths(defaulted, relativePaths, true);
  const stepped: LoadOutcome = {
    ...base,
    format: decoded.format,
    payload: keep ? payload : null,
    config: loaded,
    strict: decoded.strict,
    relativePaths,
    overrides,
  };
  if (flags.errors.length > 0) return failed({ ...stepped, failures: flagFailure(flags.errors[0]!, version) }, 'internal-error', flags.errors[0]!);
  const reset = applyFlagRegistrationResets(loaded, version, true);
  const config = applyFlagOverrides(reset.config, flags.overrides, true);
  const result = validateKubeletConfig(config, { version, localGates: opts.localGates, klogFlags: flags.klog });
  const validated = { ...stepped, config, resets: reset.resets, failures: result.failures };
  return result.error ? failed(validated, 'validate-error', result.error) : validated;
}
