// Replays the kubelet's Bootstrap over a snapshot (reference/kubelet-behaviour.md):
// which config will the kubelet run at its next start, and why. Pure: the snapshot,
// a payload reader and a config judge in; a NextBoot out.

import { decodeMetaState, type MetaDecode } from '../store/meta.js';
import type { KubeletVersion } from '../config/version.js';
import type { AfterBootstrap } from '../config/after-bootstrap.js';
import { findCheckpoint, metaModifiedMs, type Entry, type PayloadReader, type Snapshot } from '../store/snapshot.js';
import fs from 'node:fs';
import { apiPathOf, toSourceRef, type ConfigMapSource, type MetaName, type SourceRef } from '../store/types.js';
import { statusErrorFor, type ConfigJudge, type Judgement } from './judge.js';
import { LOCAL_CONFIG_UNKNOWN, startupReason, type StartupCheck } from './startup.js';
import { goFileMode } from '../store/gomode.js';

export const TRIAL_MS = 10 * 60 * 1000;

export type BootSource = 'assigned' | 'last-known-good' | 'local' | 'none' | 'unknown';

/** What is known of the node's local --config file. */
export interface LocalConfig {
  /** Host path of the --config file, or null when the kubelet runs without one / none found. */
  path: string | null;
  /** The judgement of that file; null when not checked. */
  judgement: Judgement | null;
  /** The kubelet's start-up checks (flags, gates, this file); absent when not made. */
  startup?: StartupCheck | null;
  /** Why the kubelet does not read the store at all (discovery's storeUnused); then it runs this config. */
  storeUnused?: string | null;
}

export interface NextBoot {
  source: BootSource;
  ref: SourceRef | null;
  reason: string;
  statusError: string | null;
  willStart: boolean | null;
  promotesToLastKnownGood: boolean;
  /** Start-up checks that could not be made (the kubelet's command line is not known). */
  unchecked?: string[];
  /** What the kubelet would log about each config it tried (null when not tried / fine). */
  assignedError: string | null;
  lastKnownGoodError: string | null;
  /**
   * The config gets the kubelet past its config bootstrap (`willStart` is that, as the
   * kubelet's own start-up decides it), and the kubelet then exits with this error, at every
   * start: its gates turn DynamicKubeletConfig off, or InitializeTLS refuses its TLS names.
   * Null otherwise.
   */
  exitsAfterBootstrap: string | null;
}

export interface Trial {
  inTrial: boolean;
  endsAt: string;
}

/** The 10-minute trial clock, from the mtime of meta/assigned (AssignedModified: a Stat, which follows a link). */
export function trialOf(snap: Snapshot): Trial | null {
  const e = snap.meta.assigned.entry;
  if (e.kind !== 'file' && e.kind !== 'symlink') return null;
  const ends = metaModifiedMs(snap.meta.assigned) + TRIAL_MS;
  return { inTrial: snap.takenAt.getTime() <= ends, endsAt: new Date(ends).toISOString() };
}

type Tried =
  /** `exits`: the kubelet adopts it, then exits (Judgement.exitsOnceAdopted). */
  | { ok: true; source: ConfigMapSource; exits?: AfterBootstrap }
  | { ok: false; stage: 'load-error' | 'validate-error' | 'internal-error'; error: string }
  | { ok: 'unknown'; why: string };

function label(src: ConfigMapSource): string {
  return `${src.uid}/${src.resourceVersion}`;
}

/** Load and judge the checkpoint a decoded meta file names, as fsstore.Load would. */
function tryCheckpoint(snap: Snapshot, reader: PayloadReader, judge: ConfigJudge, m: Extract<MetaDecode, { state: 'source' }>, metaName: MetaName): Tried {
  const s = m.source;
  if (m.unsafe.length) {
    const u = m.unsafe[0]!;
    return { ok: 'unknown', why: `meta/${metaName} names ${u.field} ${JSON.stringify(s[u.field])}, which ${u.reason.replace(/^is /, 'is ')}: kubelet-ckpt will not use it as a path` };
  }
  if (!s.uid) return { ok: false, stage: 'load-error', error: `failed to determine whether checkpoint exists for source ${apiPathOf(s)}, UID: , ResourceVersion: ${s.resourceVersion} exists, error: empty UID is ambiguous` };
  if (!s.resourceVersion) return { ok: false, stage: 'load-error', error: `failed to determine whether checkpoint exists for source ${apiPathOf(s)}, UID: ${s.uid}, ResourceVersion:  exists, error: empty ResourceVersion is ambiguous` };
  const cp = findCheckpoint(snap, s.uid, s.resourceVersion);
  const dirRel = `checkpoints/${s.uid}/${s.resourceVersion}`;
  const dirAbs = `${snap.storeDir}/${dirRel}`;
  if (!cp) {
    const uidDir = snap.uids.find((u) => u.uid === s.uid);
    const blocked = snap.checkpointsDir.kind === 'unreadable' || uidDir?.listError;
    if (blocked) return { ok: 'unknown', why: `${dirRel} could not be listed (${blocked === true ? snap.checkpointsDir.error : blocked})` };
    const exists = `failed to determine whether checkpoint exists for source ${apiPathOf(s)}, UID: ${s.uid}, ResourceVersion: ${s.resourceVersion} exists, error:`;
    const other = uidDir?.others.find((o) => o.name === s.resourceVersion);
    if (other && other.kind === 'symlink') return { ok: 'unknown', why: `${dirRel} is a symbolic link, which kubelet-ckpt does not follow` };
    if (other) return { ok: false, stage: 'load-error', error: `${exists} expected dir at "${dirAbs}", but mode is "${goFileMode(other.type | other.mode)}"` };
    // The UID is a file: stat of UID/RV fails with ENOTDIR, which is not "does not exist".
    const uidFile = snap.checkpointsOthers.find((o) => o.name === s.uid);
    if (uidFile && uidFile.kind === 'symlink') return { ok: 'unknown', why: `checkpoints/${s.uid} is a symbolic link, which kubelet-ckpt does not follow` };
    if (uidFile) return { ok: false, stage: 'load-error', error: `${exists} stat ${dirAbs}: not a directory` };
    return { ok: false, stage: 'load-error', error: `no checkpoint for source ${apiPathOf(s)}, UID: ${s.uid}, ResourceVersion: ${s.resourceVersion}` };
  }
  if (cp.entry.kind === 'symlink') return { ok: 'unknown', why: `${dirRel} is a symbolic link, which kubelet-ckpt does not follow` };
  const file = `${dirAbs}/${s.kubeletConfigKey}`;
  // filepath.Join(dir, "") is dir itself.
  if (!s.kubeletConfigKey) return { ok: false, stage: 'load-error', error: `failed to read kubelet config file "${dirAbs}", error: read ${dirAbs}: is a directory` };
  const content = reader.read(cp, s.kubeletConfigKey);
  if (!content.ok) {
    if (content.code === 'missing') {
      return { ok: false, stage: 'load-error', error: `failed to read kubelet config file "${file}", error: open ${file}: no such file or directory` };
    }
    if (content.code === 'not-regular' && cp.others.some((o) => o.name === s.kubeletConfigKey && o.kind === 'dir')) {
      return { ok: false, stage: 'load-error', error: `failed to read kubelet config file "${file}", error: read ${file}: is a directory` };
    }
    return { ok: 'unknown', why: `${dirRel}/${s.kubeletConfigKey} was not read: ${content.error}` };
  }
  if (content.truncated) return { ok: 'unknown', why: `${dirRel}/${s.kubeletConfigKey} is larger than 1 MiB and was not parsed` };
  const j = judge(content.bytes, file);
  if (j.stage === 'ok') return j.exitsOnceAdopted ? { ok: true, source: s, exits: j.exitsOnceAdopted } : { ok: true, source: s };
  return { ok: false, stage: j.stage, error: j.error ?? j.stage };
}

function unreadableMeta(name: MetaName, d: Extract<MetaDecode, { state: 'unreadable' }>): { fails: boolean; why: string } {
  // A directory or a dangling link makes the kubelet's read fail; anything else it could
  // read and we will not (permissions, a link out of the store, a FIFO) leaves it unknown.
  const fails = d.code === 'not-regular' && !/not a regular/.test(d.error);
  return { fails: fails || (d.code === 'symlink' && /dangling/.test(d.error)), why: `meta/${name} ${d.error}` };
}

/** An entry there, neither a directory nor a symlink (which the kubelet would follow, and we do not). */
function neitherDirNorLink(e: Entry): boolean {
  const t = e.type & fs.constants.S_IFMT;
  return t !== 0 && t !== fs.constants.S_IFDIR && t !== fs.constants.S_IFLNK;
}

/**
 * fsStore.Initialize, before anything is read: EnsureDir on meta/, EnsureFile on meta/assigned
 * and meta/last-known-good, EnsureDir on checkpoints/. A file where a directory belongs, or a
 * directory, FIFO, socket or device where a meta file belongs (lstat shows it; a symlink is
 * judged by what it points to, elsewhere), stops Bootstrap with this error. A symlinked
 * checkpoints/ is followed by the kubelet, not by us: whether it fails there is unknown.
 */
function initializeError(snap: Snapshot): { name: string; error: string } | { unknown: string } | null {
  const expectedDir = (rel: string, e: Entry) => `expected dir at "${snap.storeDir}/${rel}", but mode is "${goFileMode(e.type | e.mode)}"`;
  if (neitherDirNorLink(snap.metaDir)) return { name: 'meta', error: expectedDir('meta', snap.metaDir) };
  for (const name of ['assigned', 'last-known-good'] as const) {
    const e = snap.meta[name].entry;
    if (e.kind === 'dir' || e.kind === 'other') return { name: `meta/${name}`, error: `expected regular file at "${snap.storeDir}/meta/${name}", but mode is "${goFileMode(e.type | e.mode)}"` };
  }
  const c = snap.checkpointsDir;
  if (neitherDirNorLink(c)) return { name: 'checkpoints', error: expectedDir('checkpoints', c) };
  if ((c.type & fs.constants.S_IFMT) === fs.constants.S_IFLNK) return { unknown: `checkpoints ${c.error ?? 'is a symbolic link'}: whether the kubelet's store initialisation gets past it is unknown` };
  return null;
}

/** os.ReadFile's error where the kubelet's own read of a meta file fails, else null. */
function metaReadError(snap: Snapshot, name: MetaName, d: Extract<MetaDecode, { state: 'unreadable' }>): string | null {
  if (!unreadableMeta(name, d).fails) return null;
  const abs = `${snap.storeDir}/meta/${name}`;
  return snap.meta[name].entry.kind === 'dir' ? `read ${abs}: is a directory` : `open ${abs}: no such file or directory`;
}

/** What is known of the local config the kubelet would run: validated, not checked, or none. */
function localWords(local: LocalConfig): string {
  const st = local.startup;
  if (st && !st.unchecked.length) return local.path === null ? 'the kubelet runs without a --config file, and its defaults and flags validate' : `local config ${local.path} and the flags validate`;
  if (local.path !== null) return local.judgement ? `local config ${local.path}` : `local config ${local.path} was not checked`;
  return st?.unchecked.includes(LOCAL_CONFIG_UNKNOWN) ? 'its local config was not checked (no kubelet command line found)' : 'the kubelet runs without a --config file (defaults and flags)';
}

function localOutcome(local: LocalConfig, why: string, statusError: string | null, extra: Partial<NextBoot>): NextBoot {
  const j = local.judgement;
  const checked = localWords(local);
  const bad = j !== null && j.stage !== 'ok';
  const exits = j !== null && j.stage === 'ok' ? (j.exitsOnceAdopted ?? null) : null;
  return {
    source: 'local',
    ref: null,
    reason: bad ? `${why}; the local config fails: ${j!.error}` : exits ? `${why}; the local config is valid, but ${exits.because}: the kubelet exits (${exits.error}), at every start` : `${why}; ${checked}`,
    exitsAfterBootstrap: exits?.error ?? null,
    statusError,
    willStart: bad ? false : true,
    promotesToLastKnownGood: false,
    assignedError: null,
    lastKnownGoodError: null,
    ...extra,
  };
}

export interface PredictOptions {
  reader: PayloadReader;
  judge: ConfigJudge;
  local: LocalConfig;
  /** The release whose words a meta file's decode error is given in (default 1.23). */
  version?: KubeletVersion;
}

/** One meta file and, when it names a checkpoint, how loading that checkpoint goes. */
interface Side {
  name: MetaName;
  d: MetaDecode;
  tried: Tried | null;
  /** What the kubelet would log about this config on its own (decode or load error). */
  error: string | null;
}

function judgeSide(snap: Snapshot, opts: PredictOptions, name: MetaName): Side {
  const d = decodeMetaState(snap.meta[name], opts.version);
  if (d.state === 'error') return { name, d, tried: null, error: d.error };
  if (d.state === 'unreadable') return { name, d, tried: null, error: metaReadError(snap, name, d) };
  if (d.state !== 'source') return { name, d, tried: null, error: null };
  const tried = tryCheckpoint(snap, opts.reader, opts.judge, d, name);
  return { name, d, tried, error: tried.ok === false ? tried.error : null };
}

/**
 * The kubelet's Bootstrap decision for the snapshot. Each config is judged on its own
 * (as the v1.23.0 vectors report them); the decision then follows Bootstrap's order:
 * both meta files must decode, then assigned, then last-known-good, then local.
 * When either meta file cannot be read or decoded, Bootstrap returns before it sets the
 * status error, so statusError is null (the kubelet exits without reporting status).
 */
export function predictNextBoot(snap: Snapshot, opts: PredictOptions): NextBoot {
  const nb = decide(snap, opts);
  // What could not be replayed (no kubelet command line): said beside the reason.
  return { ...nb, unchecked: opts.local.startup?.unchecked ?? [] };
}

function adoptedThenExits(what: string, exits: AfterBootstrap): string {
  return `${what} loads and validates, but ${exits.because}: the kubelet adopts it, then exits (${exits.error}), at every start`;
}

function decide(snap: Snapshot, opts: PredictOptions): NextBoot {
  const a = judgeSide(snap, opts, 'assigned');
  const l = judgeSide(snap, opts, 'last-known-good');
  const statusError = a.tried && a.tried.ok === false ? statusErrorFor(a.tried.stage) : null;
  const base = { ref: null, statusError, promotesToLastKnownGood: false, assignedError: a.error, lastKnownGoodError: l.error, exitsAfterBootstrap: null };

  // server.go checks the flags, their gates and the local config (defaults, --config file,
  // flags) before the controller's Bootstrap: a failure there stops the kubelet whatever the
  // store holds, and it never reports status.
  const st = opts.local.startup;
  if (st && !st.ok) return { ...base, statusError: null, source: 'none', willStart: false, reason: startupReason(st) };
  const lj = opts.local.judgement;
  if (!st && lj && lj.stage !== 'ok') {
    return { ...base, statusError: null, source: 'none', willStart: false, reason: `the local config ${opts.local.path} fails (${lj.error}): the kubelet exits before it reads the checkpoints` };
  }

  // No controller, no store: whatever the store holds, the kubelet runs its local config.
  if (opts.local.storeUnused) return localOutcome(opts.local, opts.local.storeUnused, null, { assignedError: null, lastKnownGoodError: null });

  const init = initializeError(snap);
  if (init && 'unknown' in init) return { ...base, statusError: null, source: 'unknown', willStart: null, reason: init.unknown };
  if (init) {
    // Initialize stopped before it created a missing last-known-good file.
    const lkgError = (init.name === 'meta' || init.name === 'meta/assigned') && l.d.state === 'missing' ? `open ${snap.storeDir}/meta/last-known-good: no such file or directory` : l.error;
    const want = init.name.startsWith('meta/') ? 'a regular file' : 'a directory';
    return { ...base, lastKnownGoodError: lkgError, statusError: null, source: 'none', willStart: false, reason: `${init.name} is not ${want}, so the kubelet's store initialisation fails and it will not start: ${init.error}` };
  }

  for (const side of [a, l]) {
    const d = side.d;
    if (d.state === 'unreadable') {
      const u = unreadableMeta(side.name, d);
      if (u.fails) return { ...base, statusError: null, source: 'none', willStart: false, reason: `${u.why}: the kubelet cannot read it and will not start` };
      return { ...base, source: 'unknown', willStart: null, reason: `${u.why}; kubelet-ckpt did not read it, so the next boot is unknown` };
    }
    if (d.state === 'error') return { ...base, statusError: null, source: 'none', willStart: false, reason: `meta/${side.name} cannot be decoded, so the kubelet will not start: ${d.error}` };
  }

  if (a.d.state !== 'source' || !a.tried) {
    const e = snap.meta.assigned.entry;
    const missing = e.kind === 'symlink' ? `a symbolic link to ${e.linkTarget ?? '?'}, which does not exist (the kubelet creates it there, empty)` : 'missing (the kubelet creates it empty)';
    return localOutcome(opts.local, `meta/assigned is ${a.d.state === 'missing' ? missing : 'empty'}: the kubelet runs its local config`, null, { lastKnownGoodError: l.error });
  }
  const src = a.d.source;
  const ta = a.tried;
  if (ta.ok === 'unknown') return { ...base, source: 'unknown', willStart: null, reason: ta.why };
  if (ta.ok === true) {
    const ls = l.d.state === 'source' ? l.d.source : null;
    const same = ls !== null && (['uid', 'resourceVersion', 'kubeletConfigKey', 'name', 'namespace'] as const).every((k) => ls[k] === src[k]);
    const adopted = { ...base, source: 'assigned' as const, ref: toSourceRef(src), willStart: true, promotesToLastKnownGood: !same };
    if (ta.exits) return { ...adopted, exitsAfterBootstrap: ta.exits.error, reason: adoptedThenExits(`assigned checkpoint ${label(src)}`, ta.exits) };
    return { ...adopted, reason: `assigned checkpoint ${label(src)} loads and validates` };
  }
  const failed = `assigned checkpoint ${label(src)} ${ta.stage === 'validate-error' ? 'fails validation' : ta.stage === 'load-error' ? 'fails to load' : 'hits an internal error'} (${ta.error})`;
  if (l.d.state !== 'source' || !l.tried) {
    return localOutcome(opts.local, `${failed}; last-known-good is ${l.d.state === 'missing' ? 'missing' : 'empty'}, so the kubelet falls back to its local config`, statusError, { assignedError: a.error });
  }
  const tl = l.tried;
  if (tl.ok === 'unknown') return { ...base, source: 'unknown', willStart: null, reason: `${failed}; ${tl.why}` };
  if (tl.ok === true && tl.exits) return { ...base, source: 'last-known-good', ref: toSourceRef(l.d.source), willStart: true, exitsAfterBootstrap: tl.exits.error, reason: `${failed}; ${adoptedThenExits(`last-known-good ${label(l.d.source)}`, tl.exits)}` };
  if (tl.ok === true) {
    return { ...base, source: 'last-known-good', ref: toSourceRef(l.d.source), willStart: true, reason: `${failed}; the kubelet falls back to last-known-good ${label(l.d.source)}` };
  }
  return { ...base, source: 'none', willStart: false, reason: `${failed}, and last-known-good ${label(l.d.source)} fails too (${tl.error}): the kubelet will not start` };
}
