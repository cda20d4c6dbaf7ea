// The swapper attack: while the built CLI reads and writes a store, another process keeps
// swapping the store's directories (a checkpoint, a UID directory, meta/) for symlinks to a
// canary directory outside it and back. The canary must never be read or written:
//   - its files hold a marker that must never appear in any output;
//   - its files' and directory's atime is set before their mtime, so under relatime (or
//     strictatime) any read(2) or readdir moves it (checked to work on this mount first);
//   - its tree (names, bytes, modes) must be unchanged.
// Also: no command hangs (a timeout) or crashes (exit 5), and the meta files are never torn
// (always one of the byte strings a serial run could leave).
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repo = path.resolve(new URL('../../..', import.meta.url).pathname);
const cli = path.join(repo, 'dist', 'kubelet-ckpt.cjs');
export const UID = '946d785e-998a-11e7-a8dd-42010a800006';
const MARKER = 'CANARY-6f1d2c-OUTSIDE';
const PAYLOAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDomain: cluster.local\n';
const meta = (rv) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: node-config\n    namespace: kube-system\n    resourceVersion: "${rv}"\n    uid: ${UID}\n`;

function env() {
  const e = { ...process.env, NO_COLOR: '1' };
  delete e.NODE_OPTIONS;
  return e;
}

function build(root) {
  const dcd = path.join(root, 'node');
  const out = path.join(root, 'outside');
  for (const rv of ['119980', '120200']) fs.mkdirSync(path.join(dcd, 'store/checkpoints', UID, rv), { recursive: true });
  for (const rv of ['119980', '120200']) fs.writeFileSync(path.join(dcd, 'store/checkpoints', UID, rv, 'kubelet'), PAYLOAD);
  fs.mkdirSync(path.join(dcd, 'store/meta'));
  fs.writeFileSync(path.join(dcd, 'store/meta/assigned'), meta('120200'));
  fs.writeFileSync(path.join(dcd, 'store/meta/last-known-good'), meta('119980'));
  // The canary looks like every directory it stands in for: a checkpoint, a UID dir, meta/.
  fs.mkdirSync(path.join(out, '120200'), { recursive: true });
  const canaryText = `${PAYLOAD}# ${MARKER}\n`;
  for (const f of ['kubelet', 'assigned', 'last-known-good', '120200/kubelet']) fs.writeFileSync(path.join(out, f), canaryText);
  return { dcd, out };
}

const OLD = new Date(0);
/** Set every canary's atime before its mtime: relatime then updates it on any read. */
function arm(out) {
  const walk = (p) => {
    const st = fs.lstatSync(p);
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    fs.utimesSync(p, OLD, st.mtime);
  };
  walk(out);
}

function snapshot(out) {
  const res = {};
  const walk = (p, rel) => {
    const st = fs.lstatSync(p);
    res[rel] = { kind: st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other', mode: st.mode, atimeMs: st.atimeMs, hash: st.isFile() ? crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex') : null };
    if (st.isDirectory()) for (const n of fs.readdirSync(p).sort()) walk(path.join(p, n), `${rel}/${n}`);
  };
  walk(out, '.');
  return res;
}

/** Does reading a file whose atime is before its mtime move its atime on this mount? */
export function atimeWorks(dir) {
  const p = path.join(dir, `atime-probe-${process.pid}`);
  fs.writeFileSync(p, 'x');
  fs.utimesSync(p, OLD, new Date());
  fs.readFileSync(p);
  const moved = fs.statSync(p).atimeMs !== 0;
  fs.rmSync(p);
  return moved;
}

const SWAPPER = `
const fs = require('fs'); const path = require('path');
const [store, out, ms, countFile] = [process.argv[1], process.argv[2], Number(process.argv[3]), process.argv[4]];
const targets = [path.join(store, 'checkpoints', ${JSON.stringify(UID)}, '120200'), path.join(store, 'checkpoints', ${JSON.stringify(UID)}), path.join(store, 'meta')];
const until = Date.now() + ms; let swaps = 0;
while (Date.now() < until) {
  const t = targets[swaps % targets.length]; const aside = t + '.swapped';
  try { fs.renameSync(t, aside); } catch { swaps++; continue; }
  try { fs.symlinkSync(t.endsWith(${JSON.stringify(UID)}) ? out : t.endsWith('meta') ? out : path.join(out, '120200'), t); } catch {}
  for (let i = 0; i < 2000; i++); // keep the link a moment
  if (swaps % 4 === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // leave the CLI some CPU
  try { fs.unlinkSync(t); } catch {}
  try { fs.renameSync(aside, t); } catch {}
  swaps++;
  if (swaps % 256 === 0) fs.writeFileSync(countFile, String(swaps));
}
`;

const COMMANDS = [
  ['show', 'assigned', '--raw'],
  ['show', 'meta/assigned', '--raw'],
  ['verify', '-o', 'json'],
  ['status', '--no-journal', '-o', 'json'],
  ['ls', '-o', 'json'],
  ['reset', 'all', '--yes', '--force'],
  ['undo', '--yes', '--force'],
  ['prune', '--dry-run'],
];

/**
 * Run `trials` trials; each builds a fresh store, starts the swapper and runs every command
 * once against it. Returns the figures; `failures` lists what went wrong.
 */
export async function swapTrials({ trials, timeoutMs = 20_000, tmp = os.tmpdir() }) {
  const figures = { trials: 0, commands: 0, swaps: 0, escapes: 0, torn: 0, hangs: 0, crashes: 0, atimeChecked: false, failures: [] };
  const allowed = new Set(['', meta('120200'), meta('119980')]);
  for (let i = 0; i < trials; i++) {
    const root = fs.mkdtempSync(path.join(tmp, 'kckpt-swap-'));
    try {
      const { dcd, out } = build(root);
      if (i === 0) figures.atimeChecked = atimeWorks(root);
      const before = snapshot(out);
      arm(out); // after the snapshot, which read them
      const countFile = path.join(root, 'swaps');
      const sw = spawn(process.execPath, ['-e', SWAPPER, path.join(dcd, 'store'), out, String(30 * 60_000), countFile], { stdio: 'ignore', env: env() });
      await new Promise((r) => setTimeout(r, 20));
      for (const args of COMMANDS) {
        const r = spawnSync(process.execPath, [cli, '--dir', dcd, ...args], { encoding: 'utf8', timeout: timeoutMs, env: env() });
        figures.commands++;
        if (process.env.SWAP_DEBUG) console.error(`${i} ${args.join(" ")} -> ${r.status} ${r.signal ?? ""}`);
        const what = `trial ${i}: ${args.join(' ')}`;
        if (r.status === null) {
          figures.hangs++;
          figures.failures.push(`${what}: no exit within ${timeoutMs} ms (${r.signal})`);
        } else if (r.status === 5) {
          figures.crashes++;
          figures.failures.push(`${what}: exit 5: ${r.stderr.slice(0, 300)}`);
        }
        if (`${r.stdout}${r.stderr}`.includes(MARKER)) {
          figures.escapes++;
          figures.failures.push(`${what}: printed the canary's marker`);
        }
      }
      sw.kill('SIGKILL');
      await new Promise((r) => sw.once('exit', r));
      try {
        figures.swaps += Number(fs.readFileSync(countFile, 'utf8')) || 0;
      } catch {
        /* fewer than 256 */
      }
      // Put back whatever the swapper left mid-swap, then look.
      for (const t of [path.join(dcd, 'store/checkpoints', UID, '120200'), path.join(dcd, 'store/checkpoints', UID), path.join(dcd, 'store/meta')]) {
        if (fs.existsSync(`${t}.swapped`)) {
          fs.rmSync(t, { force: true });
          fs.renameSync(`${t}.swapped`, t);
        }
      }
      const after = snapshot(out);
      for (const [rel, b] of Object.entries(before)) {
        const a = after[rel];
        const moved = !a || a.hash !== b.hash || a.mode !== b.mode || a.kind !== b.kind || (figures.atimeChecked && a.atimeMs !== 0);
        if (moved) {
          figures.escapes++;
          figures.failures.push(`trial ${i}: canary ${rel} was ${!a ? 'removed' : a.hash !== b.hash ? 'written' : a.atimeMs !== 0 ? 'read (atime moved)' : 'changed'}`);
        }
      }
      for (const rel of Object.keys(after)) {
        if (!before[rel]) {
          figures.escapes++;
          figures.failures.push(`trial ${i}: ${rel} was created in the canary directory`);
        }
      }
      for (const n of ['assigned', 'last-known-good']) {
        let text = null;
        try {
          text = fs.readFileSync(path.join(dcd, 'store/meta', n), 'utf8');
        } catch {
          text = '';
        }
        if (!allowed.has(text)) {
          figures.torn++;
          figures.failures.push(`trial ${i}: meta/${n} is torn: ${JSON.stringify(text.slice(0, 80))}`);
        }
      }
      figures.trials++;
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  return figures;
}
