// `verify`: every integrity check of DESIGN.md's table over a snapshot. Pure apart from
// the payload reader: checkpoints are read one at a time, so memory stays flat on a
// 10,000-checkpoint store, and nothing outside the store is ever opened.

import { isUtf8 } from 'node:buffer';
import { decodeMetaState, type MetaDecode } from '../store/meta.js';
import type { KubeletVersion } from '../config/version.js';
import { metaSourcesOf, payloadKey, type MetaSources } from '../store/refs.js';
import { unsafeNameReason } from '../store/safepath.js';
import { isUndecodableWhy, PAYLOAD_CAP, type Checkpoint, type Entry, type PayloadReader, type Snapshot } from '../store/snapshot.js';
import { META_NAMES, type MetaName } from '../store/types.js';
import { bySeverity, type Finding, type Severity } from './findings.js';
import { checkCheckpointHash } from './hash.js';
import type { ConfigJudge, Judgement } from './judge.js';
import { describeFailure } from '../config/validate.js';
import { predictNextBoot, type LocalConfig, type NextBoot } from './nextboot.js';
import type { NextStep } from './next-steps.js';

export interface VerifyOptions {
  reader: PayloadReader;
  judge: ConfigJudge;
  local: LocalConfig;
  /** The release whose words a meta file's decode error is given in (default 1.23). */
  version?: KubeletVersion;
  /** Limit the checkpoint checks to these `UID/RV`s (meta checks always run). */
  only?: Set<string>;
  /** ConfigMap names learned elsewhere (journal) for UIDs no meta file names. */
  knownNames?: Map<string, string>;
  /**
   * `all` (verify): decode and validate every checkpoint's payload. `referenced`
   * (status): only the checkpoints the meta files name, which decide the next boot;
   * structure, permissions and sizes are still checked everywhere.
   */
  payloads?: 'all' | 'referenced';
}

export interface VerifyReport {
  ok: boolean;
  findings: Finding[];
  /** What was judged when refs were given (as given: `assigned`, `./new.yaml`, `-`); absent for the whole store. */
  checked?: string[];
  /** The next boot as predicted over the store (absent when only files were judged). */
  nextBoot?: Pick<NextBoot, 'source' | 'willStart' | 'statusError'>;
  /** The commands to run about what was found (added by the command, which knows its options). */
  nextSteps?: NextStep[];
}

const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]+$/;
const f = (severity: Severity, code: string, message: string, path: string | null, ref: string | null): Finding => ({ severity, code, message, path, ref });

/** Why a file name could not have been written by the kubelet from a ConfigMap key. */
function badKeyName(name: string): string | null {
  const unsafe = unsafeNameReason(name);
  if (unsafe) return unsafe;
  if (name.length > 253) return 'is longer than a ConfigMap key may be (253)';
  if (!CONFIGMAP_KEY.test(name)) return 'has characters a ConfigMap key may not contain';
  // IsConfigMapKey: `..data` and the like are the atomic writer's, never a key.
  if (name.startsWith('..')) return "starts with '..', which a ConfigMap key may not";
  return null;
}

function entryKindText(e: Entry): string {
  return e.kind === 'dir' ? 'a directory' : e.kind === 'file' ? 'a regular file' : e.kind === 'symlink' ? `a symbolic link to ${e.linkTarget ?? '?'}` : e.kind === 'unreadable' ? 'unreadable' : 'a special file';
}

// ---- meta files --------------------------------------------------------------------------

function metaFindings(snap: Snapshot, name: MetaName, d: MetaDecode): Finding[] {
  const m = snap.meta[name];
  const path = m.entry.rel;
  const out: Finding[] = [];
  if (m.entry.kind === 'symlink' || m.entry.kind === 'dir' || m.entry.kind === 'other') {
    out.push(f('error', 'META_NOT_REGULAR', `meta/${name} is ${entryKindText(m.entry)}; the kubelet writes a regular file here`, path, name));
  }
  if (d.state === 'unreadable' && m.entry.kind !== 'dir' && m.entry.kind !== 'other' && !(m.entry.kind === 'symlink')) {
    out.push(f('error', 'UNREADABLE', `meta/${name} cannot be read: ${d.error}`, path, name));
  }
  if (d.state === 'error') out.push(f('error', 'META_DECODE', `meta/${name} is not a decodable SerializedNodeConfigSource: ${d.error}`, path, name));
  if (d.state === 'source') {
    if (d.incomplete.length) {
      out.push(f('error', 'META_INCOMPLETE', `meta/${name} has empty ${d.incomplete.join(', ')}`, path, name));
    }
    for (const u of d.unsafe) {
      out.push(f('error', 'UNSAFE_REF', `meta/${name} ${u.field} ${JSON.stringify(d.source[u.field]).slice(0, 80)} ${u.reason}: never joined into a path`, path, name));
    }
  }
  return out;
}

/** What is at checkpoints/UID/RV when no checkpoint is: something else in its place (a regular file; found by review: "not on disk"), or nothing. */
function notACheckpoint(snap: Snapshot, uid: string, rv: string): string {
  const other = snap.uids.find((x) => x.uid === uid)?.others.find((o) => o.name === rv);
  return other ? `is ${entryKindText(other)}, not a checkpoint directory` : 'is not on disk';
}

function referencedFindings(snap: Snapshot, name: MetaName, d: MetaDecode): Finding[] {
  if (d.state !== 'source' || d.unsafe.length || !d.source.uid || !d.source.resourceVersion) return [];
  const s = d.source;
  const u = snap.uids.find((x) => x.uid === s.uid);
  const cp = u?.checkpoints.find((c) => c.rv === s.resourceVersion);
  const ref = `${s.uid}/${s.resourceVersion}`;
  if (!cp) {
    if (snap.checkpointsDir.kind === 'unreadable' || u?.listError) return [];
    // A UID directory that is a symbolic link is CHECKPOINT_ENTRY's; the kubelet follows it to
    // whatever is there, so "not on disk" would be a guess (found by review).
    if (!u && snap.checkpointsOthers.some((o) => o.name === s.uid && o.kind === 'symlink')) return [];
    return [f('error', 'CHECKPOINT_MISSING', `meta/${name} names checkpoint ${ref}, which ${notACheckpoint(snap, s.uid, s.resourceVersion)}`, `checkpoints/${ref}`, name)];
  }
  // A directory that could not be listed (UNREADABLE says so) is not one without files.
  if (cp.entry.kind !== 'dir' || !s.kubeletConfigKey || cp.listError) return [];
  if (!cp.files.some((x) => x.name === s.kubeletConfigKey)) {
    const other = cp.others.find((o) => o.name === s.kubeletConfigKey);
    return [f('error', 'PAYLOAD_KEY_MISSING', `checkpoint ${ref} has no file "${s.kubeletConfigKey}" (meta/${name}'s kubeletConfigKey)${other ? `: it is ${entryKindText(other)}` : `; it has ${cp.files.map((x) => JSON.stringify(x.name)).join(', ') || 'no files'}`}`, `${cp.rel}/${s.kubeletConfigKey}`, name)];
  }
  return [];
}

// ---- structure ---------------------------------------------------------------------------

function tmpFinding(e: Entry, where: string): Finding {
  // No interrupted write leaves a link or a special file: clean leaves those alone.
  if (e.kind === 'symlink' || e.kind === 'other') return f('warning', 'TMP_LEFTOVER', `${e.rel} is ${entryKindText(e)} named like a leftover of an interrupted write ${where}, which no write leaves; clean leaves it alone: inspect it and remove it by hand`, e.rel, null);
  return f('warning', 'TMP_LEFTOVER', `${e.rel} is left over from an interrupted write${e.name.includes('kubelet-ckpt') ? ' by kubelet-ckpt' : ' (by the kubelet)'} ${where}; safe to remove once no kubelet is writing`, e.rel, null);
}

function unreadable(e: Entry): Finding {
  return f('error', 'UNREADABLE', `${e.rel} cannot be read: ${e.error ?? 'unknown error'}`, e.rel, null);
}

/** An entry the kubelet does not make where it is: unreadable, or its kind and why it is not read (a name that is not text), or the `rule` it breaks. */
function oddEntry(e: Entry, rule: string, ref: string | null): Finding {
  if (e.kind === 'unreadable') return unreadable(e);
  return f('error', 'CHECKPOINT_ENTRY', `${e.rel} is ${entryKindText(e)}${e.error ? `, and ${e.error}` : `; ${rule}`}`, e.rel, ref);
}

/**
 * What lies around the checkpoints: meta/'s leftovers, checkpoints/' odd entries, each UID
 * directory's. With refs (`only`), the UID directories of other UIDs and checkpoints/' odd
 * entries are not theirs (found by review: `verify assigned` exited 1 on another UID's leftovers).
 */
function structureFindings(snap: Snapshot, scope: Scope | null): Finding[] {
  const out: Finding[] = [];
  for (const e of snap.metaOthers) {
    if (e.name.startsWith('tmp_')) out.push(tmpFinding(e, 'in meta/'));
    else if (e.kind === 'unreadable') out.push(unreadable(e));
  }
  if (snap.checkpointsDir.kind === 'unreadable') out.push(f('error', 'UNREADABLE', `checkpoints/ cannot be read: ${snap.checkpointsDir.error}`, 'checkpoints', null));
  for (const e of snap.checkpointsOthers) {
    if (!scope || scope.refs.has(e.name) || scope.meta.has(e.name)) out.push(oddEntry(e, 'the kubelet only creates UID directories here', null));
  }
  for (const u of snap.uids) {
    if (scope && !scope.refs.has(u.uid)) {
      // A meta file's UID directory that cannot be listed: the checkpoint it names cannot be checked (found by review).
      if (scope.meta.has(u.uid) && u.listError) out.push(f('error', 'UNREADABLE', `${u.entry.rel} cannot be read: ${u.listError}`, u.entry.rel, null));
      continue;
    }
    if (u.listError) out.push(f('error', 'UNREADABLE', `${u.entry.rel} cannot be read: ${u.listError}`, u.entry.rel, null));
    const why = unsafeNameReason(u.uid);
    if (why) out.push(f('error', 'CHECKPOINT_ENTRY', `UID directory name ${why}`, u.entry.rel, null));
    for (const e of u.others) {
      if (e.name.startsWith('tmp_')) out.push(tmpFinding(e, `in ${u.entry.rel}/`));
      else if (e.kind === 'unreadable') out.push(unreadable(e));
      else out.push(f('error', 'CHECKPOINT_ENTRY', `${e.rel} is ${entryKindText(e)}; the kubelet only creates resourceVersion directories here`, e.rel, null));
    }
  }
  return out;
}

/**
 * kubelet-ckpt's own state directory: a link or special file where a directory or regular
 * file belongs makes every recovery command refuse (exit 3).
 */
function stateFindings(snap: Snapshot): Finding[] {
  const out: Finding[] = [];
  for (const e of snap.stateEntries ?? []) {
    const inBackups = e.rel.startsWith('../.kubelet-ckpt/backups/');
    const wantDir = e.name === '.kubelet-ckpt' || (e.name === 'backups' && !inBackups) || (inBackups && /^[0-9]{8}T/.test(e.name));
    const wantFile = e.name === 'lock' || e.name === 'audit.log';
    // tmp_ entries there are kubelet-ckpt's own; the next recovery command removes them and says so.
    if (e.name.startsWith('tmp_')) continue;
    if ((wantDir && e.kind !== 'dir') || (wantFile && e.kind !== 'file')) {
      out.push(f('error', 'STATE_UNSAFE', `${e.rel} is ${entryKindText(e)}; kubelet-ckpt keeps only real directories and regular files there, so recovery commands refuse (exit 3)`, e.rel, null));
    }
  }
  return out;
}

function checkpointEntryFindings(cp: Checkpoint, ref: string): Finding[] {
  const out: Finding[] = [];
  if (cp.entry.kind === 'symlink') {
    out.push(f('error', 'CHECKPOINT_ENTRY', `${cp.rel} is a symbolic link to ${cp.entry.linkTarget ?? '?'}; the kubelet writes a directory here (not followed)`, cp.rel, ref));
    return out;
  }
  // A name that is not text is not read, not unreadable: CHECKPOINT_ENTRY, as for a UID (found by review).
  if (cp.listError && isUndecodableWhy(cp.listError)) out.push(f('error', 'CHECKPOINT_ENTRY', `${cp.rel} is ${entryKindText(cp.entry)}, and ${cp.listError}`, cp.rel, ref));
  else if (cp.listError) out.push(f('error', 'UNREADABLE', `${cp.rel} cannot be read: ${cp.listError}`, cp.rel, ref));
  for (const e of cp.others) {
    out.push(oddEntry(e, `a checkpoint holds only regular files${e.kind === 'symlink' ? ' (not followed)' : ''}`, ref));
  }
  for (const file of cp.files) {
    const why = badKeyName(file.name);
    if (why) out.push(f('error', 'CHECKPOINT_ENTRY', `${file.rel}: the file name ${why}, so the kubelet cannot have written it from a ConfigMap`, file.rel, ref));
    if (file.size > PAYLOAD_CAP) {
      out.push(f('error', 'PAYLOAD_TOO_LARGE', `${file.rel} is ${file.size} bytes, over the 1 MiB ConfigMap limit: it cannot have come from a ConfigMap (read no further than 1 MiB)`, file.rel, ref));
    }
  }
  return out;
}

// ---- permissions ---------------------------------------------------------------------------

function permissionFinding(e: Entry, euid: number, ref: string | null): Finding | null {
  if (e.kind === 'missing' || e.kind === 'unreadable' || e.kind === 'symlink') return null;
  const problems: string[] = [];
  if (e.mode & 0o022) problems.push(`is writable by ${e.mode & 0o020 ? 'group' : ''}${(e.mode & 0o022) === 0o022 ? ' and ' : ''}${e.mode & 0o002 ? 'others' : ''} (mode ${(e.mode & 0o7777).toString(8).padStart(4, '0')})`);
  if (euid === 0 && e.uid !== 0) problems.push(`is owned by uid ${e.uid}, not root`);
  if (!problems.length) return null;
  return f('error', 'PERMISSIONS', `${e.rel || 'the store'} ${problems.join(' and ')}: whoever can write it decides the kubelet's configuration`, e.rel || '.', ref);
}

/** The UIDs a verify with refs looks into (null: the whole store): the refs' whole; the meta files' for what stands in their directory's place. */
interface Scope {
  refs: Set<string>;
  meta: Set<string>;
}

/**
 * A verify with refs checks their UID directories whole, and of the UIDs the meta files name
 * (the meta files are always checked) only a link or unreadable directory in their place (found
 * by reviews: `verify assigned` said ok with assigned's UID directory a link, and then failed on
 * leftovers in a meta file's UID directory that are no ref's).
 */
function scopeOf(only: ReadonlySet<string> | undefined, decoded: Readonly<Record<MetaName, MetaDecode>>): Scope | null {
  if (!only) return null;
  const scope: Scope = { refs: new Set(), meta: new Set() };
  for (const r of only) scope.refs.add(r.slice(0, r.lastIndexOf('/')));
  for (const n of META_NAMES) {
    const d = decoded[n];
    if (d.state === 'source' && d.source.uid) scope.meta.add(d.source.uid);
  }
  return scope;
}

function permissionFindings(snap: Snapshot, only: Set<string> | undefined, scope: Scope | null): Finding[] {
  const out: (Finding | null)[] = [];
  const check = (e: Entry, ref: string | null = null) => out.push(permissionFinding(e, snap.euid, ref));
  check(snap.store);
  check(snap.metaDir);
  check(snap.checkpointsDir);
  for (const n of META_NAMES) check(snap.meta[n].entry, n);
  for (const u of snap.uids) {
    if (scope && !scope.refs.has(u.uid)) continue;
    check(u.entry);
    for (const cp of u.checkpoints) {
      const ref = `${cp.uid}/${cp.rv}`;
      if (only && !only.has(ref)) continue;
      check(cp.entry, ref);
      for (const file of cp.files) check(file, ref);
    }
  }
  return out.filter((x): x is Finding => x !== null);
}

// ---- payloads ------------------------------------------------------------------------------

export function judgementFindings(j: Judgement, path: string, ref: string): Finding[] {
  const out: Finding[] = [];
  if (j.stage === 'load-error') out.push(f('error', 'PAYLOAD_DECODE', `the kubelet cannot load this config ("failed to load config"): ${j.error}`, path, ref));
  if (j.stage === 'validate-error') {
    // The kubelet's text for each rule, with the JSON path(s) where its text has Go or flag names.
    const fields = j.failures?.length ? j.failures.map((x) => describeFailure({ fields: x.fields ?? [x.field], message: x.message })).join('; ') : j.error;
    out.push(f('error', 'PAYLOAD_INVALID', `the kubelet rejects this config ("failed to validate config"): ${fields}`, path, ref));
  }
  if (j.stage === 'internal-error') {
    const flag = j.failures?.[0];
    const text = flag ? describeFailure({ fields: flag.fields ?? [flag.field], message: flag.message }) : j.error;
    out.push(f('error', 'PAYLOAD_INVALID', `the kubelet cannot apply its command-line flags over this config ("internal failure"): ${text}`, path, ref));
  }
  for (const s of j.strict ?? []) out.push(f('warning', 'PAYLOAD_STRICT', `${s.message} (the kubelet decodes leniently and only warns)`, path, ref));
  for (const r of j.relativePaths ?? []) {
    out.push(f('warning', 'PAYLOAD_RELATIVE_PATH', `${r.field} is the relative path ${JSON.stringify(r.value)}: the kubelet resolves it against the checkpoint directory, ${path.replace(/\/[^/]*$/, '/')}`, path, ref));
  }
  for (const o of j.overrides ?? []) {
    out.push(f('info', 'FLAG_OVERRIDE', `${o.path} is ${JSON.stringify(o.payloadValue)} here, but the kubelet's --${o.flag} flag sets ${JSON.stringify(o.value)}: the flag wins`, path, ref));
  }
  return out;
}

interface PayloadContext {
  snap: Snapshot;
  opts: VerifyOptions;
  sources: MetaSources;
}

function hashFindings(cp: Checkpoint, name: string, ref: string, ctx: PayloadContext): Finding[] {
  const files: { name: string; bytes: Buffer }[] = [];
  for (const file of cp.files) {
    if (file.size > PAYLOAD_CAP) return [];
    const r = ctx.opts.reader.read(cp, file.name);
    if (!r.ok || r.truncated) return [];
    files.push({ name: file.name, bytes: r.bytes });
  }
  const h = checkCheckpointHash(name, files);
  if (!h.applies || h.ok) return [];
  if (h.notUtf8.length) return [];
  return [
    f(
      'error',
      'HASH_MISMATCH',
      `the ConfigMap name ${name} carries kubectl's --append-hash suffix ${h.actual}, but the checkpoint's files hash to ${h.expected}: the files are not what kubectl hashed. Innocent causes: the ConfigMap was edited in place after creation, was not made with --append-hash, or had binaryData; serious ones: a torn or tampered checkpoint`,
      cp.rel,
      ref,
    ),
  ];
}

/**
 * A checkpoint's files (read, checked for UTF-8 and the hash) and the verdict on its payload.
 * `lkgKey`: last-known-good names this checkpoint under that key; where assigned names it under
 * another (the key judged), that file is judged too (found by review: a broken last-known-good
 * there went unreported), and `lkgJudgement` is its verdict.
 */
function payloadFindings(cp: Checkpoint, ref: string, ctx: PayloadContext, lkgKey: string | null): { findings: Finding[]; judgement: Judgement | null; lkgJudgement: Judgement | null } {
  const out: Finding[] = [];
  if (cp.entry.kind !== 'dir') return { findings: out, judgement: null, lkgJudgement: null };
  const meta = ctx.sources.of(cp);
  const read = new Map<string, Buffer>();
  for (const file of cp.files) {
    if (file.size > PAYLOAD_CAP) continue;
    const r = ctx.opts.reader.read(cp, file.name);
    if (!r.ok) {
      out.push(f('error', 'UNREADABLE', `${file.rel} cannot be read: ${r.error}`, file.rel, ref));
      continue;
    }
    if (!r.truncated) read.set(file.name, r.bytes);
    if (!isUtf8(r.bytes)) out.push(f('warning', 'PAYLOAD_NOT_UTF8', `${file.rel} is not valid UTF-8, so it cannot have come from a ConfigMap's data (the hash check is skipped)`, file.rel, ref));
  }
  const name = ctx.sources.configMapOf(cp)?.name ?? ctx.opts.knownNames?.get(cp.uid);
  if (name) out.push(...hashFindings(cp, name, ref, ctx));
  const key = payloadKey(cp, meta?.source ?? null);
  if (!key) return { findings: out, judgement: null, lkgJudgement: null };
  /** The verdict on the file `k` from the bytes read above (null: not there, over the cap, not read). */
  const judged = (k: string): Judgement | null => {
    const file = cp.files.find((x) => x.name === k);
    const bytes = read.get(k);
    if (!file || file.size > PAYLOAD_CAP || !bytes) return null;
    const j = ctx.opts.judge(bytes, `${ctx.snap.storeDir}/${cp.rel}/${k}`);
    out.push(...judgementFindings(j, file.rel, ref));
    return j;
  };
  const j = judged(key);
  return { findings: out, judgement: j, lkgJudgement: lkgKey && lkgKey !== key ? judged(lkgKey) : j };
}

// ---- the whole store ---------------------------------------------------------------------

export function verifyStore(snap: Snapshot, opts: VerifyOptions): VerifyReport {
  const decoded = { assigned: decodeMetaState(snap.meta.assigned, opts.version), 'last-known-good': decodeMetaState(snap.meta['last-known-good'], opts.version) };
  const findings: Finding[] = [];
  for (const n of ['last-known-good', 'assigned'] as const) findings.push(...metaFindings(snap, n, decoded[n]), ...referencedFindings(snap, n, decoded[n]));
  const sources = metaSourcesOf(decoded);
  const scope = scopeOf(opts.only, decoded);
  findings.push(...structureFindings(snap, scope), ...stateFindings(snap), ...permissionFindings(snap, opts.only, scope));
  const ctx: PayloadContext = { snap, opts, sources };
  const lkg = decoded['last-known-good'];
  const lkgRef = lkg.state === 'source' ? `${lkg.source.uid}/${lkg.source.resourceVersion}` : null;
  const lkgKey = lkg.state === 'source' ? lkg.source.kubeletConfigKey : null;
  for (const u of snap.uids) {
    for (const cp of u.checkpoints) {
      const ref = `${cp.uid}/${cp.rv}`;
      // Last-known-good outside the refs is still judged for LKG_UNUSABLE: the meta files are
      // always checked, and "not on disk" already was (found by review: an invalid one was not).
      const lkgOnly = opts.only !== undefined && !opts.only.has(ref);
      if (lkgOnly && ref !== lkgRef) continue;
      if (!lkgOnly) findings.push(...checkpointEntryFindings(cp, ref));
      if (opts.payloads === 'referenced' && !sources.names(cp) && lkgRef !== ref) continue;
      const p = payloadFindings(cp, ref, ctx, ref === lkgRef ? lkgKey : null);
      if (!lkgOnly) findings.push(...p.findings);
      const lj = p.lkgJudgement;
      if (ref === lkgRef && lj && lj.stage !== 'ok') {
        findings.push(f('error', 'LKG_UNUSABLE', `last-known-good ${ref} would not ${lj.stage === 'load-error' ? 'load' : 'validate'}: if the assigned config fails, the kubelet will not start`, `${cp.rel}`, 'last-known-good'));
      } else if (ref === lkgRef && lkgKey && cp.entry.kind === 'dir' && !cp.listError && !cp.files.some((x) => x.name === lkgKey)) {
        // The kubelet cannot read the file its meta file names: a load error (PAYLOAD_KEY_MISSING says which).
        findings.push(f('error', 'LKG_UNUSABLE', `last-known-good ${ref} would not load (it has no file "${lkgKey}"): if the assigned config fails, the kubelet will not start`, `${cp.rel}`, 'last-known-good'));
      }
    }
  }
  if (lkg.state === 'source' && findings.some((x) => x.code === 'CHECKPOINT_MISSING' && x.ref === 'last-known-good')) {
    findings.push(f('error', 'LKG_UNUSABLE', `last-known-good ${lkgRef} ${notACheckpoint(snap, lkg.source.uid, lkg.source.resourceVersion)}: if the assigned config fails, the kubelet will not start`, `checkpoints/${lkgRef}`, 'last-known-good'));
  }
  const st = opts.local.startup;
  const nb = predictNextBoot(snap, { reader: opts.reader, judge: opts.judge, local: opts.local, version: opts.version });
  // The kubelet exits before it reads the store: the store's own outcome does not arise.
  if (st && !st.ok) findings.push(f('error', 'STARTUP_FAILS', `the kubelet will not start: ${nb.reason}`, null, null));
  else if (nb.willStart === false) findings.push(f('error', 'NEXT_BOOT_FAILS', `the kubelet will not start: ${nb.reason}`, null, 'assigned'));
  // Past its config bootstrap, then down at every start: as good as not starting for the node.
  else if (nb.exitsAfterBootstrap) findings.push(f('error', 'NEXT_BOOT_FAILS', `the kubelet gets past its config bootstrap, then exits at every start: ${nb.reason}`, null, 'assigned'));
  findings.sort(bySeverity);
  return { ok: !findings.some((x) => x.severity === 'error'), findings, nextBoot: { source: nb.source, willStart: nb.willStart, statusError: nb.statusError } };
}
