// Pure correlation of events (in journal order) with the store: per-checkpoint summaries,
// per-kubelet-process segments, the restart count and crash-loop detection as DESIGN.md
// defines them, and the ConfigMap names that lines teach for UIDs.

import { apiPathOf, type ConfigMapSource } from '../store/types.js';
import { isSystemdKind, parseApiPath, type CheckpointSummary, type EventKind, type JournalEvent, type ProcessSummary } from './events.js';

export interface CheckpointId {
  uid: string;
  resourceVersion: string;
}

/** What the store says, for `onDisk` and for names; null `onDisk` when no store was read. */
export interface StoreView {
  onDisk: readonly CheckpointId[] | null;
  metaSources: readonly ConfigMapSource[];
}

export interface Correlation {
  checkpoints: CheckpointSummary[];
  processes: ProcessSummary[];
  restarts: number;
  crashLoop: boolean;
  /** Per event: the UID it names or was attributed to (a load failure after that UID's load), else null. */
  concerns: (string | null)[];
}

export const CRASH_LOOP_STARTS = 3;
export const CRASH_LOOP_WINDOW_MS = 10 * 60 * 1000;

interface Proc {
  pid: number | null;
  firstSeen: string | null;
  lastSeen: string | null;
  /** Set when systemd said the main process exited (or a restart was scheduled): later lines of another pid start a new process. */
  closed: boolean;
  loaded: { uid: string; resourceVersion: string | null } | null;
  lastLoad: { uid: string; resourceVersion: string | null } | null;
  kubeletEnd: EventKind | null;
  exitStatus: number | null;
  exited: boolean;
  limitHit: boolean;
  bootstrapFailed: boolean;
}

const KUBELET_ENDINGS: ReadonlySet<EventKind> = new Set(['restart-for-config', 'restart-for-local', 'bootstrap-failed', 'feature-gate-off']);
const REJECTIONS: ReadonlySet<EventKind> = new Set(['load-failed', 'validate-failed', 'internal-error']);

export function correlate(events: readonly JournalEvent[], store?: StoreView | null): Correlation {
  const procs = segment(events);
  const concerns = attribute(events);
  return {
    checkpoints: summarise(events, concerns, store ?? null),
    processes: procs.map(toSummary),
    restarts: countRestarts(events, procs),
    crashLoop: detectCrashLoop(procs),
    concerns,
  };
}

// ---- processes ----

function newProc(pid: number | null, time: string | null): Proc {
  return { pid, firstSeen: time, lastSeen: time, closed: false, loaded: null, lastLoad: null, kubeletEnd: null, exitStatus: null, exited: false, limitHit: false, bootstrapFailed: false };
}

/** Split the events into kubelet processes: by pid, and at systemd's start/exit lines. */
export function segment(events: readonly JournalEvent[]): Proc[] {
  const procs: Proc[] = [];
  let cur: Proc | null = null;
  const open = (pid: number | null, time: string | null): Proc => {
    const p = newProc(pid, time);
    procs.push(p);
    return p;
  };
  for (const ev of events) {
    if (isSystemdKind(ev.kind)) {
      cur = systemdEvent(ev, cur, open);
      continue;
    }
    // A late line of the process systemd just reported gone still belongs to it.
    const same = cur !== null && (ev.pid === null || cur.pid === null || cur.pid === ev.pid);
    if (!cur || !same || (cur.closed && cur.pid === null && cur.exited)) cur = open(ev.pid, ev.time);
    if (cur.pid === null) cur.pid = ev.pid;
    touch(cur, ev.time);
    kubeletEvent(cur, ev);
  }
  return procs;
}

function systemdEvent(ev: JournalEvent, cur: Proc | null, open: (pid: number | null, time: string | null) => Proc): Proc | null {
  switch (ev.kind) {
    case 'kubelet-started':
      if (cur && !cur.closed) cur.closed = true;
      return open(null, ev.time);
    case 'kubelet-exited': {
      const p = cur && !cur.exited ? cur : open(null, ev.time); // an exit of a start we did not see
      p.exited = true;
      p.closed = true;
      p.exitStatus = ev.exitStatus;
      touch(p, ev.time);
      return p;
    }
    case 'start-limit-hit': {
      const p = cur ?? open(null, ev.time);
      p.limitHit = true;
      p.closed = true;
      touch(p, ev.time);
      return p;
    }
    default: // restart-scheduled: whatever ran is gone
      if (cur) cur.closed = true;
      return cur;
  }
}

function kubeletEvent(p: Proc, ev: JournalEvent): void {
  if (ev.kind === 'checkpoint-load' && ev.uid) {
    p.lastLoad = { uid: ev.uid, resourceVersion: ev.resourceVersion };
    p.loaded = p.lastLoad;
  } else if (REJECTIONS.has(ev.kind)) {
    p.loaded = null; // the assigned checkpoint was rejected; a last-known-good load may follow
  } else if (KUBELET_ENDINGS.has(ev.kind)) {
    p.kubeletEnd = ev.kind;
    if (ev.kind === 'bootstrap-failed') p.bootstrapFailed = true;
  }
}

// ISO strings of one format compare as times; journald may write systemd's line a little
// before the kubelet's last buffered lines, so keep the extremes rather than the last seen.
function touch(p: { firstSeen: string | null; lastSeen: string | null }, time: string | null): void {
  if (time === null) return;
  if (p.firstSeen === null || time < p.firstSeen) p.firstSeen = time;
  if (p.lastSeen === null || time > p.lastSeen) p.lastSeen = time;
}

function endedBy(p: Proc): EventKind | null {
  if (p.bootstrapFailed) return 'bootstrap-failed';
  if (p.kubeletEnd) return p.kubeletEnd;
  if (p.limitHit) return 'start-limit-hit';
  if (p.exited) return 'kubelet-exited';
  return null;
}

function toSummary(p: Proc): ProcessSummary {
  return { pid: p.pid, firstSeen: p.firstSeen, lastSeen: p.lastSeen, loaded: p.loaded, ended: endedBy(p) };
}

/** A failed start: bootstrap-failed, a non-zero exit, or the start limit (once per process). */
export function failedStart(p: Proc): boolean {
  return p.bootstrapFailed || (p.exited && p.exitStatus !== null && p.exitStatus !== 0) || p.limitHit;
}

function detectCrashLoop(procs: readonly Proc[]): boolean {
  const times = procs
    .filter(failedStart)
    .map((p) => Date.parse(p.lastSeen ?? p.firstSeen ?? ''))
    .filter((t) => Number.isFinite(t))
    .sort((a, b) => a - b);
  for (let i = 0; i + CRASH_LOOP_STARTS - 1 < times.length; i++) {
    if (times[i + CRASH_LOOP_STARTS - 1]! - times[i]! <= CRASH_LOOP_WINDOW_MS) return true;
  }
  return false;
}

/**
 * restart-scheduled events (one per restart: older systemd logs both "scheduling restart"
 * and "Scheduled restart job" for it); without systemd lines, changes of kubelet pid.
 */
function countRestarts(events: readonly JournalEvent[], procs: readonly Proc[]): number {
  if (events.some((e) => isSystemdKind(e.kind))) {
    let n = 0;
    let pending = false;
    for (const e of events) {
      if (e.kind === 'restart-scheduled') {
        if (!pending) n++;
        pending = true;
      } else if (e.kind === 'kubelet-started' || e.kind === 'kubelet-exited' || !isSystemdKind(e.kind)) {
        pending = false;
      }
    }
    return n;
  }
  let changes = 0;
  let last: number | null = null;
  for (const p of procs) {
    if (p.pid === null) continue;
    if (last !== null && p.pid !== last) changes++;
    last = p.pid;
  }
  return changes;
}

// ---- checkpoints ----

/** The UID each event concerns: its own, or for a bootstrap rejection the checkpoint its process loaded just before. */
function attribute(events: readonly JournalEvent[]): (string | null)[] {
  const lastLoadByPid = new Map<number | null, JournalEvent>();
  return events.map((ev) => {
    if (ev.kind === 'checkpoint-load') lastLoadByPid.set(ev.pid, ev);
    if (ev.uid) return ev.uid;
    if (REJECTIONS.has(ev.kind)) return lastLoadByPid.get(ev.pid)?.uid ?? null;
    return null;
  });
}

function ckKey(uid: string, rv: string | null): string {
  return `${uid}\u0000${rv ?? ''}`;
}

function summarise(events: readonly JournalEvent[], concerns: readonly (string | null)[], store: StoreView | null): CheckpointSummary[] {
  const byKey = new Map<string, CheckpointSummary>();
  const lastLoadByPid = new Map<number | null, JournalEvent>();
  events.forEach((ev, i) => {
    if (ev.kind === 'checkpoint-load') lastLoadByPid.set(ev.pid, ev);
    const uid = concerns[i];
    if (!uid) return;
    const rv = ev.uid ? ev.resourceVersion : (lastLoadByPid.get(ev.pid)?.resourceVersion ?? null);
    const key = ckKey(uid, rv);
    let s = byKey.get(key);
    if (!s) {
      s = { uid, resourceVersion: rv, apiPath: null, firstSeen: ev.time, lastSeen: ev.time, events: 0, onDisk: null };
      byKey.set(key, s);
    }
    s.events++;
    if (ev.apiPath && ev.uid) s.apiPath = ev.apiPath;
    touch(s, ev.time);
  });
  const onDisk = store?.onDisk ?? null;
  if (onDisk) {
    for (const c of [...onDisk].sort((a, b) => a.uid.localeCompare(b.uid) || a.resourceVersion.localeCompare(b.resourceVersion))) {
      const key = ckKey(c.uid, c.resourceVersion);
      if (!byKey.has(key)) byKey.set(key, { uid: c.uid, resourceVersion: c.resourceVersion, apiPath: null, firstSeen: null, lastSeen: null, events: 0, onDisk: true });
    }
  }
  const disk = new Set(onDisk?.map((c) => ckKey(c.uid, c.resourceVersion)));
  const diskUids = new Set(onDisk?.map((c) => c.uid));
  const metaPaths = new Map((store?.metaSources ?? []).map((m) => [m.uid, apiPathOf(m)]));
  const namePaths = new Map([...namesByUid(events)].map(([uid, n]) => [uid, apiPathOf(n)]));
  for (const s of byKey.values()) {
    s.onDisk = onDisk === null ? null : s.resourceVersion === null ? diskUids.has(s.uid) : disk.has(ckKey(s.uid, s.resourceVersion));
    s.apiPath ??= metaPaths.get(s.uid) ?? namePaths.get(s.uid) ?? null;
  }
  return [...byKey.values()];
}

// ---- names ----

export interface LearnedName {
  namespace: string;
  name: string;
  /** The kubeletConfigKey, when a "Kubelet restarting to use …" line named it. */
  key: string | null;
}

/**
 * ConfigMap namespace/name (and key) the journal names for each UID. A checkpoint directory
 * does not record them: recovery (`reset --to UID/RV`) and `ls` use this for UIDs no meta
 * file names.
 */
export function namesByUid(events: readonly JournalEvent[]): Map<string, LearnedName> {
  const names = new Map<string, LearnedName>();
  for (const ev of events) {
    if (!ev.uid) continue;
    const nn = parseApiPath(ev.apiPath);
    const known = names.get(ev.uid);
    if (!known) {
      if (nn) names.set(ev.uid, { ...nn, key: ev.key });
      continue;
    }
    if (!known.key && ev.key) known.key = ev.key;
  }
  return names;
}

/** Does an event concern a UID given in full or as a prefix (at least 4 characters, as refs allow)? */
export function uidMatches(concern: string | null, filter: string): boolean {
  return concern !== null && (concern === filter || (filter.length >= 4 && concern.startsWith(filter)));
}
