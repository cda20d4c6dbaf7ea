// `journal -f`: the newest events the source holds, then each new one as it is written.
// Files are followed as `tail -F` does, journald through `journalctl --follow` (sources.ts);
// events reach the caller one at a time, so memory stays flat however long it runs.

import type { JournalEvent } from './events.js';
import { markersFor, sourceSpec, type ReadJournalOptions } from './index.js';
import { decodingSink, LineParser } from './lines.js';
import { Pipeline } from './pipeline.js';
import { checkUidFilter } from './correlate.js';
import { LineScanner, scanChunks } from './scan.js';
import { openSource } from './sources.js';
import { parseTimeBound } from './timespec.js';
import { UsageError } from '../errors.js';

export interface FollowOptions extends ReadJournalOptions {
  /** Ends the follow (the caller's Ctrl-C). */
  signal: AbortSignal;
  /** How often a followed file is looked at (default 200 ms). */
  pollMs?: number;
}

/** How many past events `-f` shows before the new ones when `-n` is not given (as `tail -f`). */
export const FOLLOW_BACKLOG = 10;

/**
 * Deliver the newest `maxEvents` events (default FOLLOW_BACKLOG) the source holds, then every
 * new one, until `signal` aborts or the source ends (stdin closed). Resolves then.
 */
export async function followJournal(opts: FollowOptions, onEvent: (ev: JournalEvent) => void): Promise<void> {
  if (opts.until) throw new UsageError('--until cannot be combined with -f (a followed journal has no end)');
  checkUidFilter(opts.uid);
  const spec = sourceSpec(opts);
  const now = opts.now ?? new Date();
  const isText = spec.kind === 'file';
  const since = isText && opts.since ? parseTimeBound(opts.since, now, '--since') : null;
  const pipeline = new Pipeline({ year: opts.year ?? null, anchor: now, utc: opts.utc ?? false, since, until: null, uid: opts.uid, maxEvents: opts.maxEvents ?? FOLLOW_BACKLOG, store: opts.store ?? null });
  spec.signal = opts.signal;
  spec.follow = { pollMs: opts.pollMs ?? 200, onCaughtUp: () => pipeline.goLive(onEvent) };
  const src = openSource(spec);
  opts.onOpen?.(null); // it grows for as long as it is followed
  try {
    const parser = new LineParser(src.label, (r) => pipeline.add(r), () => pipeline.reuse());
    const quiet = opts.pollMs ?? 200;
    await scanChunks(idleAfter(src.chunks!, quiet, () => pipeline.idle()), (sample) => new LineScanner(markersFor(sample), decodingSink(parser)), () => {});
  } catch (err) {
    pipeline.idle(); // the event held back goes out before the error is told
    throw err;
  } finally {
    src.close();
  }
  pipeline.goLive(onEvent);
  pipeline.idle();
}

/**
 * The chunks, calling `onIdle` every `ms` that passes without the next one: between chunks, so
 * every line read so far has been handled. A message's continuation lines come in the same
 * write as its first line, or just after; once the source is quiet its newest event is
 * complete. (Every `ms`, not once: the pipeline may go live only later in a quiet spell, when
 * a journalctl that printed its backlog takes its time to exit.)
 */
async function* idleAfter(chunks: AsyncIterable<Buffer>, ms: number, onIdle: () => void): AsyncGenerator<Buffer> {
  const it = chunks[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = it.next();
      let r: IteratorResult<Buffer> | 'late';
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, ms, 'late')));
        r = await Promise.race([next, late]);
        clearTimeout(timer);
        if (r !== 'late') break;
        onIdle();
      }
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await it.return?.();
  }
}
