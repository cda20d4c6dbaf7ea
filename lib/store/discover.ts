// Finding the store and the kubelet's command line when --dir is not given
// (DESIGN.md "Global options"): a running kubelet, then the systemd unit with its
// drop-ins and env files, then the default directory. Each step is recorded for -v.

import fs from 'node:fs';
import path from 'node:path';
import { EnvError } from '../errors.js';
import { flagValue, listKubeletProcesses } from './proc.js';
import { hostPathUnder, rootedIsDir, rootedNoDir, rootedRead } from './rooted.js';
import { expandExecStart, parseEnvFile, readKubeletUnit, splitWords, type NodeReader } from './systemd.js';

export const DEFAULT_DYNAMIC_CONFIG_DIR = '/var/lib/kubelet/dynamic-config';

/**
 * Where distributions put --dynamic-config-dir (reference/migration.md §6), probed after
 * the default when no command line names a store (a node whose flag is gone, e.g. after
 * `migrate`, or Talos, whose kubelet runs in a container). Each must hold a `store/`.
 */
export const DISTRIBUTION_DIRS: readonly { dir: string; who: string }[] = [
  { dir: '/etc/default/dynamickubelet', who: 'AKS' },
  { dir: '/etc/kubernetes/dynamic_kubelet_dir', who: 'kubespray' },
  { dir: '/etc/kubernetes/kubelet', who: 'Talos' },
  { dir: '/etc/kubernetes/dynamic-kubelet-config', who: 'by hand' },
  { dir: '/var/lib/kubelet/configs', who: 'OpenShift MCO proposal' },
];
/** Env files DESIGN.md names (and kubespray's); read directly when no unit file names them. */
export const WELL_KNOWN_ENV_FILES = ['/var/lib/kubelet/kubeadm-flags.env', '/etc/default/kubelet', '/etc/sysconfig/kubelet', '/etc/kubernetes/kubelet.env'];

export interface KubeletCommandLine {
  argv: string[];
  /** Where it came from: `pid 1234`, `systemd unit`, `env files`. */
  source: string;
  pid: number | null;
  /** Directory relative flag values resolve against (node path). */
  cwd: string;
}

export interface Discovery {
  /** The --dynamic-config-dir as a host path, or null. */
  dir: string | null;
  via: string | null;
  steps: string[];
  commandLine: KubeletCommandLine | null;
  /** The kubelet's --config file as a host path, or null. */
  configFile: string | null;
  /**
   * Why the kubelet does not read the store found: its command line was found and has no
   * --dynamic-config-dir (or an empty one), and the store is where one is usually kept (the
   * default directory, a distribution's). server.go starts the config controller only for a
   * non-empty --dynamic-config-dir: such a kubelet runs its local config.
   */
  storeUnused?: string | null;
}

export interface DiscoverOptions {
  /** The node's / (rescue use); '/' on a live node. */
  root?: string;
  /** --kubelet-flags: the kubelet's command-line flags as one string, when they cannot be discovered. */
  flags?: string | undefined;
  procRoot?: string;
  /**
   * --dir, when given: the store is known, and only a kubelet command line naming this
   * store may supply flags and the --config file (another kubelet's flags do not apply).
   */
  dir?: string;
}

/** Rebuild the kubelet's argv from its unit; null when there is no unit. */
function commandLineFromUnit(root: string, steps: string[], read: NodeReader = rootedRead): KubeletCommandLine | null {
  const unit = readKubeletUnit(root, read);
  if (!unit) {
    steps.push('systemd: no kubelet.service unit found');
    return null;
  }
  steps.push(`systemd: read ${unit.files.join(', ')}`);
  const env = new Map(unit.environment);
  for (const f of unit.environmentFiles) {
    const text = read(root, f.path);
    steps.push(`systemd: EnvironmentFile ${f.path}${text === null ? ' (absent)' : ''}`);
    if (text !== null) for (const [k, v] of parseEnvFile(text)) env.set(k, v);
  }
  if (!unit.execStart) {
    steps.push('systemd: the unit has no ExecStart');
    return null;
  }
  // Relative paths on the command line resolve against the unit's WorkingDirectory= (found by review: always /).
  return { argv: expandExecStart(unit.execStart, env), source: 'systemd unit', pid: null, cwd: unit.workingDirectory ?? '/' };
}

/** Without a unit: the well-known env files' values, as flags of a notional kubelet. */
function commandLineFromEnvFiles(root: string, steps: string[], read: NodeReader = rootedRead): KubeletCommandLine | null {
  const args: string[] = [];
  for (const f of WELL_KNOWN_ENV_FILES) {
    const text = read(root, f);
    if (text === null) continue;
    steps.push(`env file: read ${f}`);
    for (const v of parseEnvFile(text).values()) args.push(...splitWords(v));
  }
  return args.length ? { argv: ['kubelet', ...args], source: 'env files', pid: null, cwd: '/' } : null;
}

/** The kubelet's command line from its unit files (else the env files) as `read` sees them. */
export function commandLineFromFiles(root: string, read: NodeReader = rootedRead, steps: string[] = []): KubeletCommandLine | null {
  return commandLineFromUnit(root, steps, read) ?? commandLineFromEnvFiles(root, steps, read);
}

function nodeAbs(cwd: string, p: string): string {
  return path.isAbsolute(p) ? p : path.join(cwd, p);
}

function hostPath(root: string, nodePath: string): string {
  return hostPathUnder(root, nodePath);
}

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Does a kubelet's --dynamic-config-dir (host path) name the store given as --dir? */
function namesStore(dynamicConfigDir: string, given: string): boolean {
  const g = real(given);
  return real(dynamicConfigDir) === g || real(path.join(dynamicConfigDir, 'store')) === g;
}

/** With --dir: keep only a command line that names that store. */
function forGivenDir(d: Discovery, given: string): Discovery {
  const dir = path.resolve(given);
  const steps = [...d.steps];
  if (d.dir && d.commandLine && namesStore(d.dir, given)) {
    steps.push(`--dir ${dir}: the kubelet's command line (${d.commandLine.source}) names this store`);
    return { ...d, dir, via: '--dir', steps };
  }
  steps.push(`--dir ${dir}: no kubelet command line found names this store${d.dir ? ` (found ${d.dir})` : ''}; kubelet flags and its --config file are not applied (give --kubelet-config, or --root for a mounted node)`);
  return { dir, via: '--dir', steps, commandLine: null, configFile: null };
}

/** Discover the kubelet's command line and its --dynamic-config-dir. Never throws. */
export function discover(opts: DiscoverOptions = {}): Discovery {
  const found = discoverNode(opts);
  const d = opts.dir ? forGivenDir(found, opts.dir) : found;
  return withoutKubeletStore(opts.flags !== undefined ? withGivenFlags(d, opts.flags, opts.root ?? '/') : d, opts.root ?? '/');
}

/**
 * The kubelet keeps its store in `<--dynamic-config-dir>/store` (NewController): when the
 * command line's directory has none, the kubelet makes an empty one and runs its local config,
 * whatever holds meta/ and checkpoints/ elsewhere (a directory read as the store itself, found
 * by review: status named its assigned checkpoint as the next boot).
 */
function withoutKubeletStore(d: Discovery, root: string): Discovery {
  if (d.storeUnused || !d.commandLine || !d.dir) return d;
  // --dir with flags given by hand: the operator names the store; the flags may come from elsewhere.
  if (d.via === '--dir' && d.commandLine.source === '--kubelet-flags') return d;
  const flag = flagValue(d.commandLine.argv, 'dynamic-config-dir');
  if (!flag || !rootedNoDir(root, path.posix.join(nodeAbs(d.commandLine.cwd, flag), 'store'))) return d;
  const why = `the kubelet's --dynamic-config-dir ${flag} holds no store/ directory: the kubelet makes an empty one there and runs its local config, so the store read here is not the one it uses`;
  return { ...d, steps: [...d.steps, why], storeUnused: why };
}

/**
 * --kubelet-flags: the flags the operator gives replace any discovered command line; they
 * name the --config file, and the store when --dir does not.
 */
function withGivenFlags(d: Discovery, flags: string, root: string): Discovery {
  const argv = ['kubelet', ...splitWords(flags)];
  const commandLine: KubeletCommandLine = { argv, source: '--kubelet-flags', pid: null, cwd: '/' };
  const dcd = flagValue(argv, 'dynamic-config-dir');
  const dir = d.via === '--dir' || !dcd ? d.dir : hostPath(root, nodeAbs('/', dcd));
  const cfg = flagValue(argv, 'config');
  const steps = [...d.steps, `--kubelet-flags: the kubelet's flags as given (${argv.length - 1} words)`];
  // Flags given by hand may leave out --dynamic-config-dir: the store found is taken as the kubelet's.
  return { ...d, dir, via: d.via === '--dir' || !dcd ? d.via : '--dynamic-config-dir in --kubelet-flags', steps, commandLine, configFile: cfg ? hostPath(root, nodeAbs('/', cfg)) : null, storeUnused: null };
}

function discoverNode(opts: DiscoverOptions): Discovery {
  const root = opts.root ?? '/';
  const steps: string[] = [];
  let commandLine: KubeletCommandLine | null = null;
  let dir: string | null = null;
  let via: string | null = null;

  if (root === '/') {
    const procs = listKubeletProcesses(opts.procRoot ?? '/proc');
    steps.push(procs.length ? `running kubelet: pid ${procs.map((p) => p.pid).join(', ')}` : 'running kubelet: none found in /proc');
    for (const p of procs) {
      const d = flagValue(p.argv, 'dynamic-config-dir');
      commandLine ??= { argv: p.argv, source: `pid ${p.pid}`, pid: p.pid, cwd: p.cwd ?? '/' };
      // With --dir and several kubelets, the one running on that store.
      if (d && opts.dir && !namesStore(nodeAbs(p.cwd ?? '/', d), opts.dir)) continue;
      if (d) {
        commandLine = { argv: p.argv, source: `pid ${p.pid}`, pid: p.pid, cwd: p.cwd ?? '/' };
        dir = nodeAbs(p.cwd ?? '/', d);
        via = `--dynamic-config-dir of the running kubelet (pid ${p.pid})`;
        break;
      }
    }
  } else {
    steps.push(`running kubelet: skipped under --root ${root}`);
  }

  if (!dir) {
    const fromUnit = commandLineFromUnit(root, steps) ?? commandLineFromEnvFiles(root, steps);
    const d = fromUnit ? flagValue(fromUnit.argv, 'dynamic-config-dir') : null;
    if (fromUnit && !commandLine) commandLine = fromUnit;
    if (fromUnit && d) {
      commandLine = fromUnit;
      dir = hostPath(root, nodeAbs(fromUnit.cwd, d)); // a relative one against WorkingDirectory= (found by review)
      via = `--dynamic-config-dir in the kubelet's ${fromUnit.source}`;
    } else if (fromUnit) {
      steps.push(`${fromUnit.source}: no --dynamic-config-dir flag`);
    }
  }

  if (!dir) {
    if (rootedIsDir(root, DEFAULT_DYNAMIC_CONFIG_DIR)) {
      dir = hostPath(root, DEFAULT_DYNAMIC_CONFIG_DIR);
      via = `the default ${DEFAULT_DYNAMIC_CONFIG_DIR}`;
    } else steps.push(`default: ${DEFAULT_DYNAMIC_CONFIG_DIR} does not exist`);
  }
  for (const d of dir ? [] : DISTRIBUTION_DIRS) {
    if (rootedIsDir(root, `${d.dir}/store`)) {
      dir = hostPath(root, d.dir);
      via = `${d.who}'s ${d.dir}`;
      break;
    }
    steps.push(`${d.who}: ${d.dir}/store does not exist`);
  }
  if (dir) steps.push(`found the store at ${dir} (${via})`);
  const storeUnused = dir && commandLine && !flagValue(commandLine.argv, 'dynamic-config-dir') ? `the kubelet's command line (${commandLine.source}) has no --dynamic-config-dir, so the kubelet does not read this store` : null;
  if (storeUnused) steps.push(storeUnused);

  const cfg = commandLine ? flagValue(commandLine.argv, 'config') : null;
  const configFile = cfg ? hostPath(root, nodeAbs(commandLine!.cwd, cfg)) : null;
  return { dir, via, steps, commandLine, configFile, storeUnused };
}

/** The store directory, or an EnvError naming every place that was tried. */
export function requireStoreDir(d: Discovery): string {
  if (d.dir) return d.dir;
  throw new EnvError(
    `no dynamic kubelet config store found; tried:\n  ${d.steps.join('\n  ')}`,
    'give the kubelet\'s --dynamic-config-dir with --dir (or --root for a mounted node disk)',
    'STORE_NOT_FOUND',
  );
}
