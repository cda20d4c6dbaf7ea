// `upgrade-check [--to X.Y]`: what this node's kubelet does when its binary becomes X.Y
// (reference/migration.md §1–3). Start-up first, in the kubelet's order: the command line is
// parsed (1.24+: `unknown flag: --dynamic-config-dir`), then the flag's gate (1.22/1.23),
// then feature gates from the flags and the local --config file (1.24/1.25 refuse
// DynamicKubeletConfig=true, 1.26+ refuse the key). A 1.24+ kubelet that starts never opens
// the store: it runs defaults + --config file + flags, and when the config it runs now came
// from a checkpoint that is the silent revert, listed field by field with diff's engine.

import { UsageError } from '../errors.js';
import { loadCheckpointConfig } from '../config/load.js';
import { deepClone, type ConfigObject } from '../config/objpath.js';
import { parseKubeletFlags } from '../config/flags.js';
import { removedBefore } from '../config/gates-removed.data.js';
import { atLeast, SUPPORTED_VERSIONS, type KubeletVersion } from '../config/version.js';
import { KUBELET_COMPARE } from '../diff/decode.js';
import { compareValues, type Change } from '../diff/semantic.js';
import { deepEqual, isObject, type Value } from '../diff/value.js';
import { predictNextBoot, type BootSource } from '../integrity/nextboot.js';
import { asRelease, readLocalBytes, type Session } from '../session.js';
import { flagAsWritten, flagValue, normalFlagName } from '../store/proc.js';
import { refBytes } from '../store/show.js';
import { resolveRef } from '../store/refs.js';
import { DEFAULTS_ONLY, DKC_GATE, FLAG_DEFAULTS, kubeletReadsStore } from './export.js';
import { nodePathOf } from '../store/rooted.js';
import { migratedArgv } from './plan.js';

export interface UpgradeTarget {
  major: number;
  minor: number;
}

export function parseTarget(v: string): UpgradeTarget {
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?$/.exec(v.trim());
  if (!m || Number(m[1]) !== 1) throw new UsageError(`bad --to "${v}": expected a Kubernetes release such as 1.24`, null, 'BAD_VERSION');
  return { major: 1, minor: Number(m[2]) };
}

export interface RunningConfig {
  source: BootSource;
  /** `UID/RV` for a checkpoint. */
  ref: string | null;
  /** The node path of the file the config comes from (null: defaults and flags only). */
  path: string | null;
  /** Defaults, file, relative paths resolved, flags applied; null when it does not start. */
  config: ConfigObject | null;
  reason: string;
}

export interface UpgradeCheck {
  apiVersion: 'kubelet-ckpt/v1';
  kind: 'UpgradeCheck';
  from: string;
  to: string;
  /**
   * The kubelet's command line was not found: the flags the verdict assumes instead (the store
   * is there, so the kubelet ran with --dynamic-config-dir). null when it was found.
   */
  assumedFlags: string[] | null;
  now: RunningConfig;
  /** starts: null when it cannot be told (what runs now is unknown and X.Y still reads the store). */
  after: RunningConfig & { starts: boolean | null; exitMessage: string | null };
  /** The kubelet exits at start-up. */
  breaks: boolean;
  /**
   * Not known to run the config it runs now: fields change, or there is no config running now
   * to compare with (now.source none or unknown; `changes` is then empty).
   */
  changesConfig: boolean;
  /** The config it runs now → the config it would run (empty when the same or it exits). */
  changes: Change[];
  /**
   * When the flag stops it: what happens once the flag (and the gate on the command line) is
   * simply dropped, as provisioners do for 1.24 — the silent revert.
   */
  withoutFlag: { starts: boolean; exitMessage: string | null; path: string | null; changes: Change[] } | null;
  notes: string[];
}

/**
 * The command line the verdict rests on. When discovery found none, "now" already takes the
 * store to be read (kubeletReadsStore), which only --dynamic-config-dir does: assume that flag,
 * and on 1.22/1.23 the gate it needs to run now, so "after" is judged on the same ground.
 */
function effectiveCommandLine(s: Session, root: string): { s: Session; assumed: string[] | null } {
  if (s.discovery.commandLine) return { s, assumed: null };
  const assumed = [`--dynamic-config-dir=${nodePathOf(root, s.snap.dynamicConfigDir)}`];
  if (atLeast(s.judgeOptions.version, '1.22')) assumed.push(`--feature-gates=${DKC_GATE}=true`);
  const argv = ['kubelet', ...assumed];
  return { s: { ...s, kubeletArgv: argv, judgeOptions: { ...s.judgeOptions, argv } }, assumed };
}

/** A release's defaults: what it runs from an empty config. */
function defaultsOf(version: KubeletVersion): ConfigObject {
  return loadCheckpointConfig(DEFAULTS_ONLY, '/var/lib/kubelet/config.yaml', { version }).config ?? {};
}

/**
 * `b` (a config as X.Y runs it) less what X.Y's defaults alone put there: a field the current
 * release has no default for, absent from `a` (the config as it runs now), at X.Y's default.
 */
function withoutNewDefaults(a: ConfigObject, b: ConfigObject, defaultsNow: ConfigObject, defaultsTo: ConfigObject): ConfigObject {
  const out: ConfigObject = {};
  for (const [k, v] of Object.entries(b)) {
    if (!Object.hasOwn(a, k) && !Object.hasOwn(defaultsNow, k) && Object.hasOwn(defaultsTo, k) && deepEqual(v as Value, defaultsTo[k] as Value)) continue;
    const sub = (o: ConfigObject, key: string) => (isObject(o[key] as Value) ? (o[key] as ConfigObject) : null);
    const [av, nv, tv] = [sub(a, k), sub(defaultsNow, k), sub(defaultsTo, k)];
    out[k] = isObject(v as Value) && av && tv ? withoutNewDefaults(av, v as ConfigObject, nv ?? {}, tv) : v;
  }
  return out;
}

/** DynamicKubeletConfig as set on the command line (last --feature-gates wins per gate), or undefined. */
function flagGate(s: Session): boolean | undefined {
  const fg = parseKubeletFlags(s.kubeletArgv, s.judgeOptions.version).overrides.find((o) => o.path === 'featureGates');
  const v = (fg?.value as Record<string, boolean> | undefined)?.[DKC_GATE];
  return v;
}

/** --dynamic-config-dir as the command line spells it (pflag names an unknown flag as given), or null. */
function dirFlagAsWritten(argv: readonly string[]): string | null {
  if (flagValue(['kubelet', ...argv], 'dynamic-config-dir') === null) return null;
  return flagAsWritten(['kubelet', ...argv], 'dynamic-config-dir') ?? '--dynamic-config-dir';
}

/**
 * Flags a 1.24 kubelet no longer registers: --dynamic-config-dir, and those removed with
 * dockershim (CHANGELOG-1.24; migration.md M4 cites the same error for --network-plugin).
 */
const GONE_IN_1_24 = new Set(['dynamic-config-dir', 'experimental-dockershim-root-directory', 'docker-endpoint', 'image-pull-progress-deadline', 'network-plugin', 'network-plugin-mtu', 'cni-conf-dir', 'cni-bin-dir', 'cni-cache-dir']);

/**
 * klog's own flags, which 1.26 removed from every component (CHANGELOG-1.26, k/k PR #112120;
 * found by review: kubespray's --logtostderr stops a 1.26 kubelet, and upgrade-check said it starts).
 */
const GONE_IN_1_26 = new Set(['add-dir-header', 'alsologtostderr', 'log-backtrace-at', 'log-dir', 'log-file', 'log-file-max-size', 'logtostderr', 'one-output', 'skip-headers', 'skip-log-headers', 'stderrthreshold']);
/** 1.27 removed --container-runtime (CHANGELOG-1.27, k/k PR #114017). */
const GONE_IN_1_27 = new Set(['container-runtime']);

/** Whether a flag (its normalised name) is gone at 1.`minor`. */
function goneAt(name: string, minor: number): boolean {
  return (minor >= 24 && GONE_IN_1_24.has(name)) || (minor >= 26 && GONE_IN_1_26.has(name)) || (minor >= 27 && GONE_IN_1_27.has(name));
}

/** The first flag on the command line that 1.`minor` no longer has, as written (pflag stops at the first unknown flag and names it as given). */
function firstGoneFlag(argv: readonly string[], minor: number): string | null {
  for (const a of argv) {
    if (a === '--') break;
    const m = /^--?([^=-][^=]*)/.exec(a);
    if (m && goneAt(normalFlagName(m[1]!), minor)) return `${a.startsWith('--') ? '--' : '-'}${m[1]}`;
  }
  return null;
}

/**
 * The gates set on the command line and in the local --config file (the kubelet sets both
 * through one SetFromMap), but DynamicKubeletConfig, which startupExit judges on its own.
 */
function gatesSet(s: Session): string[] {
  const fg = parseKubeletFlags(s.kubeletArgv, s.judgeOptions.version).overrides.find((o) => o.path === 'featureGates');
  const names = new Set([...Object.keys((fg?.value as Record<string, boolean> | undefined) ?? {}), ...Object.keys(s.judgeOptions.localGates ?? {})]);
  names.delete(DKC_GATE);
  return [...names].sort();
}

/** The kubelet's own words when X.Y would not start with this command line and local file. */
export function startupExit(s: Session, to: UpgradeTarget): string | null {
  const dirFlag = dirFlagAsWritten(s.kubeletArgv);
  const hasDir = dirFlag !== null;
  const fromFlag = flagGate(s);
  const fromFile = s.judgeOptions.localGates?.[DKC_GATE];
  const gone = to.minor >= 24 ? firstGoneFlag(s.kubeletArgv, to.minor) : null;
  if (gone) return `Error: failed to parse kubelet flag: unknown flag: ${gone}`;
  if ((to.minor === 22 || to.minor === 23) && hasDir && fromFlag !== true) {
    return '"Failed to validate kubelet flags" err="the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag"';
  }
  if ((to.minor === 24 || to.minor === 25) && (fromFlag === true || (fromFlag === undefined && fromFile === true))) {
    return 'Error: cannot set feature gate DynamicKubeletConfig to true, feature is locked to false';
  }
  if (to.minor >= 26 && (fromFlag !== undefined || fromFile !== undefined)) {
    return unrecognizedGate(DKC_GATE);
  }
  // Any other gate a later release removed stops it the same way (found by review: kubespray's
  // CSIMigration, which migrate carries into the --config file, stops a 1.27 kubelet; Go's map
  // order picks which of several the kubelet names).
  const removed = to.minor >= 24 ? gatesSet(s).find((g) => removedBefore(g, to.minor)) : undefined;
  return removed ? unrecognizedGate(removed) : null;
}

const unrecognizedGate = (gate: string) => `Error: failed to set feature gates from initial flags-based config: unrecognized feature gate: ${gate}`;

function localConfig(s: Session, root: string): { config: ConfigObject | null; path: string | null; error: string | null } {
  const p = s.local.path;
  let bytes: Buffer = FLAG_DEFAULTS;
  if (p) {
    // As status reads it (found by review: a FIFO here hung upgrade-check).
    const read = readLocalBytes(p, root);
    if (!read.ok) return { config: null, path: nodePathOf(root, p), error: `cannot read ${p}: ${read.why}` };
    bytes = read.bytes;
  }
  const node = p ? nodePathOf(root, p) : '/var/lib/kubelet/config.yaml';
  const o = loadCheckpointConfig(bytes, node, { version: s.judgeOptions.version, argv: s.kubeletArgv });
  return { config: o.config, path: p ? node : null, error: o.stage === 'ok' ? null : o.error };
}

/** The config the kubelet runs now (its next start on the current release). */
function runningNow(s: Session, root: string): RunningConfig {
  // A known command line without the flag (e.g. after migrate): the store is not read.
  if (!kubeletReadsStore(s)) {
    const l = localConfig(s, root);
    const why = "the kubelet's command line has no --dynamic-config-dir: it runs its local config and never reads the store";
    return { source: 'local', ref: null, path: l.path, config: l.config, reason: l.error ? `${why}; that config fails: ${l.error}` : why };
  }
  const nb = predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version });
  if (nb.source === 'assigned' || nb.source === 'last-known-good') {
    const r = resolveRef(s.snap, nb.source);
    const b = refBytes(s.snap, s.reader, r);
    const node = nodePathOf(root, `${s.snap.storeDir}/${b.path}`);
    const o = loadCheckpointConfig(b.bytes, node, { version: s.judgeOptions.version, argv: s.kubeletArgv, localGates: s.judgeOptions.localGates });
    return { source: nb.source, ref: `${nb.ref!.uid}/${nb.ref!.resourceVersion}`, path: node, config: o.config && withLocalGates(o.config, s.judgeOptions.localGates), reason: nb.reason };
  }
  if (nb.source === 'local') {
    const l = localConfig(s, root);
    return { source: 'local', ref: null, path: l.path, config: l.config, reason: nb.reason };
  }
  return { source: nb.source, ref: null, path: null, config: null, reason: nb.reason };
}

/**
 * The config a checkpoint runs with, its featureGates as the kubelet layers them: the old local
 * file's first, the checkpoint's over them (flags-and-gates.md §3.2; found by review: a gate set
 * only in the local file was reported as a change though it holds now as after).
 */
function withLocalGates(c: ConfigObject, localGates: Record<string, boolean> | undefined): ConfigObject {
  if (!localGates || !Object.keys(localGates).length) return c;
  return { ...c, featureGates: { ...localGates, ...((c.featureGates ?? {}) as Record<string, boolean>) } };
}

/** Drop the gate both sides may carry: it is the subject of the check, not a setting. */
function withoutGate(c: ConfigObject): Value {
  const x = deepClone(c);
  const g = x.featureGates as Record<string, boolean> | undefined;
  if (g) {
    delete g[DKC_GATE];
    if (!Object.keys(g).length) delete x.featureGates;
  }
  return x as unknown as Value;
}

function diffConfigs(a: ConfigObject | null, b: ConfigObject | null): Change[] {
  if (!a || !b) return [];
  return compareValues(withoutGate(a), withoutGate(b), KUBELET_COMPARE).map(({ path, op, from, to }) => ({ path, op, from, to }));
}

/** The same node with --dynamic-config-dir and the gate dropped from its command line. */
function flagDropped(s: Session, to: UpgradeTarget, root: string, now: RunningConfig): UpgradeCheck['withoutFlag'] {
  const argv = migratedArgv(s.kubeletArgv, null);
  const s2: Session = { ...s, kubeletArgv: argv, judgeOptions: { ...s.judgeOptions, argv } };
  const exit = startupExit(s2, to);
  if (exit) return { starts: false, exitMessage: exit, path: null, changes: [] };
  const l = localConfig(s2, root);
  if (l.error) return { starts: false, exitMessage: l.error, path: l.path, changes: [] };
  return { starts: true, exitMessage: null, path: l.path, changes: diffConfigs(now.config, l.config) };
}

export function upgradeCheck(s0: Session, opts: { to: string; root: string }): UpgradeCheck {
  const to = parseTarget(opts.to);
  const toText = `${to.major}.${to.minor}`;
  const notes: string[] = [];
  const now = runningNow(s0, opts.root);
  const { s, assumed } = effectiveCommandLine(s0, opts.root);
  if (assumed) notes.push(`the kubelet's command line was not found: assumed ${assumed.join(' ')} (the store exists, so the kubelet was run with the flag); give --kubelet-flags, or --root for a node disk, to judge the real one`);
  const exit = startupExit(s, to);
  // startupExit's first answer: the flag itself is what a 1.24+ kubelet stops on.
  const withoutFlag = exit && to.minor >= 24 && dirFlagAsWritten(s.kubeletArgv) !== null ? flagDropped(s, to, opts.root, now) : null;
  const onWhat = assumed ? 'the assumed command line' : 'this command line';
  let after: UpgradeCheck['after'];
  if (exit) {
    after = { starts: false, exitMessage: exit, source: 'none', ref: null, path: null, config: null, reason: `the ${toText} kubelet exits at start-up (exit status 1) with ${onWhat} and local config` };
  } else if (to.minor >= 24) {
    const l = localConfig(s, opts.root);
    if (l.error) after = { starts: false, exitMessage: l.error, source: 'none', ref: null, path: l.path, config: null, reason: `the local config fails: ${l.error}` };
    else after = { starts: true, exitMessage: null, source: 'local', ref: null, path: l.path, config: l.config, reason: `a ${toText} kubelet has no config controller: it never opens the store and runs ${l.path ? `the --config file ${l.path}` : 'the defaults'} with its flags` };
    if (to.minor > 23) notes.push(`flags and fields are judged with the 1.23 rules, the newest kubelet-ckpt models; of what later releases removed, the dockershim (1.24) and klog (1.26) flags, --container-runtime (1.27) and the feature gates later releases removed are checked, not fields, nor gates that became locked`);
  } else {
    // Still reads the store: its next start as X.Y judges it (found by review: a 1.21 node going
    // to 1.22 was judged with 1.21's rules); a release kubelet-ckpt does not model, as now.
    const release = SUPPORTED_VERSIONS.find((v) => v === toText && v !== s.judgeOptions.version);
    const judged = release ? runningNow(asRelease(s, release), opts.root) : now;
    // Fields only X.Y's defaults add are no change of the operator's config (found by review:
    // every healthy node "changed" by them, exit 1); what X.Y reads that the current release
    // dropped (a field it did not know) still is.
    const later = release && judged.config && now.config ? { ...judged, config: withoutNewDefaults(now.config, judged.config, defaultsOf(s.judgeOptions.version), defaultsOf(release)) } : judged;
    // When that fails, the exit message is why (kubelet-ckpt's words: the kubelet's own line for a failed bootstrap is not modelled).
    if (later.source === 'unknown') after = { ...later, starts: null, exitMessage: null, reason: `a ${toText} kubelet still reads the store, and whether it starts is unknown: ${later.reason}` };
    else if (later.config) after = { ...later, starts: true, exitMessage: null, reason: `a ${toText} kubelet still reads the store: ${later.reason}` };
    else after = { ...later, starts: false, exitMessage: later.reason, reason: later === now ? `a ${toText} kubelet still reads the store and fails there as the ${s.judgeOptions.version} kubelet does` : `a ${toText} kubelet still reads the store and fails there` };
  }
  const changes = diffConfigs(now.config, after.config);
  const changesConfig = changes.length > 0 || (after.starts !== false && now.config === null);
  const silent = changes.length > 0 || (withoutFlag?.changes.length ?? 0) > 0;
  // A release that still reads the store changes nothing back: its changes are fields it reads that the current one drops.
  const reverts = to.minor >= 24 || (withoutFlag?.changes.length ?? 0) > 0;
  if (silent && now.source !== 'local' && reverts) notes.push(`the silent revert: the kubelet logs nothing about it; run \`kubelet-ckpt migrate\` on the current kubelet first`);
  else if (changes.length && after.source === now.source) notes.push(`the ${toText} kubelet reads fields the ${s.judgeOptions.version} kubelet drops: the fields above take effect`);
  return {
    apiVersion: 'kubelet-ckpt/v1',
    kind: 'UpgradeCheck',
    from: s.judgeOptions.version,
    to: toText,
    assumedFlags: assumed,
    now,
    after,
    breaks: after.starts === false,
    changesConfig,
    changes,
    withoutFlag,
    notes,
  };
}

/** The sentence for a check with no running config to compare with, or null when there is one. */
export function nothingToCompare(now: RunningConfig): string | null {
  if (now.config) return null;
  return now.source === 'unknown' ? 'what runs now is unknown' : 'nothing runs now to compare with';
}
