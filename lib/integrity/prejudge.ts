// Judging payloads is most of verify on a large store and each payload is independent, so
// a pool of worker threads (made in cmd/) may judge them before verify runs (run.ts).
// Verify itself stays synchronous and pure: it looks the verdicts up.

import { payloadKey, type MetaSources } from '../store/refs.js';
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

/** A payload read for judging: the checkpoint and file it came from, and the task to post. */
export interface ReadPayload {
  cp: Checkpoint;
  name: string;
  /** The bytes read (the task's bytes, as a Buffer): the one object every later read gets. */
  bytes: Buffer;
  task: JudgeTask;
}

/** The payload of one checkpoint as verify will judge it, or null when verify will not judge one. */
export function payloadTask(snap: Snapshot, reader: PayloadReader, sources: MetaSources, cp: Checkpoint): ReadPayload | null {
  if (cp.entry.kind !== 'dir') return null;
  const source = sources.of(cp)?.source ?? null;
  // The name the payload almost always has, read while the checkpoint is listed.
  const likely = source?.kubeletConfigKey || 'kubelet';
  const early = reader.listAndRead?.(cp, likely) ?? null;
  const key = payloadKey(cp, source);
  const file = key ? cp.files.find((f) => f.name === key) : undefined;
  if (!key || !file || file.size > PAYLOAD_CAP) return null;
  const r = early && key === likely ? early : reader.read(cp, key);
  return r.ok && !r.truncated ? { cp, name: key, bytes: r.bytes, task: { file: taskFile(snap, cp, key), bytes: r.bytes } } : null;
}

const taskFile = (snap: Snapshot, cp: Checkpoint, name: string) => `${snap.storeDir}/${cp.rel}/${name}`;

/**
 * A reader that answers from the bytes already read (verify reads each payload again), with
 * their SHA-256 when `digests` (by index) has it (ls lists every digest). Found by the
 * checkpoint object, not by a path string built for each read (20,000 reads in `ls`), and
 * answered with the very Buffer that was read, so lookupJudge knows it again.
 */
export function cachedReader(held: readonly ReadPayload[], base: PayloadReader, digests: readonly (string | undefined)[] = []): PayloadReader {
  const known = new Map<Checkpoint, number>();
  held.forEach((h, i) => known.set(h.cp, i));
  return {
    read(cp, name, cap = PAYLOAD_CAP) {
      const i = known.get(cp);
      const h = i === undefined ? undefined : held[i]!;
      if (!h || h.name !== name || h.bytes.byteLength > cap) return base.read(cp, name, cap);
      const sha256 = digests[i!];
      return sha256 === undefined ? { ok: true, bytes: h.bytes, size: h.bytes.byteLength, truncated: false } : { ok: true, bytes: h.bytes, size: h.bytes.byteLength, truncated: false, sha256 };
    },
  };
}

/**
 * A judge that answers from pre-computed verdicts when given the very bytes object that was
 * judged (what cachedReader hands out) for the same file, else judges.
 */
export function lookupJudge(held: readonly ReadPayload[], verdicts: readonly Judgement[], fallback: ConfigJudge): ConfigJudge {
  const known = new Map<Uint8Array, { file: string; j: Judgement }>();
  held.forEach((h, i) => known.set(h.bytes, { file: h.task.file, j: verdicts[i]! }));
  return (bytes, file) => {
    const k = known.get(bytes);
    return k && k.file === file ? k.j : fallback(bytes, file);
  };
}
