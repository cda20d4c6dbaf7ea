import type { Argv } from 'yargs';
import type { GlobalArgs } from './common.js';
import { recoveryOptions, runMetaCommand, type RecoveryArgs } from './shared.js';

export const command = 'reset <which>';
export const describe = 'rewrite meta/assigned, meta/last-known-good or both (to local, or --to a checkpoint), atomically and backed up';

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
