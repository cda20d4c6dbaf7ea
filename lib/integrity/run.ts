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
import type { Snapshot } from '../store/snapshot.js';
import type { ConfigJudge } from './judge.js';
import { bySeverity, type Finding } from './findings.js';
import { cachedReader, lookupJudge, payloadTask, PARALLEL_MIN_TASKS, type JudgePoolFactory, type JudgeTask } from './prejudge.js';
import type { Judgement } from './judge.js';

function onlySet(s: Session, refs: readonly string[]): Set<string> | undefined {
  if (!refs.length) return undefined;
  const only = new Set<string>();
  for (const ref of refs) {
    if (!ref.includes('/') && !['assigned', 'last-known-good', 'lkg', 'local'].includes(ref)) {
      try {
        for (const cp of resolveUid(s.snap, ref).checkpoints) only.add(`${cp.uid}/${cp.rv}`);
      } catch (err) {
        throw fileHint(err, ref);
      }
      continue;
    }
    const r = resolveRef(s.snap, ref, { localConfig: s.local.path });
    if (r.kind === 'checkpoint') only.add(`${r.checkpoint.uid}/${r.checkpoint.rv}`);
  }
  return only;
}

export function verifySession(s: Session, refs: readonly string[] = [], payloads: 'all' | 'referenced' = 'all'): VerifyReport {
  return verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local, only: onlySet(s, refs), payloads });
}

/** The main thread's share of the judging, against one other thread's: it also reads every payload and runs verify after. */
const MAIN_WEIGHT = 0.65;
/**
 * Payload bytes the parallel path may hold (it keeps every payload it read for verify and ls):
 * a store past it (payloads near the 1 MiB cap, or a hostile one) is verified one payload at a
 * time, in bounded memory. 10,000 real configs hold about 25 MiB.
 */
const MAX_HELD_BYTES = 96 * 1024 * 1024;
/** Payloads per message to a worker: the first one starts judging after this many reads. */
const BATCH = 256;

/**
 * verifySession over the whole store, with the payloads judged by a pool of worker threads
 * and this one when there are enough of them. The workers' share is read first and posted in
 * batches while they boot; this thread then reads and judges the rest. Any failure of the
 * pool falls back to judging in this thread; the report is the same either way.
 */
export async function verifySessionParallel(s: Session, makePool: JudgePoolFactory | null): Promise<VerifyReport> {
  return (await verifyParallel(s, makePool)).report;
}

/**
 * verifySessionParallel, and a reader that answers from the payloads it read (for `ls`,
 * which reads every file again for its digest).
 */
export async function verifyParallel(s: Session, makePool: JudgePoolFactory | null, o: { maxHeldBytes?: number } = {}): Promise<{ report: VerifyReport; reader: PayloadReader }> {
  const maxHeld = o.maxHeldBytes ?? MAX_HELD_BYTES;
  const single = () => ({ report: verifySession(s), reader: s.reader });
  const cps = s.snap.uids.flatMap((u) => u.checkpoints).filter((cp) => cp.entry.kind === 'dir');
  if (!makePool || cps.length < PARALLEL_MIN_TASKS) return single();
  const pool = makePool();
  if (!pool) return single();
  const tasks: JudgeTask[] = [];
  let held = 0;
  const hold = (t: JudgeTask) => {
    held += t.bytes.byteLength;
    if (held > maxHeld) throw new Error('too many payload bytes to hold: verified one at a time');
    tasks.push(t);
  };
  // A batch may fail after this thread has given up on the pool: never an unhandled rejection.
  const post = (batch: JudgeTask[]) => {
    const p = pool.judge(batch);
    p.catch(() => undefined);
    return p;
  };
  let verdicts: Judgement[];
  try {
    const sources = metaSources(s.snap);
    const theirs = Math.round((cps.length * pool.workers) / (pool.workers + MAIN_WEIGHT));
    const posted: Promise<Judgement[]>[] = [];
    let batch: JudgeTask[] = [];
    for (const cp of cps.slice(0, theirs)) {
      const t = payloadTask(s.snap, s.reader, sources, cp);
      if (!t) continue;
      hold(t);
      batch.push(t);
      if (batch.length < BATCH) continue;
      posted.push(post(batch));
      batch = [];
    }
    if (batch.length) posted.push(post(batch));
    const mine: Judgement[] = [];
    for (const cp of cps.slice(theirs)) {
      const t = payloadTask(s.snap, s.reader, sources, cp);
      if (!t) continue;
      hold(t);
      mine.push(s.judge(Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength), t.file));
    }
    verdicts = [...(await Promise.all(posted)).flat(), ...mine];
  } catch {
    return single();
  } finally {
    pool.close();
  }
  const judge = lookupJudge(tasks, verdicts, s.judge);
  const reader = cachedReader(s.snap, tasks, s.reader);
  return { report: verifyStore(s.snap, { reader, judge, local: s.local, payloads: 'all' }), reader };
}

/**
 * `ls`: every checkpoint with what verify found about it (findings reached through a meta
 * file count for the checkpoint they name) and the one the next boot runs. A store whose
 * checkpoints/ cannot be listed is an error (exit 3), never "no checkpoints".
 */
export async function listSession(s: Session, makePool: JudgePoolFactory | null, uid?: string): Promise<ListReport> {
  if (s.snap.checkpointsDir.kind === 'unreadable') throw unlistableError(`the store cannot be read: checkpoints/: ${s.snap.checkpointsDir.error ?? 'unknown error'}`);
  const { report, reader } = await verifyParallel(s, makePool);
  const nb = predictNextBoot(s.snap, { reader, judge: s.judge, local: s.local });
  const bootsNext = nb.ref && (nb.source === 'assigned' || nb.source === 'last-known-good') ? `${nb.ref.uid}/${nb.ref.resourceVersion}` : null;
  return buildList(s.snap, reader, { uid, verify: verifyStates(report.findings), bootsNext });
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
