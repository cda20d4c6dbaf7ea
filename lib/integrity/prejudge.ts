// Judging payloads is ~90% of verify on a large store and each payload is independent,
// so a runner may judge them elsewhere (worker threads, in cmd/) before verify runs.
// Verify itself stays synchronous and pure: it looks the verdicts up.

import { metaSources, payloadKey } from '../store/refs.js';
import { PAYLOAD_CAP, type Snapshot, type PayloadReader } from '../store/snapshot.js';
import type { ConfigJudge, Judgement } from './judge.js';

export interface JudgeTask {
  file: string;
  bytes: Uint8Array;
}

/** Judges tasks elsewhere; resolves to one judgement per task, in order. */
export type JudgeRunner = (tasks: JudgeTask[]) => Promise<Judgement[]>;

/** Below this many payloads, starting a worker costs more than it saves. */
export const PARALLEL_MIN_TASKS = 400;

/** The payload of every checkpoint (as verify will judge it), read once. */
export function payloadTasks(snap: Snapshot, reader: PayloadReader): JudgeTask[] {
  const sources = metaSources(snap);
  const tasks: JudgeTask[] = [];
  for (const u of snap.uids) {
    for (const cp of u.checkpoints) {
      if (cp.entry.kind !== 'dir') continue;
      const key = payloadKey(cp, sources.get(cp.uid)?.source ?? null);
      const file = key ? cp.files.find((f) => f.name === key) : undefined;
      if (!key || !file || file.size > PAYLOAD_CAP) continue;
      const r = reader.read(cp, key);
      if (r.ok && !r.truncated) tasks.push({ file: `${snap.storeDir}/${cp.rel}/${key}`, bytes: r.bytes });
    }
  }
  return tasks;
}

/** A judge that answers from pre-computed verdicts (same file, same bytes), else judges. */
export function lookupJudge(tasks: readonly JudgeTask[], verdicts: readonly Judgement[], fallback: ConfigJudge): ConfigJudge {
  const known = new Map<string, { bytes: Uint8Array; j: Judgement }>();
  tasks.forEach((t, i) => known.set(t.file, { bytes: t.bytes, j: verdicts[i]! }));
  return (bytes, file) => {
    const k = known.get(file);
    return k && Buffer.from(k.bytes.buffer, k.bytes.byteOffset, k.bytes.byteLength).equals(bytes) ? k.j : fallback(bytes, file);
  };
}
