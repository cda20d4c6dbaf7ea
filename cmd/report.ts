import type { Argv } from 'yargs';
import { buildNodeReport } from '../lib/fleet/report.js';
import { UNKNOWN_NAME_WHY } from '../lib/fleet/nodename.js';
import { gatherReports, readStdin } from '../lib/fleet/sources.js';
import { fleetInTrouble, mergeReports, requireNodes } from '../lib/fleet/merge.js';
import { renderFleet } from '../lib/output/fleet.js';
import { print } from '../lib/output/print.js';
import { resolveKubeletVersion } from '../lib/kubelet-version.js';
import type { Session } from '../lib/session.js';
import type { Streams } from '../lib/output/streams.js';
import { printable } from '../lib/output/sanitize.js';
import { output, processStreams, session, setExit, warn, type GlobalArgs } from './common.js';
import { workerJudgePool } from './shared.js';

export const command = 'report';
export const describe = 'one JSON document about this node (NodeReport), for merging across a fleet; `report merge` merges many';

interface Args extends GlobalArgs {
  'node-name'?: string;
  host?: string;
  journal: boolean;
  scope: 'all' | 'referenced';
}

/**
 * yargs' parser drops a bare `-` from a variadic positional; `report merge -` means stdin.
 * main() swaps it for this token (a NUL cannot come from a real command line) before parsing.
 */
const STDIN_TOKEN = '\0stdin';
export function protectStdinSource(argv: readonly string[]): string[] {
  const at = argv.indexOf('merge');
  if (at < 0 || !argv.slice(0, at).includes('report')) return [...argv];
  return argv.map((a, i) => (i > at && a === '-' ? STDIN_TOKEN : a));
}

interface MergeArgs extends GlobalArgs {
  sources: string[];
}

const merge = {
  command: 'merge <sources..>',
  describe: 'merge NodeReports (files, directories, - for stdin, .tar.gz from sonobuoy retrieve): nodes by config, nodes in trouble, divergence',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('sources', { type: 'string', array: true, describe: 'report files (one or more JSON documents each, NDJSON too), directories (walked), .tar.gz archives, - for stdin' })
      .example('$0 report merge reports/', 'every report under reports/')
      .example('kubectl logs -l app=kubelet-ckpt-report --tail=-1 | $0 report merge -', 'reports printed by the Job/DaemonSet pods')
      .example('$0 report merge 202611250100_sonobuoy_*.tar.gz -o json', 'a Sonobuoy results archive, for scripts'),
  handler: (args: MergeArgs) => {
    const streams = processStreams(args);
    const sources = args.sources.map((x) => (x === STDIN_TOKEN ? '-' : x));
    const g = gatherReports(sources, readStdin);
    const fleet = mergeReports(g.docs, g.log);
    // Warnings quote node names, hosts, file and member names: one printable line each.
    if (args.output === 'text') for (const w of fleet.warnings) warn(streams, printable(w));
    requireNodes(fleet, sources);
    output(fleet, renderFleet, args, streams, 'FleetReport');
    setExit(fleetInTrouble(fleet) ? 1 : 0);
  },
};

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .command(merge as never)
    .option('node-name', { type: 'string', requiresArg: true, describe: "the node's name (default: the kubelet's --hostname-override, else the host name; under --root the disk's /etc/hostname)" })
    .option('host', { type: 'string', requiresArg: true, describe: "the machine that writes the report, as report merge tells runs apart (default: this machine's host name; in a pod, whose host name is the pod's, give the node's name)" })
    .option('journal', { type: 'boolean', default: true, describe: 'read the journal tail for crash loops and the running config (--no-journal skips it)' })
    .option('scope', { choices: ['all', 'referenced'] as const, default: 'all' as const, describe: 'findings over every checkpoint (all), or only the payloads the meta files name (referenced, faster)' })
    .example('$0 report > /tmp/report-$(hostname).json', "this node's report")
    .example('$0 --root /host report --node-name "$NODE_NAME"', 'in a pod with the host mounted at /host') as Argv<Args>;
}

/** The NodeReport the global options and report options name (report, metrics). */
export async function nodeReport(args: GlobalArgs & { 'node-name'?: string; host?: string; journal: boolean; scope: 'all' | 'referenced' }, streams: Streams) {
  const root = args.root ?? '/';
  return buildNodeReport({
    open: () => session(args, streams),
    root,
    dir: args.dir,
    nodeName: args['node-name'],
    host: args.host,
    rules: resolveKubeletVersion(args['kubelet-version']).version,
    scope: args.scope,
    pool: (s: Session) => workerJudgePool(s.judgeOptions),
    journal: args.journal ? (s) => journalEvidence(root, s) : null,
    askKubelet: true,
  });
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const report = await nodeReport(args, streams);
  if (report.node.nameFrom === 'unknown') warn(streams, `node name unknown: ${UNKNOWN_NAME_WHY}; report merge skips a report without one`);
  // A report is a document for machines: JSON unless YAML is asked for.
  print(report, () => '', streams, { format: args.output === 'yaml' ? 'yaml' : 'json', kind: report.kind });
  setExit(0);
}

async function journalEvidence(root: string, s: Session | null) {
  const { lastEvidence } = await import('../lib/journal/evidence.js');
  const { storeViewOf } = await import('../lib/journal/store-view.js');
  // As check --npd: the fleet's Job and DaemonSet run this on live nodes mounted at /host (--root),
  // where a crash loop counts while it lasts (found by review: one ended years ago put the node in trouble).
  return lastEvidence({ root, store: s ? storeViewOf(s.snap) : null });
}
