import type { Argv } from 'yargs';
import { processStreams, session, setExit, type GlobalArgs } from './common.js';
import { commandLineOf, confirm, dryRunExit, modeOf, printResult, recoveryContext, recoveryOptions, type RecoveryArgs } from './shared.js';

export const command = 'clean';
export const describe = "remove the tmp_* leftovers of interrupted writes (the kubelet's and ours) that verify reports; a dry run unless --yes, moved into a backup that undo restores";

export function builder(y: Argv<GlobalArgs>): Argv<RecoveryArgs> {
  return recoveryOptions(y, 'remove')
    .example('$0 clean', 'what would be removed (a dry run)')
    .example('$0 clean --yes', 'move the leftovers into a backup; `kubelet-ckpt undo` puts them back') as unknown as Argv<RecoveryArgs>;
}

export async function handler(args: RecoveryArgs): Promise<void> {
  const mode = modeOf(args, true);
  const streams = processStreams(args);
  const first = session(args, streams);
  const rec = await import('../lib/recovery/index.js');
  const commandLine = commandLineOf(['clean'], args);
  const request = { force: args.force, restartKubelet: args['restart-kubelet'] };
  if (mode === 'dry-run') {
    const plan = rec.planClean(await recoveryContext(args, first, commandLine), request);
    await printResult(rec.previewClean(plan), args, streams);
    return setExit(dryRunExit(plan.refusals));
  }
  // Under the lock from the first read, as prune: what is planned is what is moved.
  await rec.withStoreLock(first.snap.dynamicConfigDir, commandLine, async () => {
    const ctx = await recoveryContext(args, session({ ...args, verbose: false }, streams), commandLine);
    const plan = rec.planClean(ctx, request);
    if (plan.refusals.length) throw plan.refusals[0];
    if (mode === 'ask' && plan.items.length) await confirm(rec.previewClean(plan), 'Remove these now? [y/N] ', 'nothing was removed', args, streams);
    await printResult(await rec.applyClean(ctx, plan), args, streams, mode === 'ask' ? plan.warnings : []);
  });
  setExit(0);
}
