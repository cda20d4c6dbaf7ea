// Adapter from the kubelet's config pipeline (lib/config/load.ts) to the judge seam used
// by next-boot prediction and verify.

import { loadCheckpointConfig, type LoadOutcome } from '../config/load.js';
import type { KubeletVersion } from '../config/version.js';
import type { ConfigJudge, Judgement } from './judge.js';
import { flagValue } from '../store/proc.js';
import { DKC_GATE_TEXT, effectiveGates, gateEnabled, type GateState } from '../config/gates.js';
import { afterBootstrap } from '../config/after-bootstrap.js';

export interface JudgeOptions {
  version: KubeletVersion;
  argv: readonly string[];
  /** featureGates of the node's local --config file (they sit under checkpoint gates). */
  localGates?: Record<string, boolean> | undefined;
}

function judgementOf(o: LoadOutcome): Judgement {
  return {
    stage: o.stage,
    error: o.error,
    failures: o.failures.map((f) => ({ field: f.field, fields: f.fields, message: f.message })),
    strict: o.strict.map((s) => ({ path: s.path, message: s.message })),
    relativePaths: o.relativePaths.map((r) => ({ field: r.field, value: r.value })),
    overrides: o.overrides
      .map((x) => ({ flag: x.flag.replace(/^-+/, ''), path: x.path, value: x.value, payloadValue: payloadValue(o, x.path), merges: x.kind === 'map-bool' }))
      // A flag that sets what the payload already says overrides nothing: no FLAG_OVERRIDE noise.
      .filter((x) => !sameSetting(x.payloadValue, x.value, x.merges))
      .map(({ merges: _merges, ...x }) => x),
  };
}

/**
 * Whether a flag's value equals what the payload sets. Scalars compare as text (a flag's
 * `110` and the payload's 110, `10s` and "10s"); a merging map flag (feature gates) only by
 * the keys it sets, any other map or list whole.
 */
export function sameSetting(payload: unknown, flag: unknown, merges = false): boolean {
  if (Array.isArray(payload) || Array.isArray(flag)) {
    return Array.isArray(payload) && Array.isArray(flag) && payload.length === flag.length && payload.every((v, i) => sameSetting(v, flag[i]));
  }
  const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (isMap(payload) || isMap(flag)) {
    if (!isMap(payload) || !isMap(flag)) return false;
    const keys = merges ? Object.keys(flag) : [...new Set([...Object.keys(payload), ...Object.keys(flag)])];
    return keys.every((k) => Object.hasOwn(payload, k) && Object.hasOwn(flag, k) && sameSetting(payload[k], flag[k]));
  }
  return payload !== undefined && flag !== undefined && String(payload) === String(flag);
}

function payloadValue(o: LoadOutcome, dotted: string): unknown {
  let v: unknown = o.payload;
  for (const k of dotted.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** A checkpoint payload, judged as the kubelet's controller would. */
export function judgeConfig(opts: JudgeOptions): ConfigJudge {
  // The controller runs for a non-empty --dynamic-config-dir; the config it adopts then sets the gates.
  const controller = !!flagValue(opts.argv, 'dynamic-config-dir');
  const runtime = flagValue(opts.argv, 'container-runtime');
  return (bytes, file) => {
    const o = loadCheckpointConfig(bytes, file, { version: opts.version, argv: opts.argv, localGates: opts.localGates, keepPayload: false });
    const j = judgementOf(o);
    if (j.stage !== 'ok') return j;
    // After Bootstrap, in the kubelet's order: InitializeTLS (UnsecuredDependencies), then run():
    // ValidateKubeletServer's gate check first (only a command line known to name the store
    // says the controller runs), then what it builds from the config.
    const enabled = enabledIn(o.config, opts);
    const after = afterBootstrap(o.config, enabled, opts.version, runtime);
    if (after && !after.error.startsWith('failed to run Kubelet: ')) return { ...j, exitsOnceAdopted: after };
    if (controller && gateTurnedOff(o.config, enabled)) return { ...j, exitsOnceAdopted: { error: `failed to run Kubelet: ${DKC_GATE_TEXT}`, because: 'its featureGates turn DynamicKubeletConfig off' } };
    return after ? { ...j, exitsOnceAdopted: after } : j;
  };
}

/** The gates in force once `config` is: its featureGates (the flags' over them) over the local config's. */
function enabledIn(config: Record<string, unknown> | null, opts: JudgeOptions): (gate: string) => boolean {
  // Worked out when first asked: most configs never get to a check that depends on a gate.
  let state: GateState | null = null;
  return (gate) => {
    const gates = config?.featureGates;
    state ??= effectiveGates({ version: opts.version, localGates: opts.localGates, configGates: gates !== null && typeof gates === 'object' ? (gates as Record<string, boolean>) : {} }).state;
    return gateEnabled(state, gate);
  };
}

/**
 * The adopted config's featureGates (the flags' already over the payload's) turn the gate off:
 * on 1.20/1.21, where it is on by default and the flags need not name it, the kubelet adopts
 * such a checkpoint, sets its gates, and ValidateKubeletServer then exits on the flag, at every
 * start (reference flags-and-gates.md §3.1 step 5; found by review: status said it starts).
 */
function gateTurnedOff(config: Record<string, unknown> | null, enabled: (gate: string) => boolean): boolean {
  const gates = config?.featureGates;
  if (gates === null || typeof gates !== 'object') return false;
  // SetFromMap over the gates already set (the local config's): `AllBeta: false` turns off every
  // Beta gate nothing set, DynamicKubeletConfig among them on 1.20/1.21 (found by review).
  const g = gates as Record<string, boolean>;
  if (g.DynamicKubeletConfig === false) return true;
  if (g.DynamicKubeletConfig === true || g.AllBeta !== false) return false;
  return !enabled('DynamicKubeletConfig');
}

export interface LocalJudgement extends Judgement {
  /** The local file's featureGates, which checkpoints are validated on top of. */
  gates: Record<string, boolean> | undefined;
}

/** The node's local --config file; load errors carry the kubelet's extra wrapper. */
export function judgeLocalConfig(bytes: Buffer, file: string, opts: JudgeOptions): LocalJudgement {
  const o = loadCheckpointConfig(bytes, file, { version: opts.version, argv: opts.argv });
  const j = judgementOf(o);
  const gates = (o.payload?.featureGates ?? undefined) as Record<string, boolean> | undefined;
  if (j.stage === 'load-error') return { ...j, error: `failed to load Kubelet config file ${file}, error ${j.error}`, gates };
  // Valid, yet the kubelet stops once it runs this config (when no checkpoint is adopted).
  const after = j.stage === 'ok' ? afterBootstrap(o.config, enabledIn(o.config, { ...opts, localGates: undefined }), opts.version, flagValue(opts.argv, 'container-runtime')) : null;
  return after ? { ...j, gates, exitsOnceAdopted: after } : { ...j, gates };
}
