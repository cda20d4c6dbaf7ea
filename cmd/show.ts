import type { Argv } from 'yargs';
import { buildShow, type ShowReport } from '../lib/store/show.js';
import { renderShow, renderShowList, renderField, renderFieldList } from '../lib/output/show.js';
import { extractField, type FieldValue } from '../lib/diff/field.js';
import { UsageError } from '../lib/errors.js';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'show <refs..>';
export const describe = "print a checkpoint's payload (its kubelet key by default), a meta file (meta/assigned) or the local config; --field prints one value";

interface Args extends GlobalArgs {
  refs: string[];
  key?: string;
  raw: boolean;
  field?: string;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('refs', { type: 'string', array: true, describe: 'assigned, last-known-good (lkg), local, meta/assigned, meta/last-known-good, UID/RV, UID, or a path starting with / ./ ../; several print one after another (one JSON document)' })
    .option('key', { type: 'string', requiresArg: true, describe: 'which file of the checkpoint to print (default: the meta file\'s kubeletConfigKey, else "kubelet", else the only file)' })
    .option('raw', { type: 'boolean', default: false, describe: 'print the bytes exactly as stored (one ref)' })
    .option('field', { type: 'string', requiresArg: true, describe: 'print one field\'s value, written as diff prints paths: maxPods, evictionHard["memory.available"], clusterDNS[0]' })
    .example('$0 show assigned', 'the config the kubelet is assigned')
    .example('$0 show meta/last-known-good --raw', 'the meta file, byte for byte')
    .example('$0 show lkg --field maxPods', 'one value: 110')
    .example(`$0 show assigned lkg --field 'evictionHard["memory.available"]'`, 'one value from each, side by side') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  if (args.raw && args.refs.length > 1) throw new UsageError('--raw prints the bytes of one ref', 'give one ref, or leave out --raw');
  if (args.raw && args.field !== undefined) throw new UsageError('--raw and --field do not go together', 'leave out one of them');
  const s = session(args, streams);
  const reports: ShowReport[] = args.refs.map((ref) => buildShow(s.snap, s.reader, ref, { key: args.key ?? null, localConfig: s.local.path, version: s.judgeOptions.version }));
  if (args.field !== undefined) {
    const field = args.field;
    const values: FieldValue[] = reports.map((r) => extractField(r.bytes, r.ref, field));
    if (values.length === 1) output(values[0]!, renderField, args, streams, 'FieldValue');
    else output({ items: values }, renderFieldList, args, streams, 'ShowList');
    // Like grep: 1 when the field is not set (the kubelet would use its default).
    return setExit(values.every((v) => v.set) ? 0 : 1);
  }
  if (args.raw && args.output === 'text') streams.stdout.write(reports[0]!.bytes);
  else if (reports.length === 1) output(reports[0]!, renderShow, args, streams, 'ShowResult');
  else output({ items: reports }, renderShowList, args, streams, 'ShowList');
  setExit(0);
}
