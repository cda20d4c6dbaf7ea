// One line of journal evidence for `status`: the last relevant event from a bounded read
// of the journal (the newest entries, a time limit). When no journal is readable this is
// a no-op that costs a few stat calls: no process is spawned.

import fs from 'node:fs';
import path from 'node:path';
import { resolveInRoot } from '../store/rooted.js';
import { CRASH_LOOP_WINDOW_MS, type StoreView } from './correlate.js';
import type { EventKind, JournalEvent, JournalResult } from './events.js';
import { readJournalDetailed } from './index.js';
import { journalFiles, LIVE_JOURNAL_DIRS } from './sources.js';
import { eventText, shortRef } from './render.js';
import { printable } from '../output/sanitize.js';
import { findOnPath } from '../onpath.js';

export interface EvidenceOptions {
  /** `--root`: read the node's `/var/log/journal` under it. */
  root?: string;
  /** Newest journal entries to read (default 5000). */
  lines?: number;
  /** Give up after this long, keeping what was read (default 800 ms). */
  timeoutMs?: number;
  store?: StoreView | null;
  journalctl?: string;
  /** Where the live journal lives (tests). */
  journalDirs?: readonly string[];
  /**
   * The time a crash loop must be recent to: by default now for the live journal, and under
   * --root the journal files' last write (journalLastWrite).
   */
  now?: number;
}

export interface Evidence {
  /** DESIGN.md's `status` → `journal.lastEvent`. */
  lastEvent: JournalEvent | null;
  /** One line for status's text output, e.g. `2021-08-21 18:54:34Z restarted to kube-system/cm (5808539f/437429)`. */
  summary: string | null;
  restarts: number;
  crashLoop: boolean;
  /** The checkpoint the newest kubelet process loaded (null: local config, or no load seen). */
  running: { uid: string; resourceVersion: string | null } | null;
  /** Why there is no evidence, when there is none (`no journal readable` …). */
  reason: string | null;
  /** The read stopped at its time bound: crash loops were not fully checked. */
  cutShort?: boolean;
}

/** Kinds worth a line in status: what ran, what changed, what failed. */
const RELEVANT: ReadonlySet<EventKind> = new Set([
  'checkpoint-load',
  'load-failed',
  'validate-failed',
  'internal-error',
  'bootstrap-failed',
  'restart-for-config',
  'restart-for-local',
  'reset-requested',
  'lkg-updated',
  'sync-failed',
  'feature-gate-off',
  'start-limit-hit',
  'kubelet-exited',
]);


const none = (reason: string): Evidence => ({ lastEvent: null, summary: null, restarts: 0, crashLoop: false, running: null, reason });

export async function lastEvidence(opts: EvidenceOptions = {}): Promise<Evidence> {
  const bin = findOnPath(opts.journalctl ?? 'journalctl');
  if (!bin) return none('journalctl not found');
  const root = opts.root && path.resolve(opts.root) !== '/' ? path.resolve(opts.root) : null;
  const dirs = root ? [resolveInRoot(root, '/var/log/journal')] : (opts.journalDirs ?? LIVE_JOURNAL_DIRS);
  if (!dirs.some((d) => d !== null && readableDir(d))) return none('no journal readable');
  const at = opts.now ?? (root ? journalLastWrite(dirs[0]!) : Date.now());
  let result: JournalResult;
  const timeoutMs = opts.timeoutMs ?? 800;
  try {
    const read = await readJournalDetailed({
      source: 'auto',
      root: root ?? undefined,
      lines: opts.lines ?? 5000,
      timeoutMs,
      store: opts.store ?? null,
      journalctl: bin,
    });
    if (read.stats.truncated) return cutShort(evidenceOf(read.result, at), timeoutMs);
    result = read.result;
  } catch (err) {
    return none(`journal not read: ${(err as Error).message}`);
  }
  return evidenceOf(result, at);
}

/**
 * When the journal under --root was last written: the newest mtime of its journal files (no
 * later than now). journald writes them as long as the node runs, so on a live node mounted at
 * /host (a fleet pod, kubectl debug) this is about now, and a crash loop that ended long ago
 * is no current problem; on a dead node's disk it is when the node stopped, so the loop that
 * stopped it counts. status, report and check --npd judge one --root alike (found by review:
 * on a dead node's disk status said "crash loop" where report and check said none). Null (the
 * journal's own end) when no file can be looked at.
 */
function journalLastWrite(dir: string): number | null {
  let newest = -Infinity;
  // The files journalctl reads there (sources.ts: links followed, machine-id directories only).
  for (const f of journalFiles([dir]).files) {
    try {
      newest = Math.max(newest, fs.statSync(f).mtimeMs);
    } catch {
      /* gone meanwhile */
    }
  }
  return Number.isFinite(newest) ? Math.min(newest, Date.now()) : null;
}

/**
 * A read cut short holds the oldest of the newest entries, or nothing: what it found is told
 * as such, and it is no ground for "no events" or "no crash loop" (`reason` set: report's
 * crashLoop is then not checked; found by review: a slow journalctl read as a clean node).
 */
function cutShort(e: Evidence, timeoutMs: number): Evidence {
  const cut = `journalctl did not finish within ${timeoutMs} ms`;
  if (!e.lastEvent && !e.crashLoop) return { ...none(`journal not read: ${cut}, so events and crash loops were not checked`), cutShort: true };
  return { ...e, summary: e.summary && `${e.summary} (journal read cut short: ${cut})`, reason: e.crashLoop ? e.reason : `journal read cut short: ${cut}, so crash loops were not fully checked`, cutShort: true };
}

/**
 * The evidence a result holds (pure; also used on results read some other way). With `now`
 * (the live journal), a crash loop counts only while it lasts: the newest entry read is at
 * most the crash-loop window old. A loop that ended long ago (the kubelet has run quietly
 * since, or systemd gave up: start-limit-hit is then the last event) is no current problem,
 * and `check --npd` must not hold a node condition on it. Under --root (a dead node's disk)
 * the journal's end is the moment that matters, and the loop counts as read.
 */
export function evidenceOf(r: JournalResult, now: number | null = null): Evidence {
  const loop = r.crashLoop && (now === null || endedWithin(r.events, now, CRASH_LOOP_WINDOW_MS));
  const res = loop === r.crashLoop ? r : { ...r, crashLoop: loop };
  const last = lastRelevant(res.events);
  const running = res.processes.at(-1)?.loaded ?? null;
  if (!last) return { ...none('no kubelet config events in the newest journal entries'), restarts: res.restarts, crashLoop: loop, running };
  return { lastEvent: last, summary: printable(describe(last, res)), restarts: res.restarts, crashLoop: loop, running, reason: null };
}

/** Whether the newest timed event is at most `windowMs` before `now` (or after it: a clock ahead). */
function endedWithin(events: readonly JournalEvent[], now: number, windowMs: number): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const t = events[i]!.time;
    if (t === null) continue;
    const ms = Date.parse(t);
    if (Number.isFinite(ms)) return ms >= now - windowMs;
  }
  return false;
}

function lastRelevant(events: readonly JournalEvent[]): JournalEvent | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (!RELEVANT.has(e.kind)) continue;
    if (e.kind === 'kubelet-exited' && !e.exitStatus) continue; // a clean exit says less than what preceded it
    return e;
  }
  return null;
}

function describe(e: JournalEvent, r: JournalResult): string {
  const when = e.time ? e.time.slice(0, 19).replace('T', ' ') + 'Z' : 'at an unknown time';
  const ref = shortRef(e);
  const loop = r.crashLoop ? ' — crash loop' : '';
  switch (e.kind) {
    case 'restart-for-config':
      return `${when} kubelet restarted to use ${cmName(e) ?? 'a ConfigMap'} (${ref})${loop}`;
    case 'restart-for-local':
      return `${when} kubelet restarted to use its local config${loop}`;
    case 'checkpoint-load': {
      // What the last restart restarted to: the restart line and the new process's load.
      const restart = lastBefore(r.events, e, (x) => x.kind === 'restart-for-config' && x.uid === e.uid && x.resourceVersion === e.resourceVersion);
      if (restart?.time) return `${restart.time.slice(0, 19).replace('T', ' ')}Z kubelet restarted to use ${cmName(e) ?? 'a ConfigMap'} (${ref}), loaded by pid ${e.pid ?? '?'}${loop}`;
      return `${when} kubelet (pid ${e.pid ?? '?'}) loaded ${cmName(e) ?? 'checkpoint'} (${ref})${loop}`;
    }
    case 'lkg-updated':
      return `${when} last-known-good became ${cmName(e) ?? ''} (${ref})${loop}`.replace(' ()', '');
    default:
      return `${when} ${e.kind}: ${eventText(e)}${loop}`;
  }
}

function lastBefore(events: readonly JournalEvent[], e: JournalEvent, pred: (x: JournalEvent) => boolean): JournalEvent | null {
  for (let i = events.indexOf(e) - 1; i >= 0; i--) if (pred(events[i]!)) return events[i]!;
  return null;
}

function cmName(e: JournalEvent): string | null {
  const m = e.apiPath ? /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/.exec(e.apiPath) : null;
  return m ? `${m[1]}/${m[2]}` : null;
}

function readableDir(d: string): boolean {
  try {
    fs.accessSync(d, fs.constants.R_OK | fs.constants.X_OK);
    return fs.statSync(d).isDirectory();
  } catch {
    return false;
  }
}
