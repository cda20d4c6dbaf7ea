#!/usr/bin/env node
// Journal benchmark, the command as people run it (`node dist/kubelet-ckpt.cjs journal --file F`):
//  1. speed: against `grep -F -c 'onfig controller' F` on the same file (warm cache), at several
//     shares of matching lines; each round runs both, in alternating order; the ratio of each
//     pair, then the median (and the spread) over the rounds. Target: ≤ 1.2 × grep.
//  2. memory: peak RSS (`/usr/bin/time -v`, else not measured) on a large journal in each output
//     mode (text, json, yaml). Target: ≤ 150 MiB on 2 GiB.
// Files are generated in $TMPDIR and deleted afterwards (unless --keep).
//   node test/bench/journal.mjs [--smoke] [--size MB] [--rounds N] [--densities 0.001,0.05,0.5]
//                               [--big-size MB | --no-big] [--keep] [--sea]
// --sea runs the single executable (dist/kubelet-ckpt) instead of node and the .cjs.
// Needs the bundle: `npm run build` first.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLEAN_ENV_NOTE, cleanEnv, programArgv } from './lib/store.mjs';

const repo = path.resolve(new URL('../..', import.meta.url).pathname);
const [cmd0, ...cmdArgs] = programArgv();
const cli = cmdArgs[0] ?? cmd0;
const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const smoke = argv.includes('--smoke');
const sizeMb = Number(opt('--size', smoke ? 8 : 300));
const rounds = Number(opt('--rounds', smoke ? 3 : 7));
const densities = String(opt('--densities', '0.001,0.05,0.5')).split(',').map(Number);
const bigMb = argv.includes('--no-big') ? 0 : Number(opt('--big-size', smoke ? 32 : 2048));
const keep = argv.includes('--keep');
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

if (!fs.existsSync(cli)) {
  console.error(`journal bench: ${cli} is missing; run \`npm run build\` first`);
  process.exit(2);
}

// ---- a kubelet journal (syslog `short`): chatter, and config-controller stories at a chosen share ----

const UID = '7a0c1f4e-5b2d-4c3e-9f10-1a2b3c4d5e6f';
const API = '/api/v1/namespaces/kube-system/configmaps/node-config-a';
const NOISE = [
  ['I', 'kubelet_node_status.go:71', '"Attempting to register node" node="worker-1"'],
  ['E', 'reflector.go:138', 'k8s.io/client-go/informers/factory.go:134: Failed to watch *v1.Service: failed to list *v1.Service: Get "https://10.0.0.1:6443/api/v1/services?limit=500&resourceVersion=0": dial tcp 10.0.0.1:6443: connect: connection refused'],
  ['I', 'reconciler.go:224', 'operationExecutor.VerifyControllerAttachedVolume started for volume "kube-proxy" (UniqueName: "kubernetes.io/configmap/5d3c1b2a-kube-proxy") pod "kube-proxy-abcde" (UID: "5d3c1b2a-1111-2222-3333-444455556666")'],
  ['W', 'pod_workers.go:191', 'Error syncing pod 5d3c1b2a-1111-2222-3333-444455556666 ("coredns-74ff55c5b-abcde_kube-system(5d3c1b2a)"), skipping: failed to "StartContainer" for "coredns" with CrashLoopBackOff: "back-off 5m0s restarting failed container"'],
  ['E', 'summary_sys_containers.go:47', '"Failed to get system container stats" err="failed to get cgroup stats for \\"/system.slice/kubelet.service\\": unknown container \\"/system.slice/kubelet.service\\"" containerName="/system.slice/kubelet.service"'],
  ['I', 'eviction_manager.go:339', '"Eviction manager: attempting to reclaim" resourceName="ephemeral-storage"'],
  ['E', 'kubelet.go:2291', '"Error getting node" err="node \\"worker-1\\" not found"'],
  ['I', 'topology_manager.go:187', '"Topology Admit Handler"'],
  ['E', 'remote_runtime.go:116', '"RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to setup network for sandbox: networkPlugin cni failed to set up pod network"'],
  ['I', 'scope.go:111', '"RemoveContainer" containerID="3f2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f"'],
];
// What a kubelet says about its config, in turn: sync failures, downloads, restarts, loads.
const CONFIG = [
  ['E', 'configsync.go:89', 'kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: configmaps "node-config-b" not found'],
  ['I', 'watch.go:128', 'kubelet config controller: assigned ConfigMap was updated'],
  ['I', 'download.go:187', `kubelet config controller: found ${API} in in-memory store, UID: ${UID}, ResourceVersion: 42`],
  ['E', 'configsync.go:89', 'kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: configmaps "node-config-b" not found'],
  ['I', 'controller.go:101', 'kubelet config controller: starting controller'],
  ['I', 'fsstore.go:116', `kubelet config controller: loading Kubelet configuration checkpoint for source ${API}, UID: ${UID}, ResourceVersion: 42`],
];
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n) => String(n).padStart(2, '0');

/** `bytes` of journal where a share `density` of the lines are config-controller lines. */
function generate(file, bytes, density) {
  const fd = fs.openSync(file, 'w');
  let ms = Date.UTC(2021, 7, 1);
  let pid = 2000;
  let written = 0;
  let n = 0;
  let acc = 0;
  let c = 0;
  while (written < bytes) {
    const lines = [];
    for (let i = 0; i < 20000; i++) {
      ms += 7;
      n++;
      const d = new Date(ms);
      const hms = `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
      const pre = `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${hms} worker-1 kubelet[${pid}]: `;
      const k = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${hms}.${String(d.getUTCMilliseconds()).padStart(3, '0')}123 ${String(pid).padStart(7)} `;
      acc += density;
      let entry;
      if (acc >= 1) {
        acc -= 1;
        entry = CONFIG[c++ % CONFIG.length];
        if (entry[1] === 'controller.go:101') pid++;
      } else {
        entry = NOISE[(n * 7 + (n >> 4)) % NOISE.length];
      }
      lines.push(`${pre}${entry[0]}${k}${entry[1]}] ${entry[2]}`);
    }
    const buf = Buffer.from(lines.join('\n') + '\n');
    fs.writeSync(fd, buf);
    written += buf.length;
  }
  fs.closeSync(fd);
}

// ---- measuring ----

/** Wall time (ms), CPU time (user + system, ms) and peak RSS (KiB), the last two when /usr/bin/time is there. */
function run(cmd, args) {
  const full = TIME ? [TIME, ['-f', '%M %U %S', cmd, ...args]] : [cmd, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, env: cleanEnv() });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const [rssKb, user, sys] = TIME ? r.stderr.trim().split('\n').at(-1).split(' ').map(Number) : [NaN, NaN, NaN];
  return { ms, cpuMs: (user + sys) * 1000, rssKb, out: r.stdout };
}

const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mib = (kb) => (Number.isFinite(kb) ? `${(kb / 1024).toFixed(0)} MiB` : 'n/a');

function speed(density) {
  const file = path.join(os.tmpdir(), `kubelet-ckpt-bench-journal-${process.pid}-${density}.log`);
  generate(file, sizeMb * 1024 * 1024, density);
  try {
    spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'ignore'] }); // warm the page cache for both
    const ratios = [];
    const cpuRatios = [];
    const grepMs = [];
    const oursMs = [];
    let rss = 0;
    let count = 0;
    for (let i = 0; i < rounds; i++) {
      const grep = () => run('grep', ['-F', '-c', 'onfig controller', file]);
      const ours = () => run(cmd0, [...cmdArgs, 'journal', '--file', file, '--utc', '--year', '2021']);
      const [g, o] = i % 2 ? [grep(), ours()] : ((o1) => [grep(), o1])(ours());
      ratios.push(o.ms / g.ms);
      cpuRatios.push(o.cpuMs / Math.max(10, g.cpuMs)); // /usr/bin/time counts in 10 ms steps
      grepMs.push(g.ms);
      oursMs.push(o.ms);
      rss = Math.max(rss, o.rssKb);
      count = Number(g.out.trim());
    }
    const mb = fs.statSync(file).size / 1048576;
    const r = median(ratios);
    console.log(
      `journal speed: ${(density * 100).toFixed(1)}% matching lines (${count} of them), ${mb.toFixed(0)} MiB: grep -F -c median ${median(grepMs).toFixed(0)} ms, journal median ${median(oursMs).toFixed(0)} ms; ` +
        `ratio median ${r.toFixed(2)} (paired, ${rounds} rounds; min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}) target <= 1.2; ` +
        `CPU-time ratio median ${median(cpuRatios).toFixed(1)} (grep's CPU floored at 10 ms; a loaded machine inflates wall times, less so CPU); peak RSS ${mib(rss)}`,
    );
    return r;
  } finally {
    if (!keep) fs.rmSync(file, { force: true });
  }
}

function memory() {
  const file = path.join(os.tmpdir(), `kubelet-ckpt-bench-journal-${process.pid}-big.log`);
  const density = 0.5; // the most events per byte: the hardest case for memory
  const t0 = Date.now();
  generate(file, bigMb * 1024 * 1024, density);
  const mb = fs.statSync(file).size / 1048576;
  console.log(`journal memory: generated ${mb.toFixed(0)} MiB (${(density * 100).toFixed(0)}% matching lines) in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  try {
    for (const mode of ['text', 'json', 'yaml']) {
      const o = run(cmd0, [...cmdArgs, 'journal', '--file', file, '--utc', '--year', '2021', '-o', mode]);
      const summary = mode === 'json' ? (({ events, truncated, restarts, crashLoop }) => `${events.length} listed, ${truncated} truncated, ${restarts} restarts, crashLoop ${crashLoop}`)(JSON.parse(o.out)) : `${(o.out.length / 1048576).toFixed(1)} MiB of output`;
      console.log(`journal memory: -o ${mode}: peak RSS ${mib(o.rssKb)} (target <= 150 MiB), ${(o.ms / 1000).toFixed(1)} s; ${summary}`);
    }
  } finally {
    if (!keep) fs.rmSync(file, { force: true });
  }
}

console.log(`journal bench: ${cmdArgs.length ? 'node + .cjs' : 'single executable'}, ${CLEAN_ENV_NOTE}, load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores${smoke ? ' (smoke: small files, figures only)' : ''}`);
for (const d of densities) speed(d);
if (bigMb > 0) memory();
