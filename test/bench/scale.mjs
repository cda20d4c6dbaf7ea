#!/usr/bin/env node
// Scale benchmark: a generated 10,000-checkpoint store (1,000 UIDs x 10 RVs) through the
// bundled CLI: `ls` and `verify`, each <= 2 s and <= 200 MiB peak RSS (DESIGN.md).
//   node test/bench/scale.mjs [--uids N] [--runs N] [--smoke]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { cli, generateStore, median } from './lib/store.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const smoke = process.argv.includes('--smoke');
const uids = arg('--uids', smoke ? 100 : 1000);
const rvs = 10;
const runs = arg('--runs', smoke ? 1 : 3);

/** Wall seconds and peak RSS (MiB) of one run, from GNU time. */
function measure(args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, cli, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const m = /(\d+\.\d+) (\d+)\s*$/.exec(r.stderr);
  if (!m) throw new Error(`no timing for ${args.join(' ')} (exit ${r.status}): ${r.stderr.slice(-400)}`);
  return { seconds: Number(m[1]), rssMiB: Number(m[2]) / 1024, code: r.status };
}


if (!fs.existsSync('/usr/bin/time')) {
  console.log('scale: /usr/bin/time is not installed; skipped');
  process.exit(0);
}
const t0 = Date.now();
const store = generateStore(uids, rvs, 'kckpt-scale-');
const genSeconds = (Date.now() - t0) / 1000;
const n = uids * rvs;
for (const cmd of [['ls', '-o', 'json'], ['verify', '-o', 'json']]) {
  measure(['--dir', store, ...cmd]); // warm the page cache
  const rs = Array.from({ length: runs }, () => measure(['--dir', store, ...cmd]));
  const s = median(rs.map((r) => r.seconds));
  const rss = Math.max(...rs.map((r) => r.rssMiB));
  console.log(`scale: ${cmd[0]} on ${n} checkpoints: median ${s.toFixed(2)} s (target <= 2, ratio ${(s / 2).toFixed(2)}), peak RSS ${rss.toFixed(0)} MiB (target <= 200), exit ${rs[0].code}, ${runs} runs`);
}
fs.rmSync(store, { recursive: true, force: true });
console.log(`scale: store generated in ${genSeconds.toFixed(1)} s`);
