import type { Argv } from 'yargs';
import { UsageError } from '../lib/errors.js';
import { openSession } from '../lib/session.js';
import type { KubeletVersion } from '../lib/config/version.js';
import { processStreams, session, setExit, type GlobalArgs } from './common.js';
import { JOURNAL_SOURCE_CONFLICTS, journalSourceTable, type JournalSourceArgs } from './shared.js';

export const command = 'tui';
export const describe = 'browse, compare, verify and recover in a terminal UI (keys: ? inside)';

interface Args extends GlobalArgs, JournalSourceArgs {
  'read-only': boolean;
  journal: boolean;
}

/** tui's own options (read by yargs, and by the fast path in cmd/support/fastargs.ts). */
export const OPTIONS = {
  ...journalSourceTable({
    source: "the Timeline's journal: auto runs journalctl (the node's /var/log/journal under --root); default: from --file / --journal-dir",
    file: 'a saved text or JSON-export journal for the Timeline tab (.gz read too)',
  }),
  'read-only': { type: 'boolean', default: false, describe: 'browse only: reset, rollback, undo and prune are not bound to any key' },
  journal: { type: 'boolean', default: true, describe: 'read the kubelet journal for the Timeline tab when it is first shown (--no-journal: never)' },
} as const;

/** Pairs of options that cannot be given together. */
export const CONFLICTS = JOURNAL_SOURCE_CONFLICTS;

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  let out = y.options(OPTIONS);
  for (const [a, b] of CONFLICTS) out = out.conflicts(a, b);
  return out
    .example('$0 tui', 'the store found on this node')
    .example('$0 --root /mnt/node tui --read-only', "a dead node's disk, browse only")
    .example('$0 tui --file /var/log/syslog.1.gz', 'with the Timeline tab read from a rotated syslog') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  if (args.output !== 'text') throw new UsageError(`tui is interactive: -o ${args.output} does not apply`, 'for scripts use the commands: status, ls, verify, diff, journal with -o json', 'NO_TTY');
  if (args.file === '-') throw new UsageError('tui reads keys from stdin: --file - is not possible', 'give the journal as a file');
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError('tui needs a terminal: stdin and stdout must be a TTY', 'without one, use the commands: kubelet-ckpt status, ls, verify, diff, journal, rollback --dry-run', 'NO_TTY');
  }
  const streams = processStreams(args);
  const first = session(args, streams);
  const { runTui } = await import('../lib/tui/app.js');
  const code = await runTui({
    session: first,
    reopen: () => openSession({ dir: args.dir, root: args.root, kubeletConfig: args['kubelet-config'], kubeletVersion: first.version as KubeletVersion }),
    readOnly: args['read-only'],
    color: streams.color,
    root: args.root ?? '/',
    journal: args.journal ? { source: args.source, file: args.file, dir: args['journal-dir'], root: args.root, since: args.since, until: args.until, year: args.year, utc: args.utc } : null,
    term: process.env.TERM,
    env: process.env,
    timings: process.env.KUBELET_CKPT_TUI_TIMINGS ?? null,
  });
  setExit(code);
}
