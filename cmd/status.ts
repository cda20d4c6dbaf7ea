import type { Argv } from 'yargs';
import { buildStatus, statusDegraded, type StatusReport } from '../lib/integrity/status.js';
import type { Session } from '../lib/session.js';
import { renderStatus } from '../lib/output/status.js';
import { commandPrefix, output, processStreams, session, setExit, warn, type GlobalArgs } from './common.js';
import { nextSteps } from '../lib/integrity/next-steps.js';
import type { Streams } from '../lib/output/streams.js';
import { verifySession } from '../lib/integrity/run.js';
import type { Finding } from '../lib/integrity/findings.js';

export const command = 'status';
export const describe = 'what is assigned and last-known-good, the trial clock, and what the kubelet will run at its next start';

interface Args extends GlobalArgs {
  journal: boolean;
  watch: boolean;
}

/** status's own options (read by yargs, and by the fast path in cmd/support/fastargs.ts). */
export const OPTIONS = {
  journal: { type: 'boolean', default: true, describe: 'add the last journal evidence (--no-journal skips reading the journal)' },
  watch: { alias: 'w', type: 'boolean', default: false, describe: 'keep running: redraw when the store changes and count down the trial (a new report per change when not on a terminal); Ctrl-C stops' },
} as const;

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .options(OPTIONS)
    .example('$0 status', 'summary of the store found on this node')
    .example('$0 --dir /var/lib/kubelet/dynamic-config status -o json', 'the same for scripts')
    .example('$0 --root /mnt/node status', "a dead node's disk mounted at /mnt/node")
    .example('$0 status --watch', 'follow the store while the kubelet restarts') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  if (args.watch) return watch(args, streams);
  const report = await statusReport(args, session(args, streams));
  output(report, renderStatus, args, streams, 'StatusReport');
  setExit(statusDegraded(report) ? 1 : 0);
}

async function statusReport(args: Args, s: Session): Promise<StatusReport> {
  const report = buildStatus(s, problemsOf(s));
  // Always present in JSON: null says it was not read (--no-journal), not that it holds nothing.
  report.journal = args.journal ? await journalEvidence(args, s) : { read: false, lastEvent: null, summary: null, restarts: null, crashLoop: null };
  report.nextSteps = nextSteps(commandPrefix(args), { nextBoot: report.nextBoot, findings: report.problems, crashLoop: report.journal?.crashLoop ?? undefined, lastKnownGood: report.lastKnownGood, from: 'status' });
  return report;
}

/**
 * --watch: read the store again whenever it changes; on a terminal redraw the screen every
 * second under a header that counts down the trial, else print a report (one JSON line
 * under -o json) per change. Runs until interrupted.
 */
async function watch(args: Args, streams: Streams): Promise<void> {
  const tty = streams.isTTY && args.output === 'text';
  let report = await statusReport(args, session(args, streams));
  let reading = false;
  const draw = () => {
    if (!tty) {
      output(report, renderStatus, args, streams, 'StatusReport', true);
      if (args.output === 'text') streams.stdout.write('\n');
      return;
    }
    streams.stdout.write('\x1b[H\x1b[2J');
    streams.stdout.write(`${watchHeader(report, new Date())}\n\n`);
    output(report, renderStatus, args, streams, 'StatusReport');
  };
  draw();
  const { watchStore } = await import('../lib/store/watch.js');
  const w = watchStore(report.store, () => {
    if (reading) return;
    reading = true;
    // Opening the store throws at once when it is gone (removed, swapped): said, and watched on.
    void Promise.resolve()
      .then(() => statusReport(args, session({ ...args, verbose: false }, streams)))
      .then((r) => {
        report = r;
        draw();
      }, (err: unknown) => warn(streams, (err as Error).message, 'error'))
      .finally(() => (reading = false));
  });
  const tick = tty ? setInterval(draw, 1000) : null;
  await new Promise<void>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve));
  w.close();
  if (tick) clearInterval(tick);
  setExit(0);
}

/** `Watching the store — trial ends in 4m12s — 08:00:00Z — Ctrl-C to stop` (the store path is in the report). */
function watchHeader(r: StatusReport, now: Date): string {
  const left = r.trial?.inTrial ? Date.parse(r.trial.endsAt) - now.getTime() : 0;
  const clock = left > 0 ? `trial ends in ${Math.floor(left / 60000)}m${String(Math.floor((left % 60000) / 1000)).padStart(2, '0')}s` : r.trial ? 'trial over' : 'no trial';
  return `Watching the store — ${clock} — ${now.toISOString().slice(11, 19)}Z — Ctrl-C to stop`;
}

/** One bounded read of the journal's tail (the journal code loads only here). */
async function journalEvidence(args: Args, s: Session): Promise<StatusReport['journal']> {
  const { lastEvidence } = await import('../lib/journal/evidence.js');
  const { storeViewOf } = await import('../lib/journal/store-view.js');
  const e = await lastEvidence({ root: args.root, store: storeViewOf(s.snap) });
  return { read: true, lastEvent: e.lastEvent, summary: e.summary ?? e.reason, restarts: e.restarts, crashLoop: e.crashLoop };
}

/**
 * The problems status counts: everything verify checks, except that only the payloads the
 * meta files name (the ones that decide the next boot) are decoded and validated.
 */
function problemsOf(s: Session): Finding[] {
  return verifySession(s, [], 'referenced').findings.filter((f) => f.severity !== 'info');
}
