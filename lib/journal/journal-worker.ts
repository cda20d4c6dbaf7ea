// Worker thread entry for parallel scans (parallel.ts): scan one part, post the records.
// A bundle that wants parallel scans builds this file as `journal-worker.js` beside itself.

import { parentPort, workerData } from 'node:worker_threads';
import { scanPart, type PartJob, type WorkerMessage } from './parallel.js';

async function run(): Promise<void> {
  const raw = workerData as PartJob;
  const job: PartJob = { ...raw, end: raw.end < 0 ? Infinity : raw.end };
  let last = 0;
  const post = (m: WorkerMessage) => parentPort!.postMessage(m);
  try {
    const result = await scanPart(job, (bytes) => {
      if (bytes - last >= 16 * 1024 * 1024) {
        last = bytes;
        post({ bytes });
      }
    });
    post({ bytes: result.bytes });
    post({ result });
  } catch (err) {
    post({ error: (err as Error).message });
  }
}

if (parentPort && workerData) void run();
