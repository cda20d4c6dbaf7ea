import type { Argv } from 'yargs';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'upgrade-check';
export const describe = 'whether the kubelet still starts once its binary becomes X.Y (default 1.24), and which config it would run';

interface Args extends GlobalArgs {
  to: string;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .option('to', { type: 'string', requiresArg: true, default: '1.24', describe: 'the kubelet release the node is upgraded to (X.Y)' })
    .example('$0 upgrade-check', 'does this node survive a 1.24 kubelet, and does its config change?')
    .example('$0 upgrade-check --to 1.26 -o json', 'the same for 1.26, for scripts') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const s = session(args, streams);
  const { upgradeCheck } = await import('../lib/migrate/upgrade.js');
  const { renderUpgrade } = await import('../lib/output/migrate.js');
  const r = upgradeCheck(s, { to: args.to, root: args.root ?? '/' });
  output(r, renderUpgrade, args, streams, 'UpgradeCheck');
  setExit(r.breaks || r.changesConfig ? 1 : 0);
}
