import type { Argv } from 'yargs';
import { buildList, verifyStates } from '../lib/store/list.js';
import { verifyParallel } from '../lib/integrity/run.js';
import { workerJudgePool } from './shared.js';
import { renderList } from '../lib/output/ls.js';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'ls';
export const describe = 'list every checkpoint: UID, resourceVersion, files, mtime, markers A (assigned) and L (last-known-good)';

interface Args extends GlobalArgs {
  uid?: string;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .option('uid', { type: 'string', requiresArg: true, describe: 'only this UID (or unique prefix of at least 4 characters)' })
    .example('$0 ls', 'every checkpoint, oldest resourceVersion first within each UID')
    .example('$0 ls --uid 5808 -o json', 'one ConfigMap, for scripts') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const s = session(args, streams);
  const { report, reader } = await verifyParallel(s, workerJudgePool(s.judgeOptions));
  output(buildList(s.snap, reader, { uid: args.uid, verify: verifyStates(report.findings) }), renderList, args, streams, 'CheckpointList');
  setExit(0);
}
