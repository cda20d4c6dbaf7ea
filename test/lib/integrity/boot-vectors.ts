// Rebuilding shared/vectors/boot-random.json cases as real trees and asking the library
// what the kubelet does at its next start; shared by the lib test and the CLI sample.
import fs from 'node:fs';
import path from 'node:path';
import { openSession } from '../../../lib/session.js';
import { predictNextBoot, trialOf, type NextBoot } from '../../../lib/integrity/nextboot.js';
import { checkStartup, type StartupCheck } from '../../../lib/integrity/startup.js';
import { judgeConfig, judgeLocalConfig } from '../../../lib/integrity/pipeline.js';
import { fsPayloadReader, takeSnapshot } from '../../../lib/store/snapshot.js';
import { decodeMetaState } from '../../../lib/store/meta.js';
import { sharedDir, writeTree } from '../../helpers.js';

export interface BootVector {
  name: string;
  layout: 'dir' | 'root';
  describe: string;
  storeFiles: Record<string, string | { dir: true } | { b64: string }>;
  assignedMtimeAgeSeconds: number | null;
  argv: string[];
  localConfig: string | null;
  unitFile?: string;
  kubelet: {
    nextBoot: string; willStart: boolean; stoppedAt: string; startupError: string | null; statusError: string | null;
    bootstrapError: string | null; assignedStage: string; assignedError: string | null; lastKnownGoodStage: string;
    lastKnownGoodError: string | null; inTrial: boolean | null; wouldPromote: boolean; panic: unknown;
  };
}

export const bootVectorFile = path.join(sharedDir, 'vectors', 'boot-random.json');

export function loadBootVectors(): BootVector[] | null {
  return fs.existsSync(bootVectorFile) ? (JSON.parse(fs.readFileSync(bootVectorFile, 'utf8')) as BootVector[]) : null;
}

export interface Built {
  /** Where the case was built: `--dir` (dir layout) or `--root`. */
  base: string;
  dir: string;
  config: string;
  root: string | null;
  sub: (s: string | null) => string | null;
}

const NODE_DIR = '/var/lib/kubelet/dynamic-config';
const NODE_CONFIG = '/var/lib/kubelet/config.yaml';

/** Write one case under `base` as the vectors' README says. */
export function buildCase(v: BootVector, base: string): Built {
  const root = v.layout === 'root' ? base : null;
  const dir = root ? path.join(root, NODE_DIR) : path.join(base, 'dyn');
  const config = root ? path.join(root, NODE_CONFIG) : path.join(base, 'config.yaml');
  const store = path.join(dir, 'store');
  fs.mkdirSync(store, { recursive: true });
  for (const [rel, c] of Object.entries(v.storeFiles)) {
    if (typeof c === 'string') writeTree(store, { [rel]: c });
    else if ('dir' in c) fs.mkdirSync(path.join(store, rel), { recursive: true });
    else writeTree(store, { [rel]: Buffer.from(c.b64, 'base64') });
  }
  if (v.localConfig !== null) writeTree(path.dirname(config), { [path.basename(config)]: v.localConfig });
  if (root && v.unitFile) writeTree(root, { 'etc/systemd/system/kubelet.service': v.unitFile });
  if (v.assignedMtimeAgeSeconds !== null) {
    const t = new Date(Date.now() - v.assignedMtimeAgeSeconds * 1000);
    fs.utimesSync(path.join(store, 'meta', 'assigned'), t, t);
  }
  const sub = (s: string | null) => (s === null ? null : s.split('<dir>').join(dir).split('<config>').join(config).split('<root>').join(root ?? '<root>'));
  return { base, dir, config, root, sub };
}

export interface Predicted {
  nb: NextBoot;
  startup: StartupCheck | null;
  inTrial: boolean | null;
}

/**
 * The library's answer. Root cases go through real discovery (unit file → argv → --config);
 * dir cases are given their argv, as a tool that read the kubelet's /proc cmdline would be.
 */
export function predictCase(v: BootVector, b: Built): Predicted {
  if (b.root) {
    const s = openSession({ root: b.root, kubeletVersion: '1.23' });
    const nb = predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local });
    return { nb, startup: s.local.startup ?? null, inTrial: trialInfo(s.snap) };
  }
  const argv = ['kubelet', ...v.argv.map((a) => b.sub(a)!)];
  const snap = takeSnapshot(b.dir);
  const config = v.localConfig === null ? null : { path: b.config, judgement: judgeLocalConfig(fs.readFileSync(b.config), b.config, { version: '1.23', argv }) };
  const startup = checkStartup({ version: '1.23', argv, config });
  // Checkpoints are validated over the local file's gates, as the session does.
  const judge = judgeConfig({ version: '1.23', argv, localGates: config?.judgement.gates });
  const nb = predictNextBoot(snap, { reader: fsPayloadReader(snap), judge, local: { path: config?.path ?? null, judgement: config?.judgement ?? null, startup } });
  return { nb, startup, inTrial: trialInfo(snap) };
}

function trialInfo(snap: ReturnType<typeof takeSnapshot>): boolean | null {
  return decodeMetaState(snap.meta.assigned).state === 'source' ? (trialOf(snap)?.inTrial ?? null) : null;
}
