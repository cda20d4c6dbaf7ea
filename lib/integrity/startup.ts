// What the kubelet checks before it reads the store (cmd/kubelet/app/server.go, Run of
// NewKubeletCommand, 1.20–1.23), in its order: parse the command line; set the feature
// gates the flags give; ValidateKubeletFlags (--dynamic-config-dir needs the
// DynamicKubeletConfig gate, --seccomp-default the SeccompDefault gate); load the local
// --config file, re-apply the flags, set its gates; validate the result (defaults + flags
// when there is no --config). Any failure there ends the process before Bootstrap: the
// store does not matter and no status is reported. Pure: the caller reads the files.

import { parseKubeletFlags } from '../config/flags.js';
import { DKC_GATE_TEXT as GATE_TEXT, gateEnabled, knownGates, newGateState, setFromMap } from '../config/gates.js';
import type { KubeletVersion } from '../config/version.js';
import { flagAsWritten, flagValue } from '../store/proc.js';
import type { Judgement } from './judge.js';
import { judgeLocalConfig } from './pipeline.js';

export type StartupStage = 'flags' | 'flag-gates' | 'flag-validate' | 'local-load' | 'local-validate' | 'controller-gate';

export interface StartupCheck {
  /** true: the kubelet gets past these checks (as far as they could be made); false: it exits. */
  ok: boolean;
  /** The step that stops it (the vectors' `stoppedAt`), or null. */
  stage: StartupStage | null;
  /** The kubelet's own error text, or null. */
  error: string | null;
  /** What the failure is about, for people: the flag, the gate or the file. */
  subject: string | null;
  /** Advice on where to fix it, or null. */
  fix: string | null;
  /** Checks that could not be made (no command line known), for the reason text. */
  unchecked: string[];
}

export interface StartupInput {
  version: KubeletVersion;
  /** The kubelet's argv (program name first), or null when the command line is not known. */
  argv: readonly string[] | null;
  /** The local --config file: its host path and the kubelet's verdict on it (judgeLocalConfig, or a read error as a load-error). */
  config: { path: string; judgement: Judgement } | null;
}

const SECCOMP_TEXT = 'the SeccompDefault feature gate must be enabled in order to use the --seccomp-default flag';
/** A KubeletConfiguration with nothing set: what the kubelet starts from without --config. */
const EMPTY_CONFIG = Buffer.from('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n');

function fail(stage: StartupStage, error: string, subject: string, fix: string | null, unchecked: string[] = []): StartupCheck {
  return { ok: false, stage, error, subject, fix, unchecked };
}

/** The --feature-gates of the command line, every occurrence merged (later keys win). */
function flagGates(argv: readonly string[], version: KubeletVersion): Record<string, boolean> {
  const o = parseKubeletFlags(argv, version).overrides.find((x) => x.path === 'featureGates');
  return (o?.value ?? {}) as Record<string, boolean>;
}

function present(argv: readonly string[], name: string): boolean {
  return flagAsWritten(argv, name) !== null;
}

/** The flag checks (before --config is read); null when they pass. */
function checkFlags(argv: readonly string[], version: KubeletVersion): StartupCheck | null {
  const parsed = parseKubeletFlags(argv, version);
  if (parsed.errors.length) return fail('flags', parsed.errors[0]!, 'the kubelet command line', 'fix the flag in the kubelet unit or its env file');
  // NewKubeletCommand: help, then verflag, right after the parse; the process ends with 0 (systemd restarts it, and again).
  if (parsed.printsAndExits) {
    const what = parsed.printsAndExits === '--help' ? 'its usage' : 'its version';
    return fail('flags', `${parsed.printsAndExits} given: the kubelet prints ${what} and exits 0`, 'the kubelet command line', `remove ${parsed.printsAndExits} from the kubelet unit or its env file`);
  }
  const gates = flagGates(argv, version);
  const set = setFromMap(newGateState(version), gates);
  if (set.error) return fail('flag-gates', set.error, '--feature-gates', 'fix --feature-gates in the kubelet unit or its env file');
  const dir = flagValue(argv, 'dynamic-config-dir');
  // ValidateKubeletFlags asks Provided(): an empty --dynamic-config-dir= counts.
  if (dir !== null && !gateEnabled(set.state, 'DynamicKubeletConfig')) {
    // Say why it is off: its default on this release, or --feature-gates (found by review: on
    // 1.20/1.21, where it is on by default, `DynamicKubeletConfig=false` was called the default).
    const byFlag = gateEnabled(newGateState(version), 'DynamicKubeletConfig') || gates.DynamicKubeletConfig === false;
    const why = byFlag ? '--feature-gates turns DynamicKubeletConfig off' : `DynamicKubeletConfig is off by default on ${version}`;
    return fail('flag-validate', GATE_TEXT, `--dynamic-config-dir (${why})`,
      'add DynamicKubeletConfig=true to --feature-gates on the kubelet command line (the unit\'s ExecStart or its env file); featureGates in the --config file is read too late to count');
  }
  if (knownGates(version).has('SeccompDefault') && present(argv, 'seccomp-default') && flagValue(argv, 'seccomp-default') !== 'false' && !gateEnabled(set.state, 'SeccompDefault')) {
    return fail('flag-validate', SECCOMP_TEXT, '--seccomp-default', 'add SeccompDefault=true to --feature-gates on the kubelet command line');
  }
  const unknown = Object.keys(parsed.nodeLabels).filter((k) => kubernetesLabel(k) && !kubeletLabel(k)).sort();
  if (unknown.length) {
    return fail('flag-validate', `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}]\n--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${[...KUBELET_LABEL_NAMESPACES].join(', ')}) or be in the specifically allowed set (${[...KUBELET_LABELS].join(', ')})`,
      '--node-labels', 'drop these labels from --node-labels (the kubelet may not set them on itself since 1.16; label the node with kubectl instead)');
  }
  return null;
}

// ValidateKubeletFlags' node-label rule (cmd/kubelet/app/options, pkg/kubelet/apis, 1.16–1.23):
// a label in the kubernetes.io or k8s.io namespace must be one the kubelet may set on itself.
const KUBELET_LABELS = new Set(['beta.kubernetes.io/arch', 'beta.kubernetes.io/instance-type', 'beta.kubernetes.io/os', 'failure-domain.beta.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/zone', 'kubernetes.io/arch', 'kubernetes.io/hostname', 'kubernetes.io/os', 'node.kubernetes.io/instance-type', 'topology.kubernetes.io/region', 'topology.kubernetes.io/zone']);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

function labelNamespace(key: string): string {
  const at = key.indexOf('/');
  return at < 0 ? '' : key.slice(0, at);
}

function kubernetesLabel(key: string): boolean {
  const ns = labelNamespace(key);
  return ns === 'kubernetes.io' || ns.endsWith('.kubernetes.io') || ns === 'k8s.io' || ns.endsWith('.k8s.io');
}

function kubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((a) => ns === a || ns.endsWith(`.${a}`));
}

function fromJudgement(j: Judgement, subject: string, unchecked: string[]): StartupCheck {
  if (j.stage === 'ok') return { ok: true, stage: null, error: null, subject: null, fix: null, unchecked };
  const stage = j.stage === 'load-error' ? 'local-load' : 'local-validate';
  return fail(stage, j.error ?? j.stage, subject, null, unchecked);
}

/** What `unchecked` says when neither a command line nor --kubelet-config names the local config. */
export const LOCAL_CONFIG_UNKNOWN = 'whether the kubelet has a --config file is not known (no command line found): the local config was not checked (give it with --kubelet-config)';

/** Replay the kubelet's start-up checks. */
export function checkStartup(input: StartupInput): StartupCheck {
  const { version } = input;
  const unchecked = input.argv === null ? ['the kubelet command line is not known: its flags, flag feature gates and the DynamicKubeletConfig gate were not checked'] : [];
  if (input.argv !== null) {
    const bad = checkFlags(input.argv, version);
    if (bad) return bad;
  }
  const argv = input.argv ?? [];
  const c = input.config;
  if (c) {
    const local = fromJudgement(c.judgement, `the local config ${c.path}`, unchecked);
    return local.ok && input.argv !== null ? (controllerGate(input.argv, version, c) ?? local) : local;
  }
  // No command line and no --kubelet-config: whether the kubelet has a --config file is not known.
  if (input.argv === null) return { ok: true, stage: null, error: null, subject: null, fix: null, unchecked: [...unchecked, LOCAL_CONFIG_UNKNOWN] };
  // No --config: the built-in defaults with the flags applied are validated.
  return fromJudgement(judgeLocalConfig(EMPTY_CONFIG, '/', { version, argv }), 'the kubelet flags (no --config file)', unchecked);
}

/**
 * BootstrapKubeletConfigController (server.go), for a non-empty --dynamic-config-dir: the gate
 * must be on in the gates the local config left (its featureGates, the flags' over them). On
 * 1.20/1.21 the gate is on by default and ValidateKubeletFlags passes, but `DynamicKubeletConfig:
 * false` in the --config file turns it off before the controller starts (reference
 * flags-and-gates.md §3.1 step 4; found by review: status said the kubelet starts).
 */
function controllerGate(argv: readonly string[], version: KubeletVersion, c: { path: string; judgement: Judgement }): StartupCheck | null {
  if (!flagValue(argv, 'dynamic-config-dir')) return null;
  const fileGates = (c.judgement as { gates?: Record<string, boolean> }).gates ?? {};
  const set = setFromMap(setFromMap(newGateState(version), fileGates).state, flagGates(argv, version));
  if (set.error || gateEnabled(set.state, 'DynamicKubeletConfig')) return null;
  return fail('controller-gate', 'failed to bootstrap Kubelet config controller, you must enable the DynamicKubeletConfig feature gate', `featureGates in the local config ${c.path}`,
    'remove DynamicKubeletConfig: false from featureGates in the --config file, or set DynamicKubeletConfig=true in --feature-gates on the kubelet command line');
}

/** One sentence for status and verify. */
export function startupReason(s: StartupCheck): string {
  const fix = s.fix ? ` (${s.fix})` : '';
  return `${s.subject}: ${s.error}: the kubelet exits before it reads the store${fix}`;
}
