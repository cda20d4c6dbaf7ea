import type { Argv } from 'yargs';
import { PROBLEMS, runCheck, type Problem } from '../lib/fleet/check.js';
import { UsageError } from '../lib/errors.js';
import { processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'check';
export const describe = 'one line for node-problem-detector: exit 0 ok, 1 problem (fell back, will not start, crash loop), 2 unknown';

interface Args extends GlobalArgs {
  npd: boolean;
  problem?: Problem;
  journal: boolean;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .option('npd', { type: 'boolean', default: false, describe: "node-problem-detector custom plugin protocol: one ASCII line of at most 80 bytes, exit 0/1/2 (required)" })
    .option('problem', { choices: PROBLEMS, describe: 'report only this problem (one NPD temporary rule per reason): 1 when present, else 0' })
    .option('journal', { type: 'boolean', default: true, describe: 'read the journal tail for a crash loop (--no-journal skips it)' })
    .example('$0 check --npd', 'the permanent rule of `fleet manifest npd`')
    .example('$0 --root /host check --npd --problem fell-back', 'one temporary rule, in the NPD container')
    .epilogue('-o json and -o yaml do not apply: the output is the NPD plugin protocol (one line, exit 0/1/2). For a document, use status -o json.') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  if (!args.npd) throw new UsageError('check speaks the node-problem-detector plugin protocol only: pass --npd', 'kubelet-ckpt check --npd; for people, kubelet-ckpt status');
  const streams = processStreams({ ...args, color: false });
  const root = args.root ?? '/';
  const v = await runCheck({
    open: () => session({ ...args, quiet: true, verbose: false }, streams),
    journal: args.journal ? (s) => journalEvidence(root, s) : null,
    only: args.problem,
  });
  streams.stdout.write(`${v.line}\n`);
  setExit(v.exit);
}

async function journalEvidence(root: string, s: import('../lib/session.js').Session) {
  const { lastEvidence } = await import('../lib/journal/evidence.js');
  const { storeViewOf } = await import('../lib/journal/store-view.js');
  // NPD runs this on a live node (its pod mounts the node at /host, --root): a crash loop counts
  // while it lasts, as without --root (found by review: an ended loop held the condition).
  return lastEvidence({ root, store: storeViewOf(s.snap) });
}
