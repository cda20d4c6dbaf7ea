#!/usr/bin/env node
// Startup benchmark: `status --no-journal` on a 10-checkpoint store, from the single executable
// (dist/kubelet-ckpt) and from the bundle (node dist/kubelet-ckpt.cjs), against `node -e 0`,
// interleaved in one run. Targets: SEA <= 1.2x, bundle <= 1.5x the anchor.
//   node test/bench/startup.mjs [--runs N] [--smoke] [--instructions]
// Figures are medians of paired runs; the ratio is the median of the per-pair ratios (each pair
// ran back to back, so a machine busy with other work moves both). The spread (p10-p90) of
// every series, the anchor's included, says how noisy the run was.
// Children get a clean environment: NODE_EXTRA_CA_CERTS (set on some machines) makes every
// Node start parse a CA bundle, five times the anchor's own work, which would hide ours; when it
// is set here, a second pass measures with it too.
// --instructions also counts instructions with valgrind's callgrind, less Node's own prime search
// (slow, but independent of how busy the machine is), and those of --version, --help, ls and show
// from the single executable, for the record.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv as cleanEnvOf, median, percentile } from './lib/store.mjs';

const repo = path.resolve(new URL('../..', import.meta.url).pathname);
const bundle = path.join(repo, 'dist', 'kubelet-ckpt.cjs');
const sea = path.join(repo, 'dist', 'kubelet-ckpt');
const smoke = process.argv.includes('--smoke');
const runs = smoke ? 7 : Number(process.argv[process.argv.indexOf('--runs') + 1]) || 31;

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

const cleanEnv = () => cleanEnvOf({ NO_COLOR: '1' });

function time(argv, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const store = makeStore();
const anchorArgv = [process.execPath, '-e', '0'];
const subjects = [
  { name: 'single executable', argv: [sea, '--dir', store, 'status', '--no-journal'], target: 1.2 },
  { name: 'bundle (node .cjs)', argv: [process.execPath, bundle, '--dir', store, 'status', '--no-journal'], target: 1.5 },
].filter((s) => fs.existsSync(s.argv[0] === process.execPath ? bundle : sea));

const f = (x) => x.toFixed(1);
const spread = (a) => `p10-p90 ${f(percentile(a, 0.1))}-${f(percentile(a, 0.9))}`;

function pass(label, env) {
  for (const s of subjects) time(s.argv, env); // warm the page cache
  const anchor = [];
  const series = subjects.map(() => ({ ms: [], ratios: [] }));
  for (let i = 0; i < runs; i++) {
    const a = time(anchorArgv, env);
    anchor.push(a);
    subjects.forEach((s, j) => {
      const ms = time(s.argv, env);
      series[j].ms.push(ms);
      series[j].ratios.push(ms / a);
    });
  }
  console.log(`startup (${label}, ${runs} paired runs, load average ${os.loadavg()[0].toFixed(1)}): node -e 0 median ${f(median(anchor))} ms (${spread(anchor)})`);
  subjects.forEach((s, j) => {
    const r = median(series[j].ratios);
    console.log(`startup:   ${s.name.padEnd(18)} status --no-journal median ${f(median(series[j].ms))} ms (${spread(series[j].ms)}); ratio ${r.toFixed(2)} (target <= ${s.target}) ${r <= s.target ? 'ok' : 'OVER'}`);
  });
}

pass('clean environment', cleanEnv());
if (process.env.NODE_EXTRA_CA_CERTS && !smoke) pass(`with NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS}`, { ...cleanEnv(), NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS });

/**
 * Instructions executed (callgrind), less those of `detail::sprp`: a prime search in Node's own
 * start whose length varies by several million from run to run and says nothing about us.
 */
function instructions(argv) {
  const out = path.join(os.tmpdir(), `kckpt-callgrind-${process.pid}.out`);
  const r = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, ...argv], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], env: cleanEnv() });
  const m = /Collected : (\d+)/.exec(r.stderr ?? '');
  if (!m) return null;
  const a = spawnSync('callgrind_annotate', [out], { encoding: 'utf8', maxBuffer: 1 << 26 });
  fs.rmSync(out, { force: true });
  const sprp = (a.stdout ?? '').split('\n').filter((l) => l.includes('sprp')).reduce((n, l) => n + Number(l.trim().split(/\s+/)[0].replaceAll(',', '')), 0);
  return Number(m[1]) - sprp;
}
if (process.argv.includes('--instructions')) {
  const ia = instructions(anchorArgv);
  if (!ia) console.log('startup (instructions): valgrind not available');
  else {
    console.log(`startup (instructions, clean environment): node -e 0 ${(ia / 1e6).toFixed(0)}M`);
    for (const s of subjects) {
      const io = instructions(s.argv);
      console.log(`startup (instructions):   ${s.name.padEnd(18)} ${(io / 1e6).toFixed(0)}M; ratio ${(io / ia).toFixed(2)} (target <= ${s.target})`);
    }
    // What else people type first on a node, from the single executable (no target: for the record).
    if (fs.existsSync(sea)) {
      for (const args of [['--version'], ['--help'], ['--dir', store, 'ls'], ['--dir', store, 'show', 'assigned']]) {
        const io = instructions([sea, ...args]);
        console.log(`startup (instructions):   single executable ${args.filter((a) => a !== store && a !== '--dir').join(' ').padEnd(14)} ${(io / 1e6).toFixed(0)}M; ratio ${(io / ia).toFixed(2)}`);
      }
    }
  }
}
fs.rmSync(store, { recursive: true, force: true });
