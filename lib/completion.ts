// Shell completion: the scripts for bash, zsh and fish, and the candidates for the word
// being typed. The scripts ask the tool itself (yargs' --get-yargs-completions) and read a
// first line of `:files` or `:dirs` as "let the shell complete a path"; everything else is a
// list of words. Candidates are read from the store without failing: a completion must
// never print an error into the user's command line.

import { discover } from './store/discover.js';
import { takeSnapshot } from './store/snapshot.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export const FIXED_REFS = ['assigned', 'last-known-good', 'lkg', 'local', 'meta/assigned', 'meta/last-known-good'];

/** Commands whose positional arguments are refs. */
const REF_COMMANDS = new Set(['show', 'diff', 'verify', 'export', 'migrate']);
type ValueKind = 'ref' | 'file' | 'dir' | 'uid' | 'release';

/**
 * What an option's value is, per command (`*`: every command that has it). One name can mean
 * different things: `--to` is a ref for reset but a release X.Y for upgrade-check, and
 * `--journal` a file for reset but a boolean for report, check and metrics (no value to offer).
 */
const OPTION_VALUES: Readonly<Record<string, Readonly<Record<string, ValueKind>>>> = {
  '--to': { reset: 'ref', 'upgrade-check': 'release' },
  '--journal': { reset: 'file' },
  '--file': { '*': 'file' },
  '--kubelet-config': { '*': 'file' },
  '--kubeconfig': { '*': 'file' },
  '--out': { '*': 'file' },
  '--kubeadm-config': { '*': 'file' },
  '--root': { '*': 'dir' },
  '--dir': { '*': 'dir' },
  '--journal-dir': { '*': 'dir' },
  '--textfile-dir': { '*': 'dir' },
  '--uid': { '*': 'uid' },
};

/** Global options that take a value: their value is not the command name. */
const GLOBAL_VALUE_OPTIONS = new Set(['--dir', '--root', '--kubelet-flags', '--kubelet-config', '--kubelet-version', '--output', '-o']);

/** Releases upgrade-check knows what happens at (reference/migration.md §1). */
export const RELEASES = ['1.22', '1.23', '1.24', '1.25', '1.26'];

/** The command being typed: the first word that is neither an option nor a global option's value. */
function commandOf(words: readonly string[]): string | null {
  for (let i = 1; i < words.length - 1; i++) {
    const w = words[i]!;
    if (w.startsWith('-')) {
      if (GLOBAL_VALUE_OPTIONS.has(w)) i++;
      continue;
    }
    return w;
  }
  return null;
}

function valueKind(option: string, command: string | null): ValueKind | null {
  const kinds = OPTION_VALUES[option];
  if (!kinds) return null;
  return (command !== null ? kinds[command] : undefined) ?? kinds['*'] ?? null;
}

export const FILES_DIRECTIVE = ':files';
export const DIRS_DIRECTIVE = ':dirs';

interface StoreWhere {
  dir?: string | undefined;
  root?: string | undefined;
}

/**
 * Names a shell may be handed as they are: a UID or resourceVersion the API server makes is
 * made of these. A store's other names (a hostile one's `$(cmd)`, blanks, newlines, globs)
 * are not offered: a shell's completion machinery expands what it is given (found by review:
 * bash's `compgen -W` ran a command named by a UID directory), and they can still be typed.
 */
const SHELL_SAFE = /^[A-Za-z0-9._:@+=,-]+$/;

/** UIDs and UID/RVs of the store the typed --dir/--root (or discovery) names; [] on any failure. */
function storeNames(where: StoreWhere): { uids: string[]; checkpoints: string[] } {
  try {
    const dir = where.dir ?? discover({ root: where.root ?? '/' }).dir;
    if (!dir) return { uids: [], checkpoints: [] };
    const snap = takeSnapshot(dir);
    const uids = snap.uids.filter((u) => SHELL_SAFE.test(u.uid));
    return { uids: uids.map((u) => u.uid), checkpoints: uids.flatMap((u) => u.checkpoints.filter((c) => SHELL_SAFE.test(c.rv)).map((c) => `${u.uid}/${c.rv}`)) };
  } catch {
    return { uids: [], checkpoints: [] };
  }
}

export function refCandidates(where: StoreWhere): string[] {
  const { uids, checkpoints } = storeNames(where);
  return [...FIXED_REFS, ...uids, ...checkpoints];
}

export interface CompletionRequest {
  /** The words typed so far, the program name first and the word being completed last. */
  words: readonly string[];
  /** yargs' own candidates (commands, options, choices). */
  defaults: readonly string[];
  where: StoreWhere;
}

/** What to offer for the last word: a list of words, or a directive for the shell. */
export function completeWords(req: CompletionRequest): string[] {
  const words = req.words;
  const current = words[words.length - 1] ?? '';
  const prev = words[words.length - 2] ?? '';
  const starts = (s: string) => s.startsWith(current);
  switch (valueKind(prev, commandOf(words))) {
    case 'file':
      return [FILES_DIRECTIVE];
    case 'dir':
      return [DIRS_DIRECTIVE];
    case 'uid':
      return storeNames(req.where).uids.filter(starts);
    case 'ref':
      return refCandidates(req.where).filter(starts);
    case 'release':
      return RELEASES.filter(starts);
  }
  const refCommand = words.slice(1, -1).some((w) => REF_COMMANDS.has(w));
  if (refCommand && !current.startsWith('-')) {
    return [...req.defaults, ...refCandidates(req.where).filter(starts)];
  }
  return [...req.defaults];
}

/** The script a shell sources; `program` is the name the user types. */
export function completionScript(shell: Shell, program = 'kubelet-ckpt'): string {
  const fn = `_${program.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  // SHELL=bash makes yargs print bare words (no zsh/fish descriptions) for every shell.
  const ask = 'SHELL=/bin/bash';
  switch (shell) {
    case 'bash':
      return `# ${program} completion for bash: source <(${program} completion bash)
${fn}() {
  local cur=\${COMP_WORDS[COMP_CWORD]} out
  local IFS=$'\\n'
  out=$(${ask} "\${COMP_WORDS[0]}" --get-yargs-completions "\${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null)
  COMPREPLY=()
  # Candidates are taken as they are: compgen -W and an unquoted $(...) would expand them.
  case $out in
    ${FILES_DIRECTIVE}) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    ${DIRS_DIRECTIVE}) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    *) local w; while IFS= read -r w; do [[ -n $w && $w == "$cur"* ]] && COMPREPLY+=("$w"); done <<< "$out" ;;
  esac
}
complete -F ${fn} ${program}
`;
    case 'zsh':
      return `#compdef ${program}
# ${program} completion for zsh: source <(${program} completion zsh) after compinit,
# or save it as _${program} in a directory of $fpath.
${fn}() {
  local -a reply
  local IFS=$'\\n'
  reply=($(${ask} \${words[1]} --get-yargs-completions "\${(@)words[1,CURRENT]}" 2>/dev/null))
  case \${reply[1]} in
    ${FILES_DIRECTIVE}) _files ;;
    ${DIRS_DIRECTIVE}) _files -/ ;;
    *) compadd -a reply ;;
  esac
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  ${fn} "$@"
else
  compdef ${fn} ${program}
fi
`;
    case 'fish':
      return `# ${program} completion for fish: ${program} completion fish > ~/.config/fish/completions/${program}.fish
function __${fn}
    set -l words (commandline -opc) (commandline -ct)
    set -l out (env ${ask} $words[1] --get-yargs-completions $words 2>/dev/null)
    switch "$out[1]"
        case ${FILES_DIRECTIVE}
            __fish_complete_path (commandline -ct)
        case ${DIRS_DIRECTIVE}
            __fish_complete_directories (commandline -ct)
        case '*'
            printf '%s\\n' $out
    end
end
complete -c ${program} -f -a '(__${fn})'
`;
  }
}

/** The shell $SHELL names, else bash. */
export function shellFromEnv(envShell: string | undefined): Shell {
  const base = (envShell ?? '').split('/').pop() ?? '';
  return (SHELLS as readonly string[]).includes(base) ? (base as Shell) : 'bash';
}
