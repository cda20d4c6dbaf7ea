// Parser failures (yargs) turned into usage errors that help: name what was wrong, suggest
// the command or option meant, and point at the command's own --help. Always exit 2.

import yargs from 'yargs';
import { UsageError } from '../../lib/errors.js';
import { closest } from '../../lib/suggest.js';
import { GLOBAL_OPTIONS, withGlobals } from '../common.js';

export interface CommandModule {
  command: string;
  builder: (y: never) => unknown;
}

/** The command's name as typed (`reset` from `reset <what>`). */
export const nameOf = (c: CommandModule): string => c.command.split(' ')[0]!;

/** Global options that take a value: the word after them is not a command. */
const VALUED = new Set(Object.entries(GLOBAL_OPTIONS).flatMap(([k, o]) => ('requiresArg' in o || 'choices' in o ? [`--${k}`, ...('alias' in o ? [`-${o.alias}`] : [])] : [])));

/** The first word that is not an option (nor a global option's value): the command. */
export function commandWord(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1] ?? null;
    if (VALUED.has(a)) {
      i++;
      continue;
    }
    if (!a.startsWith('-') || a === '-') return a;
  }
  return null;
}

/** How a bare `-` (stdin) reaches a command: yargs drops it from positionals. */
export const STDIN_REF = '<stdin>';

/** `verify -`: keep a bare `-` that is not a global option's value, as STDIN_REF. */
export function keepStdinRef(argv: readonly string[]): string[] {
  if (commandWord(argv) !== 'verify') return [...argv];
  return argv.map((a, i) => (a === '-' && !VALUED.has(argv[i - 1] ?? '') ? STDIN_REF : a));
}

/** Every option a command accepts (with the globals), as typed on the command line. */
export function optionsOf(cmd: CommandModule | null): string[] {
  let y = withGlobals(yargs([]));
  if (cmd) y = cmd.builder(y as never) as typeof y;
  // getOptions is public in yargs but missing from its type definitions.
  const keys = (y as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
  return Object.keys(keys)
    .filter((k) => k !== '$0' && !/[A-Z]/.test(k))
    .map((k) => (k.length === 1 ? `-${k}` : `--${k}`));
}

function helpHint(cmd: CommandModule | null): string {
  return cmd ? `see kubelet-ckpt ${nameOf(cmd)} --help` : 'see kubelet-ckpt --help';
}

function unknownOptions(list: string, argv: readonly string[], cmd: CommandModule | null): UsageError {
  // yargs also calls an extra positional an unknown argument.
  const extra = list.split(', ').find((n) => argv.includes(n));
  if (extra !== undefined) {
    const usage = cmd ? `${nameOf(cmd)} takes ${cmd.command.split(' ').slice(1).join(' ') || 'no arguments'}` : 'kubelet-ckpt takes one command';
    return new UsageError(`too many arguments: "${extra}" (${usage})`, helpHint(cmd), 'TOO_MANY_ARGUMENTS');
  }
  const names = list.split(', ').filter((n) => !/[A-Z]/.test(n) || !list.includes(n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)));
  const typed = names.map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
  const known = optionsOf(cmd);
  // Every one-letter option is one edit from every other: suggest only for long ones.
  const guess = typed[0]!.startsWith('--') ? closest(typed[0]!, known.filter((k) => k.startsWith('--'))) : null;
  const what = typed.length === 1 ? `unknown option ${typed[0]}` : `unknown options ${typed.join(', ')}`;
  const where = cmd ? ` for ${nameOf(cmd)}` : '';
  return new UsageError(`${what}${where}${guess ? `; did you mean ${guess}?` : ''}`, helpHint(cmd), 'UNKNOWN_OPTION');
}

/**
 * A usage error for one yargs failure message. `argv` is the command line, `commands`
 * the registered command modules.
 */
export function usageErrorFor(msg: string, argv: readonly string[], commands: readonly CommandModule[]): UsageError {
  const word = commandWord(argv);
  const cmd = commands.find((c) => argv.includes(nameOf(c))) ?? null;
  const names = commands.map(nameOf);
  const hint = helpHint(cmd);
  let m: RegExpMatchArray | null;
  if (word && !cmd && !['completion', 'help'].includes(word) && (/^Did you mean /.test(msg) || /^Unknown argument/.test(msg))) {
    const guess = closest(word, names);
    return new UsageError(`unknown command "${word}"${guess ? `; did you mean ${guess}?` : ''}`, `the commands are: ${names.join(', ')}; see kubelet-ckpt --help`, 'UNKNOWN_COMMAND');
  }
  if ((m = msg.match(/^Not enough arguments following: (.+)$/))) {
    const flag = m[1]!.length === 1 ? `-${m[1]}` : `--${m[1]}`;
    const next = argv[argv.indexOf(flag) + 1];
    const dash = next?.startsWith('-') ? `; a value that starts with "-" is given as ${flag}=${next}` : '';
    return new UsageError(`option ${flag} needs a value${dash}`, hint, 'MISSING_VALUE');
  }
  if ((m = msg.match(/^Unknown arguments?: (.+)$/))) return unknownOptions(m[1]!, argv, cmd);
  if ((m = msg.match(/^Not enough non-option arguments: got (\d+), need at least (\d+)$/))) {
    const wanted = cmd ? cmd.command.split(' ').slice(1).filter((w) => w.startsWith('<')).join(' ') : '';
    // A subcommand's own argument (fleet manifest <kind>) is not in the command's string: name the words typed.
    const typed = cmd ? argv.slice(argv.indexOf(nameOf(cmd))).filter((w) => !w.startsWith('-')).join(' ') : '';
    return new UsageError(cmd ? `${wanted ? `${nameOf(cmd)} needs ${wanted}` : `${typed} needs an argument`}` : msg, hint, 'MISSING_ARGUMENT');
  }
  if ((m = msg.match(/Argument: (\S+), Given: (.*), Choices: (.*)/))) {
    const positional = cmd?.command.match(new RegExp(`[<[]${m[1]}(\\.\\.)?[>\\]]`))?.[0];
    const choices = m[3]!.replace(/"/g, '').split(', ');
    const guess = closest(m[2]!.replace(/^"|"$/g, ''), choices);
    const given = optionsOf(cmd).includes(`--${m[1]}`) || argv.some((a) => a === `--${m![1]}` || a.startsWith(`--${m![1]}=`));
    return new UsageError(`invalid value ${m[2]} for ${positional ?? (given ? `--${m[1]}` : `<${m[1]}>`)}; it is one of ${choices.join(', ')}${guess ? `; did you mean ${guess}?` : ''}`, hint, 'INVALID_VALUE');
  }
  if (/name a command/.test(msg)) return new UsageError(msg.replace(' (see --help)', ''), `the commands are: ${names.join(', ')}; see kubelet-ckpt --help`, 'USAGE');
  return new UsageError(msg.charAt(0).toLowerCase() + msg.slice(1), hint);
}
