// The NodeReport document (`kubelet-ckpt report`): one node's store, boot prediction,
// findings and crash-loop state, for merging across a fleet. Stable: fields may be added,
// none renamed (schema/NodeReport.json is the machine-readable form; man kubelet-ckpt-report).

import type { MigrationReadiness } from './migration.js';
import type { BootSource, Trial } from '../integrity/nextboot.js';
import type { Severity } from '../integrity/findings.js';
import type { SourceRef } from '../store/types.js';

export const REPORT_API_VERSION = 'kubelet-ckpt/v1';
export const REPORT_KIND = 'NodeReport';

/** Where the node name came from. */
/** `unknown`: under --root with no name on the disk (name is then null; never the rescue machine's). */
export type NameSource = 'flag' | 'hostname-override' | 'hostname' | 'unknown';

/** One meta file and the payload it names. */
export interface MetaConfig {
  /** empty: the kubelet runs its local config; missing: the kubelet creates it empty. */
  state: 'source' | 'empty' | 'missing' | 'error' | 'unreadable';
  ref: SourceRef | null;
  /** sha256 of the payload file (the kubeletConfigKey), null when it cannot be read whole. */
  sha256: string | null;
  error: string | null;
}

export interface ReportNextBoot {
  source: BootSource;
  ref: SourceRef | null;
  /** sha256 of what the kubelet will run: the payload, or the local --config file. */
  sha256: string | null;
  willStart: boolean | null;
  /** The assigned config fails and the kubelet runs last-known-good or local instead. */
  fellBack: boolean;
  statusError: string | null;
  reason: string;
  /** It gets past its config bootstrap and then exits with this error, at every start (NextBoot.exitsAfterBootstrap). */
  exitsAfterBootstrap: string | null;
}

/** What the kubelet runs now, when the journal says (the newest kubelet process's load). */
export interface ReportRunning {
  uid: string;
  resourceVersion: string | null;
  sha256: string | null;
}

export interface FindingCount {
  code: string;
  severity: Severity;
  count: number;
}

export interface ReportFindings {
  /** `referenced`: the payloads the meta files name; `all`: every checkpoint (verify). */
  scope: 'all' | 'referenced';
  error: number;
  warning: number;
  info: number;
  byCode: FindingCount[];
}

export interface ReportCrashLoop {
  /** False when no journal was read (--no-journal, none readable): crashLoop is then null. */
  checked: boolean;
  crashLoop: boolean | null;
  restarts: number | null;
  /** Why it was not checked, or the journal's last relevant line. */
  detail: string | null;
}

export type StoreState = 'ok' | 'absent' | 'unreadable';

export interface NodeReport {
  apiVersion: typeof REPORT_API_VERSION;
  kind: typeof REPORT_KIND;
  generatedAt: string;
  tool: { name: 'kubelet-ckpt'; version: string };
  node: { name: string | null; nameFrom: NameSource; host: string };
  kubelet: {
    /** `kubelet --version` on a live node; null under --root or when it did not run. */
    version: string | null;
    /** The release whose rules were applied (--kubelet-version). */
    rules: string;
    config: string | null;
  };
  store: { path: string | null; state: StoreState; error: string | null; checkpoints: number | null };
  assigned: MetaConfig | null;
  lastKnownGood: MetaConfig | null;
  nextBoot: ReportNextBoot | null;
  running: ReportRunning | null;
  trial: Trial | null;
  findings: ReportFindings | null;
  crashLoop: ReportCrashLoop;
  /** upgrade-check's verdict on a 1.24 kubelet; null when there is no store to judge. */
  migration: MigrationReadiness | null;
}
