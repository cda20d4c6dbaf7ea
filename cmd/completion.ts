// `kubelet-ckpt completion`: yargs' own bash/zsh script (chosen by $SHELL), completing
// commands and options, plus refs read from the store for commands that take one.

import type { Argv } from 'yargs';
import { refCandidates } from '../lib/completion.js';

export const command = 'completion';
export const describe = 'print a bash or zsh completion script (commands, options and refs from the store; the shell is taken from $SHELL)';
const REF_COMMANDS = new Set(['show', 'diff', 'verify']);

type Done = (completions: string[]) => void;
type Filter = (cb: (err: Error | null, defaults: string[] | undefined) => void) => void;

export function install<T>(cli: Argv<T>): Argv<T> {
  return cli.completion(command, describe, (current: string, argv: { _: (string | number)[]; dir?: string; root?: string }, filter: Filter, done: Done) => {
    filter((_err, defaults) => {
      // argv._ holds the program name and the words typed so far: find the command.
      const cmd = argv._.map(String).find((w) => REF_COMMANDS.has(w));
      if (!cmd || current.startsWith('-')) return done(defaults ?? []);
      done([...(defaults ?? []), ...refCandidates({ dir: argv.dir, root: argv.root }).filter((r) => r.startsWith(current))]);
    });
  });
}
