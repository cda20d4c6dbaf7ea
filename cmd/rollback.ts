import type { Argv } from 'yargs';
import { recoveryOptions, runMetaCommand, type RecoveryArgs } from './shared.js';
import type { GlobalArgs } from './common.js';

export const command = 'rollback';
export const describe = 'assigned := last-known-good (local when last-known-good is empty): make the fall-back permanent, atomically and backed up';

export function builder(y: Argv<GlobalArgs>): Argv<RecoveryArgs> {
  return recoveryOptions(y)
    .example('$0 rollback --dry-run', 'the exact bytes meta/assigned would get')
    .example('$0 rollback --yes -o json', 'for recovery scripts')
    .example('$0 rollback --restart-kubelet --yes', 'stop the kubelet, roll back, start it again') as Argv<RecoveryArgs>;
}

export async function handler(args: RecoveryArgs): Promise<void> {
  const { planRollback } = await import('../lib/recovery/index.js');
  await runMetaCommand(args, ['rollback'], (ctx) => planRollback(ctx, { force: args.force, restartKubelet: args['restart-kubelet'] }));
}
