#!/usr/bin/env node
// Fleet merge benchmark: `report merge DIR` over 10,000 generated NodeReports (one file per
// node, a mix of groups, fall-backs and crash loops), bundled CLI, median of runs; target
// <= 2 s. Anchors measured in the same run: `node -e 0`, and `cat` of the same files.
//   node test/bench/merge.mjs [--nodes N] [--runs N] [--smoke]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, median } from './lib/store.mjs';

const arg = (name, dflt) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : dflt);
const smoke = process.argv.includes('--smoke');
const nodes = arg('--nodes', smoke ? 500 : 10000);
const runs = arg('--runs', smoke ? 1 : 5);

function report(i) {
  const uid = `946d785e-998a-11e7-a8dd-${String(i % 7).padStart(12, '0')}`;
  const rv = String(1000 + (i % 3));
  const sha = `${(i % 21).toString(16).padStart(2, '0')}`.repeat(32);
  const ref = { namespace: 'kube-system', name: `node-config-${i % 7}`, uid, resourceVersion: rv, kubeletConfigKey: 'kubelet', apiPath: `/api/v1/namespaces/kube-system/configmaps/node-config-${i % 7}` };
  const fellBack = i % 97 === 0;
  return {
    apiVersion: 'kubelet-ckpt/v1',
    kind: 'NodeReport',
    generatedAt: new Date(Date.UTC(2026, 10, 25, 0, 0, i % 60)).toISOString(),
    tool: { name: 'kubelet-ckpt', version: '0.1.0' },
    node: { name: `node-${String(i).padStart(5, '0')}`, nameFrom: 'hostname-override', host: `node-${i}` },
    kubelet: { version: 'v1.23.17', rules: '1.23', config: '/var/lib/kubelet/config.yaml' },
    store: { path: '/var/lib/kubelet/dynamic-config/store', state: 'ok', error: null, checkpoints: 3 },
    assigned: { state: 'source', ref, sha256: sha, error: null },
    lastKnownGood: { state: 'source', ref, sha256: sha, error: null },
    nextBoot: { source: fellBack ? 'last-known-good' : 'assigned', ref, sha256: sha, willStart: true, fellBack, statusError: fellBack ? 'failed to validate assigned config' : null, reason: `assigned checkpoint ${uid}/${rv} loads and validates` },
    running: null,
    trial: { inTrial: false, endsAt: '2026-11-24T00:10:00.000Z' },
    findings: { scope: 'all', error: 0, warning: 1, info: 4, byCode: [{ code: 'FLAG_OVERRIDE', severity: 'info', count: 4 }, { code: 'PAYLOAD_STRICT', severity: 'warning', count: 1 }] },
    crashLoop: { checked: true, crashLoop: i % 211 === 0, restarts: 1, detail: null },
    migration: null,
  };
}

/** Wall ms, and CPU ms (user + sys, from GNU time when installed: on a shared machine wall time mostly measures the queue). */
const gnuTime = fs.existsSync('/usr/bin/time');
function time(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = gnuTime
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26, encoding: 'utf8' })
    : spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  return { ms, cpu: m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kckpt-bench-merge-'));
for (let i = 0; i < nodes; i++) fs.writeFileSync(path.join(dir, `node-${i}.json`), `${JSON.stringify(report(i), null, 2)}\n`);
const ours = [];
const cat = [];
const node0 = [];
time(process.execPath, [cli, 'report', 'merge', dir, '-o', 'json']); // warm the page cache
for (let i = 0; i < runs; i++) {
  node0.push(time(process.execPath, ['-e', '0']));
  cat.push(time('sh', ['-c', `cat "${dir}"/*.json > /dev/null`]));
  ours.push(time(process.execPath, [cli, 'report', 'merge', dir, '-o', 'json']));
}
const med = (a, k) => median(a.map((x) => x[k]));
const o = med(ours, 'ms');
const c = med(cat, 'ms');
const n = med(node0, 'ms');
const cpu = (a) => (gnuTime ? `${med(a, 'cpu').toFixed(0)} ms CPU` : 'CPU not measured');
console.log(`merge: report merge of ${nodes} reports median ${o.toFixed(0)} ms wall, ${cpu(ours)} (target <= 2000 for 10,000; ratio ${(o / 2000).toFixed(2)}); anchors: node -e 0 ${n.toFixed(0)} ms (x${(o / n).toFixed(1)}; ${cpu(node0)}), cat of the same files ${c.toFixed(0)} ms (x${(o / c).toFixed(1)}; ${cpu(cat)}); ${runs} runs`);
fs.rmSync(dir, { recursive: true, force: true });
