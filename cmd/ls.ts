import type { Argv } from 'yargs';
import { buildList, verifyStates } from '../lib/store/list.js';
import { verifySessionParallel } from '../lib/integrity/run.js';
import { workerJudgeRunner } from './shared.js';
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
  const verify = verifyStates((await verifySessionParallel(s, workerJudgeRunner(s.judgeOptions, s.judge))).findings);
  output(buildList(s.snap, s.reader, { uid: args.uid, verify }), renderList, args, streams);
  setExit(0);
}
