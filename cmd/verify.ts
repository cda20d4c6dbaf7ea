import type { Argv } from 'yargs';
import { renderVerify } from '../lib/output/verify.js';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';
import { verifySession, verifySessionParallel } from '../lib/integrity/run.js';
import { workerJudgePool } from './shared.js';

export const command = 'verify [refs..]';
export const describe = 'run every integrity check over the whole store, or only the given refs';

interface Args extends GlobalArgs {
  refs?: string[];
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('refs', { type: 'string', array: true, describe: 'checkpoints to check (assigned, lkg, UID/RV, UID); default: the whole store' })
    .example('$0 verify', 'check everything; exit 1 when any error is found')
    .example('$0 verify assigned -o json', 'only the assigned checkpoint (and both meta files), for scripts') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const s = session(args, streams);
  const report = args.refs?.length ? verifySession(s, args.refs) : await verifySessionParallel(s, workerJudgePool(s.judgeOptions));
  output(report, renderVerify, args, streams, 'VerifyReport');
  setExit(report.ok ? 0 : 1);
}
