// Entry point: wires the command modules into yargs, and is the one place that turns
// errors into a message (or a JSON error object under -o json) and an exit code.

import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { CkptError, asCkptError, EXIT } from '../lib/errors.js';
import { keepStdinRef, usageErrorFor, type CommandModule } from './support/usage.js';
import { errorDocument } from '../lib/output/document.js';
import { toYaml } from '../lib/output/print.js';
import { printableBlock, printableMessage } from '../lib/output/sanitize.js';
import { withGlobals } from './common.js';
import { isTerminal } from './support/stdio.js';
import * as status from './status.js';
import * as ls from './ls.js';
import * as show from './show.js';
import * as verify from './verify.js';
import * as diff from './diff.js';
import * as reset from './reset.js';
import * as rollback from './rollback.js';
import * as undo from './undo.js';
import * as prune from './prune.js';
import * as clean from './clean.js';
import * as journal from './journal.js';
import * as tui from './tui.js';
import * as exportCmd from './export.js';
import * as migrate from './migrate.js';
import * as upgradeCheck from './upgrade-check.js';
import * as completion from './completion.js';
import * as report from './report.js';
import * as check from './check.js';
import * as fleet from './fleet.js';
import * as metrics from './metrics.js';
import { protectStdinSource } from './report.js';

/**
 * The package version, written in by the build (scripts/build.mjs). Without it yargs looks for
 * a package.json above the working directory: slow (and a thrown assertion when there is none),
 * and wrong wherever another package.json is found.
 */
declare const KUBELET_CKPT_VERSION: string | undefined;
const VERSION = typeof KUBELET_CKPT_VERSION === 'string' ? KUBELET_CKPT_VERSION : 'unknown';

export const COMMANDS = [status, ls, show, verify, diff, journal, reset, rollback, undo, prune, clean, tui, exportCmd, migrate, upgradeCheck, completion, report, check, metrics, fleet];

/** The output format, read from raw argv so that even a parse failure honours -o json. */
export function rawFormat(argv: readonly string[]): string {
  let f = 'text';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-o' || a === '--output') f = argv[i + 1] ?? f;
    else if (a.startsWith('--output=')) f = a.slice(9);
    else if (a.startsWith('-o') && a.length > 2 && !a.startsWith('--')) f = a.slice(2).replace(/^=/, '');
  }
  return f;
}

export function reportError(err: unknown, argv: readonly string[], verbose: boolean): number {
  const e = asCkptError(err);
  const format = rawFormat(argv);
  if (format === 'json' || format === 'yaml') {
    const doc = errorDocument(e);
    process.stderr.write(format === 'json' ? `${JSON.stringify(doc)}\n` : toYaml(doc));
  } else {
    process.stderr.write(`error: ${printableMessage(e.message)}\n`);
    if (e.hint) process.stderr.write(`hint: ${printableMessage(e.hint)}\n`);
    if (verbose && e.exitCode === EXIT.INTERNAL && e.stack) process.stderr.write(`${printableBlock(e.stack)}\n`);
  }
  return e.exitCode;
}

interface YargsInternals {
  getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } };
}

/**
 * yargs renders the whole help text after every command in case a later failure wants
 * to show it (about 45 ms, a third of our start-up). Our failures never print help, and
 * --help builds it on demand, so skip the cache.
 */
function skipHelpCache(cli: unknown): void {
  const usage = (cli as YargsInternals).getInternalMethods?.().getUsageInstance?.();
  if (usage) usage.cacheHelpMessage = () => undefined;
}

export function buildCli(argv: string[]) {
  let cli = withGlobals(yargs(argv))
    .scriptName('kubelet-ckpt')
    .usage('kubelet-ckpt [global options] <command>\n\nInspect, verify and repair the kubelet\'s Dynamic Kubelet Configuration checkpoint store.')
    .strict()
    .demandCommand(1, 'name a command (see --help)')
    .recommendCommands()
    .help('help')
    .alias('help', 'h')
    .version(VERSION)
    .wrap(Math.min(100, (isTerminal(1) && process.stdout.columns) || 80))
    .epilogue('Exit codes: 0 ok, 1 findings, 2 usage, 3 environment, 4 refused for safety, 5 internal error.\nSee kubelet-ckpt(1).')
    .fail((msg, err) => {
      // yargs' own parse failures (YError) are usage errors; anything a handler threw passes.
      if (err && (err instanceof CkptError || err.name !== 'YError')) throw err;
      throw usageErrorFor(msg ?? err?.message ?? 'bad usage', argv, COMMANDS as unknown as CommandModule[]);
    });
  for (const c of COMMANDS) cli = cli.command(c as never);
  skipHelpCache(cli);
  return completion.install(cli, argv);
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
  const verbose = argv.includes('-v') || argv.includes('--verbose');
  try {
    await buildCli(keepStdinRef(protectStdinSource(argv))).parseAsync();
  } catch (err) {
    process.exitCode = reportError(err, argv, verbose);
  }
}

// A worker thread running this same file judges payloads for a large verify.
if (process.env.KUBELET_CKPT_ROLE === 'judge-worker') void import('./shared.js').then((m) => m.runJudgeWorker());
else void main();
