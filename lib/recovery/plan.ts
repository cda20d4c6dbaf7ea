// Plans for reset, rollback and undo: plain data (which meta files, the exact new bytes,
// what the backup will hold, warnings, and the interlocks that refuse the apply). Making a
// plan reads the store and /proc and may probe the API server; it never writes.

import { sha256Hex } from '../builtins.js';
import path from 'node:path';
import { CkptError, EnvError, RefusedError, UsageError } from '../errors.js';
import type { Session } from '../session.js';
import { encodeEmptyMeta, encodeMeta } from '../store/encode.js';
import { decodeMeta, decodeMetaState, type MetaDecode } from '../store/meta.js';
import { flagValue } from '../store/proc.js';
import { payloadKey, resolveRef, uidsWithPrefix, unlistable, unlistableError } from '../store/refs.js';
import type { Checkpoint, EntryKind } from '../store/snapshot.js';
import { unsafeNameReason } from '../store/safepath.js';
import { META_NAMES, type ConfigMapSource, type MetaName } from '../store/types.js';
import { trialOf } from '../integrity/nextboot.js';
import { verifyStore } from '../integrity/verify.js';
import { ownerBlock, ownerFor, readState, writeBlock, type FileState, type Owner } from './atomic.js';
import { hashOf, loadBackup, otherStoreCheck, writeRefusal } from './backup.js';
import { findSystemctl, hostPathOf, kubeletsUsing, reachableServers, runningError, type StoreKubelet } from './kubelet.js';
import type { Simulate, StepHook } from './steps.js';

/** Everything planning and applying need besides the request. */
export interface RecoveryContext {
  session: Session;
  /** --root ('/' on a live node). */
  root: string;
  /** How the command was invoked (`reset all --to local`): for the audit log and the lock. */
  commandLine: string;
  /** --kubeconfig: overrides the one on the kubelet's command line. */
  kubeconfig?: string | null;
  /** TCP connect timeout for the API server probe; 0 skips the probe. */
  apiTimeoutMs?: number;
  procRoot?: string;
  now?: () => Date;
  hook?: StepHook;
  simulate?: Simulate;
  /** PATH to find systemctl on. */
  envPath?: string;
  /**
   * ConfigMap names the journal gives for UIDs (lib/journal namesByUid), consulted for
   * `--to UID/RV` between the meta files and --configmap; read only when needed.
   */
  journalNames?: () => Promise<ReadonlyMap<string, JournalName>>;
}

export interface JournalName {
  namespace: string;
  name: string;
  key: string | null;
}

export interface Overrides {
  /** Write even though a kubelet runs on the store or the target fails verify. */
  force: boolean;
  /** Stop the kubelet with systemctl, write, start it again. */
  restartKubelet: boolean;
}

/** What a meta file holds, for people. */
export type Content =
  | { kind: 'missing' }
  | { kind: 'local' }
  | { kind: 'source'; source: ConfigMapSource }
  | { kind: 'undecodable'; error: string };

export interface MetaWrite {
  name: MetaName;
  /** `meta/assigned` */
  rel: string;
  before: FileState;
  /** The exact new bytes; null removes the file (undo of a file that did not exist). */
  after: Buffer | null;
  /** Owner and mode for a file that does not exist yet. */
  create?: Owner;
  /** undo: the owner and mode the file had when it was backed up, whatever it has now. */
  owner?: Owner;
  /** undo: the modification time the file had when it was backed up. */
  mtimeMs?: number | null;
}

export interface MetaPlan {
  kind: 'meta';
  command: 'reset' | 'rollback' | 'undo';
  commandLine: string;
  store: string;
  dynamicConfigDir: string;
  /** Both meta files as they are now: what the backup will hold and what apply re-checks. */
  states: Record<MetaName, FileState>;
  /** In order: last-known-good before assigned. Files whose bytes would not change are left out. */
  writes: MetaWrite[];
  warnings: string[];
  /** Reasons the apply will refuse (exit 4), found while planning. */
  refusals: CkptError[];
  overrides: Overrides;
  /** undo: the backup being restored. */
  restore: { id: string; path: string } | null;
}

// ---- shared ---------------------------------------------------------------------------------

export function metaRel(name: MetaName): string {
  return `meta/${name}`;
}

export function metaDirOf(store: string): string {
  return path.join(store, 'meta');
}

/** Read both meta files now, refusing symlinks and special files (never written through). */
export function readMetaStates(store: string): Record<MetaName, FileState> {
  const out = {} as Record<MetaName, FileState>;
  for (const n of META_NAMES) out[n] = readState(path.join(metaDirOf(store), n), metaRel(n));
  return out;
}

export function contentOf(s: FileState | null): Content {
  if (s === null || s.kind === 'missing') return { kind: 'missing' };
  const d = decodeMeta(s.bytes);
  if (d.state === 'empty') return { kind: 'local' };
  if (d.state === 'source') return { kind: 'source', source: d.source };
  return { kind: 'undecodable', error: d.state === 'error' || d.state === 'unreadable' ? d.error : 'missing' };
}

export function bytesContent(b: Buffer | null): Content {
  return b === null ? { kind: 'missing' } : contentOf({ kind: 'file', bytes: b, mode: 0, uid: 0, gid: 0 });
}

export function describeContent(c: Content): string {
  switch (c.kind) {
    case 'missing':
      return 'no file (the kubelet creates it empty: local config)';
    case 'local':
      return 'empty: the local config';
    case 'source':
      return `${c.source.namespace}/${c.source.name} ${c.source.uid}/${c.source.resourceVersion} (key ${c.source.kubeletConfigKey})`;
    case 'undecodable':
      return `undecodable (${c.error.slice(0, 120)})`;
  }
}

function sameBytes(before: FileState, after: Buffer | null): boolean {
  if (after === null) return before.kind === 'missing';
  return before.kind === 'file' && before.bytes.equals(after);
}

/** The interlocks and warnings every plan shares: running kubelet, lock, API server. */
async function environment(ctx: RecoveryContext, o: Overrides, opts: { api: boolean }): Promise<{ warnings: string[]; refusals: CkptError[]; kubelets: StoreKubelet[] }> {
  const snap = ctx.session.snap;
  const warnings: string[] = [];
  const refusals: CkptError[] = [];
  const k = kubeletsUsing(snap.dynamicConfigDir, ctx.procRoot, ctx.root);
  warnings.push(...k.unsure);
  if (k.using.length) {
    if (!o.force && !o.restartKubelet) refusals.push(runningError(k.using, snap.storeDir));
    else if (o.force && !o.restartKubelet) warnings.push(`a kubelet using this store is running (pid ${k.using.map((x) => x.pid).join(', ')}); writing anyway (--force): it re-reads meta/assigned every 10 s`);
  }
  restartNeeds(ctx, o);
  const locked = writeRefusal(snap.dynamicConfigDir);
  if (locked) refusals.push(locked);
  if (opts.api) warnings.push(...(await apiWarnings(ctx, k.using)));
  return { warnings, refusals, kubelets: k.using };
}

/**
 * A plan with nothing to write: "nothing to do", but the real run still takes the store's lock
 * first, so a lock it cannot make (or another command holding it) is said by the dry run too
 * (found by review: rollback --dry-run said 0 where rollback --yes exited 3). No backup or audit
 * line is written, so the state files do not matter.
 */
function nothingToWrite(ctx: RecoveryContext, plan: MetaPlan): MetaPlan {
  const locked = writeRefusal(ctx.session.snap.dynamicConfigDir, false);
  if (locked) plan.refusals.push(locked);
  return plan;
}

/**
 * What the writes would meet once every refusal is passed, in the real run's order: the meta
 * directory must be writable, and a file given another user's owner needs root (found by
 * review: `reset --dry-run` said 0 where `reset --yes` exited 3, on a read-only mount and as a
 * user who may write the directory but not give root's files their owner).
 */
function withWriteBlocks(plan: MetaPlan): MetaPlan {
  const meta = metaDirOf(plan.store);
  const dir = writeBlock(meta, 'the meta directory', 'nothing was changed');
  if (dir) plan.refusals.push(dir);
  for (const w of plan.writes) {
    if (w.after === null) continue;
    const owner = ownerBlock(ownerFor(w.before, w.owner, w.create), w.rel);
    if (owner) plan.refusals.push(owner);
  }
  return plan;
}

/**
 * --restart-kubelet's own needs, checked while planning so that a --dry-run exits as the real
 * run would: no --root (exit 2), and a systemctl on PATH (exit 3).
 */
export function restartNeeds(ctx: RecoveryContext, o: Overrides): void {
  if (!o.restartKubelet) return;
  if (ctx.root !== '/') throw new UsageError('--restart-kubelet cannot be used with --root: the kubelet of a mounted disk is not running here');
  findSystemctl(ctx.envPath);
}

/**
 * The interlocks of prune, clean and undo of a clean, checked while planning (a dry run exits
 * as the real run would): a kubelet using the store (refused unless --force or
 * --restart-kubelet; `unsure` gets what could not be told), --restart-kubelet's needs, and the
 * store's lock held by another kubelet-ckpt.
 */
export function removalInterlocks(ctx: RecoveryContext, o: Overrides, refusals: CkptError[], unsure: string[], nothingToRemove = false): void {
  const snap = ctx.session.snap;
  // Nothing to remove is nothing a running kubelet could be hurt by: "nothing to do", exit 0, as
  // reset's (found by review: a periodic `prune --yes` on a live node was refused every time).
  // The real run still takes the lock, so a lock that cannot be made is still said.
  if (!nothingToRemove) {
    const k = kubeletsUsing(snap.dynamicConfigDir, ctx.procRoot, ctx.root);
    unsure.push(...k.unsure);
    if (k.using.length && !o.force && !o.restartKubelet) refusals.push(runningError(k.using, snap.storeDir));
  }
  restartNeeds(ctx, o);
  // With nothing to remove no backup or audit line is written: the state files do not matter then.
  const locked = writeRefusal(snap.dynamicConfigDir, !nothingToRemove);
  if (locked) refusals.push(locked);
}

/**
 * prune's and clean's removals need to write in the directory each entry is in (rename, unlink,
 * rmdir): a read-only mount or no permission there is the real run's exit 3, which the plan
 * says first (found by review: `prune` said 0 where `prune --yes` failed). `rels` are relative
 * to the store.
 */
export function removalWriteBlocks(storeDir: string, rels: readonly string[], outcome: string, refusals: CkptError[]): void {
  for (const parent of new Set(rels.map((r) => path.posix.dirname(r)))) {
    const block = writeBlock(path.join(storeDir, parent), `${parent}/`, outcome);
    if (block) return void refusals.push(block);
  }
}

/** The kubeconfig: --kubeconfig, else the running kubelet's, else the one in its unit. */
function kubeconfigOf(ctx: RecoveryContext, using: StoreKubelet[]): string | null {
  if (ctx.kubeconfig) return path.resolve(ctx.kubeconfig);
  for (const k of using) if (k.kubeconfig) return k.kubeconfig;
  const cl = ctx.session.discovery.commandLine;
  // A command line read from some other kubelet's /proc entry is not about this store.
  if (!cl || (cl.pid !== null && !using.some((k) => k.pid === cl.pid))) return null;
  const v = flagValue(cl.argv, 'kubeconfig');
  if (!v) return null;
  const nodePath = path.isAbsolute(v) ? v : path.join(cl.cwd, v);
  return cl.pid !== null ? nodePath : hostPathOf(ctx.root, nodePath);
}

async function apiWarnings(ctx: RecoveryContext, using: StoreKubelet[]): Promise<string[]> {
  const timeout = ctx.apiTimeoutMs ?? 1000;
  if (timeout <= 0) return [];
  const kc = kubeconfigOf(ctx, using);
  if (!kc) return [];
  const up = await reachableServers(kc, timeout);
  if (!up.length) return [];
  return [
    `the API server ${up.join(', ')} (from ${kc}) is reachable: at its next start the kubelet re-syncs Node.Spec.ConfigSource and may undo this; change the Node object too (kubectl patch node NODE -p '{"spec":{"configSource":null}}' for local), or recover while the API server is unreachable`,
  ];
}

// ---- targets --------------------------------------------------------------------------------

export type Target =
  | { kind: 'local'; ref: string }
  | { kind: 'source'; ref: string; source: ConfigMapSource; checkpoint: Checkpoint | null };

export interface TargetOptions {
  /** Who asks, for messages (`rollback`); default `--to REF`. */
  via?: string;
  /** --configmap NAMESPACE/NAME[:KEY] */
  configmap?: string | null;
  /** Names learned from the journal, by UID. */
  journal?: ReadonlyMap<string, JournalName> | null;
}

/** Parse `NAMESPACE/NAME[:KEY]` (key defaults to `kubelet`). */
export function parseConfigMapFlag(v: string): { namespace: string; name: string; key: string | null } {
  const m = /^([^/:]+)\/([^/:]+)(?::([^/]+))?$/.exec(v);
  if (!m) throw new UsageError(`bad --configmap "${v}": expected NAMESPACE/NAME or NAMESPACE/NAME:KEY`, null, 'BAD_CONFIGMAP');
  // The key becomes a file name in the checkpoint directory: the same rule as verify's UNSAFE_REF.
  const why = m[3] === undefined ? null : unsafeNameReason(m[3]);
  if (why) throw new UsageError(`bad --configmap "${v}": the key ${JSON.stringify(m[3]!.slice(0, 80))} ${why}, and names no file the kubelet could load`, 'give the ConfigMap key the checkpoint holds (kubelet-ckpt ls shows its files)', 'BAD_CONFIGMAP');
  return { namespace: m[1]!, name: m[2]!, key: m[3] ?? null };
}

/**
 * The source a meta file names, to copy (`--to assigned|lkg`, rollback); null for local. What
 * the file holds is the store's, not the operator's input: when it names nothing that can be
 * written (undecodable, an unsafe name, no uid or resourceVersion), that is a refusal (4).
 */
function fromMeta(d: MetaDecode, name: MetaName, via: string, kind: EntryKind): ConfigMapSource | null {
  if (d.state === 'missing' || d.state === 'empty') return null;
  // `kubelet-ckpt` after a backtick: the printed hint then carries the run's --root/--dir (self.ts; found by review).
  const hint = via === 'rollback' ? 'name the config directly: `kubelet-ckpt reset assigned --to UID/RV` (or `--to local`)' : 'name the config directly: --to UID/RV or --to local';
  // A link, a directory or a special file in its place is a refusal (4), as the store's other
  // hostile entries are; a read that fails, or a meta directory that cannot be read, is DESIGN's
  // environment error (3; found by review: permission denied was "cannot be decoded", 4, with no
  // word of root). Told by the entry's kind, never by words in the error (found by review: a
  // link to a file named "permission denied" was taken for a failed read).
  if (d.state === 'unreadable' && (kind === 'symlink' || kind === 'dir' || kind === 'other')) {
    throw new RefusedError(`${via}: meta/${name} cannot be used (${d.error}), so there is no source to copy`, hint, 'TARGET_UNDECODABLE');
  }
  if (d.state === 'unreadable') {
    const denied = /permission denied/i.test(d.error) && process.geteuid?.() !== 0;
    throw new EnvError(`${via}: meta/${name} cannot be read (${d.error}), so there is no source to copy`, denied ? 'run kubelet-ckpt as root (sudo)' : hint, 'META_UNREADABLE');
  }
  if (d.state === 'error') {
    throw new RefusedError(`${via}: meta/${name} cannot be decoded (${d.error}), so there is no source to copy`, hint, 'TARGET_UNDECODABLE');
  }
  if (d.unsafe.length) {
    const u = d.unsafe[0]!;
    throw new RefusedError(`${via}: meta/${name} names ${u.field} ${JSON.stringify(d.source[u.field]).slice(0, 80)}, which ${u.reason}`, hint, 'UNSAFE_REF');
  }
  // The kubelet's encoder refuses these ("empty UID is ambiguous"): no checkpoint is named.
  const empty = d.incomplete.filter((f) => f === 'uid' || f === 'resourceVersion');
  if (empty.length) throw new RefusedError(`${via}: meta/${name} has an empty ${empty.join(' and ')}, so it names no checkpoint to copy`, hint, 'META_INCOMPLETE');
  return d.source;
}

/** Resolve --to: local, assigned, last-known-good/lkg, UID/RV or a unique UID (prefix). */
export function resolveTarget(s: Session, ref: string, opts: TargetOptions = {}): Target {
  const snap = s.snap;
  if (ref === 'local') return { kind: 'local', ref };
  const alias: Record<string, MetaName> = { assigned: 'assigned', 'last-known-good': 'last-known-good', lkg: 'last-known-good' };
  if (alias[ref]) {
    const name = alias[ref]!;
    const src = fromMeta(decodeMetaState(snap.meta[name], s.judgeOptions.version), name, opts.via ?? `--to ${ref}`, snap.meta[name].entry.kind);
    if (!src) return { kind: 'local', ref };
    const u = snap.uids.find((x) => x.uid === src.uid);
    return { kind: 'source', ref, source: src, checkpoint: u?.checkpoints.find((c) => c.rv === src.resourceVersion) ?? null };
  }
  if (ref.startsWith('/') || ref.startsWith('./') || ref.startsWith('../') || ref.startsWith('meta/')) {
    throw new UsageError(`--to ${ref}: only a checkpoint or local can be assigned (the kubelet loads nothing else)`, 'use --to local, assigned, lkg or UID/RV', 'UNKNOWN_REF');
  }
  // A whole UID/RV that is not on disk is still a target: refused unless --force (targetProblems),
  // as DESIGN's recovery rules say, not an unknown ref (found by review: exit 2 even with --force).
  const absent = absentTarget(snap, ref);
  let cp: Checkpoint | null = null;
  if (!absent) {
    const r = resolveRef(snap, ref);
    if (r.kind !== 'checkpoint') throw new UsageError(`--to ${ref}: not a checkpoint`, 'use --to local, assigned, lkg or UID/RV', 'UNKNOWN_REF');
    cp = r.checkpoint;
  }
  const uid = cp?.uid ?? absent!.uid;
  const rv = cp?.rv ?? absent!.rv;
  const flag = opts.configmap ? parseConfigMapFlag(opts.configmap) : null;
  // A checkpoint directory does not record its ConfigMap: a meta file naming the UID does.
  let known: ConfigMapSource | null = null;
  let knownFrom: MetaName | null = null;
  for (const n of ['assigned', 'last-known-good'] as const) {
    const d = decodeMetaState(snap.meta[n]);
    if (d.state === 'source' && d.source.uid === uid && !d.unsafe.length && d.source.namespace && d.source.name) {
      if (!known || d.source.resourceVersion === rv) [known, knownFrom] = [d.source, n];
    }
  }
  // Else the journal ("Kubelet restarting to use <apiPath>, UID: …" and other lines).
  const learned = known ? null : opts.journal?.get(uid) ?? null;
  if (learned) known = { namespace: learned.namespace, name: learned.name, uid, resourceVersion: rv, kubeletConfigKey: learned.key ?? '' };
  const from = knownFrom ? `meta/${knownFrom}` : 'the journal';
  if (known && flag && (flag.namespace !== known.namespace || flag.name !== known.name)) {
    throw new UsageError(
      `--configmap ${opts.configmap} contradicts ${from}: UID ${uid} is ConfigMap ${known.namespace}/${known.name}`,
      'drop --configmap (the name is known), or check the UID',
      'BAD_CONFIGMAP',
    );
  }
  const names = known ?? (flag ? { namespace: flag.namespace, name: flag.name, kubeletConfigKey: flag.key ?? 'kubelet' } : null);
  if (!names) {
    throw new UsageError(
      `--to ${ref}: no meta file${opts.journal ? ' and no journal line' : ''} names UID ${uid}, so the namespace and name of its ConfigMap are unknown (a checkpoint directory does not record them)`,
      `give them with --configmap NAMESPACE/NAME[:KEY] (KEY defaults to kubelet)${opts.journal ? '' : ', or let the journal name them (--journal auto|FILE)'}`,
      'NEEDS_CONFIGMAP',
    );
  }
  const key = flag?.key ?? (names.kubeletConfigKey || (cp && payloadKey(cp, null)) || 'kubelet');
  return { kind: 'source', ref, source: { namespace: names.namespace, name: names.name, uid, resourceVersion: rv, kubeletConfigKey: key }, checkpoint: cp };
}

/**
 * `UID/RV` naming a resourceVersion that is not on disk: a UID directory the UID (or a unique
 * prefix of it, as refs take one) names, without that RV, or a whole UID with no
 * directory at all. Null when the ref is anything else (resolveRef then decides).
 */
function absentTarget(snap: Session['snap'], ref: string): { uid: string; rv: string } | null {
  const m = /^([^/]+)\/([^/]+)$/.exec(ref);
  if (!m || unsafeNameReason(m[1]!) || unsafeNameReason(m[2]!)) return null;
  const [, u, rv] = m as unknown as [string, string, string];
  const dirs = uidsWithPrefix(snap, u);
  if (dirs.length === 1) return !unlistable(snap, dirs[0]!.uid) && !dirs[0]!.checkpoints.some((c) => c.rv === rv) ? { uid: dirs[0]!.uid, rv } : null;
  return dirs.length === 0 && u.length === 36 && !unlistable(snap, u) ? { uid: u, rv } : null;
}

/** Why the kubelet could not use the target (each overridable with --force). */
export function targetProblems(s: Session, t: Target): string[] {
  if (t.kind === 'local') {
    const j = s.local.judgement;
    if (s.local.path && j && j.stage !== 'ok') return [`the local config ${s.local.path} fails: ${j.error ?? j.stage}: the kubelet would not start on it`];
    if (s.local.path && j?.exitsOnceAdopted) return [`the local config ${s.local.path} is valid, but ${j.exitsOnceAdopted.because}: the kubelet exits once it runs it (${j.exitsOnceAdopted.error})`];
    return [];
  }
  const src = t.source;
  const ref = `${src.uid}/${src.resourceVersion}`;
  const cp = t.checkpoint;
  if (!cp) {
    // Not found because it could not be looked for: an environment error, not a missing target.
    const why = unlistable(s.snap, src.uid);
    if (why) throw unlistableError(why);
    return [`checkpoint ${ref} is not on disk`];
  }
  if (cp.entry.kind !== 'dir') return [`checkpoint ${ref} is not a directory (${cp.entry.kind})`];
  const out: string[] = [];
  if (!cp.files.some((f) => f.name === src.kubeletConfigKey)) {
    out.push(`checkpoint ${ref} has no file "${src.kubeletConfigKey}" (it has ${cp.files.map((f) => JSON.stringify(f.name)).join(', ') || 'no files'})`);
  }
  const report = verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version, only: new Set([ref]) });
  for (const f of report.findings) if (f.severity === 'error' && f.ref === ref) out.push(`${f.code}: ${f.message}`);
  // verify judged the key a meta file names for this UID; judge ours when it is another.
  const judged = payloadKey(cp, [...META_NAMES].map((n) => decodeMetaState(s.snap.meta[n])).find((d): d is Extract<MetaDecode, { state: 'source' }> => d.state === 'source' && d.source.uid === cp.uid)?.source ?? null);
  if (cp.files.some((f) => f.name === src.kubeletConfigKey)) {
    const r = s.reader.read(cp, src.kubeletConfigKey);
    if (!r.ok) {
      if (judged !== src.kubeletConfigKey) out.push(`${cp.rel}/${src.kubeletConfigKey} cannot be read: ${r.error}`);
    } else {
      const j = s.judge(r.bytes, `${s.snap.storeDir}/${cp.rel}/${src.kubeletConfigKey}`);
      if (j.stage !== 'ok' && judged !== src.kubeletConfigKey) out.push(`${cp.rel}/${src.kubeletConfigKey} fails: ${j.error ?? j.stage}`);
      // Valid, yet the kubelet dies on it once adopted (found by review: rollback wrote such a last-known-good without --force).
      if (j.stage === 'ok' && j.exitsOnceAdopted) out.push(`${cp.rel}/${src.kubeletConfigKey} is valid, but ${j.exitsOnceAdopted.because}: the kubelet exits once it adopts it (${j.exitsOnceAdopted.error})`);
    }
  }
  return out;
}

/** resolveTarget, with the journal's names when asked for (--journal) and the ref is a checkpoint. */
async function resolveWithJournal(ctx: RecoveryContext, ref: string, configmap: string | null): Promise<Target> {
  const alias = ['local', 'assigned', 'last-known-good', 'lkg'].includes(ref);
  const journal = ctx.journalNames && !alias ? await ctx.journalNames() : null;
  return resolveTarget(ctx.session, ref, { configmap, journal });
}

export function targetBytes(t: Target): Buffer {
  return t.kind === 'local' ? encodeEmptyMeta() : encodeMeta(t.source);
}

function targetRefusal(s: Session, t: Target, o: Overrides, warnings: string[], refusals: CkptError[]): void {
  const problems = targetProblems(s, t);
  if (!problems.length) return;
  const what = t.kind === 'local' ? 'local' : `${t.source.uid}/${t.source.resourceVersion}`;
  if (o.force) {
    warnings.push(`the target ${what} fails verify; writing anyway (--force): ${problems.join('; ')}`);
    return;
  }
  refusals.push(new RefusedError(`the target ${what} fails verify: ${problems.join('; ')}`, 'pick another target (kubelet-ckpt ls, verify), or pass --force to write it anyway', 'TARGET_FAILS'));
}

function planOf(ctx: RecoveryContext, command: MetaPlan['command'], states: Record<MetaName, FileState>, after: Partial<Record<MetaName, Buffer | null>>, o: Overrides): MetaPlan {
  const snap = ctx.session.snap;
  const writes: MetaWrite[] = [];
  for (const name of ['last-known-good', 'assigned'] as const) {
    if (!(name in after)) continue;
    const bytes = after[name]!;
    if (sameBytes(states[name], bytes)) continue;
    writes.push({ name, rel: metaRel(name), before: states[name], after: bytes });
  }
  return { kind: 'meta', command, commandLine: ctx.commandLine, store: snap.storeDir, dynamicConfigDir: snap.dynamicConfigDir, states, writes, warnings: [], refusals: [], overrides: o, restore: null };
}

// ---- reset ----------------------------------------------------------------------------------

export type ResetWhich = 'assigned' | 'last-known-good' | 'all';

export interface ResetRequest extends Overrides {
  which: ResetWhich;
  /** --to; `local` when absent. */
  to?: string | null;
  configmap?: string | null;
}

export async function planReset(ctx: RecoveryContext, req: ResetRequest): Promise<MetaPlan> {
  const s = ctx.session;
  const which: ResetWhich = req.which;
  const target = await resolveWithJournal(ctx, req.to ?? 'local', req.configmap ?? null);
  const bytes = targetBytes(target);
  const states = readMetaStates(s.snap.storeDir);
  const after: Partial<Record<MetaName, Buffer>> = {};
  if (which === 'all' || which === 'last-known-good') after['last-known-good'] = bytes;
  if (which === 'all' || which === 'assigned') after.assigned = bytes;
  const plan = planOf(ctx, 'reset', states, after, req);
  if (!plan.writes.length) return nothingToWrite(ctx, plan);
  const env = await environment(ctx, req, { api: true });
  plan.refusals.push(...env.refusals);
  targetRefusal(s, target, req, plan.warnings, plan.refusals);
  plan.warnings.push(...env.warnings);
  untouchedMetaRefusal(s, which, req, plan.warnings, plan.refusals);
  if (which === 'last-known-good') {
    const assigned = contentOf(states.assigned);
    const trial = trialOf(s.snap);
    if (assigned.kind === 'source' && trial && !trial.inTrial && !bytes.equals(encodeSafe(assigned.source))) {
      plan.warnings.push(`meta/assigned (${describeContent(assigned)}) is past its 10-minute trial: a running kubelet promotes it back to last-known-good within seconds; use reset all to change both`);
    }
  }
  return withWriteBlocks(plan);
}

/**
 * The kubelet decodes both meta files before it starts and stops on either one it cannot
 * decode (reference/kubelet-behaviour.md): resetting one of them while the other stays
 * undecodable leaves a kubelet that will not start. Refused (exit 4) unless --force.
 */
function untouchedMetaRefusal(s: Session, which: ResetWhich, o: Overrides, warnings: string[], refusals: CkptError[]): void {
  if (which === 'all') return;
  const other: MetaName = which === 'assigned' ? 'last-known-good' : 'assigned';
  const d = decodeMetaState(s.snap.meta[other], s.judgeOptions.version);
  if (d.state !== 'error' && d.state !== 'unreadable') return;
  const msg = `meta/${other} cannot be ${d.state === 'unreadable' ? 'read' : 'decoded'} (${d.error}) and reset ${which} leaves it as it is: the kubelet stops at start-up on it whatever meta/${which} says`;
  if (o.force) warnings.push(`${msg}; writing anyway (--force)`);
  else refusals.push(new RefusedError(msg, `replace both with kubelet-ckpt reset all (the same --to), or pass --force to write only meta/${which}`, 'OTHER_META_UNDECODABLE'));
}

function encodeSafe(src: ConfigMapSource): Buffer {
  try {
    return encodeMeta(src);
  } catch {
    return Buffer.alloc(0);
  }
}

// ---- rollback -------------------------------------------------------------------------------

export async function planRollback(ctx: RecoveryContext, o: Overrides): Promise<MetaPlan> {
  const s = ctx.session;
  const target = resolveTarget(s, 'last-known-good', { via: 'rollback' });
  const states = readMetaStates(s.snap.storeDir);
  const plan = planOf(ctx, 'rollback', states, { assigned: targetBytes(target) }, o);
  if (!plan.writes.length) return nothingToWrite(ctx, plan);
  const env = await environment(ctx, o, { api: true });
  plan.refusals.push(...env.refusals);
  targetRefusal(s, target, o, plan.warnings, plan.refusals);
  plan.warnings.push(...env.warnings);
  return withWriteBlocks(plan);
}

// ---- undo -----------------------------------------------------------------------------------

export interface UndoRequest extends Overrides {
  /** Backup id; the latest when null. */
  id: string | null;
}

export async function planUndo(ctx: RecoveryContext, req: UndoRequest): Promise<MetaPlan> {
  const s = ctx.session;
  const b = loadBackup(s.snap.dynamicConfigDir, req.id, s.snap.storeDir);
  const states = readMetaStates(s.snap.storeDir);
  const after: Partial<Record<MetaName, Buffer | null>> = {};
  const changed: string[] = [];
  for (const f of b.manifest.files) {
    const old = b.states[f.name];
    if (!old) continue;
    after[f.name] = old.kind === 'file' ? old.bytes : null;
    // Since the backup, the file should hold what that command wrote (or, if it was
    // interrupted before reaching this file, what it held before).
    const now = hashOf(states[f.name]);
    const wrote = b.manifest.after?.[f.name];
    const allowed = new Set<string | null>([f.sha256]);
    if (wrote !== undefined) allowed.add(wrote);
    if (!allowed.has(now)) changed.push(`meta/${f.name} (now ${describeContent(contentOf(states[f.name]))})`);
  }
  const plan = planOf(ctx, 'undo', states, after, req);
  plan.restore = { id: b.manifest.id, path: b.path };
  // A backup named by its id that another store in this directory made: its files are not this store's.
  otherStoreCheck(b.manifest, s.snap.storeDir, req.force, 'restoring', plan.warnings, plan.refusals);
  const gone: string[] = [];
  for (const w of plan.writes) {
    const old = b.states[w.name];
    if (old?.kind !== 'file') continue;
    // The owner and mode the file had, also when it still exists with others (a chmod since).
    w.owner = { mode: old.mode, uid: old.uid, gid: old.gid };
    w.mtimeMs = old.mtimeMs ?? null;
    // A checkpoint prune removed since the backup: the kubelet would fail to load it.
    const c = contentOf(old);
    if (c.kind === 'source' && !s.snap.uids.find((u) => u.uid === c.source.uid)?.checkpoints.some((cp) => cp.rv === c.source.resourceVersion)) {
      gone.push(`meta/${w.name} would name ${c.source.uid}/${c.source.resourceVersion}`);
    }
  }
  if (gone.length) {
    const msg = `backup ${b.manifest.id} names checkpoints no longer on disk: ${gone.join(', ')} (removed since, e.g. by prune); the kubelet could not load them`;
    if (req.force) plan.warnings.push(`${msg}; restoring anyway (--force)`);
    else plan.refusals.push(new RefusedError(msg, 'pick another backup (kubelet-ckpt undo --list), or pass --force to restore it anyway', 'CHECKPOINT_GONE'));
  }
  if (changed.length) {
    const msg = `the meta files changed since backup ${b.manifest.id} (${b.manifest.command}): ${changed.join(', ')}; the kubelet may have written them`;
    if (req.force) plan.warnings.push(`${msg}; restoring anyway (--force)`);
    else plan.refusals.push(new RefusedError(msg, 'look at `kubelet-ckpt status`; pass --force to restore the backup anyway', 'CHANGED_SINCE_BACKUP'));
  }
  if (!plan.writes.length) return nothingToWrite(ctx, plan);
  const env = await environment(ctx, req, { api: true });
  plan.refusals.push(...env.refusals);
  plan.warnings.push(...env.warnings);
  return withWriteBlocks(plan);
}

/** The digest a change reports for one side. */
export function digest(b: Buffer | null): string | null {
  return b === null ? null : sha256Hex(b);
}
