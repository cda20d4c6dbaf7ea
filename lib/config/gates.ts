// Feature gates as the kubelet checks them (component-base featuregate, 1.20–1.23): the
// gates each release knows, their defaults and locks, SetFromMap's errors, the AllAlpha /
// AllBeta specials, and the layering the kubelet uses when it validates a checkpoint:
// built-in defaults < local --config file gates < checkpoint gates < --feature-gates flags.

import { GATE_TABLE, GATE_VERSIONS, type GateStage } from './flags-and-gates.data.js';
import type { KubeletVersion } from './version.js';

/** ValidateKubeletFlags' words for --dynamic-config-dir with the DynamicKubeletConfig gate off (at start, and again once a config is adopted). */
export const DKC_GATE_TEXT = 'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag';

export interface GateSpec {
  name: string;
  default: boolean;
  stage: GateStage;
  locked: boolean;
}

/** The gates a kubelet of `version` knows (AllAlpha/AllBeta included). */
export function knownGates(version: KubeletVersion): Map<string, GateSpec> {
  const idx = GATE_VERSIONS.indexOf(version);
  const out = new Map<string, GateSpec>();
  for (const [name, row] of Object.entries(GATE_TABLE)) {
    const cell = row.versions[idx];
    if (cell) out.set(name, { name, default: cell[0], stage: cell[1], locked: cell[2] });
  }
  return out;
}

const cache = new Map<KubeletVersion, Map<string, GateSpec>>();
function known(version: KubeletVersion): Map<string, GateSpec> {
  let m = cache.get(version);
  if (!m) cache.set(version, (m = knownGates(version)));
  return m;
}

/** A gate set: the explicitly set gates over the release's defaults (like featureGate). */
export interface GateState {
  version: KubeletVersion;
  explicit: Map<string, boolean>;
}

export function newGateState(version: KubeletVersion): GateState {
  return { version, explicit: new Map() };
}

/** Whether `name` is on (unknown gates are off). */
export function gateEnabled(state: GateState, name: string): boolean {
  return state.explicit.get(name) ?? known(state.version).get(name)?.default ?? false;
}

/** The error SetFromMap gives for one key, or null when it is accepted. */
export function gateError(version: KubeletVersion, name: string, value: boolean): string | null {
  const spec = known(version).get(name);
  if (!spec) return `unrecognized feature gate: ${name}`;
  if (spec.locked && spec.default !== value) return `cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`;
  return null;
}

/** Every key of `gates` that SetFromMap would refuse, with its message (sorted by name). */
export function gateErrors(version: KubeletVersion, gates: Record<string, boolean>): { gate: string; message: string }[] {
  return Object.keys(gates)
    .sort()
    .flatMap((gate) => {
      const message = gateError(version, gate, gates[gate]!);
      return message ? [{ gate, message }] : [];
    });
}

/**
 * featureGate.SetFromMap on a copy of `state`. Go walks the map in random order and stops
 * at the first bad key; we check keys in sorted order so the answer is stable.
 */
export function setFromMap(state: GateState, gates: Record<string, boolean>): { state: GateState; error: string | null; gate?: string } {
  const errors = gateErrors(state.version, gates);
  if (errors.length > 0) return { state, error: errors[0]!.message, gate: errors[0]!.gate };
  const explicit = new Map(state.explicit);
  for (const [name, value] of Object.entries(gates)) explicit.set(name, value);
  // AllAlpha/AllBeta set every gate of that stage not set explicitly (in this map or before).
  for (const [special, stage] of [['AllAlpha', 'Alpha'], ['AllBeta', 'Beta']] as const) {
    if (!(special in gates)) continue;
    for (const spec of known(state.version).values()) {
      if (spec.stage === stage && !explicit.has(spec.name)) explicit.set(spec.name, gates[special]!);
    }
  }
  return { state: { version: state.version, explicit }, error: null };
}

/** Warnings SetFromMap logs for deprecated and GA gates that are set. */
export function gateWarnings(version: KubeletVersion, gates: Record<string, boolean>): string[] {
  return Object.keys(gates)
    .sort()
    .flatMap((name) => {
      const spec = known(version).get(name);
      if (spec?.stage === 'Deprecated') return [`Setting deprecated feature gate ${name}=${gates[name]}. It will be removed in a future release.`];
      if (spec?.stage === 'GA') return [`Setting GA feature gate ${name}=${gates[name]}. It will be removed in a future release.`];
      return [];
    });
}

export interface EffectiveGatesInput {
  version: KubeletVersion;
  /** featureGates of the node's local --config file (already part of the global gates). */
  localGates?: Record<string, boolean>;
  /** featureGates of the config being validated, with --feature-gates flags merged in. */
  configGates?: Record<string, boolean>;
}

export interface EffectiveGates {
  state: GateState;
  /** SetFromMap's error for the config's gates (validation stops with it), or null. */
  error: string | null;
  /** The gate that error is about. */
  errorGate?: string;
  /** Errors in the local file's gates (a kubelet with those would not have started). */
  localErrors: string[];
  warnings: string[];
}

/** The gate set ValidateKubeletConfiguration checks a config against. */
export function effectiveGates(input: EffectiveGatesInput): EffectiveGates {
  let state = newGateState(input.version);
  const localErrors = gateErrors(input.version, input.localGates ?? {}).map((e) => e.message);
  if (input.localGates && localErrors.length === 0) state = setFromMap(state, input.localGates).state;
  const configGates = input.configGates ?? {};
  const applied = setFromMap(state, configGates);
  return {
    state: applied.state,
    error: applied.error,
    ...(applied.gate ? { errorGate: applied.gate } : {}),
    localErrors,
    warnings: gateWarnings(input.version, configGates),
  };
}

/** Every gate's effective value (for display). */
export function gateSnapshot(state: GateState): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const name of [...known(state.version).keys()].sort()) out[name] = gateEnabled(state, name);
  return out;
}
