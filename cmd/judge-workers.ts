// Payload judging on the other cores for large stores: worker threads run this same
// program file (selected by KUBELET_CKPT_ROLE) and judge their share of the payloads
// while this thread judges its own.

import os from 'node:os';
import type { ConfigJudge, Judgement } from '../lib/integrity/judge.js';
import type { JudgeOptions } from '../lib/integrity/pipeline.js';
import type { JudgeRunner, JudgeTask } from '../lib/integrity/prejudge.js';

export const JUDGE_WORKER_ROLE = 'judge-worker';

/** A runner using (cores - 1) worker threads, up to 3, plus this thread; null on one core. */
export function workerJudgeRunner(options: JudgeOptions, local: ConfigJudge): JudgeRunner | null {
  const script = process.argv[1];
  // KUBELET_CKPT_JOBS caps the threads used (1: judge everything in this thread).
  const cores = Number(process.env.KUBELET_CKPT_JOBS) || (os.availableParallelism?.() ?? os.cpus().length);
  if (!script || cores < 2) return null;
  const workers = Math.min(cores - 1, 3);
  return async (tasks: JudgeTask[]): Promise<Judgement[]> => {
    const { Worker } = await import('node:worker_threads');
    // Workers start a little later than this thread: this thread takes a larger share.
    const mineCount = Math.ceil(tasks.length * (1.2 / (workers + 1.2)));
    const per = Math.ceil((tasks.length - mineCount) / workers);
    const started = Array.from({ length: workers }, (_, i) => {
      const chunk = tasks.slice(mineCount + i * per, mineCount + (i + 1) * per);
      const worker = new Worker(script, { env: { ...process.env, KUBELET_CKPT_ROLE: JUDGE_WORKER_ROLE }, workerData: { options }, stdout: true, stderr: true });
      const done = new Promise<Judgement[]>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`judge worker exited with ${code}`)));
      });
      worker.postMessage(chunk);
      return { worker, done };
    });
    try {
      const mine = tasks.slice(0, mineCount).map((t) => local(Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength), t.file));
      const theirs = await Promise.all(started.map((w) => w.done));
      return [...mine, ...theirs.flat()];
    } finally {
      for (const w of started) void w.worker.terminate();
    }
  };
}

/** The worker's side: judge what the parent posts, post the verdicts back. */
export async function runJudgeWorker(): Promise<void> {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { judgeConfig } = await import('../lib/integrity/pipeline.js');
  const judge = judgeConfig((workerData as { options: JudgeOptions }).options);
  parentPort!.once('message', (tasks: JudgeTask[]) => {
    parentPort!.postMessage(tasks.map((t) => judge(Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength), t.file)));
  });
}
