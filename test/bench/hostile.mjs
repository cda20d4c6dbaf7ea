#!/usr/bin/env node
// The hostile-store property test with many more cases than CI runs.
//   node test/bench/hostile.mjs [--runs N] [--cli-runs N] [--seed S] [--smoke]
// Library cases run in process (every fs call recorded); CLI cases run the built CLI (as
// nobody when root) with canaries outside the store. Failures are counted, not stopped at.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(new URL('../..', import.meta.url).pathname);
const arg = (n, d) => (process.argv.includes(n) ? process.argv[process.argv.indexOf(n) + 1] : d);
const smoke = process.argv.includes('--smoke');
const runs = smoke ? '100' : arg('--runs', '3000');
const cliRuns = smoke ? '8' : arg('--cli-runs', '200');
const seed = arg('--seed', String(Date.now() % 1e9));
const t0 = Date.now();
const r = spawnSync(process.execPath, [path.join(repo, 'node_modules/tap/dist/esm/run.mjs'), '--reporter=terse', '--timeout=3600', 'test/lib/integrity/hostile.test.ts'], {
  cwd: repo,
  encoding: 'utf8',
  env: { ...process.env, FC_RUNS: runs, FC_SEED: seed, FC_CLI_RUNS: cliRuns, FC_COUNT: '1' },
});
const ok = r.status === 0;
console.log(`hostile: ${runs} library + ${cliRuns} CLI random stores (seed ${seed}) in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${ok ? 'no crash, no read outside the store, no write, every defect reported' : 'FAILED'}`);
if (!ok) console.log(r.stdout.slice(-3000));
process.exitCode = ok ? 0 : 1;
