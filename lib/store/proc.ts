// Running kubelet processes, read from /proc: the first discovery step and the
// recovery interlock ("a kubelet using this store is running").

import fs from 'node:fs';
import path from 'node:path';
import { readFileCapped } from './safepath.js';

export interface KubeletProcess {
  pid: number;
  argv: string[];
  /** The process's working directory (relative flags resolve against it), when readable. */
  cwd: string | null;
}

/** A command line is at most ARG_MAX-ish; past this it is not a kubelet's. */
const CMDLINE_CAP = 256 * 1024;

function readArgv(procRoot: string, pid: string): string[] | null {
  try {
    const raw = readFileCapped(path.join(procRoot, pid, 'cmdline'), CMDLINE_CAP).bytes;
    if (raw.length === 0) return null;
    const parts = raw.toString('utf8').split('\0');
    if (parts[parts.length - 1] === '') parts.pop();
    return parts;
  } catch {
    return null;
  }
}

/** The ASCII blanks String.prototype.trim removes (a comm file holds nothing else of its set). */
const BLANKS = /^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g;

/** /proc/PID/stat's flags bit for a kernel thread (include/linux/sched.h): no executable, never a kubelet. */
const PF_KTHREAD = 0x00200000;

/**
 * What /proc/PID/stat says of a process: its name (the comm, blanks around it aside) and
 * whether it is a kernel thread. One read per process, in one call into Node (readFileSync
 * with 'utf8' is a single native call); this runs for every process on the node on every
 * `status`, and a large node has hundreds of kernel threads, which need nothing more.
 */
function statOf(procRoot: string, pid: string): { comm: string; kernel: boolean } | null {
  let s: string;
  try {
    s = fs.readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp session tty_nr tpgid flags ...`: the comm may hold anything,
  // ')' and blanks included, so the fields are counted from its last ')'.
  const open = s.indexOf('(');
  const close = s.lastIndexOf(')');
  // A name is at most 15 bytes (TASK_COMM_LEN); anything far longer is not a process's stat.
  if (open < 0 || close < open || close - open > 64) return null;
  const fields = s.slice(close + 2).split(' ', 7);
  const flags = Number(fields[6]);
  return { comm: s.slice(open + 1, close).replace(BLANKS, ''), kernel: Number.isInteger(flags) && (flags & PF_KTHREAD) !== 0 };
}

/** The process name is `kubelet`, or (renamed process) its executable is. */
function isKubelet(procRoot: string, pid: string): boolean {
  const st = statOf(procRoot, pid);
  if (!st || st.kernel) return false;
  if (st.comm === 'kubelet') return true;
  // Most exe links cannot be read (other users' processes without CAP_SYS_PTRACE):
  // existsSync says so without the thrown error readlink would build.
  const exe = `${procRoot}/${pid}/exe`;
  if (!fs.existsSync(exe)) return false;
  try {
    return path.basename(fs.readlinkSync(exe)).replace(/ \(deleted\)$/, '') === 'kubelet';
  } catch {
    return false;
  }
}

/**
 * The processes under procRoot (not this one) that `keep` accepts, with their argv and cwd.
 * `cheap` filters first on something smaller than the command line (the name).
 */
function processes(procRoot: string, keep: (argv: readonly string[]) => boolean, cheap: (pid: string) => boolean = () => true): KubeletProcess[] {
  let pids: string[];
  try {
    pids = fs.readdirSync(procRoot).filter((n) => /^[0-9]+$/.test(n));
  } catch {
    return [];
  }
  const out: KubeletProcess[] = [];
  for (const pid of pids) {
    if (Number(pid) === process.pid || !cheap(pid)) continue;
    const argv = readArgv(procRoot, pid);
    if (!argv || !keep(argv)) continue;
    let cwd: string | null = null;
    try {
      cwd = fs.readlinkSync(path.join(procRoot, pid, 'cwd'));
    } catch {
      cwd = null;
    }
    out.push({ pid: Number(pid), argv, cwd });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** Processes whose name or executable is `kubelet` (comm first: one small read per process). */
export function listKubeletProcesses(procRoot = '/proc'): KubeletProcess[] {
  return processes(procRoot, () => true, (pid) => isKubelet(procRoot, pid));
}

/** True when argv carries `--dynamic-config-dir` (or `-dynamic-config-dir`) as a flag. */
export function hasDynamicConfigDir(argv: readonly string[]): boolean {
  return flagValue(argv, 'dynamic-config-dir') !== null;
}

/**
 * Every process whose command line carries `--dynamic-config-dir`, whatever its name:
 * `hyperkube kubelet …`, a binary renamed `kubelet-v1.22.4`, a kubelet in a container. The
 * recovery interlock asks this, not the name: a kubelet is whatever uses the store.
 */
export function listStoreUsers(procRoot = '/proc'): KubeletProcess[] {
  return processes(procRoot, hasDynamicConfigDir);
}

/**
 * A kubelet flag name as pflag looks it up: the kubelet normalises `_` to `-`
 * (cliflag.WordSepNormalizeFunc), so `--dynamic_config_dir` is `--dynamic-config-dir`.
 */
export function normalFlagName(name: string): string {
  return name.replace(/_/g, '-');
}

/** How the command line spells the `--name` flag (`--dynamic_config_dir`), `_` ≡ `-`: the first one, without its value; null when absent. */
export function flagAsWritten(argv: readonly string[], name: string): string | null {
  const want = normalFlagName(name);
  for (let i = 1; i < argv.length; i++) {
    const m = /^--([^=]+)/.exec(argv[i]!);
    if (m && normalFlagName(m[1]!) === want) return `--${m[1]}`;
  }
  return null;
}

/** The value of a `--name=value` / `--name value` / `-name value` flag, `_` ≡ `-`; the last one wins (pflag). */
export function flagValue(argv: readonly string[], name: string): string | null {
  const want = normalFlagName(name);
  let value: string | null = null;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(a);
    if (!m || normalFlagName(m[1]!) !== want) continue;
    if (m[2] !== undefined) value = m[2];
    else if (i + 1 < argv.length) value = argv[++i]!;
  }
  return value;
}
