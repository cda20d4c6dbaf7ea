#!/usr/bin/env node
// Scale benchmark: a generated 10,000-checkpoint store (1,000 UIDs x 10 RVs): `ls` and `verify`,
// each <= 1 s and <= 200 MiB peak RSS (issue 16). The anchor, measured in the same run, is what
// people reach for instead: `grep -r -c` over the same checkpoints (every payload read once).
//   node test/bench/scale.mjs [--uids N] [--runs N] [--smoke] [--sea]
// --sea runs the single executable (dist/kubelet-ckpt) instead of node and the .cjs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLEAN_ENV_NOTE, cleanEnv, generateStore, median, programArgv } from './lib/store.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const smoke = process.argv.includes('--smoke');
const uids = arg('--uids', smoke ? 100 : 1000);
const rvs = 10;
const runs = arg('--runs', smoke ? 1 : 3);
const program = programArgv();

/** Wall seconds and peak RSS (MiB) of one run, from GNU time. */
function measure(argv) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', ...argv], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26, env: cleanEnv() });
  const m = /(\d+\.\d+) (\d+)\s*$/.exec(r.stderr);
  if (!m) throw new Error(`no timing for ${argv.join(' ')} (exit ${r.status}): ${r.stderr.slice(-400)}`);
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
const f2 = (x) => x.toFixed(2);
try {
  const grep = ['grep', '-r', '-c', 'maxPods', path.join(store, 'store/checkpoints')];
  measure(grep); // warm the page cache
  console.log(`scale: ${n} checkpoints, ${program.length === 1 ? 'single executable' : 'node + .cjs'}, ${runs} paired run(s), ${CLEAN_ENV_NOTE}, load average ${os.loadavg()[0].toFixed(1)}`);
  for (const cmd of [['ls', '-o', 'json'], ['verify', '-o', 'json']]) {
    const argv = [...program, '--dir', store, ...cmd];
    measure(argv); // warm up
    const anchor = [];
    const rs = [];
    for (let i = 0; i < runs; i++) {
      anchor.push(measure(grep).seconds);
      rs.push(measure(argv));
    }
    const s = median(rs.map((r) => r.seconds));
    const a = median(anchor);
    const rss = Math.max(...rs.map((r) => r.rssMiB));
    const spread = (xs) => `${f2(Math.min(...xs))}-${f2(Math.max(...xs))}`;
    console.log(`scale:   ${cmd[0].padEnd(6)} median ${f2(s)} s (range ${spread(rs.map((r) => r.seconds))}; ${n === 10000 ? `target <= 1 s ${s <= 1 ? 'ok' : 'OVER'}` : 'the 1 s target is for 10,000'}), peak RSS ${rss.toFixed(0)} MiB (target <= 200 ${rss <= 200 ? 'ok' : 'OVER'}), exit ${rs[0].code}; grep -r -c median ${f2(a)} s (range ${spread(anchor)}), ratio ${(s / a).toFixed(1)}x`);
  }
} finally {
  fs.rmSync(store, { recursive: true, force: true });
}
console.log(`scale: store generated in ${genSeconds.toFixed(1)} s`);
