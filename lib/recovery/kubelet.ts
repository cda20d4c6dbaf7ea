// The running kubelet, as far as recovery cares: is one using this store (from /proc),
// stopping and starting it through systemctl, and whether the API server named in its
// kubeconfig answers (then the kubelet will re-sync Node.Spec.ConfigSource at start).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { jsYaml } from '../config/js-yaml.js';
import { EnvError, RefusedError } from '../errors.js';
import { flagValue, listStoreUsers, type KubeletProcess } from '../store/proc.js';
import { hostPathUnder } from '../store/rooted.js';
import { sleepSync } from './steps.js';
import { findOnPath } from '../onpath.js';

export interface StoreKubelet {
  pid: number;
  argv: string[];
  /** The --dynamic-config-dir as the kubelet gave it, resolved against its cwd. */
  dir: string;
  /** --kubeconfig resolved against its cwd, when given. */
  kubeconfig: string | null;
}

function resolveFlag(p: KubeletProcess, flag: string): string | null {
  const v = flagValue(p.argv, flag);
  if (!v) return null;
  return path.isAbsolute(v) ? v : path.join(p.cwd ?? '/', v);
}

type Id = { dev: number; ino: number } | null;

/** A directory's identity, or null when it cannot be stat'ed. */
function idOf(p: string): Id {
  try {
    const st = fs.statSync(p);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return null;
  }
}

/** Does `v` name this store's directory (`dcd` and `store`: its identity and its store's): yes, no, or not known (the path cannot be looked at). */
function namesStore(v: string, dcd: Id, store: Id): boolean | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(v);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? false : null;
  }
  const same = (a: Id, b: Id) => !!a && !!b && a.dev === b.dev && a.ino === b.ino;
  // The kubelet appends "store"; someone may also have passed the store itself with --dir.
  return same({ dev: st.dev, ino: st.ino }, dcd) || same(idOf(path.join(v, 'store')), store);
}

export interface Kubelets {
  using: StoreKubelet[];
  /** Kubelets whose store could not be told apart from ours (relative flag, cwd unreadable). */
  unsure: string[];
}

/**
 * Processes whose --dynamic-config-dir is this store's (compared by device and inode, so
 * symlinks, bind mounts and container roots cannot hide it), whatever the process is
 * called: anything that passes the flag counts as a kubelet. Matches only this store:
 * other kubelets (other stores, other tests) are ignored.
 */
export function kubeletsUsing(dynamicConfigDir: string, procRoot = '/proc', root = '/'): Kubelets {
  const out: Kubelets = { using: [], unsure: [] };
  // Stat'ed once, not once a process.
  const dcd = idOf(dynamicConfigDir);
  const store = idOf(path.join(dynamicConfigDir, 'store'));
  for (const p of listStoreUsers(procRoot)) {
    const raw = flagValue(p.argv, 'dynamic-config-dir');
    if (!raw) continue;
    // The kubelet appends "store"; someone may also have passed the store itself with --dir.
    // Its own view (/proc/PID/root or cwd) decides: a container's kubelet passing the same
    // path names another directory. Only when that view cannot be looked at (no
    // CAP_SYS_PTRACE, as in a debug pod) does the path as the host sees it decide: under
    // --root, mapped into it (found by review: both were taken as a match, or neither).
    const own = path.isAbsolute(raw) ? path.join(procRoot, String(p.pid), 'root', raw) : path.join(procRoot, String(p.pid), 'cwd', raw);
    let uses = namesStore(own, dcd, store);
    if (uses === null) {
      const host = (path.isAbsolute(raw) ? [hostPathOf(root, raw), raw] : p.cwd !== null ? [path.join(p.cwd, raw)] : []).map((v) => namesStore(v, dcd, store));
      // The host's views decide; unsure only when none of them can tell.
      uses = host.includes(true) ? true : host.length && !host.includes(null) ? false : null;
    }
    if (uses === true) out.using.push({ pid: p.pid, argv: p.argv, dir: resolveFlag(p, 'dynamic-config-dir')!, kubeconfig: resolveFlag(p, 'kubeconfig') });
    else if (uses === null) out.unsure.push(`process ${p.pid} passes --dynamic-config-dir=${raw}, and where that leads for it cannot be looked at (its root or working directory is not readable here): whether it uses this store is not known`);
  }
  return out;
}

export function runningError(k: StoreKubelet[], store: string): RefusedError {
  return new RefusedError(
    `a kubelet using this store is running (pid ${k.map((x) => x.pid).join(', ')}): it re-reads meta/assigned every 10 s and would promote or crash on what is written under it`,
    'stop it first (systemctl stop kubelet), or pass --restart-kubelet to stop it, write, and start it again, or --force to write anyway',
    'KUBELET_RUNNING',
  );
}

// ---- systemctl ------------------------------------------------------------------------------


export interface Systemctl {
  path: string;
  run(args: string[]): { code: number; stdout: string; stderr: string };
}

/** The systemctl on PATH; EnvError (exit 3) when there is none. */
export function findSystemctl(envPath?: string): Systemctl {
  const p = findOnPath('systemctl', envPath);
  if (!p) throw new EnvError('--restart-kubelet needs systemctl, which is not on PATH; nothing was changed', 'stop the kubelet by hand, re-run without --restart-kubelet, then start it', 'NO_SYSTEMCTL');
  return {
    path: p,
    run(args) {
      const r = spawnSync(p, args, { encoding: 'utf8', timeout: 60_000 });
      return { code: r.status ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? (r.error ? r.error.message : '')) };
    },
  };
}

export interface RestartReport {
  /** `systemctl stop kubelet` succeeded and no kubelet used the store afterwards. */
  stopped: boolean;
  started: boolean;
  /** What `systemctl is-active kubelet` printed after the start. */
  active: string | null;
}

/** Stop the kubelet and wait (up to `waitMs`) until no kubelet uses the store. */
export function stopKubelet(sc: Systemctl, dynamicConfigDir: string, waitMs = 15_000, procRoot = '/proc', root = '/'): void {
  const r = sc.run(['stop', 'kubelet']);
  if (r.code !== 0) {
    throw new EnvError(`systemctl stop kubelet failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}; nothing was changed`, null, 'KUBELET_STOP_FAILED');
  }
  const until = Date.now() + waitMs;
  for (;;) {
    const left = kubeletsUsing(dynamicConfigDir, procRoot, root).using;
    if (!left.length) return;
    if (Date.now() > until) {
      throw new RefusedError(`systemctl stop kubelet returned, but a kubelet using this store is still running (pid ${left.map((k) => k.pid).join(', ')}); nothing was changed`, 'it is not managed by the kubelet unit: stop it by hand', 'KUBELET_RUNNING');
    }
    sleepSync(100);
  }
}

export function startKubelet(sc: Systemctl): { started: boolean; active: string | null; error: string | null } {
  const r = sc.run(['start', 'kubelet']);
  const a = sc.run(['is-active', 'kubelet']);
  const active = a.stdout.trim() || null;
  return { started: r.code === 0, active, error: r.code === 0 ? null : `systemctl start kubelet failed (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim()}` };
}

// ---- the API server -------------------------------------------------------------------------

/** `clusters[].cluster.server` of a kubeconfig file; [] when it cannot be read. */
export function kubeconfigServers(file: string): string[] {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > 1024 * 1024) return [];
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  let doc: unknown;
  try {
    doc = jsYaml().load(text, { json: true });
  } catch {
    return [];
  }
  const clusters = (doc as { clusters?: unknown })?.clusters;
  if (!Array.isArray(clusters)) return [];
  return clusters.map((c) => (c as { cluster?: { server?: unknown } })?.cluster?.server).filter((s): s is string => typeof s === 'string' && s !== '');
}

/** Host and port of a server URL (`https://h:6443`, `h:6443`); null when unusable. */
export function hostPort(server: string): { host: string; port: number } | null {
  let u: URL;
  try {
    u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `https://${server}`);
  } catch {
    return null;
  }
  const port = u.port ? Number(u.port) : u.protocol === 'http:' ? 80 : 443;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return host ? { host, port } : null;
}

/** Can a TCP connection be opened within `timeoutMs`? Never throws. */
export function tcpReachable(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (ok: boolean) => {
      sock.removeAllListeners();
      sock.on('error', () => {});
      sock.destroy();
      resolve(ok);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

export interface ApiCheck {
  kubeconfig: string | null;
  reachable: string[];
}

/** Which API servers of the kubeconfig answer (all probed at once, each within the timeout). */
export async function reachableServers(kubeconfig: string, timeoutMs: number): Promise<string[]> {
  const servers = kubeconfigServers(kubeconfig);
  const results = await Promise.all(
    servers.map(async (s) => {
      const hp = hostPort(s);
      return hp && (await tcpReachable(hp.host, hp.port, timeoutMs)) ? s : null;
    }),
  );
  return results.filter((s): s is string => s !== null);
}

/** A node path from the kubelet's command line as a host path (under --root when given). */
export function hostPathOf(root: string, nodePath: string): string {
  return hostPathUnder(root, nodePath);
}
