// Shared plumbing for command modules: the global options, streams from the process,
// opening a session, printing. No logic about the store lives here.

import type { Argv } from 'yargs';
import { openJudgeContext, openSession, type EarlyStart, type GlobalOptions, type JudgeContext, type Session } from '../lib/session.js';
import { resolveKubeletVersion } from '../lib/kubelet-version.js';
import { print, type Format, type TextRenderer } from '../lib/output/print.js';
import type { Kind } from '../lib/output/document.js';
import { colorEnabled, type Streams } from '../lib/output/streams.js';
import { UsageError } from '../lib/errors.js';
import { printableMessage } from '../lib/output/sanitize.js';
import { selfCommand } from '../lib/output/self.js';
import { lazyStderr, stdoutSink } from './support/stdio.js';

export interface GlobalArgs {
  dir?: string;
  root?: string;
  'kubelet-config'?: string;
  'kubelet-flags'?: string;
  output: Format;
  color: boolean;
  'kubelet-version'?: string;
  quiet: boolean;
  verbose: boolean;
}

export const GLOBAL_OPTIONS = {
  dir: { type: 'string', describe: "the kubelet's --dynamic-config-dir (the store is DIR/store; the store itself is accepted too)", requiresArg: true },
  root: { type: 'string', describe: "treat PATH as the node's / (a mounted node disk): discovery and default paths resolve under it", requiresArg: true },
  'kubelet-flags': { type: 'string', describe: "the kubelet's command-line flags as one string, when they cannot be discovered (--dir on another machine): their overrides and --config apply", requiresArg: true },
  'kubelet-config': { type: 'string', describe: "the node's local --config file (for `local` refs and flag analysis); discovered when absent", requiresArg: true },
  output: { alias: 'o', choices: ['text', 'json', 'yaml'] as const, default: 'text' as const, requiresArg: true, describe: 'output format: text for people, json/yaml for scripts' },
  color: { type: 'boolean', default: true, describe: 'colour on a terminal (--no-color, NO_COLOR or a non-TTY stdout turn it off)' },
  'kubelet-version': { type: 'string', describe: 'kubelet release whose rules apply: X.Y or auto (asks `kubelet --version`); default 1.23', requiresArg: true },
  quiet: { alias: 'q', type: 'boolean', default: false, describe: 'print less' },
  verbose: { alias: 'v', type: 'boolean', default: false, describe: 'print more: discovery steps, stack traces of internal errors' },
} as const;

export function withGlobals<T>(y: Argv<T>): Argv<T & GlobalArgs> {
  return y.options(GLOBAL_OPTIONS).group(Object.keys(GLOBAL_OPTIONS), 'Global options:') as unknown as Argv<T & GlobalArgs>;
}

/** The process's streams; process.stdout/stderr only for a terminal (cmd/stdio.ts says why). */
export function processStreams(args: Pick<GlobalArgs, 'color'>): Streams {
  const out = stdoutSink();
  return {
    stdout: out.sink,
    stderr: lazyStderr(),
    isTTY: out.isTTY,
    color: colorEnabled({ isTTY: out.isTTY, noColorFlag: args.color === false, env: process.env }),
    width: out.columns || 80,
  };
}

/** A `warning:` (or other prefixed) line on stderr; its text may come from disk, so it is made printable. */
export function warn(streams: Pick<Streams, 'stderr'>, text: string, prefix = 'warning'): void {
  streams.stderr.write(`${prefix}: ${printableMessage(text)}\n`);
}

/** Open the store the global options name; discovery steps go to stderr with -v. `early`: see openSession. */
export function session(args: GlobalArgs, streams: Streams, early?: EarlyStart): Session {
  return opened(args, streams, (o) => openSession(o, early));
}

/** The node's flags and local config for judging files, without reading (or needing) a store. */
export function judgeContext(args: GlobalArgs, streams: Streams): JudgeContext {
  return opened(args, streams, openJudgeContext);
}

function opened<T extends JudgeContext>(args: GlobalArgs, streams: Streams, open: (o: GlobalOptions) => T): T {
  const v = resolveKubeletVersion(args['kubelet-version']);
  if (v.note && !args.quiet) warn(streams, v.note);
  const s = open({ dir: args.dir, root: args.root, kubeletConfig: args['kubelet-config'], kubeletFlags: args['kubelet-flags'], kubeletVersion: v.version });
  if (args.verbose) {
    for (const step of s.discovery.steps) warn(streams, step, 'discover');
  }
  return s;
}

/** Print a result: text through its renderer, or a JSON/YAML document of the given kind (`compact`: JSON on one line). */
export function output<T>(result: T, text: TextRenderer<T>, args: GlobalArgs, streams: Streams, kind: Kind | string, compact = false): void {
  print(result, text, streams, { format: args.output, verbose: args.verbose, quiet: args.quiet, kind, compact, self: commandPrefix(args) });
}

/** `kubelet-ckpt` with the options that chose the store, for the next steps a command prints. */
export function commandPrefix(args: GlobalArgs): string {
  return selfCommand({ root: args.root, dir: args.dir, kubeletConfig: args['kubelet-config'], kubeletFlags: args['kubelet-flags'], kubeletVersion: args['kubelet-version'] });
}

/** Handlers return their exit code; main sets it. */
export type ExitSetter = (code: number) => void;
export let setExit: ExitSetter = (code) => {
  if (code > Number(process.exitCode ?? 0)) process.exitCode = code;
};
export function overrideExitSetter(f: ExitSetter): void {
  setExit = f;
}

/**
 * A whole-number option read as typed (yargs would turn `abc` into NaN and lose it): as a
 * yargs `coerce`, so a bad value is a usage error naming what was given (yargs passes the
 * message on as its own; cmd/usage.ts adds the command's --help as the hint).
 */
export function wholeNumber(flag: string, max = Number.MAX_SAFE_INTEGER): (v: unknown) => number | undefined {
  return (v) => {
    if (v === undefined) return undefined;
    const raw = Array.isArray(v) ? v[v.length - 1] : v;
    const s = String(raw).trim();
    if (!/^[0-9]+$/.test(s)) throw new UsageError(`${flag} ${JSON.stringify(String(raw))}: ${/^-?[0-9.e+]+$/i.test(s) && s !== '' ? 'not a whole number ≥ 0' : 'not a number'}`, null, 'INVALID_VALUE');
    const n = Number(s);
    if (n > max) throw new UsageError(`${flag} ${s}: at most ${max}`, null, 'INVALID_VALUE');
    return n;
  };
}
