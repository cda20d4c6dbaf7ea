import type { Argv } from 'yargs';
import { listSession } from '../lib/integrity/run.js';
import { withJudgePool } from './shared.js';
import { renderList } from '../lib/output/ls.js';
import { output, processStreams, setExit, type GlobalArgs } from './common.js';

export const command = 'ls';
export const describe = 'list every checkpoint: UID, resourceVersion, files, mtime, markers A (assigned), L (last-known-good), B (boots next), and what verify found';

interface Args extends GlobalArgs {
  uid?: string;
}

/** ls's own options (read by yargs, and by the fast path in cmd/support/fastargs.ts). */
export const OPTIONS = {
  uid: { type: 'string', requiresArg: true, describe: 'only this UID (or unique prefix of at least 4 characters)' },
} as const;

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .options(OPTIONS)
    .example('$0 ls', 'every checkpoint, oldest resourceVersion first within each UID')
    .example('$0 ls --uid 5808 -o json', 'one ConfigMap, for scripts') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const report = await withJudgePool(args, streams, (s, makePool) => listSession(s, makePool, args.uid));
  output(report, renderList, args, streams, 'CheckpointList');
  setExit(0);
}
