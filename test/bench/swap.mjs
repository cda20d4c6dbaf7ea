#!/usr/bin/env node
// Directory-swap races against the built CLI, many trials (CI runs 2 in test/cmd/swap-race.test.ts).
//   node test/bench/swap.mjs [--trials N] [--smoke]
// Prints trials, commands, swaps, escapes (canary read or written), torn meta files, hangs, crashes.
import { swapTrials } from './lib/swap.mjs';

const arg = (n, d) => (process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : d);
const trials = process.argv.includes('--smoke') ? 3 : Number(arg('--trials', '100'));
const t0 = Date.now();
const f = await swapTrials({ trials });
console.log(`swap: ${f.trials} trials, ${f.commands} commands, ${f.swaps} swaps in ${((Date.now() - t0) / 1000).toFixed(1)} s: escapes ${f.escapes}, torn ${f.torn}, hangs ${f.hangs}, crashes ${f.crashes} (atime check ${f.atimeChecked ? 'on' : 'off: noatime mount, content and tree checks only'})`);
for (const x of f.failures.slice(0, 20)) console.log(`  ${x}`);
process.exitCode = f.failures.length ? 1 : 0;
