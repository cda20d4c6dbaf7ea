// Entry point. `--version` alone is answered at once; a command line the fast path recognises
// (a plain `status`) runs its handler straight away; anything else goes through yargs with
// every command (cmd/support/cli.ts, loaded only then). Errors of either become a message and
// an exit code in one place.

import { fastArgs, splitAttached } from './support/fastargs.js';
import { FAST_COMMANDS } from './support/fast-commands.js';
import { runReported } from './support/reported.js';
import { printedVersion } from './support/version.js';

async function run(argv: string[]): Promise<void> {
  if (printedVersion(argv)) return;
  const fast = await fastArgs(argv, FAST_COMMANDS);
  if (fast) return fast.run();
  const { runCli } = await import('./support/cli.js');
  return runCli(argv);
}

export async function main(given: string[] = process.argv.slice(2)): Promise<void> {
  const argv = splitAttached(given);
  return runReported(argv, () => run(argv));
}

// A worker thread running this same file judges payloads for a large verify.
if (process.env.KUBELET_CKPT_ROLE === 'judge-worker') void import('./shared.js').then((m) => m.runJudgeWorker());
else void main();
