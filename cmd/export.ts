import type { Argv } from 'yargs';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';

export const command = 'export [ref]';
export const describe = 'the config the kubelet runs from a checkpoint, as a local --config file (paths absolute, DynamicKubeletConfig removed, flag overrides noted)';

interface Args extends GlobalArgs {
  ref?: string;
  key?: string;
  effective: boolean;
  out?: string;
  force: boolean;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('ref', { type: 'string', describe: 'the config to export: assigned, lkg, local, UID/RV, UID or a file path; default: the one the kubelet runs at its next start' })
    .option('key', { type: 'string', requiresArg: true, describe: 'the payload file of a checkpoint with several (default: the meta file\'s kubeletConfigKey, else "kubelet")' })
    .option('effective', { type: 'boolean', default: false, describe: 'write every field with its value, v1beta1 defaults included' })
    .option('out', { type: 'string', requiresArg: true, describe: 'write the file here, atomically (default: stdout); an existing different file is refused without --force' })
    .option('force', { type: 'boolean', default: false, describe: 'export a config that fails validation; replace a different --out file' })
    .example('$0 export', 'the config the kubelet runs at its next start, as a --config file, to stdout')
    .example('$0 export assigned --out /root/kubelet-config.yaml', 'the assigned checkpoint, written to a file')
    .example('$0 export --effective -o json', 'every field, defaults included, with what was changed and why') as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const s = session(args, streams);
  const { runExport } = await import('../lib/migrate/export.js');
  const { renderExport } = await import('../lib/output/migrate.js');
  const r = runExport(s, { ref: args.ref ?? null, key: args.key ?? null, effective: args.effective, force: args.force, root: args.root ?? '/', out: args.out ?? null });
  output(r, renderExport, args, streams, 'ExportResult');
  if (args.output === 'text' && !args.quiet) for (const w of r.warnings) streams.stderr.write(`warning: ${w}\n`);
  setExit(0);
}
