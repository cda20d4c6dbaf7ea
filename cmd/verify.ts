import type { Argv } from 'yargs';
import { renderVerify } from '../lib/output/verify.js';
import { commandPrefix, judgeContext, output, processStreams, session, setExit, type GlobalArgs } from './common.js';
import { nextSteps } from '../lib/integrity/next-steps.js';
import { isFileRef, readFileRef, verifyRefs, verifySessionParallel, type FileInput } from '../lib/integrity/run.js';
import { PAYLOAD_CAP } from '../lib/store/snapshot.js';
import { EnvError } from '../lib/errors.js';
import { withJudgePool } from './shared.js';
import { STDIN_REF } from './support/usage.js';

export const command = 'verify [refs..]';
export const describe = 'run every integrity check over the whole store, or only the given refs; a file (or - for stdin) is judged as a candidate config';

interface Args extends GlobalArgs {
  refs?: string[];
}

/** verify has no options of its own; the fast path runs it only without refs (the whole store). */
export const OPTIONS = {} as const;

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return y
    .positional('refs', { type: 'string', array: true, describe: 'what to check: assigned, lkg, local, UID/RV, UID, a file path starting with / ./ ../, or - (stdin); default: the whole store' })
    .example('$0 verify', 'check everything; exit 1 when any error is found')
    .example('$0 verify assigned -o json', 'only the assigned checkpoint (and both meta files), for scripts')
    .example('$0 verify ./new-kubelet.yaml', 'judge a config before uploading it as a ConfigMap: decode, defaults, this node\'s flags, validation')
    .example('kubectl get cm node-config -o jsonpath={.data.kubelet} | $0 verify -', 'the same for a config on stdin') as Argv<Args>;
}

/** stdin, read whole up to the ConfigMap limit (a larger input is refused, as a payload would be). */
async function readStdin(): Promise<FileInput> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of process.stdin) {
    chunks.push(c as Buffer);
    size += (c as Buffer).length;
    if (size > PAYLOAD_CAP) throw new EnvError('stdin is larger than 1 MiB (the ConfigMap limit); refusing to read it whole', null, 'TOO_LARGE');
  }
  return { ref: '-', path: '-', bytes: Buffer.concat(chunks) };
}

export async function handler(args: Args): Promise<void> {
  const streams = processStreams(args);
  const refs = (args.refs ?? []).map((r) => (r === STDIN_REF ? '-' : r));
  if (!refs.length) {
    const report = await withJudgePool(args, streams, verifySessionParallel);
    report.nextSteps = nextSteps(commandPrefix(args), { nextBoot: report.nextBoot, findings: report.findings, from: 'verify' });
    output(report, renderVerify, args, streams, 'VerifyReport');
    return setExit(report.ok ? 0 : 1);
  }
  // Files only: no store is needed (a config is checked before it is uploaded, anywhere).
  const s = refs.every(isFileRef) ? null : session(args, streams);
  const ctx = s ?? judgeContext(args, streams);
  const files: FileInput[] = [];
  for (const ref of refs.filter(isFileRef)) files.push(ref === '-' ? await readStdin() : readFileRef(ref, ctx.local.path));
  const report = verifyRefs(s, ctx.judge, refs, files);
  if (s) report.nextSteps = nextSteps(commandPrefix(args), { nextBoot: report.nextBoot, findings: report.findings, from: 'verify' });
  output(report, renderVerify, args, streams, 'VerifyReport');
  setExit(report.ok ? 0 : 1);
}
