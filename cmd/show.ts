import type { Argv } from 'yargs';
import { buildShow } from '../lib/store/show.js';
import { renderShow } from '../lib/output/show.js';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'show <ref>';
export const describe = "print a checkpoint's payload (its kubelet key by default), a meta file (meta/assigned) or the local config";

interface Args extends GlobalArgs {
  ref: string;
  key?: string;
  raw: boolean;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('ref', { type: 'string', describe: 'assigned, last-known-good (lkg), local, meta/assigned, meta/last-known-good, UID/RV, UID, or a path starting with / ./ ../' })
    .option('key', { type: 'string', requiresArg: true, describe: 'which file of the checkpoint to print (default: the meta file\'s kubeletConfigKey, else "kubelet", else the only file)' })
    .option('raw', { type: 'boolean', default: false, describe: 'print the bytes exactly as stored' })
    .example('$0 show assigned', 'the config the kubelet is assigned')
    .example('$0 show meta/last-known-good --raw', 'the meta file, byte for byte') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const s = session(args, streams);
  const report = buildShow(s.snap, s.reader, args.ref, { key: args.key ?? null, localConfig: s.local.path });
  if (args.raw && args.output === 'text') streams.stdout.write(report.bytes);
  else output(report, renderShow, args, streams, 'ShowResult');
  setExit(0);
}
