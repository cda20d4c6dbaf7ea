// The full command line: every command module wired into yargs. Loaded only when the fast
// path (cmd/support/fastargs.ts) does not recognise the command line, so a plain `status`
// never loads yargs or the other commands.

import yargs from 'yargs';
import { CkptError, UsageError } from '../../lib/errors.js';
import { keepStdinRef, usageErrorFor, type CommandModule } from './usage.js';
import { withGlobals } from '../common.js';
import { isTerminal } from './stdio.js';
import * as status from '../status.js';
import * as ls from '../ls.js';
import * as show from '../show.js';
import * as verify from '../verify.js';
import * as diff from '../diff.js';
import * as reset from '../reset.js';
import * as rollback from '../rollback.js';
import * as undo from '../undo.js';
import * as prune from '../prune.js';
import * as clean from '../clean.js';
import * as journal from '../journal.js';
import * as tui from '../tui.js';
import * as exportCmd from '../export.js';
import * as migrate from '../migrate.js';
import * as upgradeCheck from '../upgrade-check.js';
import * as completion from '../completion.js';
import * as report from '../report.js';
import * as check from '../check.js';
import * as fleet from '../fleet.js';
import * as metrics from '../metrics.js';
import { protectStdinSource } from '../report.js';
import { VERSION } from './version.js';

export const COMMANDS = [status, ls, show, verify, diff, journal, reset, rollback, undo, prune, clean, tui, exportCmd, migrate, upgradeCheck, completion, report, check, metrics, fleet];

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

/** yargs' own keys, and positionals that take a list; options that do say so themselves (array: true). */
const LISTS = new Set(['_', '$0', 'refs', 'sources']);

/**
 * An option given twice: the same value twice is that value; two different values are a usage
 * error naming both (yargs would hand the handler an array: found by review, a crash with exit 5,
 * or `-o json -o json` printing text).
 */
function singleValues(argv: Record<string, unknown>, y?: { getOptions?: () => { array?: string[] } }): void {
  // The command's own array options (diff --key/--label, fleet --target-node), aliases and camelCase included.
  const arrays = new Set(y?.getOptions?.().array ?? []);
  const isList = (k: string) => LISTS.has(k) || arrays.has(k) || arrays.has(k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));
  for (const [k, v] of Object.entries(argv)) {
    if (isList(k) || !Array.isArray(v)) continue;
    const distinct = [...new Set(v.map((x) => String(x)))];
    if (distinct.length > 1) {
      // One error, in the spelling people type: the long name (yargs also sets the alias and the camelCase key).
      const same = JSON.stringify(v);
      const name = Object.keys(argv).find((n) => n.length > 1 && !/[A-Z]/.test(n) && JSON.stringify(argv[n]) === same) ?? k;
      throw new UsageError(`${name.length > 1 ? '--' : '-'}${name} was given ${v.length} times with different values (${distinct.join(', ')}): give it once`);
    }
    argv[k] = v[v.length - 1];
  }
}

/** Marks an argument given after `--` (no command-line argument can hold a NUL; report merge marks stdin its own way). */
const AFTER_DASHES = '\0--\0';

/**
 * `--` ends the options: what follows is an argument even when it starts with `-` (a UID such
 * as `-rf`, which completion offers). yargs counts a command's demanded positionals before it
 * adds those after `--` (found by review: `show -- assigned` said "show needs <refs..>", and
 * `verify -- x` crashed, exit 5), so `--` goes, and each argument after it that starts with `-`
 * is passed on marked, as a positional; `unmark` restores it before anything reads it.
 */
function endOfOptions(argv: readonly string[]): string[] {
  const i = argv.indexOf('--');
  if (i < 0) return [...argv];
  return [...argv.slice(0, i), ...argv.slice(i + 1).map((a) => (a.startsWith('-') ? `${AFTER_DASHES}${a}` : a))];
}

/** The arguments endOfOptions marked, as given. */
function unmark(argv: Record<string, unknown>): void {
  const plain = (v: unknown) => (typeof v === 'string' && v.startsWith(AFTER_DASHES) ? v.slice(AFTER_DASHES.length) : v);
  for (const [k, v] of Object.entries(argv)) argv[k] = Array.isArray(v) ? v.map(plain) : plain(v);
}

export function buildCli(given: string[]) {
  const argv = endOfOptions(given);
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
      throw usageErrorFor(msg ?? err?.message ?? 'bad usage', given, COMMANDS as unknown as CommandModule[]);
    });
  cli = cli.middleware(((a: Record<string, unknown>, y: never) => (unmark(a), singleValues(a, y))) as never, true);
  for (const c of COMMANDS) cli = cli.command(c as never);
  skipHelpCache(cli);
  return completion.install(cli, argv);
}

/** Parse and run one command line the full way. */
export async function runCli(argv: string[]): Promise<void> {
  await buildCli(keepStdinRef(protectStdinSource(argv))).parseAsync();
}
