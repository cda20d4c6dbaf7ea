// Judging payloads is most of verify on a large store and each payload is independent, so
// a pool of worker threads (made in cmd/) may judge them before verify runs (run.ts).
// Verify itself stays synchronous and pure: it looks the verdicts up.

import { metaSources, payloadKey } from '../store/refs.js';
import { PAYLOAD_CAP, type Checkpoint, type Snapshot, type PayloadReader } from '../store/snapshot.js';
import type { ConfigJudge, Judgement } from './judge.js';

export interface JudgeTask {
  file: string;
  bytes: Uint8Array;
}

/**
 * Threads that judge payloads elsewhere: post a batch, get its verdicts back in order.
 * Its threads start loading as soon as it exists, so the caller reads while they boot.
 */
export interface JudgePool {
  /** How many threads besides this one. */
  readonly workers: number;
  judge(tasks: JudgeTask[]): Promise<Judgement[]>;
  close(): void;
}

/** Makes a pool, or null when there is no spare core. */
export type JudgePoolFactory = () => JudgePool | null;

/** Below this many payloads, starting a worker costs more than it saves. */
export const PARALLEL_MIN_TASKS = 400;

/** The payload of one checkpoint as verify will judge it, or null when verify will not judge one. */
export function payloadTask(snap: Snapshot, reader: PayloadReader, sources: ReturnType<typeof metaSources>, cp: Checkpoint): JudgeTask | null {
  if (cp.entry.kind !== 'dir') return null;
  const key = payloadKey(cp, sources.get(cp.uid)?.source ?? null);
  const file = key ? cp.files.find((f) => f.name === key) : undefined;
  if (!key || !file || file.size > PAYLOAD_CAP) return null;
  const r = reader.read(cp, key);
  return r.ok && !r.truncated ? { file: taskFile(snap, cp, key), bytes: r.bytes } : null;
}

const taskFile = (snap: Snapshot, cp: Checkpoint, name: string) => `${snap.storeDir}/${cp.rel}/${name}`;

/**
 * A reader that answers from the bytes the tasks already hold (verify reads each payload
 * again), with their SHA-256 when `digests` (by task index) has it (ls lists every digest).
 */
export function cachedReader(snap: Snapshot, tasks: readonly JudgeTask[], base: PayloadReader, digests: readonly (string | undefined)[] = []): PayloadReader {
  const known = new Map(tasks.map((t, i) => [t.file, i]));
  return {
    read(cp, name, cap = PAYLOAD_CAP) {
      const i = known.get(taskFile(snap, cp, name));
      const b = i === undefined ? undefined : tasks[i]!.bytes;
      if (!b || b.byteLength > cap) return base.read(cp, name, cap);
      const bytes = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
      const sha256 = digests[i!];
      return sha256 === undefined ? { ok: true, bytes, size: b.byteLength, truncated: false } : { ok: true, bytes, size: b.byteLength, truncated: false, sha256 };
    },
  };
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
