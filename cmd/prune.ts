import type { Argv } from 'yargs';
import { processStreams, session, setExit, wholeNumber, type GlobalArgs } from './common.js';
import { commandLineOf, confirm, modeOf, printResult, recoveryContext, recoveryOptions, type RecoveryArgs } from './shared.js';

export const command = 'prune';
export const describe = 'remove checkpoints no meta file references (a dry run unless --yes); --keep N keeps the N newest others per UID';

interface Args extends RecoveryArgs {
  keep: number;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return recoveryOptions(y, 'remove')
    .option('keep', { type: 'string', default: '0', coerce: wholeNumber('--keep'), requiresArg: true, describe: 'keep the N newest unreferenced resourceVersions of each UID, besides the referenced ones' })
    .option('force', { type: 'boolean', default: false, describe: 'prune even though a kubelet using the store is running (a referenced checkpoint is never removed)' })
    .example('$0 prune', 'what would be removed, and the bytes it would free (a dry run)')
    .example('$0 prune --keep 2 --yes', 'remove all but the 2 newest unreferenced resourceVersions per UID') as unknown as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const mode = modeOf(args, true);
  const streams = processStreams(args);
  const first = session(args, streams);
  const rec = await import('../lib/recovery/index.js');
  const commandLine = commandLineOf(['prune', args.keep ? `--keep ${args.keep}` : ''], args);
  const request = { keep: args.keep, force: args.force, restartKubelet: args['restart-kubelet'] };
  if (mode === 'dry-run') {
    const plan = await rec.planPrune(await recoveryContext(args, first, commandLine), request);
    await printResult(rec.previewPrune(plan), args, streams);
    // The plan is shown; the real run would refuse, so the dry run exits as it would (4).
    if (plan.refusals.length) throw plan.refusals[0];
    return setExit(0);
  }
  // Under the lock from the first read: what is referenced cannot change until we are done.
  await rec.withStoreLock(first.snap.dynamicConfigDir, commandLine, async () => {
    const ctx = await recoveryContext(args, session({ ...args, verbose: false }, streams), commandLine);
    const plan = await rec.planPrune(ctx, request);
    if (plan.refusals.length) throw plan.refusals[0];
    if (mode === 'ask' && plan.items.length) await confirm(rec.previewPrune(plan), 'Remove these now? [y/N] ', 'nothing was removed', args, streams);
    await printResult(await rec.applyPrune(ctx, plan), args, streams, mode === 'ask' ? plan.warnings : []);
  });
  setExit(0);
}
