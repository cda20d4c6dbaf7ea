import type { Argv } from 'yargs';
import { output, processStreams, setExit, warn, type GlobalArgs } from './common.js';
import { journalSourceOptions, type JournalSourceArgs } from './shared.js';

export const command = 'journal';
export const describe = "the kubelet's journal lines about its config, as a timeline joined to the checkpoints on disk";

interface Args extends GlobalArgs, JournalSourceArgs {
  boot?: string;
  uid?: string;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return journalSourceOptions(y, {
    source: "auto runs journalctl (the node's /var/log/journal under --root); default: from --file / --journal-dir",
    file: 'a text or JSON-export journal (.gz read too; - for stdin)',
  })
    .option('boot', { type: 'string', describe: 'only this boot (journalctl --boot; empty: the current one)' })
    .option('uid', { type: 'string', requiresArg: true, describe: 'only events about this UID (or a unique prefix of at least 4 characters)' })
    .example('$0 journal', 'the live journal of this node')
    .example('$0 journal --file /var/log/syslog.1.gz --uid 5808', 'one ConfigMap, from a rotated syslog')
    .example('journalctl -u kubelet -o json -a | $0 journal --file - -o json', 'from stdin, for scripts') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const { readJournalDetailed } = await import('../lib/journal/index.js');
  const render = await import('../lib/journal/render.js');
  const view = await storeView(args, streams);
  const stderrTTY = !!process.stderr.isTTY;
  const progress = stderrTTY && !args.quiet ? progressDisplay(streams.stderr, args.file ?? args['journal-dir'] ?? 'journal', render) : undefined;
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
      stdin: process.stdin,
    },
    progress?.update,
  );
  progress?.done();
  for (const w of stats.warnings) warn(streams, w);
  if (stats.omitted) streams.stderr.write(`warning: kept the newest ${result.events.length} events; ${stats.omitted} older ones were dropped (narrow with --since/--uid)\n`);
  if (args.verbose) streams.stderr.write(`journal: read ${stats.bytes} bytes from ${stats.source}; ${result.events.length} events, ${result.skipped} lines skipped\n`);
  output(result, (r) => render.renderJournalText(r, { color: streams.color, width: streams.isTTY ? streams.width : 0 }), args, streams, 'JournalReport');
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

/** The library's progress line, redrawn on stderr (a TTY only) for inputs over 100 MiB. */
function progressDisplay(err: { write(s: string): unknown }, label: string, render: typeof import('../lib/journal/render.js')) {
  let shown = false;
  let last = 0;
  return {
    update: (p: { bytes: number; total: number | null; events: number }) => {
      const now = Date.now();
      if ((p.total ?? p.bytes) < render.PROGRESS_MIN_BYTES || now - last < 200) return;
      last = now;
      shown = true;
      err.write(`\r\u001b[2K${render.progressLine(p, label)}`);
    },
    done: () => {
      if (shown) err.write('\r\u001b[2K');
    },
  };
}
