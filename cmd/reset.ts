import fs from 'node:fs';
import type { Argv } from 'yargs';
import { RefusedError, UsageError } from '../lib/errors.js';
import type { MetaPlan, RecoveryContext, RecoveryResult } from '../lib/recovery/index.js';
import type { Session } from '../lib/session.js';
import type { Streams } from '../lib/output/streams.js';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'reset <which>';
export const describe = 'rewrite meta/assigned, meta/last-known-good or both (to local, or --to a checkpoint), atomically and backed up';

// ---- shared by reset, rollback, undo and prune ------------------------------------------------

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
    .option('restart-kubelet', { type: 'boolean', default: false, describe: `stop the kubelet (systemctl stop kubelet), ${what}, start it, report systemctl is-active` })
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
  streams.stderr.write(`${renderConfirm(preview, { p: palette(streams.color), width: streams.width, verbose: args.verbose, quiet: args.quiet })}\n`);
  for (const w of preview.warnings) streams.stderr.write(`warning: ${w}\n`);
  if (!(await ask(question))) throw new RefusedError(`not confirmed: ${nothing}`, null, 'DECLINED');
}

/** Print a result; in text mode its warnings go to stderr (except those already shown before a question). */
export async function printResult(r: RecoveryResult, args: RecoveryArgs, streams: Streams, shown: readonly string[] = []): Promise<void> {
  const { renderRecovery } = await import('../lib/output/recovery.js');
  output(r, renderRecovery, args, streams);
  if (args.output === 'text' && !args.quiet) for (const w of r.warnings) if (!shown.includes(w)) streams.stderr.write(`warning: ${w}\n`);
}

/** plan → (dry run | confirm) → apply, for the commands that rewrite meta files. */
export async function runMetaCommand(args: RecoveryArgs, words: string[], plan: (ctx: RecoveryContext) => Promise<MetaPlan>): Promise<void> {
  const mode = modeOf(args);
  const streams = processStreams(args);
  const s = session(args, streams);
  const rec = await import('../lib/recovery/index.js');
  const ctx = await recoveryContext(args, s, commandLineOf(words, args));
  const p = await plan(ctx);
  if (mode === 'dry-run') {
    await printResult(rec.previewMeta(p), args, streams);
    return setExit(0);
  }
  rec.assertAllowed(p);
  if (mode === 'ask' && p.writes.length) await confirm(rec.previewMeta(p), 'Write these files? [y/N] ', 'nothing was changed', args, streams);
  await printResult(await rec.applyMetaPlan(ctx, p), args, streams, mode === 'ask' ? p.warnings : []);
  setExit(0);
}

// ---- reset --------------------------------------------------------------------------------------

interface Args extends RecoveryArgs {
  which: string;
  to?: string;
  configmap?: string;
  journal?: string;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return recoveryOptions(y)
    .positional('which', { choices: ['assigned', 'last-known-good', 'lkg', 'all'], describe: 'the meta file(s) to rewrite; all writes last-known-good first, then assigned, as the kubelet does' })
    .option('to', { type: 'string', requiresArg: true, default: 'local', describe: 'the config to point at: local (an empty meta file), assigned, lkg, UID/RV or a unique UID' })
    .option('configmap', { type: 'string', requiresArg: true, describe: 'NAMESPACE/NAME[:KEY] of the ConfigMap behind --to UID/RV when no meta file (or journal line) names that UID (KEY defaults to kubelet)' })
    .option('journal', { type: 'string', requiresArg: true, describe: 'learn the ConfigMap of --to UID/RV from the kubelet journal: auto (journalctl; the node\'s journal under --root) or a journal file' })
    .example('$0 reset all --dry-run', 'show the exact bytes a reset to the local config would write')
    .example('$0 reset all --yes', 'both meta files := local (what the kubelet does when Node.Spec.ConfigSource is removed)')
    .example('$0 reset assigned --to 946d785e-998a-11e7-a8dd-42010a800006/119980 --yes', 'assign a checkpoint that is on disk')
    .example('$0 reset assigned --to 946d785e/119980 --configmap kube-system/node-config --yes', 'a UID no meta file names') as unknown as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const which = args.which === 'lkg' ? 'last-known-good' : (args.which as 'assigned' | 'last-known-good' | 'all');
  const words = ['reset', which, '--to', args.to ?? 'local', args.configmap ? `--configmap ${args.configmap}` : ''];
  const { planReset } = await import('../lib/recovery/index.js');
  await runMetaCommand(args, words, (ctx) => {
    if (args.journal) ctx.journalNames = () => journalNames(args.journal!, args.root);
    return planReset(ctx, { which, to: args.to ?? 'local', configmap: args.configmap ?? null, force: args.force, restartKubelet: args['restart-kubelet'] });
  });
}

/** ConfigMap names by UID from the journal: a bounded read of the live journal, or a whole file. */
async function journalNames(source: string, root: string | undefined) {
  const { readJournal, namesByUid } = await import('../lib/journal/index.js');
  const r = await readJournal(source === 'auto' ? { source: 'auto', root, lines: 50_000, timeoutMs: 10_000 } : { source: 'file', file: source });
  return namesByUid(r.events);
}
