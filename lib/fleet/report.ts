// Builds the NodeReport from an open session (the same model status and verify use):
// meta files and their payload hashes, the next-boot prediction, findings, crash loop.
// A store that cannot be found or read still yields a report that says so.

import path from 'node:path';
import { childProcess, sha256Hex } from '../builtins.js';
import { CkptError } from '../errors.js';
import { readFileCapped } from '../store/safepath.js';
import { decodeMetaState, type MetaDecode } from '../store/meta.js';
import { allCheckpoints, findCheckpoint, locateStore, PAYLOAD_CAP, type Snapshot } from '../store/snapshot.js';
import { toSourceRef, type MetaName } from '../store/types.js';
import { discover } from '../store/discover.js';
import { predictNextBoot, trialOf, type NextBoot } from '../integrity/nextboot.js';
import { verifySession, verifySessionParallel } from '../integrity/run.js';
import type { JudgePoolFactory } from '../integrity/prejudge.js';
import type { Finding } from '../integrity/findings.js';
import type { Evidence } from '../journal/evidence.js';
import type { Session } from '../session.js';
import { migrationReadiness } from './migration.js';
import { nodeName } from './nodename.js';
import { TOOL_VERSION } from './version.js';
import { REPORT_API_VERSION, REPORT_KIND, type FindingCount, type MetaConfig, type NodeReport, type ReportCrashLoop, type ReportFindings, type ReportNextBoot, type StoreState } from './types.js';
import { compareText } from '../text-order.js';

/**
 * A store that was read: how many checkpoints it holds, or null with the reason when
 * checkpoints/ cannot be listed (never "0 checkpoints" for a store that was not seen).
 */
function storeOk(snap: Snapshot): NodeReport['store'] {
  const cps = snap.checkpointsDir;
  if (cps.kind === 'unreadable') return { path: snap.storeDir, state: 'ok', error: `checkpoints/ cannot be read: ${cps.error ?? 'unknown error'}`, checkpoints: null };
  return { path: snap.storeDir, state: 'ok', error: null, checkpoints: allCheckpoints(snap).length };
}

export interface ReportOptions {
  /** Opens the store (the command's global options); may throw EnvError. */
  open: () => Session;
  root: string;
  dir?: string | undefined;
  nodeName?: string | undefined;
  rules: string;
  /** Verify every checkpoint (`all`) or only the payloads the meta files name. */
  scope: 'all' | 'referenced';
  /** Worker threads for a large verify (the command decides; null: this thread). */
  pool?: ((s: Session) => JudgePoolFactory | null) | null;
  /** Reads the journal's tail (null: --no-journal). */
  journal: ((s: Session | null) => Promise<Evidence>) | null;
  /** Ask `kubelet --version` (live node only). */
  askKubelet: boolean;
  /** This machine's host name (os.hostname() unless a test passes one). */
  hostname?: string;
  /** `--host`: the name report merge knows the writing machine by (a pod's host name is the pod's). */
  host?: string | undefined;
  now?: Date;
}

/** sha256 of a checkpoint's file `key`, read through the snapshot's reader; null when not whole. */
export function payloadSha(s: Session, uid: string, rv: string | null, key: string | null): string | null {
  if (rv === null) return null;
  const cp = findCheckpoint(s.snap, uid, rv);
  if (!cp || cp.entry.kind !== 'dir') return null;
  const name = key ?? (cp.files.some((f) => f.name === 'kubelet') ? 'kubelet' : cp.files.length === 1 ? cp.files[0]!.name : null);
  if (!name) return null;
  const r = s.reader.read(cp, name);
  return r.ok && !r.truncated ? sha256Hex(r.bytes) : null;
}

/** sha256 of the local --config file; null without one or when it cannot be read. */
export function localSha(s: Session): string | null {
  if (!s.local.path) return null;
  try {
    const r = readFileCapped(s.local.path, PAYLOAD_CAP);
    return r.truncated ? null : sha256Hex(r.bytes);
  } catch {
    return null;
  }
}

function metaConfig(s: Session, name: MetaName): MetaConfig {
  const d: MetaDecode = decodeMetaState(s.snap.meta[name], s.judgeOptions.version);
  if (d.state === 'source') {
    const safe = d.unsafe.length === 0;
    return { state: 'source', ref: toSourceRef(d.source), sha256: safe ? payloadSha(s, d.source.uid, d.source.resourceVersion, d.source.kubeletConfigKey) : null, error: null };
  }
  return { state: d.state, ref: null, sha256: null, error: d.state === 'error' || d.state === 'unreadable' ? d.error : null };
}

/** The next boot, with the hash of what will run and whether the kubelet fell back. */
export function reportNextBoot(s: Session, nb: NextBoot, assigned: MetaConfig, lkg: MetaConfig): ReportNextBoot {
  const sha = nb.source === 'assigned' ? assigned.sha256 : nb.source === 'last-known-good' ? lkg.sha256 : nb.source === 'local' ? localSha(s) : null;
  const fellBack = nb.statusError !== null && (nb.source === 'last-known-good' || nb.source === 'local');
  return { source: nb.source, ref: nb.ref, sha256: sha, willStart: nb.willStart, fellBack, statusError: nb.statusError, reason: nb.reason, exitsAfterBootstrap: nb.exitsAfterBootstrap };
}

export function countFindings(findings: readonly Finding[], scope: ReportFindings['scope']): ReportFindings {
  const out: ReportFindings = { scope, error: 0, warning: 0, info: 0, byCode: [] };
  const by = new Map<string, FindingCount>();
  for (const f of findings) {
    out[f.severity]++;
    const k = `${f.severity}\0${f.code}`;
    const c = by.get(k);
    if (c) c.count++;
    else by.set(k, { code: f.code, severity: f.severity, count: 1 });
  }
  out.byCode = [...by.values()].sort((a, b) => compareText(a.code, b.code) || compareText(a.severity, b.severity));
  return out;
}

function crashLoopOf(e: Evidence | null): ReportCrashLoop {
  if (!e) return { checked: false, crashLoop: null, restarts: null, detail: 'the journal was not read (--no-journal)' };
  const read = e.reason === null || /^no kubelet config events/.test(e.reason);
  if (!read) return { checked: false, crashLoop: null, restarts: null, detail: e.reason };
  return { checked: true, crashLoop: e.crashLoop, restarts: e.restarts, detail: e.summary ?? e.reason };
}

/** `kubelet --version` → `v1.23.4`; null when there is no kubelet to ask. */
export function kubeletBinaryVersion(bin = 'kubelet'): string | null {
  try {
    const out = childProcess().execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
    return /v?\d+\.\d+\.\d+\S*/.exec(out)?.[0] ?? (out.trim() || null);
  } catch {
    return null;
  }
}

function storeStateOf(err: CkptError): StoreState {
  return err.code === 'STORE_NOT_FOUND' ? 'absent' : 'unreadable';
}

/**
 * The store directory a report names when the store could not be read: where locateStore puts
 * it, as for a readable store (found by review: the raw --dir, relative, and one level up);
 * the absolute --dir when even that cannot be told.
 */
function storePathOf(dir: string | null): string | null {
  if (dir === null) return null;
  try {
    return locateStore(dir).storeDir;
  } catch {
    return path.resolve(dir);
  }
}

export async function buildNodeReport(o: ReportOptions): Promise<NodeReport> {
  let s: Session | null = null;
  let storeError: CkptError | null = null;
  try {
    s = o.open();
  } catch (err) {
    // Only the store itself may be missing or unreadable; anything else (a bad --root) is the caller's.
    if (!(err instanceof CkptError) || !['STORE_NOT_FOUND', 'STORE_NOT_DIRECTORY', 'STORE_UNREADABLE', 'META_UNREADABLE'].includes(err.code)) throw err;
    storeError = err;
  }
  const argv = s ? s.kubeletArgv : (discover({ root: o.root, dir: o.dir }).commandLine?.argv ?? []);
  const now = o.now ?? new Date();
  const report: NodeReport = {
    apiVersion: REPORT_API_VERSION,
    kind: REPORT_KIND,
    generatedAt: now.toISOString(),
    tool: { name: 'kubelet-ckpt', version: TOOL_VERSION },
    node: { ...nodeName({ given: o.nodeName, kubeletArgv: argv, root: o.root, hostname: o.hostname }), host: o.host || o.hostname || (await import('node:os')).hostname() },
    kubelet: { version: o.askKubelet && o.root === '/' ? kubeletBinaryVersion() : null, rules: o.rules, config: s?.local.path ?? null },
    store: storeError
      ? { path: storePathOf(o.dir ?? discover({ root: o.root }).dir), state: storeStateOf(storeError), error: storeError.message, checkpoints: null }
      : storeOk(s!.snap),
    assigned: null,
    lastKnownGood: null,
    nextBoot: null,
    running: null,
    trial: null,
    findings: null,
    crashLoop: crashLoopOf(null),
    migration: migrationReadiness(s, o.root),
  };
  const evidence = o.journal ? await o.journal(s) : null;
  report.crashLoop = crashLoopOf(evidence);
  if (!s) return report;
  const a = metaConfig(s, 'assigned');
  const l = metaConfig(s, 'last-known-good');
  report.assigned = a;
  report.lastKnownGood = l;
  report.nextBoot = reportNextBoot(s, predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version }), a, l);
  report.trial = a.state === 'source' ? trialOf(s.snap) : null;
  const run = evidence?.running;
  if (run) report.running = { uid: run.uid, resourceVersion: run.resourceVersion, sha256: payloadSha(s, run.uid, run.resourceVersion, keyFor(a, l, run.uid, run.resourceVersion)) };
  const verify = o.scope === 'all' ? await verifySessionParallel(s, o.pool ? o.pool(s) : null) : verifySession(s, [], 'referenced');
  report.findings = countFindings(verify.findings, o.scope);
  return report;
}

/** The kubeletConfigKey a meta file gives for this checkpoint, when one names it. */
function keyFor(a: MetaConfig, l: MetaConfig, uid: string, rv: string | null): string | null {
  for (const m of [a, l]) if (m.ref && m.ref.uid === uid && m.ref.resourceVersion === rv) return m.ref.kubeletConfigKey;
  return null;
}
