// Kubelet command-line flags over a config, as kubeletConfigFlagPrecedence re-applies them
// (cmd/kubelet/app/server.go, 1.20–1.23). Only flags registered by AddKubeletConfigFlags
// (and 1.23's logging flags) change the config; every other kubelet flag is recognised
// only so that its value is not mistaken for a stray argument. pflag rules: `--x=v`,
// `--x v`, bare `--x` for booleans (a following word is NOT its value), `_` ≡ `-`,
// `--` ends the flags. Scalars: last wins. Maps: the first occurrence replaces the
// config's map, later ones add keys. Lists: first replaces, later append. Feature gates:
// the config's gates survive unless a flag names them.

import { CONFIG_FLAG_TABLE, type ConfigFlagRow, type FlagKind } from './flags-and-gates.data.js';
import { FlagValueError, parseFlagValue } from './flag-values.js';
import { KLOG_FLAG_DEFAULTS } from './validate-logging.js';
import { deepClone, getAt, setAt, type ConfigObject } from './objpath.js';
import { inRange, type KubeletVersion } from './version.js';
import { goQuote } from './gostrconv.js';

export interface FlagOverride {
  /** The flag as written, normalised: `--max-pods`, `-v`. */
  flag: string;
  /** The v1beta1 JSON path it sets. */
  path: string;
  kind: FlagKind;
  /** The value the field gets (maps/lists: all occurrences combined; vmodule: the items added). */
  value: unknown;
  /** The last raw value given on the command line. */
  raw: string;
  occurrences: number;
}

export interface ParsedFlags {
  overrides: FlagOverride[];
  /** Flags that are not config fields (or unknown to this release), as `--name`. */
  ignored: string[];
  /** Errors the kubelet would stop on at its first parse of the command line (an unknown flag among them). */
  errors: string[];
  /** `--help`/`-h` or `--version` given (and not false): the kubelet prints and exits before anything else. */
  printsAndExits: '--help' | '--version' | null;
  /** klog flags given (name → value), which a non-text logging format refuses. */
  klog: Record<string, string>;
  /** --node-labels, every occurrence merged (cliflag.MapStringString: later keys win). */
  nodeLabels: Record<string, string>;
}

/** Non-config kubelet flags that take no value (pflag NoOptDefVal), per flags-and-gates.md §2. */
const BOOL_NON_CONFIG = new Set([
  'exit-on-lock-contention', 'seccomp-default', 'register-schedulable', 'keep-terminated-pod-volumes',
  'really-crash-for-testing', 'experimental-check-node-capabilities-before-mount', 'experimental-allocatable-ignore-eviction',
  'enable-cadvisor-json-endpoints', 'windows-service', 'redirect-container-streaming', 'logtostderr', 'alsologtostderr',
  'skip-headers', 'skip-log-headers', 'add-dir-header', 'one-output', 'help', 'version', 'docker-tls', 'docker-only',
  'storage-driver-secure', 'enable-load-reader', 'experimental-dockershim', 'log-cadvisor-usage',
]);

/** Non-config kubelet flags that take a value. */
const VALUE_NON_CONFIG = new Set([
  'config', 'kubeconfig', 'bootstrap-kubeconfig', 'experimental-bootstrap-kubeconfig', 'hostname-override', 'node-ip',
  'cert-dir', 'root-dir', 'dynamic-config-dir', 'container-runtime-endpoint', 'image-service-endpoint', 'node-labels',
  'lock-file', 'minimum-container-ttl-duration', 'maximum-dead-containers-per-container', 'maximum-dead-containers',
  'master-service-namespace', 'non-masquerade-cidr', 'seccomp-profile-root', 'experimental-mounter-path', 'cloud-provider',
  'cloud-config', 'chaos-chance', 'windows-priorityclass', 'container-runtime', 'runtime-cgroups', 'pod-infra-container-image',
  'docker-endpoint', 'image-pull-progress-deadline', 'experimental-dockershim-root-directory', 'network-plugin',
  'network-plugin-mtu', 'cni-conf-dir', 'cni-bin-dir', 'cni-cache-dir', 'image-credential-provider-config',
  'image-credential-provider-bin-dir', 'docker-root', 'housekeeping-interval', 'azure-container-registry-config',
  'log-dir', 'log-file', 'log-file-max-size', 'stderrthreshold', 'log-backtrace-at', 'boot-id-file', 'machine-id-file',
  'storage-driver-buffer-duration', 'storage-driver-db', 'storage-driver-host', 'storage-driver-password',
  'storage-driver-table', 'storage-driver-user', 'docker-tls-ca', 'docker-tls-cert', 'docker-tls-key',
  'application-metrics-count-limit', 'event-storage-age-limit', 'event-storage-event-limit', 'global-housekeeping-interval',
  'containerd', 'containerd-namespace', 'container-hints', 'docker', 'docker-env-metadata-whitelist',
  'cloud-provider-gce-lb-src-cidrs', 'cloud-provider-gce-l7lb-src-cidrs', 'google-json-key',
]);

/**
 * Non-config flags registered in some of the modelled releases only (flags-and-gates.md §2):
 * elsewhere the kubelet does not know them, and an unknown flag ends it at its first parse.
 * Flags in neither list nor the config table count as known in every release.
 */
const NON_CONFIG_RELEASES: Record<string, [KubeletVersion | undefined, KubeletVersion | undefined]> = {
  'chaos-chance': [undefined, '1.21'], 'enable-cadvisor-json-endpoints': [undefined, '1.20'], 'redirect-container-streaming': [undefined, '1.21'],
  'experimental-bootstrap-kubeconfig': [undefined, '1.22'], 'seccomp-profile-root': [undefined, '1.22'], 'seccomp-default': ['1.22', undefined],
};

/** Flags that were KubeletFlags or klog globals before 1.23 and config fields in 1.23. */
const NON_CONFIG_BEFORE_1_23: Record<string, 'bool' | 'value'> = {
  'register-node': 'bool', 'register-with-taints': 'value', v: 'value', vmodule: 'value', 'log-flush-frequency': 'value',
};

/** The config-backed flags of `version`, by flag name. */
export function configFlags(version: KubeletVersion): Map<string, ConfigFlagRow> {
  return new Map(CONFIG_FLAG_TABLE.filter((row) => inRange(version, row.since)).map((row) => [row.flag, row]));
}

interface Occurrence {
  row: ConfigFlagRow;
  raw: string;
  value: unknown;
}

function takesNoValue(name: string, row: ConfigFlagRow | undefined, version: KubeletVersion): boolean {
  if (row) return row.kind === 'bool';
  if (BOOL_NON_CONFIG.has(name)) return true;
  const old = NON_CONFIG_BEFORE_1_23[name];
  return old === 'bool' && version !== '1.23';
}

function isKnownNonConfig(name: string, version: KubeletVersion): boolean {
  const releases = NON_CONFIG_RELEASES[name];
  if (releases && !inRange(version, ...releases)) return false;
  return BOOL_NON_CONFIG.has(name) || VALUE_NON_CONFIG.has(name) || (version !== '1.23' && name in NON_CONFIG_BEFORE_1_23);
}

/** Combine every occurrence of one field's flags the way pflag's Set() methods accumulate. */
function combine(occ: Occurrence[]): unknown {
  const kind = occ[occ.length - 1]!.row.kind;
  const values = occ.map((o) => o.value);
  switch (kind) {
    case 'list': case 'reserved-memory': case 'vmodule':
      return values.flatMap((v) => v as unknown[]);
    case 'map': case 'map-lt': case 'map-1': case 'map-bool':
      return Object.assign({}, ...values);
    case 'multimap': {
      const out: Record<string, string[]> = {};
      for (const v of values as Record<string, string[]>[]) for (const [k, xs] of Object.entries(v)) (out[k] ??= []).push(...xs);
      return out;
    }
    default:
      return values[values.length - 1];
  }
}

/** Parse a kubelet argv (without the program name; a leading `…/kubelet` is skipped). */
/**
 * The words cobra hands the kubelet: after the program (a command line read from a process or
 * a unit always starts with one, whatever its name: `kubelet-v1.22.4`), and after `kubelet`
 * where the program runs it: `hyperkube kubelet …`, or `/bin/sh /usr/bin/kubelet …` for a
 * wrapper script (found by review: the interpreter was read as an "unknown command", and every
 * payload as one the flags could not be applied to). Flags alone (no program) are taken as is.
 */
function kubeletWords(argv: readonly string[]): readonly string[] {
  if (argv.length === 0 || argv[0]!.startsWith('-')) return argv;
  const isKubelet = (w: string | undefined) => w !== undefined && /(^|\/)kubelet$/.test(w);
  return argv.slice(!isKubelet(argv[0]) && isKubelet(argv[1]) ? 2 : 1);
}

export function parseKubeletFlags(argv: readonly string[], version: KubeletVersion): ParsedFlags {
  const flags = configFlags(version);
  const byPath = new Map<string, Occurrence[]>();
  const ignored: string[] = [];
  const errors: string[] = [];
  const klog: Record<string, string> = {};
  const nodeLabels: Record<string, string> = {};
  const prints = { help: false, version: false };
  const args = kubeletWords(argv);

  const record = (name: string, display: string, raw: string) => {
    const row = flags.get(name);
    if (!row) {
      // pflag stops at a flag the kubelet did not register: "failed to parse kubelet flag: unknown flag: --x".
      if (!isKnownNonConfig(name, version)) {
        errors.push(`unknown flag: --${name}`);
        return;
      }
      if (name === 'help' || name === 'version') {
        try {
          prints[name] = name === 'version' && raw === 'raw' ? true : parseFlagValue('bool', raw) === true;
        } catch (e) {
          errors.push(`invalid argument ${goQuote(raw)} for ${goQuote(name === 'help' ? '-h, --help' : '--version')} flag: ${(e as FlagValueError).message}`);
        }
      }
      if (name in KLOG_FLAG_DEFAULTS) klog[name] = raw;
      // A KubeletFlags field ValidateKubeletFlags checks (startup.ts); a malformed pair fails the parse.
      if (name === 'node-labels') {
        try {
          Object.assign(nodeLabels, parseFlagValue('map', raw));
        } catch (e) {
          errors.push(`invalid argument ${goQuote(raw)} for ${goQuote(`--${name}`)} flag: ${(e as FlagValueError).message}`);
        }
      }
      if (!ignored.includes(display)) ignored.push(display);
      return;
    }
    try {
      const value = parseFlagValue(row.kind, raw);
      if (value === undefined) return;
      const list = byPath.get(row.path) ?? [];
      list.push({ row, raw, value });
      byPath.set(row.path, list);
    } catch (e) {
      const shown = name === 'v' ? '-v, --v' : `--${name}`;
      errors.push(`invalid argument ${goQuote(raw)} for ${goQuote(shown)} flag: ${(e as FlagValueError).message}`);
    }
  };

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      for (const rest of args.slice(i + 1)) errors.push(`unknown command ${goQuote(rest)}`);
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = (eq < 0 ? arg.slice(2) : arg.slice(2, eq)).replace(/_/g, '-');
      if (name === '' || name.startsWith('-')) { errors.push(`bad flag syntax: ${arg}`); continue; }
      const row = flags.get(name);
      const known = row !== undefined || isKnownNonConfig(name, version);
      if (eq >= 0) record(name, `--${name}`, arg.slice(eq + 1));
      else if (takesNoValue(name, row, version)) record(name, `--${name}`, 'true');
      else if (!known && (i + 1 >= args.length || args[i + 1]!.startsWith('-'))) record(name, `--${name}`, 'true');
      else if (i + 1 < args.length) record(name, `--${name}`, args[++i]!);
      else errors.push(`flag needs an argument: --${name}`);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      const short = arg[1]!;
      if (short === 'h') {
        // pflag: `-h=V` sets help to V; `-hX…` sets it and reads X as the next shorthand.
        ignored.push('-h');
        if (arg[2] === '=') {
          try {
            prints.help = parseFlagValue('bool', arg.slice(3)) === true;
          } catch (e) {
            errors.push(`invalid argument ${goQuote(arg.slice(3))} for ${goQuote('-h, --help')} flag: ${(e as FlagValueError).message}`);
          }
        } else {
          prints.help = true;
          if (arg.length > 2 && arg[2] !== 'v') errors.push(`unknown shorthand flag: '${arg[2]}' in ${arg}`);
        }
        continue;
      }
      if (short !== 'v') { errors.push(`unknown shorthand flag: '${short}' in ${arg}`); continue; }
      let raw: string;
      if (arg[2] === '=') raw = arg.slice(3);
      else if (arg.length > 2) raw = arg.slice(2);
      else if (i + 1 < args.length) raw = args[++i]!;
      else { errors.push(`flag needs an argument: 'v' in -v`); continue; }
      record('v', '-v', raw);
      continue;
    }
    errors.push(`unknown command ${goQuote(arg)}`);
  }

  const overrides: FlagOverride[] = [...byPath.values()].map((occ) => {
    const last = occ[occ.length - 1]!;
    return {
      flag: last.row.flag === 'v' ? '-v' : `--${last.row.flag}`,
      path: last.row.path,
      kind: last.row.kind,
      value: combine(occ),
      raw: last.raw,
      occurrences: occ.length,
    };
  });
  const printsAndExits = prints.help ? '--help' : prints.version ? '--version' : null;
  return { overrides, ignored, errors, klog, nodeLabels, printsAndExits };
}

/**
 * Apply parsed flag overrides to a config: a new object, the input left alone, unless
 * `inPlace` (the load pipeline, which owns its intermediate objects).
 */
export function applyFlagOverrides(config: ConfigObject, overrides: readonly FlagOverride[], inPlace = false): ConfigObject {
  const out = inPlace ? config : deepClone(config);
  for (const o of overrides) {
    const current = getAt(out, o.path);
    if (o.kind === 'map-bool') {
      // Gates the flags do not name are put back from the config (§3.2).
      setAt(out, o.path, { ...((current ?? {}) as Record<string, boolean>), ...(o.value as Record<string, boolean>) });
    } else if (o.kind === 'vmodule') {
      setAt(out, o.path, [...(Array.isArray(current) ? current : []), ...deepClone(o.value as unknown[])]);
    } else {
      setAt(out, o.path, deepClone(o.value));
    }
  }
  return out;
}

export interface RegistrationReset {
  path: string;
  from: unknown;
  to: unknown;
}

/**
 * 1.23 only: registering --log-flush-frequency and --log-json-split-stream writes their
 * flag defaults (5s, false) into the config before the command line is parsed, so
 * kubeletConfigFlagPrecedence resets those two fields whatever the payload said.
 */
export function applyFlagRegistrationResets(config: ConfigObject, version: KubeletVersion, inPlace = false): { config: ConfigObject; resets: RegistrationReset[] } {
  if (version !== '1.23') return { config, resets: [] };
  const out = inPlace ? config : deepClone(config);
  const resets: RegistrationReset[] = [];
  for (const [path, to] of [['logging.flushFrequency', 5_000_000_000], ['logging.options.json.splitStream', false]] as const) {
    const from = getAt(out, path);
    if (from !== to && !(from === undefined && to === false)) resets.push({ path, from, to });
    setAt(out, path, to);
  }
  return { config: out, resets };
}
