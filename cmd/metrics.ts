import type { Argv } from 'yargs';
import { renderMetrics } from '../lib/fleet/metrics.js';
import { writeTextfile } from '../lib/fleet/textfile.js';
import { processStreams, setExit, type GlobalArgs } from './common.js';
import { nodeReport } from './report.js';

export const command = 'metrics';
export const describe = "the store's state as Prometheus metrics, for the node exporter's textfile collector (kubelet_ckpt.prom)";

interface Args extends GlobalArgs {
  'textfile-dir'?: string;
  'node-name'?: string;
  journal: boolean;
  scope: 'all' | 'referenced';
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .option('textfile-dir', { type: 'string', requiresArg: true, describe: "write DIR/kubelet_ckpt.prom atomically (the node exporter's --collector.textfile.directory); default: print to stdout" })
    .option('node-name', { type: 'string', requiresArg: true, describe: 'the node name (as report; metrics carry no node label: Prometheus adds the target)' })
    .option('journal', { type: 'boolean', default: true, describe: 'read the journal tail for a crash loop (--no-journal skips it)' })
    .option('scope', { choices: ['all', 'referenced'] as const, default: 'all' as const, describe: 'findings over every checkpoint (all) or only the payloads the meta files name (referenced)' })
    .example('$0 metrics --textfile-dir /var/lib/prometheus/node-exporter', "Debian's node exporter reads this directory")
    .example('$0 metrics | promtool check metrics', 'look at the metrics')
    .epilogue('-o json and -o yaml do not apply: the output is the Prometheus text format. For a document, use report (a NodeReport).') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const text = renderMetrics(await nodeReport(args, streams), Date.now());
  if (!args['textfile-dir']) streams.stdout.write(text);
  else {
    const file = writeTextfile(args['textfile-dir'], text);
    if (!args.quiet) streams.stderr.write(`wrote ${file}\n`);
  }
  setExit(0);
}
