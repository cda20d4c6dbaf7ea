import type { Argv } from 'yargs';
import { UsageError } from '../lib/errors.js';
import { output, processStreams, session, setExit, warn, wholeNumber, type GlobalArgs } from './common.js';

export const command = 'diff <from> [to]';
export const describe = 'compare two configs field by field (and as text), or walk one UID through its resourceVersions';

interface Args extends GlobalArgs {
  from: string;
  to?: string;
  key?: string[];
  unified: boolean;
  context?: number;
  defaults: boolean;
  label?: string[];
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('from', { type: 'string', describe: 'assigned, last-known-good (lkg), local, UID/RV, a UID prefix, or a path starting with / ./ ../; a bare UID alone shows its history' })
    .positional('to', { type: 'string', describe: 'the ref to compare with (default: assigned)' })
    .option('key', { type: 'string', array: true, nargs: 1, describe: 'the payload file of checkpoints holding several (default: the meta file\'s kubeletConfigKey, else "kubelet", else the only file); give it twice for different keys on each side' })
    .option('unified', { alias: 'u', type: 'boolean', default: false, describe: 'print the unified text diff of the raw files instead of the field changes' })
    .option('context', { alias: 'U', type: 'string', coerce: wholeNumber('-U', 100_000), requiresArg: true, describe: 'lines of context in the unified diff (default 3); implies -u in text output' })
    .option('defaults', { type: 'boolean', default: false, describe: 'apply the v1beta1 defaults to both sides first, so an omitted field equals one set to its default' })
    .option('label', { alias: 'L', type: 'string', array: true, nargs: 1, describe: 'label for a side instead of the ref and its UID/RV (give twice: from, then to)' })
    .example('$0 diff lkg', 'what changed from last-known-good to assigned')
    .example('$0 diff 5808539f/41230 5808539f/42315 --defaults', 'two versions, defaults applied to both')
    .example('$0 diff 5808539f', "the history of one ConfigMap, each resourceVersion against the one before")
    .example('$0 diff local assigned -u', "the unified text diff between the node's --config file and assigned")
    .example('$0 diff ./new.yaml -o json', 'a candidate file against assigned, for scripts (exit 1 when they differ)') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const context = args.context;
  if (context !== undefined && (!Number.isInteger(context) || context < 0 || context > 100_000)) {
    throw new UsageError(`-U ${String(context)}: the context must be a whole number of lines, 0 or more`);
  }
  if ((args.label?.length ?? 0) > 2) throw new UsageError('--label may be given at most twice (from, then to)');
  if ((args.key?.length ?? 0) > 2) throw new UsageError('--key may be given at most twice (from, then to)');
  const streams = processStreams(args);
  const s = session(args, streams);
  // Loaded here, not at the top: the diff package and lib/diff cost startup time that other commands should not pay.
  const { runDiff, diffJson, diffNotes, diffExitCode, historyFailure } = await import('../lib/diff/report.js');
  const { renderDiff } = await import('../lib/output/diff.js');
  const unified = args.unified || context !== undefined;
  const report = runDiff(
    { snap: s.snap, reader: s.reader, localConfig: s.local.path },
    args.to === undefined ? [args.from] : [args.from, args.to],
    { keys: args.key ?? [], context: context ?? 3, defaults: args.defaults, labels: args.label ?? [], version: s.version, stepText: unified && args.output === 'text' },
  );
  // A history with an unreadable version is an exit-3 error: under -o json/yaml only its Error
  // document (stdout empty, DESIGN); in text, after the steps that could be compared.
  const failure = historyFailure(report);
  if (failure && args.output !== 'text') throw failure;
  // Notes are part of the text report; with JSON or a pure patch they go to stderr.
  if ((args.output !== 'text' || unified) && !args.quiet) for (const n of diffNotes(report)) warn(streams, n);
  if (args.output === 'text') output(report, renderDiff({ unified, sanitize: streams.isTTY }), args, streams, report.mode === 'history' ? 'DiffHistory' : 'DiffReport');
  else output(diffJson(report), () => '', args, streams, report.mode === 'history' ? 'DiffHistory' : 'DiffReport');
  if (failure) throw failure;
  setExit(diffExitCode(report));
}
