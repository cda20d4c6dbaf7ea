import type { Argv } from 'yargs';
import { buildStatus, statusDegraded, type StatusReport } from '../lib/integrity/status.js';
import type { Session } from '../lib/session.js';
import { renderStatus } from '../lib/output/status.js';
import { commandPrefix, output, processStreams, session, setExit, type GlobalArgs } from './common.js';
import { nextSteps } from '../lib/integrity/next-steps.js';
import { verifySession } from '../lib/integrity/run.js';
import type { Finding } from '../lib/integrity/findings.js';

export const command = 'status';
export const describe = 'what is assigned and last-known-good, the trial clock, and what the kubelet will run at its next start';

interface Args extends GlobalArgs {
  journal: boolean;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .option('journal', { type: 'boolean', default: true, describe: 'add the last journal evidence (--no-journal skips reading the journal)' })
    .example('$0 status', 'summary of the store found on this node')
    .example('$0 --dir /var/lib/kubelet/dynamic-config status -o json', 'the same for scripts')
    .example('$0 --root /mnt/node status', "a dead node's disk mounted at /mnt/node") as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const s = session(args, streams);
  const report = buildStatus(s, problemsOf(s));
  if (args.journal) report.journal = await journalEvidence(args, s);
  report.nextSteps = nextSteps(commandPrefix(args), { nextBoot: report.nextBoot, findings: report.problems, crashLoop: report.journal?.crashLoop, from: 'status' });
  output(report, renderStatus, args, streams, 'StatusReport');
  setExit(statusDegraded(report) ? 1 : 0);
}

/** One bounded read of the journal's tail (the journal code loads only here). */
async function journalEvidence(args: Args, s: Session): Promise<StatusReport['journal']> {
  const { lastEvidence } = await import('../lib/journal/evidence.js');
  const { storeViewOf } = await import('../lib/journal/store-view.js');
  const e = await lastEvidence({ root: args.root, store: storeViewOf(s.snap) });
  return { lastEvent: e.lastEvent, summary: e.summary ?? e.reason, restarts: e.restarts, crashLoop: e.crashLoop };
}

/**
 * The problems status counts: everything verify checks, except that only the payloads the
 * meta files name (the ones that decide the next boot) are decoded and validated.
 */
function problemsOf(s: Session): Finding[] {
  return verifySession(s, [], 'referenced').findings.filter((f) => f.severity !== 'info');
}
