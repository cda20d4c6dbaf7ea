#!/usr/bin/env node
// Randomized SIGKILL loop against the built CLI, for more runs than `npm test` makes
// (test/cmd/recovery-faults.test.ts runs 200). Each run builds a store, starts
// `reset all --to local --yes` (or `prune --yes`, or `undo --yes` after a reset) with every
// apply step slowed a little (KUBELET_CKPT_FAULT=delay:MS), SIGKILLs it at a random moment,
// and checks: each meta file holds exactly its old or its new bytes, last-known-good is
// never behind assigned (the kubelet's order), checkpoints are whole or gone, leftovers
// are only our tmp_ entries and `verify` reports each of them. Exit 1 on any torn state.
//
//   node test/bench/sigkill.mjs [--runs N] [--jobs N] [--delay MS] [--smoke] [--keep]
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cli = path.join(root, 'dist', 'kubelet-ckpt.cjs');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const smoke = process.argv.includes('--smoke');
const RUNS = arg('--runs', smoke ? 40 : 1000);
const JOBS = arg('--jobs', Math.max(1, os.availableParallelism?.() ?? os.cpus().length));
const DELAY = arg('--delay', 2);
const keep = process.argv.includes('--keep');

const UID = '946d785e-998a-11e7-a8dd-42010a800006';
const PAYLOAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\ncgroupDriver: systemd\nclusterDNS:\n- 10.96.0.10\nclusterDomain: cluster.local\n';
const meta = (rv) =>
  `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: node-config\n    namespace: kube-system\n    resourceVersion: "${rv}"\n    uid: ${UID}\n`;
const A = meta('5');
const L = meta('4');

function makeStore(dir) {
  for (const rv of ['1', '2', '3', '4', '5']) {
    fs.mkdirSync(path.join(dir, 'store/checkpoints', UID, rv), { recursive: true });
    fs.writeFileSync(path.join(dir, 'store/checkpoints', UID, rv, 'kubelet'), PAYLOAD);
  }
  fs.mkdirSync(path.join(dir, 'store/meta'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'store/meta/assigned'), A);
  fs.writeFileSync(path.join(dir, 'store/meta/last-known-good'), L);
}

function runAndKill(dcd, args, killAfterMs) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, '--dir', dcd, ...args], { env: { ...process.env, NO_COLOR: '1', KUBELET_CKPT_FAULT: `delay:${DELAY}` }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    let armed = false;
    child.stderr.on('data', (d) => {
      err += String(d);
      if (!armed && err.includes('apply begins')) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      }
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      resolve({ code, signal, err });
    });
  });
}

const read = (dcd, n) => fs.readFileSync(path.join(dcd, 'store/meta', n), 'utf8');

function verifyLeftovers(dcd) {
  const r = spawnSync(process.execPath, [cli, '--dir', dcd, 'verify', '-o', 'json'], { encoding: 'utf8' });
  const v = JSON.parse(r.stdout);
  return {
    tmp: v.findings.filter((f) => f.code === 'TMP_LEFTOVER').map((f) => f.path).sort(),
    errors: v.findings.filter((f) => f.severity === 'error').map((f) => f.code),
  };
}

function check(kind, dcd) {
  const problems = [];
  let state = null;
  const metaDir = path.join(dcd, 'store/meta');
  const leftovers = [];
  if (kind !== 'prune') {
    const a = read(dcd, 'assigned');
    const l = read(dcd, 'last-known-good');
    const [oldA, oldL, newA, newL] = kind === 'undo' ? ['', '', A, L] : [A, L, '', ''];
    if (a !== oldA && a !== newA) problems.push('assigned is torn');
    if (l !== oldL && l !== newL) problems.push('last-known-good is torn');
    if (a === newA && l === oldL && newL !== oldL) problems.push('assigned was written before last-known-good');
    state = a === oldA && l === oldL ? 'old' : a === newA && l === newL ? 'new' : 'half';
  }
  for (const n of fs.readdirSync(metaDir)) {
    if (n === 'assigned' || n === 'last-known-good') continue;
    if (!/^tmp_.*kubelet-ckpt/.test(n)) problems.push(`foreign entry meta/${n}`);
    leftovers.push(`meta/${n}`);
  }
  const cpDir = path.join(dcd, 'store/checkpoints', UID);
  for (const n of fs.readdirSync(cpDir)) {
    if (/^[1-5]$/.test(n)) {
      const files = fs.readdirSync(path.join(cpDir, n));
      if (files.length !== 1 || fs.readFileSync(path.join(cpDir, n, 'kubelet'), 'utf8') !== PAYLOAD) problems.push(`checkpoint ${n} is not whole`);
    } else if (/^tmp_[1-3]\.kubelet-ckpt-prune\./.test(n)) {
      for (const f of fs.readdirSync(path.join(cpDir, n))) if (f !== 'kubelet' || fs.readFileSync(path.join(cpDir, n, f), 'utf8') !== PAYLOAD) problems.push(`moved-aside ${n} holds a torn file`);
      leftovers.push(`checkpoints/${UID}/${n}`);
    } else problems.push(`foreign entry checkpoints/${UID}/${n}`);
  }
  for (const rv of ['4', '5']) if (!fs.existsSync(path.join(cpDir, rv, 'kubelet'))) problems.push(`referenced checkpoint ${rv} is gone`);
  if (leftovers.length || Math.random() < 0.05) {
    const v = verifyLeftovers(dcd);
    if (JSON.stringify(v.tmp) !== JSON.stringify(leftovers.sort())) problems.push(`verify reports ${JSON.stringify(v.tmp)}, left: ${JSON.stringify(leftovers)}`);
    if (v.errors.length) problems.push(`verify errors: ${v.errors.join(', ')}`);
  }
  return { problems, state };
}

if (!fs.existsSync(cli)) {
  console.error(`sigkill: ${cli} is missing; run npm run build first`);
  process.exit(2);
}
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kckpt-sigkill-'));
const tally = { old: 0, half: 0, new: 0, killed: 0, finished: 0 };
const failures = [];
const t0 = Date.now();
let next = 0;
async function worker() {
  while (next < RUNS) {
    const i = next++;
    const kind = ['reset', 'reset', 'prune', 'undo'][i % 4];
    const dcd = path.join(base, `r${i}`);
    makeStore(dcd);
    if (kind === 'undo') spawnSync(process.execPath, [cli, '--dir', dcd, 'reset', 'all', '--yes']);
    const args = kind === 'prune' ? ['prune', '--yes'] : kind === 'undo' ? ['undo', '--yes'] : ['reset', 'all', '--yes'];
    const r = await runAndKill(dcd, args, crypto.randomInt(0, 20 * DELAY + 25));
    r.signal ? tally.killed++ : tally.finished++;
    const c = check(kind, dcd);
    if (c.state) tally[c.state]++;
    if (c.problems.length) failures.push(`run ${i} (${kind}, ${dcd}): ${c.problems.join('; ')}`);
    else if (!keep) fs.rmSync(dcd, { recursive: true, force: true });
  }
}
await Promise.all(Array.from({ length: JOBS }, worker));
const secs = (Date.now() - t0) / 1000;
console.log(`sigkill: ${RUNS} runs in ${secs.toFixed(1)} s (${JOBS} jobs, ${DELAY} ms per step): killed ${tally.killed}, finished ${tally.finished}; meta after: old ${tally.old}, half ${tally.half}, new ${tally.new}`);
for (const f of failures.slice(0, 20)) console.log(`TORN: ${f}`);
console.log(failures.length ? `sigkill: ${failures.length} torn states` : 'sigkill: no torn state');
if (!failures.length && !keep) fs.rmSync(base, { recursive: true, force: true });
process.exitCode = failures.length ? 1 : 0;
