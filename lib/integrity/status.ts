// The `status` report: what is assigned, what is last-known-good, the trial clock,
// the next boot and the problem count (DESIGN.md `status` JSON).

import { decodeMetaState, type MetaDecode } from '../store/meta.js';
import { allCheckpoints, metaModifiedMs } from '../store/snapshot.js';
import { toSourceRef, type SourceRef } from '../store/types.js';
import type { Session } from '../session.js';
import type { Finding } from './findings.js';
import type { NextStep } from './next-steps.js';
import { predictNextBoot, trialOf, type NextBoot, type Trial } from './nextboot.js';
import { upgradeHint } from '../migrate/hint.js';

export interface MetaSummary {
  state: MetaDecode['state'];
  modified: string | null;
  error: string | null;
}

export interface StatusReport {
  store: string;
  assigned: SourceRef | null;
  lastKnownGood: SourceRef | null;
  assignedModified: string | null;
  trial: Trial | null;
  nextBoot: NextBoot;
  /** Checkpoints listed: 0 when checkpoints/ cannot be listed (the schema's count is a number; checkpointsUnreadable says why). */
  checkpoints: number;
  /** Why checkpoints/ could not be listed (permission denied, a link not followed); null when it was. */
  checkpointsUnreadable: string | null;
  problems: Finding[];
  /** The last journal evidence; with --no-journal `read: false` and nothing else known (DESIGN: always an object with lastEvent). */
  journal?: { read: true; lastEvent: unknown | null; summary: string | null; restarts: number; crashLoop: boolean } | { read: false; lastEvent: null; summary: null; restarts: null; crashLoop: null };
  /** Extra detail for text mode and -v: each meta file's state. */
  meta: { assigned: MetaSummary; lastKnownGood: MetaSummary };
  localConfig: string | null;
  /** Where the kubelet's command line (its flags) came from: `pid 1234`, a unit; null when not found (flags not applied). */
  kubeletCommandLine: string | null;
  /** The commands to run about what is wrong (added by the command, which knows its options). */
  nextSteps?: NextStep[];
  /** One line when a 1.24+ kubelet would break on this node (upgrade-check has the detail). */
  upgradeHint: string | null;
}

function refOf(d: MetaDecode): SourceRef | null {
  return d.state === 'source' ? toSourceRef(d.source) : null;
}

function summary(d: MetaDecode, mtimeMs: number, exists: boolean): MetaSummary {
  return {
    state: d.state,
    modified: exists ? new Date(mtimeMs).toISOString() : null,
    error: d.state === 'error' || d.state === 'unreadable' ? d.error : null,
  };
}


/** Build the status report; `problems` come from verify (passed in to keep this pure). */
export function buildStatus(s: Session, problems: Finding[]): StatusReport {
  const a = decodeMetaState(s.snap.meta.assigned, s.judgeOptions.version);
  const l = decodeMetaState(s.snap.meta['last-known-good'], s.judgeOptions.version);
  const ae = s.snap.meta.assigned.entry;
  const le = s.snap.meta['last-known-good'].entry;
  const aExists = ae.kind !== 'missing' && ae.kind !== 'unreadable';
  const nextBoot = predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version });
  return {
    store: s.snap.storeDir,
    assigned: refOf(a),
    lastKnownGood: refOf(l),
    assignedModified: aExists ? new Date(metaModifiedMs(s.snap.meta.assigned)).toISOString() : null,
    // The kubelet's own clock (the boot vectors' inTrial), also when assigned is already
    // last-known-good: then nothing is promoted (promotesToLastKnownGood), as the text says.
    trial: a.state === 'source' ? trialOf(s.snap) : null,
    nextBoot,
    checkpoints: allCheckpoints(s.snap).length,
    problems,
    meta: { assigned: summary(a, metaModifiedMs(s.snap.meta.assigned), aExists), lastKnownGood: summary(l, metaModifiedMs(s.snap.meta['last-known-good']), le.kind !== 'missing' && le.kind !== 'unreadable') },
    localConfig: s.local.path,
    kubeletCommandLine: s.discovery.commandLine?.source ?? null,
    upgradeHint: upgradeHint(s.kubeletArgv, nextBoot.source),
    // Last: DESIGN's order of the fields above is what scripts and tests read.
    checkpointsUnreadable: s.snap.checkpointsDir.kind === 'unreadable' ? (s.snap.checkpointsDir.error ?? 'unknown error') : null,
  };
}

/** status exits 1 when the next boot fails, is degraded (fell back) or is unknown. */
export function statusDegraded(r: StatusReport): boolean {
  return r.nextBoot.willStart !== true || r.nextBoot.statusError !== null || r.nextBoot.exitsAfterBootstrap !== null;
}
