// Everything a command needs about the node, resolved once from the global options:
// discovery, the snapshot, the payload reader, the config judge and the local config.

import fs from 'node:fs';
import path from 'node:path';
import { EnvError, UsageError, fsReason } from './errors.js';
import { discover, requireStoreDir, type Discovery } from './store/discover.js';
import { kindWords } from './store/safepath.js';
import { readResolved } from './store/rooted.js';
import { fsPayloadReader, takeSnapshot, type PayloadReader, type Snapshot } from './store/snapshot.js';
import { judgeConfig, judgeLocalConfig, type JudgeOptions } from './integrity/pipeline.js';
import type { KubeletVersion } from './config/version.js';
import { verdictTravels, type ConfigJudge, type Judgement } from './integrity/judge.js';
import type { LocalConfig } from './integrity/nextboot.js';
import { checkStartup } from './integrity/startup.js';

export interface GlobalOptions {
  dir?: string | undefined;
  root?: string | undefined;
  kubeletConfig?: string | undefined;
  /** --kubelet-flags: the kubelet's flags, when they cannot be discovered. */
  kubeletFlags?: string | undefined;
  /** Already resolved from `auto` by the caller. */
  kubeletVersion: KubeletVersion;
  now?: Date | undefined;
}

export interface Session {
  readonly snap: Snapshot;
  readonly discovery: Discovery;
  readonly reader: PayloadReader;
  readonly judge: ConfigJudge;
  readonly local: LocalConfig;
  readonly version: string;
  /** The kubelet's command line used for flag overrides ([] when unknown). */
  readonly kubeletArgv: readonly string[];
  /** What `judge` was built from (a worker thread builds the same judge). */
  readonly judgeOptions: JudgeOptions;
  /** See JudgeContext. */
  readonly localReadRoot?: string;
}

function checkRoot(root: string): string {
  const abs = path.resolve(root);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch (err) {
    throw new EnvError(`--root ${abs}: ${fsReason(err)}`, 'give the mount point of the node\'s root file system', 'ROOT_NOT_FOUND');
  }
  if (!st.isDirectory()) throw new UsageError(`--root ${abs} is not a directory`);
  return abs;
}

/** A kubelet config file is a few KiB; past this it is not one. */
const LOCAL_CONFIG_CAP = 1024 * 1024;

function kindOfPath(file: string): string {
  try {
    return kindWords(fs.statSync(file));
  } catch {
    return 'unknown';
  }
}

/** os.ReadFile's error as Go prints it. */
function goReadError(file: string, err: unknown): string {
  const reason = fsReason(err);
  return `${reason === 'is a directory' ? 'read' : 'open'} ${file}: ${reason}`;
}

/**
 * The kubelet's --config file, read as every command reads it: a FIFO or device must not hang
 * a command or fill memory, so regular files only, capped. Else why not, in the words that
 * follow the kubelet's "error: ".
 */
/** `root`: the --root the path was found under (its links already resolved inside it), read following no link below it. */
export function readLocalBytes(file: string, root = '/'): { ok: true; bytes: Buffer } | { ok: false; why: string } {
  try {
    const r = readResolved(root, file, LOCAL_CONFIG_CAP);
    if (r.truncated) return { ok: false, why: `it is larger than ${LOCAL_CONFIG_CAP / 1024 / 1024} MiB (kubelet-ckpt read no further)` };
    return { ok: true, bytes: r.bytes };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, why: code === 'ENOTREG' ? `it is not a regular file (${kindOfPath(file)}); kubelet-ckpt did not read it` : goReadError(file, err) };
  }
}

function readLocal(file: string | null, opts: JudgeOptions, argv: readonly string[] | null, root = '/'): { local: LocalConfig; gates?: Record<string, boolean> | undefined } {
  const version = opts.version;
  if (!file) return { local: { path: null, judgement: null, startup: checkStartup({ version, argv, config: null }) } };
  let bytes: Buffer;
  const fail = (why: string) => {
    const judgement: Judgement = { stage: 'load-error', error: `failed to load Kubelet config file ${file}, error failed to read kubelet config file "${file}", error: ${why}` };
    return { local: { path: file, judgement, startup: checkStartup({ version, argv, config: { path: file, judgement } }) } };
  };
  const read = readLocalBytes(file, root);
  if (!read.ok) return fail(read.why);
  bytes = read.bytes;
  const j = judgeLocalConfig(bytes, file, opts);
  return { local: { path: file, judgement: j, startup: checkStartup({ version, argv, config: { path: file, judgement: j } }) }, gates: j.gates };
}

/**
 * Next boot and verify judge the assigned and last-known-good payloads twice, and a store's
 * checkpoints often repeat one another's bytes (a resourceVersion that moved without the data
 * changing): remember the last few verdicts, by file, or by bytes where the verdict travels
 * (judge.ts). Bounded, so verifying 10,000 checkpoints does not keep every payload alive.
 */
export function memoJudge(judge: ConfigJudge, size = 4): ConfigJudge {
  const memo: { file: string; bytes: Buffer; j: Judgement }[] = [];
  return (bytes, file) => {
    const hit = memo.find((m) => m.bytes.equals(bytes) && (m.file === file || verdictTravels(bytes, m.j)));
    if (hit) return hit.j;
    const j = judge(bytes, file);
    memo.push({ file, bytes, j });
    if (memo.length > size) memo.shift();
    return j;
  };
}

/** What judging a file needs: the node's kubelet command line and local config, found as for a session. */
export interface JudgeContext {
  readonly discovery: Discovery;
  readonly judge: ConfigJudge;
  readonly local: LocalConfig;
  readonly version: string;
  readonly kubeletArgv: readonly string[];
  readonly judgeOptions: JudgeOptions;
  /** The --root the local config was read under, following no link below it ('/' or absent: read by its path). */
  readonly localReadRoot?: string;
}

function judgeContext(opts: GlobalOptions, discovery: Discovery): JudgeContext {
  const localPath = opts.kubeletConfig ? path.resolve(opts.kubeletConfig) : discovery.configFile;
  // A file the operator named that cannot be read is bad input (exit 3), as `show local` has it,
  // not a kubelet that will not start: that verdict is for the --config of the node's own
  // command line (found by review: a typo in --kubelet-config read as "will not start").
  if (opts.kubeletConfig) {
    const r = readLocalBytes(localPath!);
    if (!r.ok) throw new EnvError(`cannot read ${localPath}, given with --kubelet-config: ${r.why}`, "check the path; without --kubelet-config, the kubelet's own --config is found from its command line", 'UNREADABLE_INPUT');
  }
  // A --config file discovery found under --root is read following no link below the root; one
  // the operator named (--kubelet-config) is theirs to link.
  const readRoot = !opts.kubeletConfig && opts.root ? path.resolve(opts.root) : '/';
  return judgedAs(discovery, localPath, opts.kubeletVersion, discovery.commandLine?.argv ?? [], readRoot);
}

/** The judge context of a release: the local config at `localPath` and the flags `argv`, judged as `version` does. */
function judgedAs(discovery: Discovery, localPath: string | null, version: KubeletVersion, argv: readonly string[], readRoot = '/'): JudgeContext {
  const read = readLocal(localPath, { version, argv }, discovery.commandLine?.argv ?? null, readRoot);
  const local: LocalConfig = discovery.storeUnused ? { ...read.local, storeUnused: discovery.storeUnused } : read.local;
  const judgeOptions: JudgeOptions = { version, argv, localGates: read.gates };
  return { discovery, judge: memoJudge(judgeConfig(judgeOptions)), local, version, kubeletArgv: argv, judgeOptions, localReadRoot: readRoot };
}

/**
 * The same session judged as another kubelet release judges it: its local config, flags and
 * checkpoints (upgrade-check within the releases that still read the store, 1.21 to 1.22).
 */
export function asRelease(s: Session, version: KubeletVersion): Session {
  return { ...s, ...judgedAs(s.discovery, s.local.path, version, s.kubeletArgv, s.localReadRoot ?? '/') };
}

/** For judging files (`verify ./new.yaml`) where no store is found: the node's flags, if any, still apply. */
export function openJudgeContext(opts: GlobalOptions): JudgeContext {
  const root = opts.root ? checkRoot(opts.root) : '/';
  return judgeContext(opts, discover({ root, dir: opts.dir, flags: opts.kubeletFlags }));
}

/** Work that pays only on a large store, started while the store is still being read. */
export interface EarlyStart {
  /** Checkpoints from which to start it. */
  at: number;
  /** Called once, when `at` checkpoints have been listed, with what a judge thread needs. */
  start(judgeOptions: JudgeOptions): void;
}

/**
 * Resolve the store and read it. Throws EnvError (exit 3) when it cannot be found or read.
 * The judge context (local config, flags) is made before the store is read, so `early` can
 * start judge threads during the read.
 */
export function openSession(opts: GlobalOptions, early?: EarlyStart): Session {
  const root = opts.root ? checkRoot(opts.root) : '/';
  const discovery = discover({ root, dir: opts.dir, flags: opts.kubeletFlags });
  const dir = requireStoreDir(discovery);
  const ctx = judgeContext(opts, discovery);
  let started = false;
  const onCheckpoints = early
    ? (seen: number) => {
        if (started || seen < early.at) return;
        started = true;
        try {
          early.start(ctx.judgeOptions);
        } catch {
          // Threads are a speed-up: without them verify judges here. (Thrown inside the
          // listing, the error would read as "checkpoints/ cannot be read".)
        }
      }
    : undefined;
  // A store found on a mounted node disk is resolved inside it; one named with --dir is the operator's.
  const snap = takeSnapshot(dir, { now: opts.now, onCheckpoints, root: root !== '/' && discovery.via !== '--dir' ? root : undefined });
  return { snap, reader: fsPayloadReader(snap), ...ctx };
}
