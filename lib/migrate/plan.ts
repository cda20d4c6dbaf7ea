// `migrate [REF]`, planned: the export becomes the kubelet's --config file, and
// --dynamic-config-dir and the DynamicKubeletConfig gate leave the unit and env files that
// carry them (reference/migration.md §8 steps 1–3). A plan holds every file's exact new
// bytes; making it reads the node and writes nothing. The store is not touched.

import type { MigrateResult } from './apply.js';
import fs from 'node:fs';
import path from 'node:path';
import { CkptError, RefusedError, UsageError } from '../errors.js';
import { diffFiles } from './diffs.js';
import { buildExport, DKC_GATE, type ExportResult } from './export.js';
import { editFlagText, type FlagEdit, type FlagFileKind } from './flagedit.js';
import { flagFiles, nodeWriteBlocks, readNodeFile, textOf, type NodeFile } from './nodefiles.js';
import { kubeadmCheck, type KubeadmCheck } from './kubeadm.js';
import { commandLineFromFiles } from '../store/discover.js';
import { flagValue } from '../store/proc.js';
import { nodeName } from '../fleet/nodename.js';
import { shellWord } from '../integrity/next-steps.js';
import { accessibleFile } from '../onpath.js';
import { rootedRead } from '../store/rooted.js';
import { kubeletsUsing, runningError } from '../recovery/kubelet.js';
import { writeRefusal } from '../recovery/backup.js';
import type { Overrides, RecoveryContext } from '../recovery/plan.js';

export const DEFAULT_CONFIG_PATH = '/var/lib/kubelet/config.yaml';

export interface MigrateRequest extends Overrides {
  ref: string | null;
  key?: string | null;
  /** A copy of kubeadm's kubelet-config ConfigMap (or its KubeletConfiguration). */
  kubeadmConfig?: string | null;
}

export interface FileChange {
  file: NodeFile;
  after: Buffer;
  edits: FlagEdit[];
  /** Unified diff before → after. */
  diff: string;
}

export interface MigratePlan {
  kind: 'migrate';
  commandLine: string;
  store: string;
  dynamicConfigDir: string;
  root: string;
  /** Null when only the gate leaves the command line (a kubelet that no longer reads the store). */
  export: ExportResult | null;
  /** Node path of the kubelet's --config file (written with the export); null when the gate alone is removed and the kubelet has none. */
  configPath: string | null;
  /** --config was added to the command line (there was none). */
  configAdded: boolean;
  changes: FileChange[];
  warnings: string[];
  refusals: CkptError[];
  overrides: Overrides;
  nextSteps: string[];
  kubeadm: KubeadmCheck | null;
}

/** The kubelet's argv as the migrated files should give it: what the text edits do, on words. */
export function migratedArgv(argv: readonly string[], addConfig: string | null): string[] {
  const out: string[] = [];
  let add = addConfig;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (/^--dynamic[-_]config[-_]dir(=|$)/.test(a)) {
      if (!a.includes('=')) i++;
      if (add) out.push(`--config=${add}`);
      add = null;
      continue;
    }
    const m = /^(--feature[-_]gates)(=(.*))?$/s.exec(a);
    if (m) {
      const spaced = m[2] === undefined;
      const value = spaced ? argv[i + 1] ?? '' : m[3]!;
      const kept = value.split(',').filter((kv) => kv.split('=')[0]!.trim() !== DKC_GATE);
      if (spaced) i++;
      if (kept.length === value.split(',').length) out.push(...(spaced ? [a, value] : [a]));
      else if (kept.length) out.push(...(spaced ? [a, kept.join(',')] : [`${m[1]}=${kept.join(',')}`]));
      continue;
    }
    out.push(a);
  }
  return out;
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

interface FlagFile {
  file: NodeFile;
  kind: FlagFileKind;
}

interface Edited {
  changes: FileChange[];
  /** --config was put in place of a --dynamic-config-dir. */
  placed: boolean;
  problems: CkptError[];
  /** The kubelet's argv as the edited files give it. */
  argv: string[];
}

/**
 * Edit every flag file, --config (if any) in place of the `at`-th --dynamic-config-dir of file
 * `file`. The diffs are left empty: only the edit editFiles keeps gets them (withDiffs).
 */
function editAll(files: FlagFile[], addConfig: string | null, target: { file: number; at: number }, argvOf: (changes: FileChange[]) => string[]): Edited {
  const out: Edited = { changes: [], placed: false, problems: [], argv: [] };
  files.forEach(({ file, kind }, i) => {
    const text = textOf(file.state);
    const e = editFlagText(text, kind, { addConfig: i === target.file ? addConfig : null, configAt: target.at });
    for (const p of e.problems) out.problems.push(new RefusedError(`${file.nodePath} line ${p.line}: ${p.action}`, 'edit that line by hand (remove --dynamic-config-dir and the DynamicKubeletConfig gate), then re-run', 'FLAGS_UNPARSEABLE'));
    out.placed ||= e.placedConfig;
    if (e.text === text) return;
    // The edit works on the text as UTF-8: a file that is not would come back with its other
    // bytes replaced (found by review: a Latin-1 path in another flag changed). systemd reads
    // unit and environment files as UTF-8 too, so such a file is left to a person.
    if (file.state.kind === 'file' && !Buffer.from(text, 'utf8').equals(file.state.bytes)) {
      out.problems.push(new RefusedError(`${file.nodePath} is not valid UTF-8, and kubelet-ckpt does not rewrite a file it cannot keep byte for byte`, 'edit that file by hand (remove --dynamic-config-dir and the DynamicKubeletConfig gate), then re-run', 'FLAGS_UNPARSEABLE'));
      return;
    }
    out.changes.push({ file, after: Buffer.from(e.text), edits: e.edits, diff: '' });
  });
  out.argv = argvOf(out.changes);
  return out;
}

function withDiffs(e: Edited): Edited {
  for (const c of e.changes) c.diff = diffFiles(c.file.nodePath, c.file.state, c.after);
  return e;
}

/**
 * Edit every flag file. --config goes in place of the --dynamic-config-dir the kubelet's
 * command line takes: not necessarily the first in file order (a drop-in's `ExecStart=` reset
 * and new ExecStart= override the unit's), so each is tried, in order, until the edited files
 * give the intended command line; none doing so is refused by proveArgv.
 */
function editFiles(root: string, before: readonly string[], addConfig: string | null, files: readonly { nodePath: string; kind: FlagFileKind }[]): Edited {
  const read = files.map((f) => ({ file: readNodeFile(root, f.nodePath, f.kind), kind: f.kind }));
  // The command line through the edits, the flag files as read here (not read again per candidate).
  const known = new Map(read.flatMap(({ file }) => (file.state.kind === 'file' ? [[file.nodePath, textOf(file.state)] as const] : [])));
  const argvOf = (changes: FileChange[]) => {
    const overlay = new Map([...known, ...changes.map((c) => [c.file.nodePath, c.after.toString('utf8')] as const)]);
    return commandLineFromFiles(root, (r, p) => overlay.get(p) ?? rootedRead(r, p))?.argv ?? [];
  };
  const none = () => withDiffs(editAll(read, null, { file: -1, at: 0 }, argvOf));
  if (!addConfig) return none();
  const want = migratedArgv(before, addConfig);
  let first: Edited | null = null;
  for (let file = 0; file < read.length; file++) {
    for (let at = 0; ; at++) {
      const e = editAll(read, addConfig, { file, at }, argvOf);
      if (!e.placed) break;
      first ??= e;
      if (e.problems.length || sameArgv(e.argv, want)) return withDiffs(e);
    }
  }
  return first ? withDiffs(first) : none();
}

/** The command line through the edited files (`after`) must be the old one minus the flag and the gate. */
function proveArgv(before: readonly string[], after: readonly string[], changes: FileChange[], addConfig: string | null, refusals: CkptError[]): void {
  const want = migratedArgv(before, addConfig);
  if (sameArgv(after, want)) return;
  const where = changes.map((c) => `${c.file.nodePath} (lines ${c.edits.map((e) => e.line).join(', ')})`).join('; ');
  refusals.push(new RefusedError(
    `the edited unit and env files would not give the kubelet the intended command line (want: ${want.slice(1).join(' ')}; would get: ${after.slice(1).join(' ')}); edited: ${where || 'none'}`,
    'remove --dynamic-config-dir and the DynamicKubeletConfig gate by hand in the file(s) named, then re-run',
    'FLAGS_UNPARSEABLE',
  ));
}

/** A migrate with nothing to do: the result to print (exit 0), no plan. */
export interface NothingToMigrate {
  kind: 'nothing';
  result: MigrateResult;
}

/**
 * Without --dynamic-config-dir the kubelet never opens the store and an assignment does nothing
 * on the node (reference/migration.md §7): no checkpoint is what it runs, so none is migrated
 * unless named. Nothing to do, exit 0, as on a second run after a migration: a fleet runs
 * migrate again and again, and a node already migrated is no failure.
 */
function notUsingDkc(where: string, configPath: string | null): NothingToMigrate {
  return {
    kind: 'nothing',
    result: {
      apiVersion: 'kubelet-ckpt/v1', kind: 'MigrateResult', command: 'migrate', dryRun: false, changes: [], backup: null, warnings: [],
      nextSteps: [], configPath, source: null, kubeadm: null,
      nothing: `the kubelet does not use Dynamic Kubelet Configuration: its command line (from the ${where}) has no --dynamic-config-dir, so it never reads the store and runs ${configPath ? `its --config file ${configPath}` : 'its defaults and flags'} (to make a checkpoint the --config file anyway, name it: migrate assigned | lkg | UID/RV)`,
    },
  };
}

/**
 * A kubelet whose command line has no --dynamic-config-dir but still sets the
 * DynamicKubeletConfig gate: it does not read the store, yet a 1.24 or 1.25 kubelet refuses
 * `=true` and a 1.26+ one any value (an unknown gate), so "nothing to do" would send it to the
 * upgrade broken (found by review). The gate leaves the flag files as in a full migration;
 * no --config file is written. A gate in the --config file itself is refused: kubelet-ckpt
 * does not edit the kubelet's YAML in place.
 */
function gatePlan(ctx: RecoveryContext, req: MigrateRequest, cl: { argv: string[]; source: string }, configPath: string | null, gateInConfig: boolean): MigratePlan {
  const root = ctx.root;
  const refusals: CkptError[] = [];
  const warnings = [`the kubelet's command line (from the ${cl.source}) has no --dynamic-config-dir, so it does not read the store, but it still sets the ${DKC_GATE} gate, which a 1.26+ kubelet refuses whatever its value (1.24 and 1.25 refuse it set to true): only the gate is removed`];
  if (gateInConfig) refusals.push(gateInConfigRefusal(configPath));
  const edited = editFiles(root, cl.argv, null, flagFiles(root));
  refusals.push(...edited.problems);
  if (!refusals.length) proveArgv(cl.argv, edited.argv, edited.changes, null, refusals);
  interlocks(ctx, req, refusals, warnings);
  nodeWriteBlocks(edited.changes, refusals);
  const overrides = { force: req.force, restartKubelet: req.restartKubelet };
  const s = ctx.session;
  return {
    kind: 'migrate', commandLine: ctx.commandLine, store: s.snap.storeDir, dynamicConfigDir: s.snap.dynamicConfigDir, root,
    export: null, configPath, configAdded: false, changes: edited.changes, warnings, refusals, overrides,
    // Nothing was assigned that this kubelet runs: no configz check or assignment to clear.
    nextSteps: nextSteps(overrides, null, root),
    kubeadm: null,
  };
}

/** The --config file sets the gate a 1.24+ kubelet refuses, in a file kubelet-ckpt does not edit. */
function gateInConfigRefusal(configPath: string | null): RefusedError {
  return new RefusedError(`${configPath ?? 'the --config file'} sets featureGates.${DKC_GATE}, which a 1.26+ kubelet refuses whatever its value (1.24 and 1.25 refuse it set to true), and kubelet-ckpt does not edit that file`, `remove ${DKC_GATE} from its featureGates by hand, then re-run`, 'FLAGS_UNPARSEABLE');
}

/** The Node's name for the next steps: report's rule (under --root, the disk's /etc/hostname), else a placeholder. */
function nodeNameOf(argv: readonly string[], root: string): string {
  return nodeName({ kubeletArgv: argv, root }).name || 'NODE';
}

/**
 * What must still happen after the files are written. `confirm`: a migration of the config the
 * kubelet runs, whose result is checked (`/configz`) and whose assignment is cleared; a removal
 * of the gate alone has neither. `kubeconfig`: --kubeconfig, which the kubectl commands then
 * name (an admin's; the kubelet's own node credentials may not patch its Node's spec).
 */
function nextSteps(overrides: Overrides, confirm: { configPath: string; node: string; kubeconfig: string | null; kubeadm: boolean } | null, root: string): string[] {
  const steps = [];
  // Under --root the files are a node disk mounted here: systemctl here is this machine's kubelet (found by review).
  if (root !== '/') steps.push('put the disk back and boot the node: its kubelet starts, on its old version, with these files');
  else if (!overrides.restartKubelet) steps.push('restart the kubelet on its old version: systemctl daemon-reload && systemctl restart kubelet');
  if (confirm) {
    const { configPath, node, kubeconfig } = confirm;
    const kubectl = kubeconfig ? `kubectl --kubeconfig ${shellWord(kubeconfig)}` : 'kubectl';
    steps.push(`confirm the running config equals ${configPath}: ${kubectl} get --raw /api/v1/nodes/${node}/proxy/configz`);
    steps.push(`where the API server is reachable, clear the assignment (one-way): ${kubectl} patch node ${node} --type merge -p '{"spec":{"configSource":null}}'`);
    if (confirm.kubeadm) steps.push('before `kubeadm upgrade node`, put these settings into the kubelet-config ConfigMap (or kubeadm-flags.env flags): kubeadm rewrites the --config file from it');
  }
  steps.push('then upgrade the kubelet (kubelet-ckpt upgrade-check --to X.Y first); the store stays on disk and can be archived');
  return steps;
}

function interlocks(ctx: RecoveryContext, o: Overrides, refusals: CkptError[], warnings: string[]): void {
  const snap = ctx.session.snap;
  const k = kubeletsUsing(snap.dynamicConfigDir, ctx.procRoot, ctx.root);
  warnings.push(...k.unsure);
  if (k.using.length && !o.force && !o.restartKubelet) refusals.push(runningError(k.using, snap.storeDir));
  // As the recovery commands' plans: a lock or state file the real run would fail on is said by the dry run (found by review).
  const locked = writeRefusal(snap.dynamicConfigDir);
  if (locked) refusals.push(locked);
}

/** Plan the migration. Throws the export's refusals (exit 4) and usage errors; other refusals go in the plan. */
export async function planMigrate(ctx: RecoveryContext, req: MigrateRequest): Promise<MigratePlan | NothingToMigrate> {
  const s = ctx.session;
  const root = ctx.root;
  const warnings: string[] = [];
  const refusals: CkptError[] = [];
  if (req.restartKubelet && root !== '/') throw new UsageError('--restart-kubelet cannot be used with --root: the kubelet of a mounted disk is not running here');
  const cl = commandLineFromFiles(root);
  if (!cl) throw new RefusedError('no kubelet unit file and no env file with its flags was found: there is nothing to migrate the command line in', 'on Talos, edit the machine config (machine.kubelet.extraArgs); elsewhere give --root for a mounted node', 'MIGRATE_NO_FLAGS');
  const given = flagValue(cl.argv, 'config');
  // A relative --config resolves against the unit's WorkingDirectory= (found by review: always /).
  const configPath = given ? path.posix.resolve(cl.cwd, given) : DEFAULT_CONFIG_PATH;
  const addConfig = given ? null : DEFAULT_CONFIG_PATH;
  const hasDir = flagValue(cl.argv, 'dynamic-config-dir') !== null;
  if (!hasDir && !req.ref) {
    // Not reading the store, but the gate may still be set: a 1.24+ kubelet refuses to start with it.
    const gateInFlags = !sameArgv(migratedArgv(cl.argv, null), cl.argv);
    const gateInConfig = Object.hasOwn(s.judgeOptions.localGates ?? {}, DKC_GATE);
    if (!gateInFlags && !gateInConfig) return notUsingDkc(cl.source, given ? configPath : null);
    return gatePlan(ctx, req, cl, given ? configPath : null, gateInConfig);
  }
  if (!hasDir) warnings.push("the kubelet's unit and env files have no --dynamic-config-dir: only the --config file is written");
  const flagged = flagFiles(root);
  const edited = editFiles(root, cl.argv, hasDir ? addConfig : null, flagged);
  refusals.push(...edited.problems);
  if (!refusals.length) proveArgv(cl.argv, edited.argv, edited.changes, hasDir ? addConfig : null, refusals);
  // The export is judged and annotated with the flags the kubelet will have after the migration.
  const argv = migratedArgv(cl.argv, hasDir ? addConfig : null);
  const exp = buildExport({ ...s, kubeletArgv: argv, judgeOptions: { ...s.judgeOptions, argv } }, { ref: req.ref, key: req.key ?? null, effective: false, force: req.force, root, readsStore: hasDir, installAt: configPath });
  warnings.push(...exp.warnings);
  if (addConfig && !edited.placed) refusals.push(new RefusedError(`the kubelet has no --config flag and kubelet-ckpt found no --dynamic-config-dir to put --config=${addConfig} in its place`, 'add --config by hand', 'FLAGS_UNPARSEABLE'));
  const config = readNodeFile(root, configPath, 'config');
  const changes = [...edited.changes];
  const after = Buffer.from(exp.text);
  // The kubelet runs its own --config file already (empty meta files): that file stays as it is,
  // as for a gate-only migration (kubelet-ckpt does not edit the kubelet's YAML in place), and
  // only the flags change (found by review: CONFIG_DIFFERS refused, and --force rewrote the
  // operator's file with no change to its meaning, its comments and layout gone).
  const inPlace = exp.source.kind === 'local' && exp.source.path === configPath && config.state.kind === 'file';
  if (inPlace) {
    if (Object.hasOwn(s.judgeOptions.localGates ?? {}, DKC_GATE)) refusals.push(gateInConfigRefusal(configPath));
  } else if (!(config.state.kind === 'file' && config.state.bytes.equals(after))) {
    const diff = diffFiles(configPath, config.state, after);
    if (config.state.kind === 'file' && !req.force) {
      refusals.push(new RefusedError(`${configPath} exists and differs from the export:\n${diff}`, 'the old local config is replaced as a whole (the checkpoint replaced it too); pass --force to write it', 'CONFIG_DIFFERS'));
    }
    changes.unshift({ file: config, after, edits: [], diff });
  }
  interlocks(ctx, req, refusals, warnings);
  nodeWriteBlocks(changes, refusals);
  const isKubeadm = flagged.some((f) => /kubeadm/.test(path.basename(f.nodePath)));
  const kubeadm = isKubeadm || req.kubeadmConfig ? kubeadmCheck(exp, req.kubeadmConfig ?? null, configPath, s.judgeOptions.version) : null;
  if (kubeadm) warnings.push(kubeadm.warning);
  const kubeconfig = ctx.kubeconfig ? path.resolve(ctx.kubeconfig) : null;
  if (kubeconfig && !accessibleFile(kubeconfig, fs.constants.R_OK)) warnings.push(`--kubeconfig ${kubeconfig} cannot be read here: the kubectl commands of the next steps name it`);
  const overrides = { force: req.force, restartKubelet: req.restartKubelet };
  return {
    kind: 'migrate',
    commandLine: ctx.commandLine,
    store: s.snap.storeDir,
    dynamicConfigDir: s.snap.dynamicConfigDir,
    root,
    export: exp,
    configPath,
    configAdded: hasDir && addConfig !== null,
    changes,
    warnings,
    refusals,
    overrides,
    nextSteps: nextSteps(overrides, { configPath, node: nodeNameOf(cl.argv, root), kubeconfig, kubeadm: isKubeadm }, root),
    kubeadm,
  };
}
