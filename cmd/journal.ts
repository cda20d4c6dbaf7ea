import type { Argv } from 'yargs';
import { output, processStreams, setExit, warn, type GlobalArgs } from './common.js';
import { JOURNAL_SOURCE_CONFLICTS, journalSourceTable, type JournalSourceArgs } from './shared.js';
import { UsageError } from '../lib/errors.js';
import { v8 } from '../lib/builtins.js';
import { isTerminal } from './support/stdio.js';
import { sanitizesItself } from '../lib/output/print.js';

export const command = 'journal';
export const describe = "the kubelet's journal lines about its config, as a timeline joined to the checkpoints on disk";

interface Args extends GlobalArgs, JournalSourceArgs {
  boot?: string;
  uid?: string;
  lines?: number;
  follow: boolean;
}

/** journal's own options (read by yargs, and by the fast path in cmd/support/fastargs.ts). */
export const OPTIONS = {
  ...journalSourceTable({
    source: "auto runs journalctl (the node's /var/log/journal under --root); default: from --file / --journal-dir",
    file: 'a text or JSON-export journal (.gz read too; - for stdin)',
  }),
  boot: { type: 'string', describe: 'only this boot (journalctl --boot; empty: the current one)' },
  uid: { type: 'string', requiresArg: true, describe: 'only events about this UID (or a unique prefix of at least 4 characters)' },
  lines: { alias: 'n', type: 'number', requiresArg: true, describe: 'list only the newest N events (all are still summarised); default 20000, with -f 10' },
  follow: { alias: 'f', type: 'boolean', default: false, describe: 'keep reading: print new events as they are written (journalctl --follow; tail -F for a file)' },
} as const;

/** Pairs of options that cannot be given together. */
export const CONFLICTS: readonly (readonly [string, string])[] = [...JOURNAL_SOURCE_CONFLICTS, ['follow', 'until']];

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  let out = y.options(OPTIONS);
  for (const [a, b] of CONFLICTS) out = out.conflicts(a, b);
  return out
    .example('$0 journal', 'the live journal of this node; exit 1 when it shows a crash loop')
    .example('$0 journal -f -n 5', 'the last 5 events, then each new one as the kubelet logs it')
    .example('$0 journal --file /var/log/syslog.1.gz --uid 5808', 'one ConfigMap, from a rotated syslog')
    .example('journalctl -u kubelet -o json -a | $0 journal --file - -o json', 'from stdin, for scripts') as Argv<Args>;
}

/**
 * The heap policy for a long read. A long journal allocates fast and keeps little, but what it
 * keeps a while (the listed window) dies old: a young generation that does not grow (V8 lets
 * it reach 3 × 16 MiB) and an old one collected before it grows far keep peak RSS flat.
 * Measured on 256 MiB of dense journal: 167 → 90 MiB peak, for ~30% more CPU time; since the
 * window reuses the records it drops (lib/journal/pipeline.ts), 300 MiB at 50% events:
 * 170 → 97 MiB for no measurable CPU time (1.36 s either way). Set once the source is open
 * (onOpen): a V8 flag set earlier made every Node built-in loaded after it compile from source
 * (and a helper thread for a large file, which is why a large file calls onOpen once it is up).
 * Not for a plain file of 1 MiB or less (a pipe, journalctl or a .gz has no known size: they get it):
 * without it, 8 MiB of dense journal printed as YAML peaks at 145 MiB, with it at 116 MiB.
 */
function heapPolicy(size: number | null): void {
  // A file this small keeps little whatever the heap does; node:v8 alone is ~8 M instructions to load.
  if (size !== null && size <= HEAP_POLICY_MIN_BYTES) return;
  v8().setFlagsFromString('--semi-space-growth-factor=1');
  v8().setFlagsFromString('--heap-growing-percent=10');
}
const HEAP_POLICY_MIN_BYTES = 1024 * 1024;

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const maxEvents = eventCount(args.lines);
  if (args.follow) return follow(args, maxEvents, streams);
  const { readJournalDetailed } = await import('../lib/journal/index.js');
  const render = await import('../lib/journal/render.js');
  const view = await storeView(args, streams);
  // Not process.stderr.isTTY: touching process.stderr builds a stream (node:stream and ~20 modules behind it).
  const stderrTTY = isTerminal(2);
  const { progressDisplay } = await import('../lib/output/journal.js');
  const progress = stderrTTY && !args.quiet ? progressDisplay(streams.stderr, args.file ?? args['journal-dir'] ?? 'journal') : undefined;
  const { result, stats } = await readJournalDetailed(
    {
      source: args.source,
      file: args.file,
      dir: args['journal-dir'],
      root: args.root,
      since: args.since,
      until: args.until,
      boot: args.boot === '' ? true : args.boot,
      uid: args.uid,
      year: args.year,
      utc: args.utc,
      store: view,
      maxEvents,
      onOpen: heapPolicy,
    },
    progress?.update,
  );
  progress?.done();
  for (const w of stats.warnings) warn(streams, w);
  if (stats.omitted && args.lines === undefined && !args.quiet) streams.stderr.write(`warning: listed the newest ${result.events.length} events; ${stats.omitted} older ones are summarised, not listed (narrow with --since/--uid, or choose with -n)\n`);
  if (args.verbose) streams.stderr.write(`journal: read ${stats.bytes} bytes from ${stats.source}; ${result.events.length + result.truncated} events, ${result.skipped} lines skipped\n`);
  // The renderer sanitizes every string from the log itself: no copy of 20,000 events first.
  output(result, sanitizesItself((r) => render.renderJournalText(r, { color: streams.color, width: streams.isTTY ? streams.width : 0 })), args, streams, 'JournalReport');
  // A crash loop is a finding, as verify's errors are.
  setExit(result.crashLoop ? 1 : 0);
}

/** `-n N`: a whole number of events, at least 1. */
function eventCount(n: number | undefined): number | undefined {
  if (n === undefined) return undefined;
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`-n ${n}: not a number of events (a whole number, 1 or more)`, 'see kubelet-ckpt journal --help');
  return n;
}

/** `-f`: events as they come, one line (or JSON line, or YAML document) each, until Ctrl-C or SIGTERM. */
async function follow(args: Args, maxEvents: number | undefined, streams: ReturnType<typeof processStreams>): Promise<void> {
  const { followJournal } = await import('../lib/journal/follow.js');
  const { renderEventLine } = await import('../lib/journal/render.js');
  const { followedEvent } = await import('../lib/output/journal.js');
  const view = await storeView(args, streams);
  const stop = new AbortController();
  const end = () => stop.abort();
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
  const width = streams.isTTY ? streams.width : 0;
  try {
    await followJournal(
      { source: args.source, file: args.file, dir: args['journal-dir'], root: args.root, since: args.since, boot: args.boot === '' ? true : args.boot, uid: args.uid, year: args.year, utc: args.utc, store: view, maxEvents, signal: stop.signal, onOpen: heapPolicy },
      (ev) => streams.stdout.write(args.output === 'text' ? `${renderEventLine(ev, { color: streams.color, width })}\n` : followedEvent(ev, args.output)),
    );
  } finally {
    process.off('SIGINT', end);
    process.off('SIGTERM', end);
  }
  setExit(0);
}

/** The store is optional here: a journal from another node still reads without one. */
async function storeView(args: Args, streams: ReturnType<typeof processStreams>) {
  try {
    const { session } = await import('./common.js');
    const { storeViewOf } = await import('../lib/journal/store-view.js');
    return storeViewOf(session(args, streams).snap);
  } catch (err) {
    if (args.dir) throw err;
    if (args.verbose) streams.stderr.write(`journal: no store to correlate with (${(err as Error).message.split('\n')[0]})\n`);
    return null;
  }
}
