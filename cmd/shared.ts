// Plumbing several commands share: judging payloads on worker threads (verify, ls), and
// the options, confirmation and printing of the recovery commands (reset, rollback,
// undo, prune).

import fs from 'node:fs';
import type { Argv } from 'yargs';
import { RefusedError, UsageError } from '../lib/errors.js';
import type { MetaPlan, RecoveryContext, RecoveryResult } from '../lib/recovery/index.js';
import type { RestartReport } from '../lib/recovery/kubelet.js';
import type { MigratePlan, NothingToMigrate } from '../lib/migrate/plan.js';
import type { MigrateBackup, MigrateResult } from '../lib/migrate/apply.js';

import type { Session } from '../lib/session.js';
import type { Streams } from '../lib/output/streams.js';
import { commandPrefix, output, processStreams, session, setExit, warn, type GlobalArgs } from './common.js';

import type { Judgement } from '../lib/integrity/judge.js';
import type { JudgeOptions } from '../lib/integrity/pipeline.js';
import { PARALLEL_MIN_TASKS, type JudgePool, type JudgePoolFactory, type JudgeTask } from '../lib/integrity/prejudge.js';
import type { EarlyStart } from '../lib/session.js';
import { os, workerThreads } from '../lib/builtins.js';

export const JUDGE_WORKER_ROLE = 'judge-worker';

/** Cores to use; node:os loads on this first call, not when every command starts. */
function availableCores(): number {
  const o = os();
  return o.availableParallelism?.() ?? o.cpus().length;
}

interface WorkerEntry {
  code: string;
  eval: boolean;
}

/**
 * What a worker thread runs to start this same program: the script (argv[1]), or in the
 * single executable, where argv[1] is the executable itself, the start-up code its main
 * script leaves in a global (scripts/build.mjs, buildSea).
 */
function workerEntry(): WorkerEntry | null {
  const sea = (globalThis as { __kubeletCkptWorkerEval?: unknown }).__kubeletCkptWorkerEval;
  if (typeof sea === 'string') return { code: sea, eval: true };
  const script = process.argv[1];
  return script ? { code: script, eval: false } : null;
}

/** A pool of (cores - 1) worker threads, up to 3, running this same program; null on one core. */
export function workerJudgePool(options: JudgeOptions): JudgePoolFactory | null {
  const entry = workerEntry();
  // KUBELET_CKPT_JOBS caps the threads used (1: judge everything in this thread); a whole number, else ignored.
  const jobs = Number(process.env.KUBELET_CKPT_JOBS);
  const cores = Number.isInteger(jobs) && jobs > 0 ? jobs : availableCores();
  if (!entry || cores < 2) return null;
  return () => startPool(entry, options, Math.min(cores - 1, 3));
}

/**
 * A judge pool for ls and verify, started while the store is being read once it holds enough
 * checkpoints to use one (the worker loads this program, a few hundred milliseconds of one
 * core, while this thread reads). `factory` hands that pool to verify, or starts one then;
 * `close` ends a pool nobody took (a worker left running would keep the process alive).
 */
function earlyJudgePool(): { early: EarlyStart; factory(options: JudgeOptions): JudgePoolFactory | null; close(): void } {
  let started: JudgePool | null = null;
  return {
    early: {
      at: PARALLEL_MIN_TASKS,
      start(options) {
        started = workerJudgePool(options)?.() ?? null;
      },
    },
    factory(options) {
      const make = workerJudgePool(options);
      if (!make) return null;
      return () => {
        const p = started;
        started = null;
        return p ?? make();
      };
    },
    close() {
      started?.close();
      started = null;
    },
  };
}

/** Open the store for ls or verify with an early judge pool (earlyJudgePool), run `fn` with its factory, close what nobody took. */
export async function withJudgePool<T>(args: GlobalArgs, streams: Streams, fn: (s: Session, makePool: JudgePoolFactory | null) => Promise<T>): Promise<T> {
  const pool = earlyJudgePool();
  try {
    const s = session(args, streams, pool.early);
    return await fn(s, pool.factory(s.judgeOptions));
  } finally {
    pool.close();
  }
}

interface Reply {
  id: number;
  verdicts: Judgement[];
}

function startPool(entry: WorkerEntry, options: JudgeOptions, count: number): JudgePool {
  const pending = new Map<number, { resolve: (v: Judgement[]) => void; reject: (e: Error) => void }>();
  /** Why the pool stopped: a batch posted after that is refused at once (a dead worker would never answer it). */
  let failed: Error | null = null;
  const fail = (e: Error) => {
    failed ??= e;
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  const workers = Array.from({ length: count }, () => {
    const w = new (workerThreads().Worker)(entry.code, { eval: entry.eval, env: { ...process.env, KUBELET_CKPT_ROLE: JUDGE_WORKER_ROLE }, workerData: { options }, resourceLimits: { maxYoungGenerationSizeMb: 8 }, stdout: true, stderr: true });
    w.on('message', (m: Reply) => {
      pending.get(m.id)?.resolve(m.verdicts);
      pending.delete(m.id);
    });
    w.once('error', fail);
    w.once('exit', (code) => fail(new Error(`judge worker exited with ${code}`)));
    return w;
  });
  let next = 0;
  return {
    workers: count,
    judge(tasks) {
      const id = next++;
      return new Promise<Judgement[]>((resolve, reject) => {
        if (failed) return reject(failed);
        pending.set(id, { resolve, reject });
        workers[id % count]!.postMessage({ id, tasks });
      });
    },
    close() {
      for (const w of workers) {
        w.removeAllListeners('exit');
        void w.terminate();
      }
      // Nothing will answer them: let go of what their callers hold (every payload read).
      fail(new Error('judge pool closed'));
    },
  };
}

/** The worker's side: judge each batch the parent posts, post its verdicts back. */
export async function runJudgeWorker(): Promise<void> {
  const { parentPort, workerData } = await import('node:worker_threads');
  const { judgeConfig } = await import('../lib/integrity/pipeline.js');
  const judge = judgeConfig((workerData as { options: JudgeOptions }).options);
  parentPort!.on('message', ({ id, tasks }: { id: number; tasks: JudgeTask[] }) => {
    parentPort!.postMessage({ id, verdicts: tasks.map((t) => judge(Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength), t.file)) } satisfies Reply);
  });
}

// ---- journal sources (journal, tui) --------------------------------------------------------------

export interface JournalSourceArgs {
  source?: 'auto' | 'file' | 'journal-dir';
  file?: string;
  'journal-dir'?: string;
  since?: string;
  until?: string;
  year?: number;
  utc: boolean;
}

/** Where a journal comes from and which part of it: the same options for `journal` and `tui`. */
export function journalSourceTable(o: { file: string; source: string }) {
  return {
    source: { choices: ['auto', 'file', 'journal-dir'] as const, describe: o.source },
    file: { type: 'string', requiresArg: true, describe: o.file },
    'journal-dir': { type: 'string', requiresArg: true, describe: 'a journald directory, read through journalctl -D' },
    since: { type: 'string', requiresArg: true, describe: 'only events at or after this time (journalctl syntax)' },
    until: { type: 'string', requiresArg: true, describe: 'only events before this time (journalctl syntax)' },
    year: { type: 'number', requiresArg: true, describe: 'year of the first line of a year-less text journal (default: file mtime, else now)' },
    utc: { type: 'boolean', default: false, describe: 'read year-less text timestamps as UTC, not the local time zone' },
  } as const;
}

/** Options that cannot be given together, for yargs' conflicts() and the fast path alike. */
export const JOURNAL_SOURCE_CONFLICTS: readonly (readonly [string, string])[] = [['file', 'journal-dir']];

// ---- recovery commands ------------------------------------------------------------------------

export interface RecoveryArgs extends GlobalArgs {
  'dry-run': boolean;
  yes: boolean;
  force: boolean;
  'restart-kubelet': boolean;
  kubeconfig?: string;
}

export function recoveryOptions<T>(y: Argv<T>, what = 'write'): Argv<T & RecoveryArgs> {
  return y
    .option('dry-run', { type: 'boolean', default: false, describe: `print exactly what would be ${what === 'write' ? 'written (the bytes, in order)' : 'removed'}; change nothing` })
    .option('yes', { alias: 'y', type: 'boolean', default: false, describe: 'do not ask for confirmation (scripts)' })
    .option('force', { type: 'boolean', default: false, describe: `${what} even though a kubelet using the store is running${what === 'write' ? ' or the target fails verify' : ''}` })
    .option('restart-kubelet', { type: 'boolean', default: false, describe: `stop the kubelet (systemctl stop kubelet), ${what}, start it, report systemctl is-active (exit 3 when it does not start)` })
    .option('kubeconfig', { type: 'string', requiresArg: true, describe: "the kubelet's kubeconfig, for the API server reachability warning (default: from the kubelet's command line)" }) as unknown as Argv<T & RecoveryArgs>;
}

export type Mode = 'dry-run' | 'apply' | 'ask';

/** --dry-run, --yes, a question on a TTY, or refusal (prune: a dry run) when none applies. */
export function modeOf(args: RecoveryArgs, prune = false): Mode {
  if (args['dry-run']) return 'dry-run';
  if (args.yes) return 'apply';
  if (process.stdin.isTTY && process.stdout.isTTY) return 'ask';
  if (prune) return 'dry-run';
  throw new UsageError('not on a terminal, so there is no one to confirm: pass --yes or --dry-run', 'pass --dry-run to see exactly what would be written, --yes to write it', 'NEEDS_CONFIRMATION');
}

export function commandLineOf(words: (string | false | null | undefined)[], args: RecoveryArgs): string {
  const flags = [args.force && '--force', args['restart-kubelet'] && '--restart-kubelet'];
  return [...words, ...flags].filter((w): w is string => !!w).join(' ');
}

export async function recoveryContext(args: RecoveryArgs, s: Session, commandLine: string): Promise<RecoveryContext> {
  const { faultHook, parseFault } = await import('../lib/recovery/index.js');
  let spec;
  try {
    spec = parseFault(process.env.KUBELET_CKPT_FAULT); // test-only switch, see test/lib/recovery
  } catch (err) {
    throw new UsageError(`KUBELET_CKPT_FAULT: ${(err as Error).message}`);
  }
  const ctx: RecoveryContext = { session: s, root: args.root ?? '/', commandLine, kubeconfig: args.kubeconfig ?? null };
  if (spec) {
    ctx.hook = faultHook(spec, (line) => fs.writeSync(2, `${line}\n`));
    ctx.simulate = spec.simulate;
  }
  return ctx;
}

/** Ask one yes/no question on the terminal (stdin), default no. */
export async function ask(question: string): Promise<boolean> {
  const readline = await import('node:readline');
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(question, resolve);
      rl.once('close', () => resolve(''));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    rl.close();
  }
}

/** On a terminal: show before → after and the warnings (stderr), ask; anything but yes refuses (exit 4). */
export async function confirm(preview: RecoveryResult, question: string, nothing: string, args: RecoveryArgs, streams: Streams): Promise<void> {
  const { renderConfirm } = await import('../lib/output/recovery.js');
  const { palette } = await import('../lib/output/streams.js');
  const { sanitizeDeep } = await import('../lib/output/sanitize.js');
  streams.stderr.write(`${renderConfirm(sanitizeDeep(preview), { p: palette(streams.color), width: streams.width, verbose: args.verbose, quiet: args.quiet })}\n`);
  for (const w of preview.warnings) warn(streams, w);
  if (!(await ask(question))) throw new RefusedError(`not confirmed: ${nothing}`, null, 'DECLINED');
}

/** Print a result; in text mode its warnings go to stderr (except those already shown before a question). */
export async function printResult(r: RecoveryResult, args: RecoveryArgs, streams: Streams, shown: readonly string[] = []): Promise<void> {
  const { renderRecovery } = await import('../lib/output/recovery.js');
  output(r, renderRecovery, args, streams, 'RecoveryResult');
  if (args.output === 'text' && !args.quiet) for (const w of r.warnings) if (!shown.includes(w)) warn(streams, w);
  exitOnRestartFailure(r, args, streams);
}

/**
 * Written, but the kubelet the command stopped did not start again: the node is without one,
 * which a script must notice (exit 3, environment; found by review: it exited 0, the failure
 * only a warning and `kubelet.started: false`).
 */
function exitOnRestartFailure(r: { kubelet?: RestartReport | null }, args: RecoveryArgs, streams: Streams): void {
  if (!r.kubelet?.stopped || r.kubelet.started) return;
  if (args.output === 'text') warn(streams, 'the change was made, but systemctl start kubelet failed: the kubelet is not running; start it (systemctl start kubelet) and check journalctl -u kubelet', 'error');
  setExit(3);
}

/**
 * plan → (dry run | confirm) → apply, for the commands that rewrite meta files. A real run
 * takes the store's lock first and reads the store again under it, so the plan is made from
 * what no other recovery command can change until this one is done (a dry run takes no lock:
 * it reports a holder instead).
 */
export async function runMetaCommand(args: RecoveryArgs, words: string[], plan: (ctx: RecoveryContext) => Promise<MetaPlan>): Promise<void> {
  const mode = modeOf(args);
  const streams = processStreams(args);
  const first = session(args, streams);
  const rec = await import('../lib/recovery/index.js');
  const commandLine = commandLineOf(words, args);
  if (mode === 'dry-run') {
    const p = await plan(await recoveryContext(args, first, commandLine));
    const held = rec.holderRefusal(first.snap.dynamicConfigDir);
    if (held && !p.refusals.some((r) => r.code === held.code)) p.refusals.push(held);
    await printResult(rec.previewMeta(p), args, streams);
    // The plan is shown; the real run would refuse, so the dry run exits as it would (4).
    rec.assertAllowed(p);
    return setExit(0);
  }
  await rec.withStoreLock(first.snap.dynamicConfigDir, commandLine, async () => {
    const ctx = await recoveryContext(args, session({ ...args, verbose: false }, streams), commandLine);
    const p = await plan(ctx);
    rec.assertAllowed(p);
    if (mode === 'ask' && p.writes.length) await confirm(rec.previewMeta(p), 'Write these files? [y/N] ', 'nothing was changed', args, streams);
    await printResult(await rec.applyMetaPlan(ctx, p), args, streams, mode === 'ask' ? p.warnings : []);
  });
  setExit(0);
}

/** plan → (dry run | confirm) → apply for migrate and the undo of a migration. */
export async function runMigrateCommand(args: RecoveryArgs, words: string[], plan: (ctx: RecoveryContext) => Promise<MigratePlan | NothingToMigrate>): Promise<void> {
  const mode = modeOf(args);
  const streams = processStreams(args);
  const s = session(args, streams);
  const ctx = await recoveryContext(args, s, commandLineOf(words, args));
  const p = await plan(ctx);
  if (p.kind === 'nothing') {
    const { renderMigrate } = await import('../lib/output/migrate.js');
    output({ ...p.result, dryRun: mode === 'dry-run' }, renderMigrate, args, streams, 'MigrateResult');
    return setExit(0);
  }
  const m = await import('../lib/migrate/apply.js');
  // Named with the store: the migration takes --dynamic-config-dir off the command line, so a
  // store outside the well-known places is no longer found without it (found by review).
  const undo = `${commandPrefix({ ...args, dir: s.snap.dynamicConfigDir })} undo`;
  await runFilePlan(args, streams, mode, m.previewMigrate(p), p.refusals, () => m.applyMigrate(ctx, p), undo);
}

/** undo of a migrate backup (cmd/undo decides which kind of backup it is). */
export async function runMigrateUndo(args: RecoveryArgs, s: Session, backup: MigrateBackup, words: string[]): Promise<void> {
  const mode = modeOf(args);
  const streams = processStreams(args);
  const ctx = await recoveryContext(args, s, commandLineOf(words, args));
  const m = await import('../lib/migrate/apply.js');
  const p = m.planMigrateUndo(ctx, backup, { force: args.force, restartKubelet: args['restart-kubelet'] });
  // Named with the store and --root, as migrate's own (found by review: a bare `kubelet-ckpt undo`).
  const undo = `${commandPrefix({ ...args, dir: s.snap.dynamicConfigDir })} undo`;
  await runFilePlan(args, streams, mode, m.previewMigrateUndo(p), p.refusals, () => m.applyMigrateUndo(ctx, p), undo);
}

/** A dry run's exit: the code the real run's first refusal would end it with (4 refused, 3 cannot write), 0 when none. */
export function dryRunExit(refusals: readonly Error[]): number {
  return refusals.length ? ((refusals[0] as { exitCode?: number }).exitCode ?? 4) : 0;
}

/** `undo`: the command that restores the backup the apply makes, for its text. */
async function runFilePlan(args: RecoveryArgs, streams: Streams, mode: Mode, preview: MigrateResult, refusals: readonly Error[], apply: () => Promise<MigrateResult>, undo?: string): Promise<void> {
  const { renderMigrate } = await import('../lib/output/migrate.js');
  if (mode === 'dry-run') {
    output(preview, renderMigrate, args, streams, 'MigrateResult');
    if (args.output === 'text' && !args.quiet) for (const w of preview.warnings) streams.stderr.write(`warning: ${w}\n`);
    return setExit(dryRunExit(refusals));
  }
  if (refusals.length) throw refusals[0]!;
  if (mode === 'ask' && preview.changes.length) {
    const { palette } = await import('../lib/output/streams.js');
    streams.stderr.write(`${renderMigrate(preview, { p: palette(streams.color), width: streams.width, verbose: args.verbose, quiet: args.quiet })}\n`);
    for (const w of preview.warnings) streams.stderr.write(`warning: ${w}\n`);
    if (!(await ask('Write these files? [y/N] '))) throw new RefusedError('not confirmed: nothing was changed', null, 'DECLINED');
  }
  const r = await apply();
  output(r, (res, c) => renderMigrate(res, c, undo), args, streams, 'MigrateResult');
  if (args.output === 'text' && !args.quiet) for (const w of r.warnings) if (mode !== 'ask' || !preview.warnings.includes(w)) streams.stderr.write(`warning: ${w}\n`);
  exitOnRestartFailure(r, args, streams);
  setExit(0);
}
