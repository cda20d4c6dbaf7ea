#!/usr/bin/env node
// Scale benchmark: a generated 10,000-checkpoint store (1,000 UIDs x 10 RVs) through the
// bundled CLI: `ls` and `verify`, each <= 2 s and <= 200 MiB peak RSS (DESIGN.md).
//   node test/bench/scale.mjs [--uids N] [--runs N] [--smoke]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(new URL('../..', import.meta.url).pathname);
const cli = path.join(repo, 'dist', 'kubelet-ckpt.cjs');
const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const smoke = process.argv.includes('--smoke');
const uids = arg('--uids', smoke ? 100 : 1000);
const rvs = 10;
const runs = arg('--runs', smoke ? 1 : 3);

const payload = fs.readFileSync(path.join(repo, 'fixtures/demo/var/lib/kubelet/dynamic-config/store/checkpoints/5808539f-48e3-4e47-8ce6-c261c48fa1d9/42315/kubelet'), 'utf8');
const meta = (uid, rv) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: node-config\n    namespace: kube-system\n    resourceVersion: "${rv}"\n    uid: ${uid}\n`;

function generate() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kckpt-scale-'));
  const cps = path.join(dir, 'store/checkpoints');
  for (let u = 0; u < uids; u++) {
    const uid = `${u.toString(16).padStart(8, '0')}-0000-4000-8000-${u.toString(16).padStart(12, '0')}`;
    for (let r = 1; r <= rvs; r++) {
      const d = path.join(cps, uid, String(1000 * u + r));
      fs.mkdirSync(d, { recursive: true });
      // Every payload differs (as real edits do), so nothing can be reused between them.
      fs.writeFileSync(path.join(d, 'kubelet'), payload.replace('maxPods: 150', `maxPods: ${100 + r}`).replace('clusterDomain: cluster.local', `clusterDomain: c${u}.cluster.local`));
    }
  }
  const first = `${(0).toString(16).padStart(8, '0')}-0000-4000-8000-${(0).toString(16).padStart(12, '0')}`;
  fs.mkdirSync(path.join(dir, 'store/meta'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'store/meta/assigned'), meta(first, 10));
  fs.writeFileSync(path.join(dir, 'store/meta/last-known-good'), meta(first, 9));
  return dir;
}

/** Wall seconds and peak RSS (MiB) of one run, from GNU time. */
function measure(args) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, cli, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const m = /(\d+\.\d+) (\d+)\s*$/.exec(r.stderr);
  if (!m) throw new Error(`no timing for ${args.join(' ')} (exit ${r.status}): ${r.stderr.slice(-400)}`);
  return { seconds: Number(m[1]), rssMiB: Number(m[2]) / 1024, code: r.status };
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

if (!fs.existsSync('/usr/bin/time')) {
  console.log('scale: /usr/bin/time is not installed; skipped');
  process.exit(0);
}
const t0 = Date.now();
const store = generate();
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
