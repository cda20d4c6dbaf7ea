// Verify over an open session, with refs resolved to the checkpoints they name.

import { resolveRef, resolveUid } from '../store/refs.js';
import type { Session } from '../session.js';
import { verifyStore, type VerifyReport } from './verify.js';
import { lookupJudge, payloadTasks, PARALLEL_MIN_TASKS, type JudgeRunner } from './prejudge.js';
import type { Judgement } from './judge.js';

function onlySet(s: Session, refs: readonly string[]): Set<string> | undefined {
  if (!refs.length) return undefined;
  const only = new Set<string>();
  for (const ref of refs) {
    if (!ref.includes('/') && !['assigned', 'last-known-good', 'lkg', 'local'].includes(ref)) {
      for (const cp of resolveUid(s.snap, ref).checkpoints) only.add(`${cp.uid}/${cp.rv}`);
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

/**
 * verifySession over the whole store, with the payloads judged by `runner` first (worker
 * threads) when there are enough of them; any failure of the runner falls back to
 * judging in this thread.
 */
export async function verifySessionParallel(s: Session, runner: JudgeRunner | null): Promise<VerifyReport> {
  if (!runner) return verifySession(s);
  const tasks = payloadTasks(s.snap, s.reader);
  if (tasks.length < PARALLEL_MIN_TASKS) return verifySession(s);
  let verdicts: Judgement[];
  try {
    verdicts = await runner(tasks);
  } catch {
    return verifySession(s);
  }
  const judge = lookupJudge(tasks, verdicts, s.judge);
  return verifyStore(s.snap, { reader: s.reader, judge, local: s.local, payloads: 'all' });
}
