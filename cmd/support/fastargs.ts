// The fast path: a command line made only of the plainest forms (`status --no-journal -o json`,
// `ls --uid X`, `verify` of the whole store, `journal --file F`, `tui`) is read here, into the very object yargs would hand
// the handler, and yargs is never loaded. It saves the part of start-up that yargs and the other
// commands' modules cost (about half of a `status`, ~90 M instructions). Anything else (help, a typo, `--opt=value` on a boolean, a repeated option, an
// option before its command) returns null and yargs decides, errors and all. The option tables
// are the ones yargs reads, and a test holds the two parsers equal.

import { GLOBAL_OPTIONS } from '../common.js';

interface OptionSpec {
  readonly type?: 'string' | 'boolean' | 'number';
  readonly alias?: string;
  readonly default?: unknown;
  readonly choices?: readonly string[];
}
type OptionTable = Readonly<Record<string, OptionSpec>>;

export interface FastCommand {
  /** yargs' command string: `verify [refs..]`; the fast path runs it with no positionals. */
  readonly command: string;
  readonly OPTIONS: OptionTable;
  /** Pairs of options that cannot be given together: with both, yargs words the error. */
  readonly CONFLICTS?: readonly (readonly [string, string])[];
  handler(args: never): Promise<void>;
}

/** Commands by name, each loaded only when named (not the others' modules). */
export type FastTable = Readonly<Record<string, () => Promise<FastCommand>>>;


/** Short options that take a value which is not a number (yargs reads `-ojson` as -o -j -s -o -n). */
const VALUE_SHORTS = new Set(['o', 'L']);

/**
 * `-ojson` as `-o json` (getopt's attached value), for the short options that take a word;
 * nothing after `--` is touched. Both parsers then see the one spelling they know.
 */
export function splitAttached(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return out.concat(argv.slice(i));
    if (a.length > 2 && a[0] === '-' && a[1] !== '-' && VALUE_SHORTS.has(a[1]!)) out.push(a.slice(0, 2), a.slice(a[2] === '=' ? 3 : 2));
    else out.push(a);
  }
  return out;
}

/** The first word that is neither an option nor a global option's value: the command, maybe. */
function commandName(argv: readonly string[]): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) return a;
    const name = a.startsWith('--') ? a.slice(2) : a.slice(1);
    const hit = name.includes('=') ? null : lookup(GLOBAL_OPTIONS as OptionTable, name);
    if (hit && hit[1].type !== 'boolean') i++;
  }
  return null;
}

/** What yargs adds for `kubelet-config`: the same value under `kubeletConfig`. */
const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function lookup(table: OptionTable, name: string): [string, OptionSpec] | null {
  if (Object.hasOwn(table, name)) return [name, table[name]!];
  for (const [key, spec] of Object.entries(table)) if (spec.alias === name) return [key, spec];
  return null;
}

/** The value a token gives its option, or undefined when the fast path must not decide. */
function valueOf(spec: OptionSpec, negated: boolean, inline: string | undefined, next: () => string | undefined): unknown {
  if (spec.type === 'boolean') return inline === undefined ? !negated : undefined;
  if (negated) return undefined;
  // The next word is the value unless it looks like an option (yargs then says so).
  const v = inline ?? next();
  if (v === undefined || v === '' || (inline === undefined && v.startsWith('-'))) return undefined;
  if (spec.choices && !spec.choices.includes(v)) return undefined;
  // A number only in its plainest form (yargs makes NaN of the rest, and says nothing).
  if (spec.type === 'number') return /^[0-9]{1,15}$/.test(v) ? Number(v) : undefined;
  return v;
}

/** The arguments object yargs would build for `cmd` (the module of `commandWord`), or null. */
function parseFor(argv: readonly string[], commandWord: string, cmd: FastCommand): Record<string, unknown> | null {
  let command: string | null = null;
  const given = new Map<string, unknown>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) {
      if (command !== null || a !== commandWord) return null;
      command = a;
      continue;
    }
    const long = a.startsWith('--');
    const body = long ? a.slice(2) : a.slice(1);
    if (body === '' || (!long && body.length !== 1)) return null;
    const eq = long ? body.indexOf('=') : -1;
    let name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);
    const tables = command === null ? [GLOBAL_OPTIONS as OptionTable] : [GLOBAL_OPTIONS as OptionTable, cmd.OPTIONS];
    const find = (n: string) => tables.map((t) => lookup(t, n)).find((x) => x !== null) ?? null;
    let hit = long && name.length === 1 ? null : find(name);
    const negated = hit === null && long && name.startsWith('no-');
    if (negated) {
      name = name.slice(3);
      hit = find(name);
      if (hit?.[1].type !== 'boolean') return null;
    }
    if (!hit || given.has(hit[0])) return null;
    const v = valueOf(hit[1], negated, inline, () => argv[++i]);
    if (v === undefined) return null;
    given.set(hit[0], v);
  }
  if (command === null) return null;
  if (cmd.CONFLICTS?.some(([a, b]) => given.has(a) && given.has(b))) return null;
  const args: Record<string, unknown> = { _: [command] };
  for (const table of [GLOBAL_OPTIONS as OptionTable, cmd.OPTIONS]) {
    for (const [key, spec] of Object.entries(table)) {
      const v = given.has(key) ? given.get(key) : spec.default;
      if (v === undefined) continue;
      args[key] = v;
      if (camel(key) !== key) args[camel(key)] = v;
      if (spec.alias) args[spec.alias] = v;
    }
  }
  // With none given, yargs sets an optional variadic positional (`[refs..]`) to [].
  for (const m of cmd.command.matchAll(/\[([a-z-]+)\.\.\]/g)) args[m[1]!] = [];
  args.$0 = 'kubelet-ckpt';
  return args;
}

/** The command a plain command line names and the arguments yargs would build, or null. */
export async function fastParse(argv: readonly string[], table: FastTable): Promise<{ cmd: FastCommand; args: Record<string, unknown> } | null> {
  const name = commandName(argv);
  if (name === null || !Object.hasOwn(table, name)) return null;
  const cmd = await table[name]!();
  const args = parseFor(argv, name, cmd);
  return args && { cmd, args };
}

/** The command to run without yargs, or null when the full parser must read this command line. */
export async function fastArgs(argv: readonly string[], table: FastTable): Promise<{ run(): Promise<void> } | null> {
  const p = await fastParse(argv, table);
  return p && { run: () => p.cmd.handler(p.args as never) };
}
