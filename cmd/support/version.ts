// The package version, and `--version` answered before any command module or yargs loads.

import { stdoutSink } from './stdio.js';

/**
 * Written in by the build (scripts/build.mjs). Without it yargs looks for a package.json above
 * the working directory: slow (and a thrown assertion when there is none), and wrong wherever
 * another package.json is found.
 */
declare const KUBELET_CKPT_VERSION: string | undefined;
export const VERSION = typeof KUBELET_CKPT_VERSION === 'string' ? KUBELET_CKPT_VERSION : 'unknown';

/**
 * A command line of `--version` alone, printed as yargs prints it (fleet engines ask every
 * node): true when done. Anything more (`--version --help`, a command) is yargs' to read.
 */
export function printedVersion(argv: readonly string[]): boolean {
  if (argv.length !== 1 || argv[0] !== '--version') return false;
  // Not a terminal: the bytes console.log (as yargs) writes, straight to the descriptor.
  // console.log built process.stdout, and for a pipe the stream modules and net: ~25 M
  // instructions, a fifth of a --version. As with console.log, a reader that went away early,
  // a closed or a full stdout is not an error (exit 0).
  const out = stdoutSink();
  if (out.isTTY) console.log(VERSION);
  else {
    try {
      out.sink.write(`${VERSION}\n`);
    } catch {
      // console.log drops a failed write too
    }
  }
  return true;
}
