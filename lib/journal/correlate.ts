// Pure correlation of events (in journal order) with the store: per-checkpoint summaries,
// per-kubelet-process segments, the restart count and crash-loop detection as DESIGN.md
// defines them, and the ConfigMap names that lines teach for UIDs.

import { UsageError } from '../errors.js';
import { apiPathOf, type ConfigMapSource } from '../store/types.js';
import { isSystemdKind, parseApiPath, type CheckpointSummary, type EventKind, type JournalEvent, type ProcessSummary } from './events.js';
import { compareText } from '../text-order.js';

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

/** Bounds that keep a correlation's memory flat on any journal (the newest are kept). */
export const MAX_PROCESSES = 10_000;
export const MAX_CHECKPOINTS = 10_000;
/** Distinct pids remembered for attributing rejections (a real node has far fewer). */
const MAX_PIDS = 10_000;
/** Failed-start times kept for crash-loop detection until one is found. */
const MAX_FAILED_STARTS = 1_000_000;

/**
 * When an event happened, as the correlator needs it: `ms` orders and measures (crash-loop
 * windows); the final ISO time is asked for only at the end, so a reader may hand provisional
 * times (year-less lines, whose year is known only after the last line) with what it needs
 * to resolve them in `ref` (kept small: no event is held through it).
 */
export interface Stamp {
  ms: number;
  ref: unknown;
}

/** A checkpoint a process loaded. */
interface Load {
  uid: string;
  resourceVersion: string | null;
}

interface Proc {
  pid: number | null;
  first: Stamp | null;
  last: Stamp | null;
  /** Set when systemd said the main process exited (or a restart was scheduled): later lines of another pid start a new process. */
  closed: boolean;
  loaded: Load | null;
  lastLoad: Load | null;
  kubeletEnd: EventKind | null;
  exitStatus: number | null;
  exited: boolean;
  limitHit: boolean;
  bootstrapFailed: boolean;
  /** Counted into the restart and crash-loop tallies (a process is final once the next one opens). */
  settled: boolean;
  /** When it logged "starting controller" (NaN: not yet): a later one, under the same pid, is a new process (a containerised kubelet keeps its pid). */
  controllerStartMs: number;
  /** Opened on such a second start: a restart, though the pid did not change. */
  samePidRestart: boolean;
}

interface Checkpoint {
  uid: string;
  resourceVersion: string | null;
  apiPath: string | null;
  first: Stamp | null;
  last: Stamp | null;
  events: number;
}

const KUBELET_ENDINGS: ReadonlySet<EventKind> = new Set(['restart-for-config', 'restart-for-local', 'bootstrap-failed', 'feature-gate-off']);
const REJECTIONS: ReadonlySet<EventKind> = new Set(['load-failed', 'validate-failed', 'internal-error']);

/** Events (journal order) + what the store holds → summaries. Exact ISO times as stamps. */
export function correlate(events: readonly JournalEvent[], store?: StoreView | null): Correlation {
  const c = new Correlator();
  const concerns: (string | null)[] = [];
  for (const ev of events) concerns.push(c.add(ev, ev.time === null ? null : { ms: Date.parse(ev.time), ref: ev.time }));
  return { ...c.finish(store ?? null, (s) => s.ref as string), concerns };
}

/**
 * The correlation, one event at a time in journal order, in bounded memory: processes are
 * kept (the newest MAX_PROCESSES) with what the older ones add to the restart count and the
 * crash-loop verdict; checkpoints up to MAX_CHECKPOINTS. Nothing here holds an event.
 */
export class Correlator {
  private readonly procs: Proc[] = [];
  private procHead = 0;
  private cur: Proc | null = null;
  /** Whether systemd lines were seen: restarts are then counted from them, else from pid changes. */
  private sawSystemd = false;
  private systemdRestarts = 0;
  private pending = false;
  private pidChanges = 0;
  private lastPid: number | null = null;
  /** Sorted times of failed starts (finished processes); dropped once a crash loop is found. */
  private failed: number[] = [];
  private loop = false;
  private readonly lastLoadByPid = new Map<number | null, Load>();
  private readonly checkpoints = new Map<string, Checkpoint>();
  private lastCheckpoint: Checkpoint | null = null;
  private readonly names = new NameBook();

  /** Take one event; returns the UID it concerns (its own, or for a rejection the checkpoint its process loaded just before). `at` is copied, not kept. */
  add(ev: JournalEvent, at: Stamp | null): string | null {
    if (isSystemdKind(ev.kind)) {
      this.sawSystemd = true;
      this.countSystemdRestart(ev);
      this.cur = this.systemdEvent(ev, at);
    } else {
      this.pending = false;
      const cur = this.cur;
      // A late line of the process systemd just reported gone still belongs to it.
      const same = cur !== null && (ev.pid === null || cur.pid === null || cur.pid === ev.pid);
      // Only a later one: the same line read twice (a journal and its forwarded copy, overlapping rotated files) is no restart.
      const again = same && ev.kind === 'controller-start' && at !== null && at.ms > cur!.controllerStartMs;
      const p = !cur || !same || again || (cur.closed && cur.pid === null && cur.exited) ? this.open(ev.pid, at) : cur;
      if (again) p.samePidRestart = true;
      if (ev.kind === 'controller-start' && Number.isNaN(p.controllerStartMs)) p.controllerStartMs = at?.ms ?? Number.POSITIVE_INFINITY;
      if (p.pid === null) p.pid = ev.pid;
      touch(p, at);
      kubeletEvent(p, ev, this.loadOf(ev));
      this.cur = p;
    }
    this.names.add(ev);
    const concern = this.concern(ev);
    if (concern) this.countCheckpoint(ev, concern, at);
    return concern;
  }

  finish(store: StoreView | null, resolve: (s: Stamp) => string | null): Omit<Correlation, 'concerns'> {
    const iso = (s: Stamp | null) => (s === null ? null : resolve(s));
    for (let i = this.procHead; i < this.procs.length; i++) this.settle(this.procs[i]!);
    const processes = this.procs.slice(this.procHead).map((p) => toSummary(p, iso));
    return {
      checkpoints: this.summaries(store, iso),
      processes,
      restarts: this.sawSystemd ? this.systemdRestarts : this.pidChanges,
      crashLoop: this.loop,
    };
  }

  // ---- processes ----

  private open(pid: number | null, at: Stamp | null): Proc {
    // The previous process is final from here on.
    if (this.procs.length > this.procHead) this.settle(this.procs[this.procs.length - 1]!);
    const p: Proc = { pid, first: own(at), last: own(at), closed: false, loaded: null, lastLoad: null, kubeletEnd: null, exitStatus: null, exited: false, limitHit: false, bootstrapFailed: false, settled: false, controllerStartMs: NaN, samePidRestart: false };
    this.procs.push(p);
    if (this.procs.length - this.procHead > MAX_PROCESSES) {
      this.procHead++;
      if (this.procHead >= 4096 && this.procHead * 2 > this.procs.length) {
        this.procs.splice(0, this.procHead);
        this.procHead = 0;
      }
    }
    return p;
  }

  /** A finished process: its pid change and its failed start are counted (once each). */
  private settle(p: Proc): void {
    if (p.settled) return;
    p.settled = true;
    if (p.pid !== null) {
      if (this.lastPid !== null && (p.pid !== this.lastPid || p.samePidRestart)) this.pidChanges++;
      this.lastPid = p.pid;
    }
    if (!this.loop && failedStart(p)) {
      const t = (p.last ?? p.first)?.ms;
      if (t !== undefined && Number.isFinite(t)) this.failedAt(t);
    }
  }

  /** Insert a failed start's time; a crash loop is three of them within the window. */
  private failedAt(t: number): void {
    const f = this.failed;
    let lo = 0;
    let hi = f.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    f.splice(lo, 0, t);
    const n = CRASH_LOOP_STARTS - 1;
    for (let i = Math.max(0, lo - n); i <= lo && i + n < f.length; i++) {
      if (f[i + n]! - f[i]! <= CRASH_LOOP_WINDOW_MS) {
        this.loop = true;
        this.failed = [];
        return;
      }
    }
    if (f.length > MAX_FAILED_STARTS) f.shift();
  }

  private systemdEvent(ev: JournalEvent, at: Stamp | null): Proc | null {
    const cur = this.cur;
    switch (ev.kind) {
      case 'kubelet-started':
        if (cur && !cur.closed) cur.closed = true;
        return this.open(null, at);
      case 'kubelet-exited': {
        const p = cur && !cur.exited ? cur : this.open(null, at); // an exit of a start we did not see
        p.exited = true;
        p.closed = true;
        p.exitStatus = ev.exitStatus;
        touch(p, at);
        return p;
      }
      case 'start-limit-hit': {
        const p = cur ?? this.open(null, at);
        p.limitHit = true;
        p.closed = true;
        touch(p, at);
        return p;
      }
      default: // restart-scheduled: whatever ran is gone
        if (cur) cur.closed = true;
        return cur;
    }
  }

  /**
   * restart-scheduled events, one per restart: older systemd logs "…, scheduling restart."
   * and then "Scheduled restart job, …" for the same restart, so a job line right after a
   * "scheduling restart" one is its pair; every other job line is a restart of its own (found
   * by review: three "Scheduled restart job" lines with no "Started" between them, a failing
   * ExecStartPre, counted as one). Without systemd lines, changes of kubelet pid count.
   */
  private countSystemdRestart(ev: JournalEvent): void {
    if (ev.kind === 'restart-scheduled') {
      const job = /Scheduled restart job/.test(ev.message);
      if (job && this.pending) {
        this.pending = false;
        return;
      }
      this.systemdRestarts++;
      this.pending = !job;
    } else if (ev.kind === 'kubelet-started' || ev.kind === 'kubelet-exited') {
      this.pending = false;
    }
  }

  // ---- checkpoints ----

  /**
   * The `{ uid, resourceVersion }` of a checkpoint load: the same object as the last load's
   * when it names the same checkpoint (a kubelet loads one checkpoint at every start). Never
   * changed once made, so processes and pids may share it.
   */
  private loadOf(ev: JournalEvent): Load | null {
    if (ev.kind !== 'checkpoint-load' || !ev.uid) return null;
    const l = this.lastLoad;
    if (l !== null && l.uid === ev.uid && l.resourceVersion === ev.resourceVersion) return l;
    return (this.lastLoad = { uid: ev.uid, resourceVersion: ev.resourceVersion });
  }

  private lastLoad: Load | null = null;

  private concern(ev: JournalEvent): string | null {
    if (ev.kind === 'checkpoint-load' && ev.uid) {
      const known = this.lastLoadByPid.get(ev.pid);
      if (known === undefined || known.uid !== ev.uid || known.resourceVersion !== ev.resourceVersion) {
        if (this.lastLoadByPid.size >= MAX_PIDS && known === undefined) this.lastLoadByPid.clear();
        this.lastLoadByPid.set(ev.pid, this.loadOf(ev)!);
      }
    }
    if (ev.uid) return ev.uid;
    if (REJECTIONS.has(ev.kind)) return this.lastLoadByPid.get(ev.pid)?.uid ?? null;
    return null;
  }

  private countCheckpoint(ev: JournalEvent, uid: string, at: Stamp | null): void {
    const rv = ev.uid ? ev.resourceVersion : (this.lastLoadByPid.get(ev.pid)?.resourceVersion ?? null);
    // Runs of events name the same checkpoint: the last one found is tried before building a key.
    let s = this.lastCheckpoint;
    if (s === null || s.uid !== uid || s.resourceVersion !== rv) {
      const key = ckKey(uid, rv);
      s = this.checkpoints.get(key) ?? null;
      if (!s) {
        if (this.checkpoints.size >= MAX_CHECKPOINTS) return;
        s = { uid, resourceVersion: rv, apiPath: null, first: own(at), last: own(at), events: 0 };
        this.checkpoints.set(key, s);
      }
      this.lastCheckpoint = s;
    }
    s.events++;
    if (ev.apiPath && ev.uid) s.apiPath = ev.apiPath;
    touch(s, at);
  }

  private summaries(store: StoreView | null, iso: (s: Stamp | null) => string | null): CheckpointSummary[] {
    const out: CheckpointSummary[] = [...this.checkpoints.values()].map((c) => ({ uid: c.uid, resourceVersion: c.resourceVersion, apiPath: c.apiPath, firstSeen: iso(c.first), lastSeen: iso(c.last), events: c.events, onDisk: null }));
    const onDisk = store?.onDisk ?? null;
    if (onDisk) {
      const seen = new Set(this.checkpoints.keys());
      for (const c of [...onDisk].sort((a, b) => compareText(a.uid, b.uid) || compareText(a.resourceVersion, b.resourceVersion))) {
        const key = ckKey(c.uid, c.resourceVersion);
        if (!seen.has(key)) out.push({ uid: c.uid, resourceVersion: c.resourceVersion, apiPath: null, firstSeen: null, lastSeen: null, events: 0, onDisk: true });
        seen.add(key);
      }
    }
    const disk = new Set(onDisk?.map((c) => ckKey(c.uid, c.resourceVersion)));
    const diskUids = new Set(onDisk?.map((c) => c.uid));
    const metaPaths = new Map((store?.metaSources ?? []).map((m) => [m.uid, apiPathOf(m)]));
    const names = this.names.map;
    for (const s of out) {
      s.onDisk = onDisk === null ? null : s.resourceVersion === null ? diskUids.has(s.uid) : disk.has(ckKey(s.uid, s.resourceVersion));
      const learned = names.get(s.uid);
      s.apiPath ??= metaPaths.get(s.uid) ?? (learned ? apiPathOf(learned) : null);
    }
    return out;
  }
}

// The extremes rather than the last seen: journald may write systemd's line a little before
// the kubelet's last buffered lines. Processes and checkpoints keep stamps of their own,
// updated in place: the caller may hand the same stamp object for every event.
function touch(p: { first: Stamp | null; last: Stamp | null }, at: Stamp | null): void {
  if (at === null) return;
  if (p.first === null) p.first = own(at);
  else if (at.ms < p.first.ms) set(p.first, at);
  if (p.last === null) p.last = own(at);
  else if (at.ms > p.last.ms) set(p.last, at);
}

function own(at: Stamp | null): Stamp | null {
  return at === null ? null : { ms: at.ms, ref: at.ref };
}

function set(s: Stamp, at: Stamp): void {
  s.ms = at.ms;
  s.ref = at.ref;
}

/** `load`: the event's checkpoint when it is a load (Correlator.loadOf). */
function kubeletEvent(p: Proc, ev: JournalEvent, load: Load | null): void {
  if (load !== null) {
    p.lastLoad = load;
    p.loaded = load;
  } else if (REJECTIONS.has(ev.kind)) {
    p.loaded = null; // the assigned checkpoint was rejected; a last-known-good load may follow
  } else if (KUBELET_ENDINGS.has(ev.kind)) {
    p.kubeletEnd = ev.kind;
    if (ev.kind === 'bootstrap-failed') p.bootstrapFailed = true;
    // Bootstrap failed (the last-known-good loaded and failed too: its failure has no line of its
    // own, kubelet-behaviour.md step 6), or the gate was off: this process ran no checkpoint.
    if (ev.kind === 'bootstrap-failed' || ev.kind === 'feature-gate-off') p.loaded = null;
  }
}

function endedBy(p: Proc): EventKind | null {
  if (p.bootstrapFailed) return 'bootstrap-failed';
  if (p.kubeletEnd) return p.kubeletEnd;
  if (p.limitHit) return 'start-limit-hit';
  if (p.exited) return 'kubelet-exited';
  return null;
}

function toSummary(p: Proc, iso: (s: Stamp | null) => string | null): ProcessSummary {
  return { pid: p.pid, firstSeen: iso(p.first), lastSeen: iso(p.last), loaded: p.loaded, ended: endedBy(p) };
}

/** A failed start: bootstrap-failed, a non-zero exit, or the start limit (once per process). */
function failedStart(p: Proc): boolean {
  return p.bootstrapFailed || (p.exited && p.exitStatus !== null && p.exitStatus !== 0) || p.limitHit;
}

function ckKey(uid: string, rv: string | null): string {
  return `${uid}\u0000${rv ?? ''}`;
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
  const book = new NameBook();
  for (const ev of events) book.add(ev);
  return book.map;
}

/** The names learned so far, the first MAX_CHECKPOINTS UIDs. */
class NameBook {
  readonly map = new Map<string, LearnedName>();

  add(ev: JournalEvent): void {
    if (!ev.uid) return;
    const known = this.map.get(ev.uid);
    if (!known) {
      const nn = parseApiPath(ev.apiPath);
      if (nn && this.map.size < MAX_CHECKPOINTS) this.map.set(ev.uid, { ...nn, key: ev.key });
      return;
    }
    if (!known.key && ev.key) known.key = ev.key;
  }
}

/** A --uid filter that could never match (shorter than a prefix may be): a usage error, not "no events". */
export function checkUidFilter(filter: string | undefined): void {
  if (filter !== undefined && filter.length < 4) throw new UsageError(`--uid ${JSON.stringify(filter)}: a UID prefix needs at least 4 characters`, 'give more of the UID (kubelet-ckpt ls lists them)', 'BAD_UID');
}

/** Does an event concern a UID given in full or as a prefix (at least 4 characters, as refs allow)? */
export function uidMatches(concern: string | null, filter: string): boolean {
  return concern !== null && (concern === filter || (filter.length >= 4 && concern.startsWith(filter)));
}
