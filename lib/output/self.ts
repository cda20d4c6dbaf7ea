// The commands the tool suggests in messages and hints are written `kubelet-ckpt …` where they
// are made (lib cannot know how it was run); the printer puts in the options that chose the
// store (--root, --dir, --kubelet-config, …), so that a suggestion pasted as printed reaches the
// same store (found by review: `kubelet-ckpt ls` in the hint of a run with --dir failed pasted).
// "Next steps" already carry them, and are not touched: only a `kubelet-ckpt ` right after a
// backtick or an opening parenthesis is a suggestion written in lib.

import { shellWord } from '../integrity/next-steps.js';

/** The options that chose the store, as given. */
export interface SelfOptions {
  root?: string | undefined;
  dir?: string | undefined;
  kubeletConfig?: string | undefined;
  kubeletFlags?: string | undefined;
  kubeletVersion?: string | undefined;
}

/** `kubelet-ckpt` with those options, quoted for a shell. */
export function selfCommand(o: SelfOptions): string {
  // A value that starts with "-" (every --kubelet-flags) goes as --opt=value: pasted back, it would read as an option.
  const words = ['kubelet-ckpt'];
  const opt = (name: string, v: string | undefined) => {
    if (v === undefined || (v === '' && name !== 'kubelet-flags')) return;
    if (v.startsWith('-')) words.push(`--${name}=${v}`);
    else words.push(`--${name}`, v);
  };
  opt('root', o.root);
  opt('dir', o.dir);
  opt('kubelet-config', o.kubeletConfig);
  opt('kubelet-flags', o.kubeletFlags);
  opt('kubelet-version', o.kubeletVersion);
  return words.map(shellWord).join(' ');
}

const SUGGESTED = /(`|\()kubelet-ckpt (?=[a-z])/g;

/** `text` with each suggested `kubelet-ckpt ` command given `self`'s options. */
export function withSelf(text: string, self: string | undefined): string {
  return !self || self === 'kubelet-ckpt' ? text : text.replace(SUGGESTED, (_m, open: string) => `${open}${self} `);
}

const NAMES: Record<string, keyof SelfOptions> = { root: 'root', dir: 'dir', 'kubelet-config': 'kubeletConfig', kubeletConfig: 'kubeletConfig', 'kubelet-flags': 'kubeletFlags', kubeletFlags: 'kubeletFlags', 'kubelet-version': 'kubeletVersion', kubeletVersion: 'kubeletVersion' };

/** The words of a raw command line that may be options: those before `--` (after it every word is an argument, a ref `-ojson`). */
export function optionWords(argv: readonly string[]): readonly string[] {
  const i = argv.indexOf('--');
  return i < 0 ? argv : argv.slice(0, i);
}

/** The store-choosing options of a raw command line (`--dir X`, `--dir=X`; the last wins, as yargs takes it), for a failure printed before any parse. */
export function selfOptionsOf(given: readonly string[]): SelfOptions {
  const o: SelfOptions = {};
  const argv = optionWords(given);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const m = /^--([a-zA-Z-]+)(?:=(.*))?$/s.exec(a);
    const key = m ? NAMES[m[1]!] : undefined;
    if (!m || !key) continue;
    const v = m[2] ?? argv[++i];
    if (v !== undefined) o[key] = v;
  }
  return o;
}
