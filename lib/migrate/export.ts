// `export [REF]`: the config the kubelet runs from a checkpoint, as a local --config file
// (reference/migration.md §4). The checkpoint replaces the --config file as a whole, so the
// payload itself (not a merge with the old local file) is what must be installed, with:
// relative paths made absolute as the kubelet resolved them (against the checkpoint
// directory, as node paths), DynamicKubeletConfig dropped from featureGates (fatal on
// 1.24+), gates that only the old local file set carried over (the export replaces that
// file), and a comment on every field a flag on this node overrides.

import fs from 'node:fs';
import path from 'node:path';
import { RefusedError } from '../errors.js';
import { applyDefaults } from '../config/defaults.js';
import { effectiveGates, gateEnabled, knownGates, newGateState, setFromMap } from '../config/gates.js';
import type { KubeletVersion } from '../config/version.js';
import { loadCheckpointConfig, type LoadOutcome, type LoadStage } from '../config/load.js';
import { deepClone, getAt, type ConfigObject } from '../config/objpath.js';
import { resolveRelativePaths } from '../config/paths.js';
import { predictNextBoot } from '../integrity/nextboot.js';
import type { Session } from '../session.js';
import { flagValue } from '../store/proc.js';
import { metaSources, resolveRef, type Resolved } from '../store/refs.js';
import { refBytes } from '../store/show.js';
import type { ConfigMapSource } from '../store/types.js';
import { commentKey, emitYaml } from './yaml-emit.js';
import { jsonText } from '../output/print.js';
import { nodePathOf } from '../store/rooted.js';
import { writeOut, type OutOutcome } from './out.js';
import { isWithin, realExisting } from '../store/safepath.js';

export const DKC_GATE = 'DynamicKubeletConfig';

export interface ExportRequest {
  /** null: the config the kubelet runs at its next start. */
  ref: string | null;
  /** Write every field, defaults included. */
  effective: boolean;
  key?: string | null;
  /** Export even though the config fails validation. */
  force: boolean;
  /** --root ('/' on a live node): paths in the file are node paths. */
  root: string;
  /**
   * Whether the kubelet reads the store (its command line has --dynamic-config-dir); default:
   * from the session (kubeletReadsStore). migrate passes what its unit and env files say.
   */
  readsStore?: boolean;
  /**
   * Node path of the --config file the export is to be installed as: a file ref's relative
   * paths resolve against its directory, as the kubelet will resolve them there. Default: the
   * kubelet's --config file, else /var/lib/kubelet/config.yaml. migrate passes its target.
   */
  installAt?: string;
}

export interface ExportSource {
  /** The ref as given, or `next-boot`. */
  ref: string;
  kind: 'checkpoint' | 'local' | 'file';
  uid: string | null;
  resourceVersion: string | null;
  namespace: string | null;
  name: string | null;
  kubeletConfigKey: string | null;
  /** The node path of the file the config was read from (null: no local file). */
  path: string | null;
  /** Why this config (for the default, the next-boot reason). */
  why: string;
}

export interface FlagNote {
  /** v1beta1 path of the field. */
  field: string;
  /** `--max-pods=40` */
  flag: string;
  value: unknown;
}

export interface ExportResult {
  apiVersion: 'kubelet-ckpt/v1';
  kind: 'ExportResult';
  source: ExportSource;
  effective: boolean;
  /** The kubelet's verdict on the config with this node's flags. */
  stage: LoadStage;
  error: string | null;
  resolvedPaths: { field: string; value: string; resolved: string }[];
  /** Flags on this node that set config fields (each wins over the file). */
  flagOverrides: FlagNote[];
  removedGates: string[];
  carriedGates: string[];
  warnings: string[];
  /** The document written (without comments). */
  config: ConfigObject;
  /** The file's exact text. */
  text: string;
  /** --out, once written. */
  out: string | null;
}

interface Chosen {
  resolved: Resolved | null;
  why: string;
}

/**
 * False when the kubelet's command line is known and has no --dynamic-config-dir: such a kubelet
 * never opens the store and runs its local config, whatever the meta files say (reference/
 * migration.md §3, §7). Unknown command line: true (the store is all there is to go by).
 */
export function kubeletReadsStore(s: Pick<Session, 'discovery'>): boolean {
  const cl = s.discovery.commandLine;
  return !cl || flagValue(cl.argv, 'dynamic-config-dir') !== null;
}

const NO_FLAG = "the kubelet's command line has no --dynamic-config-dir: it never reads the store";

/** The ref to export: the one given, else what the next boot runs (refused when it would not start). */
function choose(s: Session, req: ExportRequest, readsStore: boolean): Chosen {
  const opts = { key: req.key ?? null, localConfig: s.local.path };
  if (req.ref) {
    const r = resolveRef(s.snap, req.ref, opts);
    const runs = readsStore || r.kind === 'local';
    return { resolved: r, why: `named on the command line (${req.ref})${runs ? '' : `; this node's kubelet does not run it (${NO_FLAG})`}` };
  }
  if (!readsStore) return { resolved: { kind: 'local', ref: 'local', via: null, path: s.local.path }, why: `the kubelet runs its local config (${NO_FLAG})` };
  const nb = predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version });
  if (nb.source === 'assigned' || nb.source === 'last-known-good') {
    const ref = `${nb.ref!.uid}/${nb.ref!.resourceVersion}`;
    const r = resolveRef(s.snap, nb.source, opts);
    return { resolved: r, why: `the config the kubelet runs at its next start: ${nb.source} ${ref}` };
  }
  if (nb.source === 'local') return { resolved: { kind: 'local', ref: 'local', via: null, path: s.local.path }, why: `the kubelet runs its local config at its next start (${nb.reason})` };
  throw new RefusedError(
    `the kubelet's next start cannot be predicted as a running config (${nb.source}): ${nb.reason}`,
    'name the config to export: kubelet-ckpt export assigned | lkg | UID/RV',
    'EXPORT_NO_SOURCE',
  );
}

function sourceOf(s: Session, r: Resolved, root: string, why: string, ref: string): { source: ExportSource; bytes: Buffer; nodeFile: string | null } {
  if (r.kind === 'meta') throw new RefusedError(`${r.ref} is a meta file, not a KubeletConfiguration`, 'export assigned, lkg, local, UID/RV or a file', 'EXPORT_NOT_CONFIG');
  if (r.kind === 'local' && !r.path) {
    // No --config file: the kubelet runs the flag defaults (and its flags).
    const source: ExportSource = { ref, kind: 'local', uid: null, resourceVersion: null, namespace: null, name: null, kubeletConfigKey: null, path: null, why };
    return { source, bytes: FLAG_DEFAULTS, nodeFile: null };
  }
  const b = refBytes(s.snap, s.reader, r);
  if (r.kind !== 'checkpoint') {
    const nodeFile = nodePathOf(root, b.path);
    return { source: { ref, kind: r.kind, uid: null, resourceVersion: null, namespace: null, name: null, kubeletConfigKey: null, path: nodeFile, why }, bytes: b.bytes, nodeFile };
  }
  const cp = r.checkpoint;
  const cm: ConfigMapSource | null = r.source ?? metaSources(s.snap).configMapOf(cp);
  const nodeFile = nodePathOf(root, path.join(s.snap.storeDir, b.path));
  return {
    source: { ref, kind: 'checkpoint', uid: cp.uid, resourceVersion: cp.rv, namespace: cm?.namespace ?? null, name: cm?.name ?? null, kubeletConfigKey: b.key, path: nodeFile, why },
    bytes: b.bytes,
    nodeFile,
  };
}

const DEFAULT_INSTALL = '/var/lib/kubelet/config.yaml';
/** A config file that sets nothing: what a kubelet runs from its defaults alone. */
export const DEFAULTS_ONLY = Buffer.from('kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n');
/**
 * What a kubelet with no --config file runs before its flags: the v1beta1 defaults with the
 * command line's own defaults over them (options.NewKubeletConfiguration, applyLegacyDefaults:
 * anonymous authentication on, webhook authentication off, AlwaysAllow, the read-only port
 * 10255). A file holding only the v1beta1 defaults turns all four around (found by review:
 * migrate wrote one, and the read-only port closed).
 */
export const FLAG_DEFAULTS = Buffer.from(
  'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nauthentication:\n  anonymous:\n    enabled: true\n  webhook:\n    enabled: false\nauthorization:\n  mode: AlwaysAllow\nreadOnlyPort: 10255\n',
);

/**
 * server.go checks the local config (the --config file, else the defaults) with the flags
 * before it reads the store: when that fails, the kubelet runs nothing at all.
 */
export function startupFailure(s: Session): string | null {
  const j = s.local.judgement;
  if (s.local.path && j) return j.stage === 'ok' ? null : j.error;
  const o = loadCheckpointConfig(FLAG_DEFAULTS, '/var/lib/kubelet/config.yaml', { version: s.judgeOptions.version, argv: s.kubeletArgv });
  return o.stage === 'ok' ? null : o.error;
}

/** Refuse a config the kubelet would not run (exit 4), unless --force for a validation failure. */
function judge(o: LoadOutcome, src: ExportSource, force: boolean, warnings: string[]): void {
  const what = src.kind === 'checkpoint' ? `checkpoint ${src.uid}/${src.resourceVersion}` : `${src.path ?? 'the local config'}`;
  if (o.stage === 'ok') return;
  if (o.stage === 'load-error' || !o.payload) throw new RefusedError(`${what} does not load: ${o.error}`, 'there is nothing the kubelet could run from it; export another config', 'EXPORT_LOAD');
  if (o.stage === 'internal-error') throw new RefusedError(`this node's kubelet flags are not valid: ${o.error}`, 'fix the command line first: the kubelet would not start with it', 'EXPORT_FLAGS');
  if (!force) throw new RefusedError(`${what} fails the kubelet's validation with this node's flags: ${o.error}`, 'the kubelet would not run it; pass --force to export it anyway', 'EXPORT_INVALID');
  warnings.push(`${what} fails validation (${o.error}); exported anyway (--force)`);
}

/**
 * featureGates without DynamicKubeletConfig, giving the kubelet the gates it runs with now. Under
 * DKC the old local file's gates are set first and the checkpoint's over them (flags-and-gates.md
 * §3.2): a gate only the local file names is carried over, and one AllAlpha/AllBeta of either
 * layer decided is written out by name where the export alone would decide it otherwise (found by
 * review: the local file's AllBeta=true under a checkpoint's AllBeta=false keeps every Beta gate
 * on, but an export holding AllBeta=false alone turns them off, and serverTLSBootstrap then fails).
 */
function gatesOf(doc: ConfigObject, localGates: Record<string, boolean> | undefined, fromLocal: boolean, version: KubeletVersion): { removed: string[]; carried: string[] } {
  const own = (doc.featureGates ?? {}) as Record<string, boolean>;
  const local = fromLocal ? {} : withoutGate(localGates ?? {});
  const carried = Object.keys(local).filter((g) => !Object.hasOwn(own, g));
  const removed = Object.hasOwn(own, DKC_GATE) ? [DKC_GATE] : [];
  const merged: Record<string, boolean> = {};
  for (const g of carried) merged[g] = local[g]!;
  for (const [g, v] of Object.entries(own)) if (g !== DKC_GATE) merged[g] = v;
  const now = effectiveGates({ version, localGates: local, configGates: withoutGate(own) });
  if (!now.error && !now.localErrors.length) {
    const alone = setFromMap(newGateState(version), merged);
    if (!alone.error) {
      for (const g of knownGates(version).keys()) {
        if (g === DKC_GATE || g === 'AllAlpha' || g === 'AllBeta' || Object.hasOwn(merged, g)) continue;
        const want = gateEnabled(now.state, g);
        if (gateEnabled(alone.state, g) !== want) {
          merged[g] = want;
          carried.push(g);
        }
      }
    }
  }
  if (Object.keys(merged).length > 0) doc.featureGates = merged;
  else delete doc.featureGates;
  return { removed, carried };
}

function withoutGate(gates: Record<string, boolean>): Record<string, boolean> {
  const { [DKC_GATE]: _, ...rest } = gates;
  return rest;
}

function flagNotes(o: LoadOutcome): FlagNote[] {
  return o.flagOverrides.map((f) => ({ field: f.path, flag: `${f.flag}=${f.raw}`, value: f.value }));
}

function show(v: unknown): string {
  return typeof v === 'string' ? v : jsonText(v);
}

/** A comment above each field (or gate) a flag on this node overrides. */
function commentsFor(doc: ConfigObject, o: LoadOutcome): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of o.flagOverrides) {
    const flag = `${f.flag}=${f.raw}`;
    if (f.kind === 'map-bool') {
      for (const [gate, v] of Object.entries(f.value as Record<string, boolean>)) {
        if (getAt(doc, f.path) && Object.hasOwn(getAt(doc, f.path) as object, gate)) out.set(commentKey([...f.path.split('.'), gate]), [`overridden on this node by ${flag}: runs with ${v}`]);
      }
      continue;
    }
    if (getAt(doc, f.path) === undefined) continue;
    out.set(commentKey(f.path.split('.')), [`overridden on this node by ${flag}: runs with ${show(f.value)}`]);
  }
  // 1.23 writes two logging flags' defaults over the config (flags-and-gates.md §3.3): the value
  // written is not the one run now, and a later kubelet that stops resetting it runs it.
  for (const r of o.resets) {
    if (getAt(doc, r.path) === undefined || out.has(commentKey(r.path.split('.')))) continue;
    out.set(commentKey(r.path.split('.')), [`reset by the kubelet at start-up (1.23 registers its flag's default over the config): runs with ${show(r.to)}`]);
  }
  return out;
}

/** The 1.23 logging resets the export keeps (their values are written, not run), as warnings. */
function resetWarnings(doc: ConfigObject, o: LoadOutcome): string[] {
  return o.resets.filter((r) => getAt(doc, r.path) !== undefined).map((r) => `${r.path} is ${show(r.from)} in the export, but the 1.23 kubelet resets it at start-up and runs with ${show(r.to)}; a release that does not reset it runs ${show(r.from)}`);
}

function header(src: ExportSource, r: Omit<ExportResult, 'text' | 'out' | 'config' | 'apiVersion' | 'kind'>, runs: boolean, installAt: string): string[] {
  const h = [runs ? 'Exported by kubelet-ckpt: a local --config file equal to the config the kubelet runs' : "Exported by kubelet-ckpt: a local --config file made from the config named below, which this node's kubelet does not run"];
  if (src.kind === 'checkpoint') {
    const cm = src.namespace ? `ConfigMap ${src.namespace}/${src.name}, key ${src.kubeletConfigKey}` : `key ${src.kubeletConfigKey} (ConfigMap name not recorded)`;
    h.push(`Source: Dynamic Kubelet Config checkpoint UID ${src.uid}, resourceVersion ${src.resourceVersion}`, `        ${cm}`);
  } else h.push(`Source: ${src.kind === 'local' ? 'the local config' : 'the file'} ${src.path ?? '(none: defaults only)'}`);
  if (src.path) h.push(`Read from: ${src.path}`);
  h.push(`Chosen: ${src.why}`);
  if (r.effective) h.push('Every field is written, defaults included (--effective).');
  if (src.kind === 'file' && r.resolvedPaths.length) {
    h.push(`Relative paths resolved against ${path.posix.dirname(installAt)}, the directory of ${installAt} where this file is to be installed (not where it was read)`);
  }
  const how = src.kind === 'file' ? 'as the kubelet will there' : 'as the kubelet did';
  for (const p of r.resolvedPaths) h.push(`${p.field}: relative "${p.value}" resolved ${how}, to ${p.resolved}`);
  if (r.removedGates.length) h.push(`featureGates: ${r.removedGates.join(', ')} removed (1.24/1.25 refuse it set to true, 1.26+ refuse the key)`);
  if (r.carriedGates.length) h.push(`featureGates: ${r.carriedGates.join(', ')} carried over from the old local config file`);
  if (r.flagOverrides.length) h.push(`Flags on this node that win over this file: ${r.flagOverrides.map((f) => f.flag).join(' ')}`);
  if (r.flagOverrides.some((f) => f.field === 'featureGates' && Object.hasOwn(f.value as object, DKC_GATE))) {
    h.push(`--feature-gates on this node names ${DKC_GATE}: remove it there too before 1.24 (kubelet-ckpt migrate does)`);
  }
  if (r.stage !== 'ok') h.push(`WARNING: the kubelet would not accept this config: ${r.error}`);
  return h;
}

/** Build the export; throws RefusedError (exit 4) when the config is not one the kubelet runs. */
export function buildExport(s: Session, req: ExportRequest): ExportResult {
  const stop = startupFailure(s);
  if (stop) throw new RefusedError(`the kubelet exits at start-up with this node's flags and local config, before it reads any checkpoint: ${stop}`, 'fix the kubelet\'s command line or --config file first', 'EXPORT_STARTUP');
  const readsStore = req.readsStore ?? kubeletReadsStore(s);
  const chosen = choose(s, req, readsStore);
  const { source, bytes, nodeFile } = sourceOf(s, chosen.resolved!, req.root, chosen.why, req.ref ?? 'next-boot');
  const version = s.judgeOptions.version;
  const installAt = req.installAt ?? (s.local.path ? nodePathOf(req.root, s.local.path) : DEFAULT_INSTALL);
  // A file ref is read here but used as the --config file: its paths resolve where it is installed.
  const file = source.kind === 'file' ? installAt : nodeFile ?? DEFAULT_INSTALL;
  const fromLocal = source.kind === 'local';
  // A checkpoint is validated over the local file's gates; a local file over none.
  const o = loadCheckpointConfig(bytes, file, { version, argv: s.kubeletArgv, localGates: fromLocal ? undefined : s.judgeOptions.localGates });
  const warnings: string[] = [];
  judge(o, source, req.force, warnings);
  const payload = deepClone(o.payload!);
  const doc = resolveRelativePaths(req.effective ? applyDefaults(payload, version) : payload, file, version);
  const gates = gatesOf(doc, s.judgeOptions.localGates, fromLocal, version);
  warnings.push(...resetWarnings(doc, o));
  const rest = {
    source,
    effective: req.effective,
    stage: o.stage,
    error: o.error,
    resolvedPaths: o.relativePaths.map((p) => ({ field: p.field, value: p.value, resolved: p.resolved })),
    flagOverrides: flagNotes(o),
    removedGates: gates.removed,
    carriedGates: gates.carried,
    warnings,
  };
  if (rest.resolvedPaths.some((p) => source.kind === 'checkpoint' && p.resolved.startsWith(path.posix.dirname(file)))) {
    warnings.push('a relative path pointed into the checkpoint directory; the export keeps that absolute path (the kubelet used it), but it is rarely what the author meant');
  }
  const runs = readsStore || source.kind === 'local';
  const text = emitYaml(orderKindFirst(doc), commentsFor(doc, o), header(source, rest, runs, installAt));
  return { apiVersion: 'kubelet-ckpt/v1', kind: 'ExportResult', ...rest, config: doc, text, out: null };
}

/** kind and apiVersion first, as people write them. */
function orderKindFirst(doc: ConfigObject): ConfigObject {
  const { kind, apiVersion, ...rest } = doc;
  return { kind: kind ?? 'KubeletConfiguration', apiVersion: apiVersion ?? 'kubelet.config.k8s.io/v1beta1', ...rest };
}

/**
 * --out inside the --dynamic-config-dir (the store, its meta files, kubelet-ckpt's backups) is
 * refused whatever --force says: the kubelet owns it, and its meta files are changed only by
 * reset and rollback, under the lock and with a backup.
 */
function refuseInStore(s: Session, out: string): void {
  let real: string;
  let dcd: string;
  try {
    real = realExisting(out);
    dcd = fs.realpathSync.native(s.snap.dynamicConfigDir);
  } catch {
    return; // the write below reports what cannot be reached
  }
  if (isWithin(dcd, real)) {
    throw new RefusedError(`--out ${out} is inside the kubelet's --dynamic-config-dir ${s.snap.dynamicConfigDir}: export never writes there`, 'write the file elsewhere (the node\'s --config file, e.g. /var/lib/kubelet/config.yaml); meta files are changed with reset or rollback, which back them up', 'OUT_IN_STORE');
  }
}

/** export with --out: build, then write atomically (refusing to replace a differing file without --force). */
export function runExport(s: Session, req: ExportRequest & { out?: string | null }): ExportResult & { outcome?: OutOutcome } {
  const r = buildExport(s, req);
  if (!req.out) return r;
  refuseInStore(s, path.resolve(req.out));
  const outcome = writeOut(req.out, Buffer.from(r.text), req.force);
  return { ...r, out: path.resolve(req.out), outcome };
}
