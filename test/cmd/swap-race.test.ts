// Directory-swap races (#12): a swapper process keeps replacing a checkpoint, a UID directory
// and meta/ with symlinks to a canary directory outside the store while the built CLI reads
// and writes. A few trials here; test/bench/swap.mjs runs hundreds.

import t from 'tap';
// @ts-expect-error: a plain .mjs helper shared with the benchmark
import { swapTrials } from '../bench/lib/swap.mjs';

const TRIALS = Number(process.env.SWAP_TRIALS ?? 3);
t.setTimeout(10 * 60 * 1000);

t.test(`swapper vs show/verify/status/ls/reset/undo/prune: ${TRIALS} trials`, { timeout: 600_000 }, async (t) => {
  const f = await swapTrials({ trials: TRIALS });
  t.comment(`trials ${f.trials}, commands ${f.commands}, swaps ${f.swaps}, escapes ${f.escapes}, torn ${f.torn}, hangs ${f.hangs}, crashes ${f.crashes}, atime checked ${f.atimeChecked}`);
  t.same(f.failures, [], 'nothing outside read or written, nothing torn, no hang, no crash');
  t.equal(f.trials, TRIALS);
  t.ok(f.swaps > 0, 'the swapper ran');
});
