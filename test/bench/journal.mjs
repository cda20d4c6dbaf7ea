#!/usr/bin/env node
// Journal benchmark: `readJournal({file})` (the code behind `journal --file`) on a generated
// short-format kubelet journal, against `grep -F -c 'onfig controller'` on the same file,
// interleaved, median of the rounds. Targets (DESIGN.md "Performance"): ≤ 2 × grep, peak
// RSS ≤ 150 MiB. Runs against the compiled tree: `npx tsc -p .` first.
//   node test/bench/journal.mjs [--size MB] [--rounds N] [--keep] [--file PATH] [--smoke]
// The generated file goes to $TMPDIR and is deleted afterwards unless --keep.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(new URL('../..', import.meta.url).pathname);
const entry = path.join(repo, 'build/lib/journal/index.js');
const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const smoke = argv.includes('--smoke');
const sizeMb = Number(opt('--size', smoke ? 20 : 1024));
const rounds = Number(opt('--rounds', smoke ? 3 : 2));
const keep = argv.includes('--keep');
const given = opt('--file', null);

if (!fs.existsSync(entry)) {
  console.error(`journal bench: ${entry} is missing; run \`npx tsc -p .\` first`);
  process.exit(2);
}

// ---- a realistic journal: mostly kubelet chatter, some config-controller stories and systemd lines ----

const UID = '7a0c1f4e-5b2d-4c3e-9f10-1a2b3c4d5e6f';
const API = '/api/v1/namespaces/kube-system/configmaps/node-config-a';
const NOISE = [
  ['I', 'kubelet_node_status.go:71', '"Attempting to register node" node="worker-1"'],
  ['E', 'reflector.go:138', 'k8s.io/client-go/informers/factory.go:134: Failed to watch *v1.Service: failed to list *v1.Service: Get "https://10.0.0.1:6443/api/v1/services?limit=500&resourceVersion=0": dial tcp 10.0.0.1:6443: connect: connection refused'],
  ['I', 'reconciler.go:224', 'operationExecutor.VerifyControllerAttachedVolume started for volume "kube-proxy" (UniqueName: "kubernetes.io/configmap/5d3c1b2a-kube-proxy") pod "kube-proxy-abcde" (UID: "5d3c1b2a-1111-2222-3333-444455556666")'],
  ['W', 'pod_workers.go:191', 'Error syncing pod 5d3c1b2a-1111-2222-3333-444455556666 ("coredns-74ff55c5b-abcde_kube-system(5d3c1b2a)"), skipping: failed to "StartContainer" for "coredns" with CrashLoopBackOff: "back-off 5m0s restarting failed container"'],
  ['E', 'summary_sys_containers.go:47', '"Failed to get system container stats" err="failed to get cgroup stats for \\"/system.slice/kubelet.service\\": failed to get container info for \\"/system.slice/kubelet.service\\": unknown container \\"/system.slice/kubelet.service\\"" containerName="/system.slice/kubelet.service"'],
  ['I', 'eviction_manager.go:339', '"Eviction manager: attempting to reclaim" resourceName="ephemeral-storage"'],
  ['E', 'kubelet.go:2291', '"Error getting node" err="node \\"worker-1\\" not found"'],
  ['I', 'topology_manager.go:187', '"Topology Admit Handler"'],
  ['E', 'pod_workers.go:836', '"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"calico-node\\" with CrashLoopBackOff" pod="kube-system/calico-node-x7k2p" podUID=9b0a7c1e-8f2d-4a3b-9c6d-0e1f2a3b4c5d'],
  ['I', 'kuberuntime_manager.go:460', '"No sandbox for pod can be found. Need to start a new one" pod="default/nginx-6799fc88d8-2xk9j"'],
  ['W', 'watcher.go:93', 'Error while processing event ("/sys/fs/cgroup/devices/kubepods.slice/kubepods-besteffort.slice": 0x40000100 == IN_CREATE|IN_ISDIR): inotify_add_watch /sys/fs/cgroup/devices/kubepods.slice: no such file or directory'],
  ['E', 'remote_runtime.go:116', '"RunPodSandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to setup network for sandbox: networkPlugin cni failed to set up pod network"'],
  ['I', 'configmap.go:200', 'Received configmap kube-system/kube-proxy-config with config.conf'],
  ['I', 'scope.go:111', '"RemoveContainer" containerID="3f2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f"'],
  ['E', 'cadvisor_stats_provider.go:415', '"Partial failure issuing cadvisor.ContainerInfoV2" err="partial failures: [\\"/kubepods.slice/kubepods-burstable.slice\\": RecentStats: unable to find data in memory cache]"'],
  ['I', 'kubelet_getters.go:176', '"Pod status updated" pod="kube-system/kube-scheduler-master" status=Running'],
];
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n) => String(n).padStart(2, '0');

function generate(file, bytes) {
  const fd = fs.openSync(file, 'w');
  let ms = Date.UTC(2021, 7, 1);
  let pid = 2000;
  let written = 0;
  let n = 0;
  while (written < bytes) {
    const lines = [];
    for (let i = 0; i < 20000; i++) {
      ms += 13;
      const d = new Date(ms);
      const pre = `${MON[d.getUTCMonth()]} ${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} worker-1 `;
      const k = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}123 ${String(pid).padStart(7)} `;
      const kl = (sev, site, msg) => `${pre}kubelet[${pid}]: ${sev}${k}${site}] ${msg}`;
      n++;
      if (n % 20000 === 0) {
        // A config update: the kubelet restarts onto a new resourceVersion.
        const rv = n / 20000;
        lines.push(kl('I', 'watch.go:128', 'kubelet config controller: assigned ConfigMap was updated'));
        lines.push(kl('I', 'download.go:187', `kubelet config controller: found ${API} in in-memory store, UID: ${UID}, ResourceVersion: ${rv}`));
        lines.push(kl('I', 'configsync.go:205', `kubelet config controller: Kubelet restarting to use ${API}, UID: ${UID}, ResourceVersion: ${rv}, KubeletConfigKey: kubelet`));
        lines.push(`${pre}systemd[1]: kubelet.service: Succeeded.`);
        lines.push(`${pre}systemd[1]: kubelet.service: Scheduled restart job, restart counter is at ${rv}.`);
        lines.push(`${pre}systemd[1]: Started kubelet: The Kubernetes Node Agent.`);
        pid += 17;
        lines.push(kl('I', 'controller.go:101', 'kubelet config controller: starting controller'));
        lines.push(kl('I', 'fsstore.go:116', `kubelet config controller: loading Kubelet configuration checkpoint for source ${API}, UID: ${UID}, ResourceVersion: ${rv}`));
      } else if (n % 1500 === 0) {
        lines.push(kl('E', 'configsync.go:89', 'kubelet config controller: failed to sync: failed to download config, see Kubelet log for details, error: configmaps "node-config-b" not found'));
      } else {
        const [sev, site, msg] = NOISE[(n * 7 + (n >> 4)) % NOISE.length];
        lines.push(kl(sev, site, msg));
      }
    }
    const buf = Buffer.from(lines.join('\n') + '\n');
    fs.writeSync(fd, buf);
    written += buf.length;
  }
  fs.closeSync(fd);
}

// ---- measuring ----

const OURS = `
const { readJournalDetailed } = await import(${JSON.stringify(entry)});
const t0 = performance.now();
const { result, stats } = await readJournalDetailed({ file: process.argv[1], year: 2021, utc: true });
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ events: result.events.length, skipped: result.skipped, restarts: result.restarts, bytes: stats.bytes, ms, maxRssKb: process.resourceUsage().maxRSS }));
`;

function wall(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`);
  return { ms, out: r.stdout };
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

const file = given ?? path.join(os.tmpdir(), `kubelet-ckpt-bench-journal-${sizeMb}M.log`);
if (!given) {
  const t0 = Date.now();
  generate(file, sizeMb * 1024 * 1024);
  console.log(`journal bench: generated ${file} (${(fs.statSync(file).size / 1048576).toFixed(0)} MiB) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
try {
  spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'ignore'] }); // warm the page cache for both
  const grep = [];
  const ours = [];
  let last = null;
  for (let i = 0; i < rounds; i++) {
    const g = wall('grep', ['-F', '-c', 'onfig controller', file]);
    grep.push(g.ms);
    const o = wall(process.execPath, ['--input-type=module', '-e', OURS, file]);
    ours.push(o.ms);
    last = { ...JSON.parse(o.out), grepCount: Number(g.out.trim()) };
  }
  const g = median(grep) / 1000;
  const o = median(ours) / 1000;
  const rss = last.maxRssKb / 1024;
  const mb = fs.statSync(file).size / 1048576;
  console.log(
    `journal: ${mb.toFixed(0)} MiB short-format journal; grep -F -c median ${g.toFixed(3)} s; readJournal median ${o.toFixed(3)} s (wall, incl. node start); ratio ${(o / g).toFixed(2)} (target <= 2); peak RSS ${rss.toFixed(0)} MiB (target <= 150); ${last.events} events, ${last.restarts} restarts, ${last.skipped} skipped, grep counted ${last.grepCount}; ${rounds} interleaved rounds; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores` +
      (mb < 256 ? ' (small input: node\'s startup dominates the ratio; the target is for ~1 GB)' : ''),
  );
} finally {
  if (!given && !keep) fs.rmSync(file, { force: true });
}
