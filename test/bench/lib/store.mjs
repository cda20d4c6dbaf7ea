// The generated stores the benchmarks share: UIDs x resourceVersions of the demo payload,
// each payload a little different (as real edits are), meta/assigned on the newest of the
// first UID and meta/last-known-good on the one before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const repo = path.resolve(new URL('../../..', import.meta.url).pathname);
export const cli = path.join(repo, 'dist', 'kubelet-ckpt.cjs');
export const sea = path.join(repo, 'dist', 'kubelet-ckpt');

/** The program to run: `node dist/kubelet-ckpt.cjs`, or with --sea the single executable. */
export function programArgv(argv = process.argv) {
  return argv.includes('--sea') ? [sea] : [process.execPath, cli];
}

const payload = fs.readFileSync(path.join(repo, 'fixtures/demo/var/lib/kubelet/dynamic-config/store/checkpoints/5808539f-48e3-4e47-8ce6-c261c48fa1d9/42315/kubelet'), 'utf8');
const uidOf = (u) => `${u.toString(16).padStart(8, '0')}-0000-4000-8000-${u.toString(16).padStart(12, '0')}`;
const meta = (uid, rv) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: node-config\n    namespace: kube-system\n    resourceVersion: "${rv}"\n    uid: ${uid}\n`;

/** A new store directory (the --dir) with `uids` x `rvs` checkpoints; the caller removes it. */
export function generateStore(uids, rvs = 10, prefix = 'kckpt-bench-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const cps = path.join(dir, 'store/checkpoints');
  for (let u = 0; u < uids; u++) {
    const uid = uidOf(u);
    for (let r = 1; r <= rvs; r++) {
      const d = path.join(cps, uid, String(1000 * u + r));
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'kubelet'), payload.replace('maxPods: 150', `maxPods: ${100 + r}`).replace('clusterDomain: cluster.local', `clusterDomain: c${u}.cluster.local`));
    }
  }
  fs.mkdirSync(path.join(dir, 'store/meta'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'store/meta/assigned'), meta(uidOf(0), rvs));
  fs.writeFileSync(path.join(dir, 'store/meta/last-known-good'), meta(uidOf(0), rvs - 1));
  return dir;
}

/**
 * The environment a node gives the tool: this machine's, less NODE_EXTRA_CA_CERTS (a CA bundle
 * that some build machines set, which every Node start then parses: ~60 ms here, more than a
 * status) and NODE_OPTIONS. The anchors (grep, node -e 0) run in it too.
 */
export function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const k of ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS']) delete env[k];
  return env;
}
export const CLEAN_ENV_NOTE = 'clean environment: NODE_EXTRA_CA_CERTS and NODE_OPTIONS unset';

export const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
export const percentile = (a, q) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))];
