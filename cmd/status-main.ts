// The single executable's second entry point: a program of `status` alone (the model it reads,
// its printer, its errors), a third of the whole program's size. V8 loads a program's code cache
// in time that grows with every function the program holds, used or not, so the command people
// run first on a broken node starts from this one, and so does `--version` (fleet engines ask
// every node). Any other command line, `status --help` included, hands over to the whole
// program (cmd/main.ts), which the loader runs on request.

import { fastArgs, splitAttached } from './support/fastargs.js';
import { runReported } from './support/reported.js';
import { printedVersion } from './support/version.js';

declare global {
  /** Set by the single executable's loader: runs the whole program on process.argv. */
  // eslint-disable-next-line no-var
  var __kubeletCkptWhole: (() => void) | undefined;
}

export async function main(given: string[] = process.argv.slice(2)): Promise<void> {
  const argv = splitAttached(given);
  if (printedVersion(argv)) return;
  const fast = await fastArgs(argv, { status: () => import('./status.js') });
  if (!fast) return globalThis.__kubeletCkptWhole!();
  return runReported(argv, fast.run);
}

void main();
