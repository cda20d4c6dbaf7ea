// `kubelet-ckpt completion [bash|zsh|fish]`: print a completion script. The scripts ask the
// tool for candidates (yargs' --get-yargs-completions, answered by `install` below), which
// adds refs, UIDs, and file/directory completion for the options that take them.

import type { Argv } from 'yargs';
import { SHELLS, completeWords, completionScript, shellFromEnv, type Shell } from '../lib/completion.js';
import type { GlobalArgs } from './common.js';

export const command = 'completion [shell]';
export const describe = 'print a completion script for bash, zsh or fish (commands, options, refs and UIDs from the store, files and directories for the options that take them)';

interface Args extends GlobalArgs {
  shell?: Shell;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('shell', { choices: SHELLS, describe: 'the shell to complete for (default: the one $SHELL names, else bash)' })
    .example('source <(kubelet-ckpt completion bash)', 'complete in this bash session')
    .example('kubelet-ckpt completion zsh > "${fpath[1]}/_kubelet-ckpt"', 'install for zsh')
    .example('kubelet-ckpt completion fish > ~/.config/fish/completions/kubelet-ckpt.fish', 'install for fish')
    .epilogue('-o json and -o yaml do not apply: the output is a shell script.') as unknown as Argv<Args>;
}

export function handler(args: Args): void {
  process.stdout.write(completionScript(args.shell ?? shellFromEnv(process.env.SHELL)));
}

type Done = (completions: string[]) => void;
type Filter = (cb: (err: Error | null, defaults: string[] | undefined) => void) => void;
const COMPLETION_KEY = '--get-yargs-completions';

/**
 * Answer the scripts' --get-yargs-completions requests. yargs' own `completion` command is
 * registered under a hidden name: ours above prints the scripts.
 */
export function install<T>(cli: Argv<T>, argv: readonly string[]): Argv<T> {
  const words = argv.slice(argv.indexOf(COMPLETION_KEY) + 1);
  return cli.completion('__yargs-completion', false, (_current: string, parsed: { dir?: string; root?: string }, filter: Filter, done: Done) => {
    filter((_err, defaults) => done(completeWords({ words, defaults: (defaults ?? []).filter((d) => d !== '__yargs-completion'), where: { dir: parsed.dir, root: parsed.root } })));
  });
}
