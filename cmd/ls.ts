import type { Argv } from 'yargs';
import { listSession } from '../lib/integrity/run.js';
import { earlyJudgePool } from './shared.js';
import { renderList } from '../lib/output/ls.js';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

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
  const pool = earlyJudgePool();
  try {
    const s = session(args, streams, pool.early);
    output(await listSession(s, pool.factory(s.judgeOptions), args.uid), renderList, args, streams, 'CheckpointList');
  } finally {
    pool.close();
  }
  setExit(0);
}
