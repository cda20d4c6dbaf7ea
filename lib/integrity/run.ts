// Verify over an open session, with refs resolved to the checkpoints they name.

import { fileHint, metaSources, resolveRef, resolveUid, unlistableError } from '../store/refs.js';
import { buildList, verifyStates, type ListReport } from '../store/list.js';
import { predictNextBoot } from './nextboot.js';
import type { Session } from '../session.js';
import type { PayloadReader } from '../store/snapshot.js';
import path from 'node:path';
import { judgementFindings, verifyStore, type VerifyReport } from './verify.js';
import { refBytes } from '../store/show.js';
import type { Resolved } from '../store/refs.js';
import type { Checkpoint, Snapshot } from '../store/snapshot.js';
import type { ConfigJudge } from './judge.js';
import { sha256Hex } from '../builtins.js';
import { CkptError, EXIT } from '../errors.js';
import { bySeverity, type Finding } from './findings.js';
import { cachedReader, lookupJudge, payloadTask, PARALLEL_MIN_TASKS, type JudgePool, type JudgePoolFactory, type ReadPayload } from './prejudge.js';
import { verdictTravels, type Judgement } from './judge.js';

const META_REFS = new Set(['assigned', 'last-known-good', 'lkg']);

function onlySet(s: Session, refs: readonly string[]): Set<string> | undefined {
  if (!refs.length) return undefined;
  const only = new Set<string>();
  for (const ref of refs) {
    if (!ref.includes('/') && !['assigned', 'last-known-good', 'lkg', 'local'].includes(ref)) {
      try {
        for (const id of uidRefs(s, ref)) only.add(id);
      } catch (err) {
        throw fileHint(err, ref);
      }
      continue;
    }
    let r: Resolved;
    try {
      r = resolveRef(s.snap, ref, { localConfig: s.local.path, version: s.judgeOptions.version });
    } catch (err) {
      // A meta file that cannot be followed (unreadable, undecodable, unsafe, naming a checkpoint
      // not on disk) names no checkpoint to verify; the meta files are always checked, so it is
      // a finding (exit 1), as for a plain verify, not the refusal show gives.
      if (META_REFS.has(ref) && err instanceof CkptError && err.exitCode !== EXIT.USAGE) continue;
      throw err;
    }
    if (r.kind === 'checkpoint') only.add(`${r.checkpoint.uid}/${r.checkpoint.rv}`);
  }
  return only;
}

export function verifySession(s: Session, refs: readonly string[] = [], payloads: 'all' | 'referenced' = 'all'): VerifyReport {
  return verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version, only: onlySet(s, refs), payloads });
}

/**
 * Payload bytes the parallel path may hold (it keeps every payload it read for verify and ls):
 * a store past it (payloads near the 1 MiB cap, or a hostile one) is verified one payload at a
 * time, in bounded memory. 10,000 real configs hold about 25 MiB.
 */
const MAX_HELD_BYTES = 96 * 1024 * 1024;
/** Payloads per message to a worker (fewer near the end, so no one waits long for the last). */
const BATCH = 128;
/** Bytes per message to a worker: each holds a copy of what it is sent (payloads near the 1 MiB cap). */
const BATCH_BYTES = 4 * 1024 * 1024;
const MIN_BATCH = 16;
/** Batches each worker holds at once: one being judged, one waiting. */
const IN_FLIGHT = 2;

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * verifySession over the whole store, with the payloads judged by a pool of worker threads
 * and this one when there are enough of them. Any failure of the pool falls back to judging
 * in this thread; the report is the same either way.
 */
export async function verifySessionParallel(s: Session, makePool: JudgePoolFactory | null): Promise<VerifyReport> {
  return (await verifyParallel(s, makePool)).report;
}

/**
 * Payloads with the same bytes as an earlier one (a ConfigMap whose resourceVersion moved
 * without its data changing) take its verdict instead of being judged again, where the
 * verdict travels (judge.ts: an empty payload is never shared, and one whose verdict lists
 * relative paths is judged again on its own); the file's name, mode and size are checked
 * outside the verdict.
 */
class SameBytes {
  /** The first task (its index) with each digest. */
  private readonly first = new Map<string, number>();
  /** Each task's SHA-256 (hex), by index: ls lists them (empty payloads are not hashed here). */
  readonly digests: (string | undefined)[] = [];
  /** Later tasks with the bytes of an earlier one: [index, index of the first]. */
  readonly repeats: [number, number][] = [];

  /** True when task `i` repeats an earlier task's bytes (it need not be judged now). */
  repeat(t: ReadPayload, i: number): boolean {
    if (t.bytes.byteLength === 0) return false;
    const digest = sha256Hex(t.bytes);
    this.digests[i] = digest;
    const f = this.first.get(digest);
    if (f === undefined) {
      this.first.set(digest, i);
      return false;
    }
    this.repeats.push([i, f]);
    return true;
  }

  /** Give each repeat its first's verdict, or its own when that verdict depends on the path. */
  fill(tasks: readonly ReadPayload[], verdicts: Judgement[], judge: ConfigJudge): void {
    for (const [i, f] of this.repeats) {
      const v = verdicts[f]!;
      verdicts[i] = verdictTravels(tasks[i]!.bytes, v) ? v : judge(tasks[i]!.bytes, tasks[i]!.task.file);
    }
  }
}

/**
 * The payloads of a store judged by a pool: this thread reads every payload and the workers
 * take batches from the front as they finish the last one (the first while this thread is
 * still reading). This thread judges none itself: its judging code would start cold (V8
 * interprets it, then compiles it again for this isolate) where the workers' is warm by
 * then, and its share after reading cost it ~0.2-0.3 s of CPU for what a worker judges in a
 * fraction of that (on 2 busy cores, ls of 10,000: user+sys 2.26 -> 2.06 s). Bytes seen
 * before are not queued (SameBytes). Throws when the pool fails or too much would be held.
 */
async function judgeShared(s: Session, pool: JudgePool, cps: readonly Checkpoint[], maxHeld: number): Promise<{ tasks: ReadPayload[]; verdicts: Judgement[]; digests: (string | undefined)[] }> {
  const sources = metaSources(s.snap);
  /** Every payload read, in order; `queue` holds the indexes of those to judge. */
  const tasks: ReadPayload[] = [];
  const queue: number[] = [];
  const verdicts: Judgement[] = [];
  const same = new SameBytes();
  let held = 0;
  /** The first task nobody has taken (workers take from here). */
  let next = 0;
  /** One past the last task a worker may take (this thread takes from here, backwards). */
  let end = 0;
  let reading = true;
  let inFlight = 0;
  let failure: unknown = null;
  const posted: Promise<void>[] = [];
  /** Resolved once all is read and judged, or the pool failed. */
  let settle = (): void => undefined;
  const drained = new Promise<void>((resolve) => (settle = resolve));
  const feed = (): void => {
    while (failure === null && inFlight < IN_FLIGHT * pool.workers && next < end) {
      const size = reading ? BATCH : Math.min(BATCH, Math.max(MIN_BATCH, Math.ceil((end - next) / (2 * (pool.workers + 1)))));
      const ids = queue.slice(next, Math.min(end, next + size));
      // Fewer where payloads are large (at least one).
      let bytes = 0;
      const fit = ids.findIndex((i) => (bytes += tasks[i]!.bytes.byteLength) > BATCH_BYTES);
      if (fit > 0) ids.length = fit;
      next += ids.length;
      inFlight++;
      posted.push(
        pool.judge(ids.map((i) => tasks[i]!.task)).then(
          (vs) => {
            // A reply that is not what was asked for fails the pool (then the one-thread verify),
            // never leaves `drained` unsettled (found by review: the wait would hang).
            try {
              if (!Array.isArray(vs) || vs.length !== ids.length) throw new Error(`a judge worker answered ${Array.isArray(vs) ? vs.length : typeof vs} verdicts for ${ids.length} payloads`);
              vs.forEach((v, k) => (verdicts[ids[k]!] = v));
              inFlight--;
              feed();
            } catch (err) {
              failure ??= err;
              settle();
            }
          },
          (err: unknown) => {
            failure ??= err;
            settle();
          },
        ),
      );
    }
    if (!reading && next >= end && inFlight === 0) settle();
  };
  for (const cp of cps) {
    const t = payloadTask(s.snap, s.reader, sources, cp);
    if (!t) continue;
    held += t.bytes.byteLength;
    if (held > maxHeld) throw new Error('too many payload bytes to hold: verified one at a time');
    tasks.push(t);
    if (same.repeat(t, tasks.length - 1)) continue;
    queue.push(tasks.length - 1);
    if (queue.length % BATCH !== 0) continue;
    end = queue.length;
    feed();
    await tick();
  }
  reading = false;
  end = queue.length;
  feed();
  await drained;
  await Promise.all(posted);
  if (failure !== null) throw failure;
  same.fill(tasks, verdicts, s.judge);
  for (let i = 0; i < tasks.length; i++) if (!verdicts[i]) throw new Error(`no verdict for ${tasks[i]!.task.file}`);
  return { tasks, verdicts, digests: same.digests };
}

/**
 * verifySessionParallel, and a reader that answers from the payloads it read (for `ls`,
 * which reads every file again for its digest).
 */
export async function verifyParallel(s: Session, makePool: JudgePoolFactory | null, o: { maxHeldBytes?: number } = {}): Promise<{ report: VerifyReport; reader: PayloadReader }> {
  const single = () => ({ report: verifySession(s), reader: s.reader });
  // Not filtered by kind here: each entry is examined as its payload is read (payloadTask),
  // through the directory descriptor that read opens anyway; asking all 10,000 first opened
  // each checkpoint directory twice.
  const cps = s.snap.uids.flatMap((u) => u.checkpoints);
  if (!makePool || cps.length < PARALLEL_MIN_TASKS) return single();
  let pool: JudgePool | null;
  try {
    pool = makePool();
  } catch {
    return single(); // no thread could be made: judged here, the same report
  }
  if (!pool) return single();
  let shared: Awaited<ReturnType<typeof judgeShared>>;
  try {
    shared = await judgeShared(s, pool, cps, o.maxHeldBytes ?? MAX_HELD_BYTES);
  } catch {
    // Closed first: the one-thread verify must not run beside workers still holding batches.
    pool.close();
    return single();
  }
  pool.close();
  const judge = lookupJudge(shared.tasks, shared.verdicts, s.judge);
  const reader = cachedReader(shared.tasks, s.reader, shared.digests);
  return { report: verifyStore(s.snap, { reader, judge, local: s.local, version: s.judgeOptions.version, payloads: 'all' }), reader };
}

/**
 * `ls`: every checkpoint with what verify found about it (findings reached through a meta
 * file count for the checkpoint they name) and the one the next boot runs. A store whose
 * checkpoints/ cannot be listed lists it as unlisted, with why (never a silent "no
 * checkpoints"); like any unreadable entry inside the store, it is not an environment error
 * (DESIGN's exit codes; found by review: exit 3). Only `--uid`, which needs the listing, fails.
 */
export async function listSession(s: Session, makePool: JudgePoolFactory | null, uid?: string): Promise<ListReport> {
  if (s.snap.checkpointsDir.kind === 'unreadable' && uid !== undefined) throw unlistableError(`the store cannot be read: checkpoints/: ${s.snap.checkpointsDir.error ?? 'unknown error'}`);
  const { report, reader } = uid === undefined ? await verifyParallel(s, makePool) : { report: verifyUid(s, uid), reader: s.reader };
  const nb = predictNextBoot(s.snap, { reader, judge: s.judge, local: s.local, version: s.judgeOptions.version });
  const bootsNext = nb.ref && (nb.source === 'assigned' || nb.source === 'last-known-good') ? `${nb.ref.uid}/${nb.ref.resourceVersion}` : null;
  return buildList(s.snap, reader, { uid, verify: verifyStates(report.findings), bootsNext });
}

/**
 * verify limited to one UID's checkpoints, for `ls --uid`, which shows no others: the meta
 * checks still run, so findings reached through a meta file count as in a whole-store run.
 */
function verifyUid(s: Session, uid: string): VerifyReport {
  return verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version, only: new Set(uidRefs(s, uid)), payloads: 'all' });
}

/** `UID/RV` of every checkpoint of the UID `uid` names (a unique prefix will do); throws when it names none. */
function uidRefs(s: Session, uid: string): string[] {
  return resolveUid(s.snap, uid).checkpoints.map((cp) => `${cp.uid}/${cp.rv}`);
}

/** A ref that names a file rather than something in the store: a path, `-` (stdin) or `local`. */
export function isFileRef(ref: string): boolean {
  return ref === '-' || ref === 'local' || ref.startsWith('/') || ref.startsWith('./') || ref.startsWith('../');
}

export interface FileInput {
  /** The ref as given. */
  ref: string;
  /** Absolute path, or `-` for stdin. */
  path: string;
  bytes: Buffer;
}

/** Read a file ref (not `-`, which the caller reads): exit 3 when it cannot be read, 2 when it names nothing. */
export function readFileRef(ref: string, localConfig: string | null): FileInput {
  const r: Resolved = ref === 'local' ? { kind: 'local', ref, via: null, path: localConfig } : { kind: 'file', ref, path: path.resolve(ref) };
  const b = refBytes(NO_STORE, NO_READER, r);
  return { ref, path: b.path, bytes: b.bytes };
}

const NO_STORE = null as unknown as Snapshot;
const NO_READER = null as unknown as PayloadReader;

/**
 * Judge candidate files exactly as a checkpoint payload (decode, defaults, this node's
 * flags, validation for the kubelet version): for checking a config before it is uploaded.
 */
export function verifyFiles(judge: ConfigJudge, files: readonly FileInput[]): Finding[] {
  return files.flatMap((f) => judgementFindings(judge(f.bytes, f.path === '-' ? path.resolve('stdin') : f.path), f.path, f.ref));
}

/** verify with refs: store refs through verifySession, files judged on their own; one report. */
export function verifyRefs(s: Session | null, judge: ConfigJudge, refs: readonly string[], files: readonly FileInput[]): VerifyReport {
  const storeRefs = refs.filter((r) => !isFileRef(r));
  const store = s && storeRefs.length ? verifySession(s, storeRefs) : null;
  const findings = [...(store?.findings ?? []), ...verifyFiles(judge, files)];
  findings.sort(bySeverity);
  return { ok: !findings.some((x) => x.severity === 'error'), findings, checked: [...refs], ...(store?.nextBoot ? { nextBoot: store.nextBoot } : {}) };
}
