#!/usr/bin/env node
// Startup benchmark: `status --no-journal` on a 10-checkpoint store, bundled build, against
// `node -e 0`, interleaved, median of N runs each. Target: ratio ≤ 1.5.
//   node test/bench/startup.mjs [--runs N] [--instructions]
// --instructions also counts instructions with valgrind's callgrind (slow, but independent of
// how busy the machine is; wall-clock ratios on a shared machine drift with its load).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(new URL('../..', import.meta.url).pathname);
const cli = path.join(repo, 'dist', 'kubelet-ckpt.cjs');
const runs = process.argv.includes('--smoke') ? 7 : Number(process.argv[process.argv.indexOf('--runs') + 1]) || 31;

function makeStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kckpt-bench-startup-'));
  const payload = fs.readFileSync(path.join(repo, 'fixtures/stores/healthy/store/checkpoints/946d785e-998a-11e7-a8dd-42010a800006/119980/kubelet'));
  const uid = '946d785e-998a-11e7-a8dd-42010a800006';
  for (let rv = 1; rv <= 10; rv++) {
    const d = path.join(dir, 'store/checkpoints', uid, String(1000 + rv));
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'kubelet'), payload);
  }
  const meta = (rv) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: node-config\n    namespace: kube-system\n    resourceVersion: "${rv}"\n    uid: ${uid}\n`;
  fs.mkdirSync(path.join(dir, 'store/meta'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'store/meta/assigned'), meta(1010));
  fs.writeFileSync(path.join(dir, 'store/meta/last-known-good'), meta(1009));
  return dir;
}

function time(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

const store = makeStore();
const anchor = [];
const ours = [];
time(process.execPath, [cli, '--dir', store, 'status', '--no-journal']); // warm the page cache
for (let i = 0; i < runs; i++) {
  anchor.push(time(process.execPath, ['-e', '0']));
  ours.push(time(process.execPath, [cli, '--dir', store, 'status', '--no-journal']));
}
const a = median(anchor);
const o = median(ours);
console.log(`startup: node -e 0 median ${a.toFixed(1)} ms; kubelet-ckpt status --no-journal (10 checkpoints, bundle) median ${o.toFixed(1)} ms; ratio ${(o / a).toFixed(2)} (target <= 1.5) over ${runs} interleaved runs`);

function instructions(args) {
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const m = /Collected : (\d+)/.exec(r.stderr ?? '');
  return m ? Number(m[1]) : null;
}
if (process.argv.includes('--instructions')) {
  const ia = instructions(['-e', '0']);
  const io = instructions([cli, '--dir', store, 'status', '--no-journal']);
  if (ia && io) console.log(`startup (instructions): node -e 0 ${(ia / 1e6).toFixed(0)}M; status ${(io / 1e6).toFixed(0)}M; ratio ${(io / ia).toFixed(2)} (target <= 1.5)`);
  else console.log('startup (instructions): valgrind not available');
}
fs.rmSync(store, { recursive: true, force: true });
