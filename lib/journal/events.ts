// The typed journal events of DESIGN.md ("Journal events") and the result of reading a
// journal ("journal" JSON shape). Field names are the stable JSON contract.

export const EVENT_KINDS = [
  'controller-start',
  'store-init',
  'checkpoint-load',
  'load-failed',
  'validate-failed',
  'internal-error',
  'bootstrap-failed',
  'source-updated',
  'downloaded',
  'checkpoint-exists',
  'restart-for-config',
  'restart-for-local',
  'reset-requested',
  'lkg-updated',
  'sync-failed',
  'feature-gate-off',
  'deprecated-flag',
  'kubelet-exited',
  'restart-scheduled',
  'kubelet-started',
  'start-limit-hit',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** One recognised line. Fields the line does not carry are null. */
export interface JournalEvent {
  /** ISO-8601 UTC with milliseconds; null when the line carries no time at all (`cat` output of a systemd line). */
  time: string | null;
  /** The process that wrote the line (journal `_PID`, the syslog `[pid]`, else klog's pid); 1 for systemd. */
  pid: number | null;
  kind: EventKind;
  uid: string | null;
  resourceVersion: string | null;
  apiPath: string | null;
  key: string | null;
  /** The exit status systemd reported (`kubelet-exited` only). */
  exitStatus: number | null;
  /** The logged text after the klog header (continuation lines joined with `\n`). */
  message: string;
  /** Where the line came from: `journalctl`, a file path, a journal directory, or `-`. */
  source: string;
}

export interface CheckpointSummary {
  uid: string;
  resourceVersion: string | null;
  apiPath: string | null;
  firstSeen: string | null;
  lastSeen: string | null;
  /** How many events name this checkpoint or were attributed to it (a load failure after its load). */
  events: number;
  /** Whether `checkpoints/<uid>/<rv>` exists in the store; null when no store was given. */
  onDisk: boolean | null;
}

export interface ProcessSummary {
  pid: number | null;
  firstSeen: string | null;
  lastSeen: string | null;
  /** The checkpoint this process ran on (its last successful load); null for local config or unknown. */
  loaded: { uid: string; resourceVersion: string | null } | null;
  /** The event that ended it, when one did. */
  ended: EventKind | null;
}

export interface JournalResult {
  events: JournalEvent[];
  checkpoints: CheckpointSummary[];
  processes: ProcessSummary[];
  restarts: number;
  crashLoop: boolean;
  /** Lines that looked relevant (or were malformed) but became no event. */
  skipped: number;
  /**
   * Events read and summarised (counted in checkpoints, processes, restarts and crashLoop) but
   * not listed in `events`: only the newest are listed (`-n`, else 20000 within 24 MiB).
   */
  truncated: number;
}

/** Kinds written by systemd (PID 1) about the kubelet unit rather than by the kubelet. */
export const SYSTEMD_KINDS: ReadonlySet<EventKind> = new Set(['kubelet-exited', 'restart-scheduled', 'kubelet-started', 'start-limit-hit']);

/** Kinds that mean something went wrong. A `kubelet-exited` is a failure only when its status is non-zero. */
const FAILURE_KINDS: ReadonlySet<EventKind> = new Set([
  'load-failed',
  'validate-failed',
  'internal-error',
  'bootstrap-failed',
  'sync-failed',
  'feature-gate-off',
  'start-limit-hit',
]);

export function isFailure(ev: Pick<JournalEvent, 'kind' | 'exitStatus'>): boolean {
  if (ev.kind === 'kubelet-exited') return ev.exitStatus !== null && ev.exitStatus !== 0;
  return FAILURE_KINDS.has(ev.kind);
}

export function isSystemdKind(kind: EventKind): boolean {
  return SYSTEMD_KINDS.has(kind);
}

/** `namespace`/`name` of a `/api/v1/namespaces/<ns>/configmaps/<name>` path, or null. */
export function parseApiPath(apiPath: string | null): { namespace: string; name: string } | null {
  if (!apiPath) return null;
  const m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/.exec(apiPath);
  return m ? { namespace: m[1]!, name: m[2]! } : null;
}
