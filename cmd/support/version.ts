// The package version, and `--version` answered before any command module or yargs loads.

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
  // console.log, as yargs: a reader that closed the pipe early is not an error.
  console.log(VERSION);
  return true;
}
