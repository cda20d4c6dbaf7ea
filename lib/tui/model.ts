// The state behind the screen: the session (snapshot and judge), the rows, the selection,
// the filter, the tabs, verify results as they come in, and the journal once read. Every
// fact comes from lib/ (snapshot, status, verify, journal); this file only keeps them and
// decides what is selected. Nothing here draws or touches the terminal.

import type { Session } from '../session.js';
import { asCkptError } from '../errors.js';
import { buildStatus, type StatusReport } from '../integrity/status.js';
import { verifySession } from '../integrity/run.js';
import { verifyStore } from '../integrity/verify.js';
import type { Finding } from '../integrity/findings.js';
import path from 'node:path';
import { allCheckpoints, findCheckpoint, statEntry, type Checkpoint } from '../store/snapshot.js';
import { checkpointOfFinding, type VerifyState } from '../store/list.js';
import type { JournalResult, ReadJournalOptions } from '../journal/index.js';
import { EMPTY_FILTER, matches, parseFilter, type Filter } from './filter.js';
import { buildRows, configMapNames, type CheckpointRow, type Row } from './rows.js';

export const TABS = ['Payload', 'Diff', 'Findings', 'Timeline', 'Meta'] as const;
export type TabName = (typeof TABS)[number];

/** Where the journal comes from, as the global options and `journal` name it; null: --no-journal. */
export type JournalSource = Pick<ReadJournalOptions, 'source' | 'file' | 'dir' | 'root' | 'since' | 'until' | 'year' | 'utc'>;

export interface JournalState {
  state: 'off' | 'idle' | 'loading' | 'ready' | 'error';
  result: JournalResult | null;
  /** Per event: the UID it names or was attributed to (lib/journal correlate). */
  concerns: (string | null)[];
  error: string | null;
  /** ConfigMap names the journal teaches, by UID. */
  names: Map<string, { namespace: string; name: string; key: string | null }>;
}

export interface ModelOptions {
  session: Session;
  /** Re-read the store (the same global options); throws a CkptError when it cannot. */
  reopen: () => Session;
  readOnly: boolean;
  journal: JournalSource | null;
  now?: () => Date;
}

function worst(findings: readonly Finding[]): VerifyState {
  let s: VerifyState = 'ok';
  for (const f of findings) {
    if (f.severity === 'error') return 'error';
    if (f.severity === 'warning') s = 'warning';
  }
  return s;
}

const isCheckpointRef = (ref: string | null): ref is string => !!ref && ref.includes('/') && !ref.startsWith('meta/');

/**
 * Stores of at most this many checkpoints get their store-wide checks at once when Findings is
 * opened (~20 ms); on a larger one the checks themselves take longer than a key press may
 * (~65 ms on 10,000, after the reading), so the sweep runs them.
 */
const CHECK_NOW_MAX = 300;

export class Model {
  session: Session;
  status!: StatusReport;
  /** Findings not about one checkpoint: meta files, the store, next boot. */
  storeFindings: Finding[] = [];
  /** The store-wide checks have run (they run at the sweep's first step, after the first screen). */
  storeChecked = false;
  /** Why the sweep stopped before it was done (its step threw), else null: what was not checked says so instead of "checking…". */
  sweepError: string | null = null;
  rows: Row[] = [];
  /** Indexes into `rows` of what the filter lets through (UID rows with at least one match). */
  shown: number[] = [];
  /** Indexes into `rows` of the selectable (checkpoint) rows in `shown`. */
  selectable: number[] = [];
  /** Position in `selectable`. */
  cursor = 0;
  /** First line of the list on screen. */
  listTop = 0;
  filter: Filter = EMPTY_FILTER;
  mark: string | null = null;
  tab = 0;
  raw = false;
  unified = false;
  /** Timeline: every event of the store (also those naming no UID) instead of the selection's. */
  storeTimeline = false;
  /** `/` in a tab: the text searched for (case-insensitive), '' for none. */
  search = '';
  focus: 'list' | 'content' = 'list';
  scroll = 0;
  /** Per `UID/RV`: its findings once verified. */
  verified = new Map<string, Finding[]>();
  private queue: string[] = [];
  private queuePos = 0;
  /** The checkpoints whose entries and listings the store-wide checks read, read a slice per step first. */
  private toRead: Checkpoint[] | null = null;
  private toReadPos = 0;
  private chunk = 4;
  /** Bumped whenever verify results change (content caches key on it). */
  verifyVersion = 0;
  /** Bumped at every read of the store. */
  generation = 0;
  journal: JournalState;
  journalVersion = 0;
  /** The last re-read failed: why (the rows still show the last good read). */
  loadError: string | null = null;
  /** Something changed on disk since the store was read. */
  stale = false;
  readAt: Date;
  readonly readOnly: boolean;
  private readonly reopen: () => Session;
  private readonly journalSource: JournalSource | null;
  private readonly now: () => Date;

  constructor(o: ModelOptions) {
    this.session = o.session;
    this.reopen = o.reopen;
    this.readOnly = o.readOnly;
    this.journalSource = o.journal;
    this.now = o.now ?? (() => new Date());
    this.readAt = this.now();
    this.journal = { state: o.journal ? 'idle' : 'off', result: null, concerns: [], error: null, names: new Map() };
    this.build();
    // Start where an operator looks first: the assigned checkpoint, else what boots next.
    const first = this.rows.find((r): r is CheckpointRow => r.kind === 'checkpoint' && r.assigned) ?? this.rows.find((r): r is CheckpointRow => r.kind === 'checkpoint' && r.boot);
    if (first) this.select(first.id);
  }

  // ---- reading --------------------------------------------------------------------------

  /** Status, rows; the verify sweep starts over (store-wide checks first, at its first step). */
  private build(): void {
    const s = this.session;
    this.status = buildStatus(s, []);
    this.storeFindings = [];
    this.storeChecked = false;
    this.sweepError = null;
    this.toRead = null;
    this.toReadPos = 0;
    this.rows = buildRows(s.snap, this.status.nextBoot, configMapNames(s.snap, this.journal.names));
    this.verified = new Map();
    this.queue = this.rows.filter((r): r is CheckpointRow => r.kind === 'checkpoint').map((r) => r.id);
    this.queuePos = 0;
    this.verifyVersion++;
    this.generation++;
    if (this.mark && !this.rows.some((r) => r.kind === 'checkpoint' && r.id === this.mark)) this.mark = null;
    this.applyFilter(this.selected()?.id ?? null);
  }

  /**
   * What `status` checks: the meta files, the store's layout and permissions, and the payloads
   * that decide the next boot (judged in full, so those checkpoints are verified already).
   */
  private checkStore(): void {
    const referenced = verifySession(this.session, [], 'referenced').findings;
    this.status = { ...this.status, problems: referenced.filter((f) => f.severity !== 'info') };
    // A finding reached through a meta file (PAYLOAD_KEY_MISSING, …) is its checkpoint's, as in
    // ls (found by review: the list marked a last-known-good the kubelet cannot load as clean).
    const rowIds = new Set(this.rows.filter((r) => r.kind === 'checkpoint').map((r) => (r as CheckpointRow).id));
    const owner = (f: Finding) => (isCheckpointRef(f.ref) ? f.ref : checkpointOfFinding(f));
    this.storeFindings = referenced.filter((f) => !rowIds.has(owner(f) ?? ''));
    for (const r of this.rows) if (r.kind === 'checkpoint' && (r.assigned || r.lkg)) this.verified.set(r.id, referenced.filter((f) => owner(f) === r.id));
    this.storeChecked = true;
    this.verifyVersion++;
  }

  /**
   * Re-read the store (and, with `journal`, the journal when next shown). On failure the last
   * good read stays on screen and `loadError` says why.
   */
  reload(journal = true): boolean {
    const keep = this.selected()?.id ?? null;
    // Cleared before the read: a change the watcher sees while it reads marks it stale again.
    const wasStale = this.stale;
    this.stale = false;
    let s: Session;
    try {
      s = this.reopen();
    } catch (err) {
      this.loadError = asCkptError(err).message;
      this.stale = wasStale || this.stale;
      return false;
    }
    this.session = s;
    this.loadError = null;
    this.readAt = this.now();
    this.build();
    this.select(keep);
    if (journal && this.journal.state !== 'off' && this.journal.state !== 'loading') {
      this.journal = { ...this.journal, state: 'idle' };
      this.journalVersion++;
    }
    return true;
  }

  // ---- verify, a slice at a time ----------------------------------------------------------

  get verifyTotal(): number {
    return this.queue.length;
  }

  get verifyDone(): number {
    return this.queuePos;
  }

  get verifying(): boolean {
    return this.sweepError === null && (!this.storeChecked || this.queuePos < this.queue.length);
  }

  /** The sweep stopped: `verifying` is false from now on, and what it had not checked says why. */
  sweepFailed(reason: string): void {
    this.sweepError = reason;
    this.verifyVersion++;
  }

  /**
   * One step of the sweep: the store-wide checks first, then one batch of checkpoints sized
   * to take about `targetMs` (verify has a fixed cost per call, so batches are not tiny).
   * Returns false when every checkpoint is done.
   */
  verifyStep(targetMs = 20): boolean {
    if (!this.storeChecked) {
      if (this.readSlice(targetMs)) return true;
      this.checkStore();
      return this.verifying;
    }
    while (this.queuePos < this.queue.length) {
      const ids = this.queue.slice(this.queuePos, this.queuePos + this.chunk).filter((id) => !this.verified.has(id));
      this.queuePos = Math.min(this.queue.length, this.queuePos + this.chunk);
      if (!ids.length) continue;
      const t0 = performance.now();
      this.verifyIds(ids);
      const took = performance.now() - t0;
      if (took < targetMs * 0.7) this.chunk = Math.min(512, Math.ceil(this.chunk * 1.5));
      else if (took > targetMs * 1.3) this.chunk = Math.max(1, Math.floor(this.chunk * 0.6));
      break;
    }
    this.verifyVersion++;
    return this.verifying;
  }

  /**
   * Read the next checkpoints' entries and listings (what the store-wide checks look at for
   * every checkpoint) for about `targetMs`; true while some are left. On a large store that
   * reading is most of the checks, and in one step it kept keys waiting for half a second.
   */
  private readSlice(targetMs: number): boolean {
    this.toRead ??= allCheckpoints(this.session.snap);
    const t0 = performance.now();
    while (this.toReadPos < this.toRead.length) {
      const cp = this.toRead[this.toReadPos++]!;
      if (cp.entry.kind === 'dir') void cp.files;
      if ((this.toReadPos & 15) === 0 && performance.now() - t0 > targetMs) break;
    }
    return this.toReadPos < this.toRead.length;
  }

  private verifyIds(ids: string[]): void {
    const s = this.session;
    const only = new Set(ids);
    const report = verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version, only, payloads: 'all' });
    const by = new Map<string, Finding[]>(ids.map((id) => [id, []]));
    for (const f of report.findings) if (f.ref && by.has(f.ref)) by.get(f.ref)!.push(f);
    for (const [id, fs] of by) this.verified.set(id, fs);
  }

  /**
   * The findings of one checkpoint, verifying it now when the sweep has not reached it. The
   * store-wide checks run now too on a small store; on a large one the sweep reads the store a
   * slice at a time and then runs them (storeChecked stays false until then).
   */
  findingsOf(id: string): Finding[] {
    if (!this.storeChecked && (this.toRead ??= allCheckpoints(this.session.snap)).length <= CHECK_NOW_MAX) this.checkStore();
    let fs = this.verified.get(id);
    if (!fs) {
      this.verifyIds([id]);
      this.verifyVersion++;
      fs = this.verified.get(id)!;
    }
    return fs;
  }

  stateOf(id: string): VerifyState | undefined {
    const fs = this.verified.get(id);
    return fs ? worst(fs) : undefined;
  }

  /** Errors and warnings found so far: store-wide ones plus every verified checkpoint's. */
  problemCount(): { error: number; warning: number } {
    const c = { error: 0, warning: 0 };
    const add = (f: Finding) => {
      if (f.severity === 'error') c.error++;
      else if (f.severity === 'warning') c.warning++;
    };
    this.storeFindings.forEach(add);
    for (const fs of this.verified.values()) fs.forEach(add);
    return c;
  }

  // ---- rows, selection, filter ------------------------------------------------------------

  selected(): CheckpointRow | null {
    const i = this.selectable[this.cursor];
    return i === undefined ? null : (this.rows[i] as CheckpointRow);
  }

  /** The checkpoint row with this `UID/RV` id, if the last read listed it. */
  checkpointRow(id: string): CheckpointRow | null {
    const r = this.rows.find((x) => x.kind === 'checkpoint' && x.id === id);
    return r && r.kind === 'checkpoint' ? r : null;
  }

  /** The checkpoint before the selection in its UID's order, or null. */
  previousOf(row: CheckpointRow): CheckpointRow | null {
    const i = this.rows.indexOf(row);
    const prev = this.rows[i - 1];
    return prev && prev.kind === 'checkpoint' && prev.uid === row.uid ? prev : null;
  }

  select(id: string | null): void {
    if (id === null) return;
    const pos = this.selectable.findIndex((i) => (this.rows[i] as CheckpointRow).id === id);
    if (pos >= 0) this.setCursor(pos);
  }

  setCursor(pos: number): void {
    const n = this.selectable.length;
    const next = n === 0 ? 0 : Math.max(0, Math.min(n - 1, pos));
    if (next !== this.cursor) this.scroll = 0;
    this.cursor = next;
  }

  move(delta: number): void {
    this.setCursor(this.cursor + delta);
  }

  filterable(r: CheckpointRow) {
    return { uid: r.uid, rv: r.rv, configMap: r.configMap, assigned: r.assigned, lkg: r.lkg, boot: r.boot, marked: this.mark === r.id, verify: this.stateOf(r.id) };
  }

  setFilter(text: string): void {
    this.filter = text.trim() ? parseFilter(text) : EMPTY_FILTER;
    this.applyFilter(this.selected()?.id ?? null);
  }

  private applyFilter(keep: string | null): void {
    const f = this.filter;
    const shown: number[] = [];
    const selectable: number[] = [];
    let header = -1;
    let headerShown = false;
    for (let i = 0; i < this.rows.length; i++) {
      const r = this.rows[i]!;
      if (r.kind === 'uid') {
        header = i;
        headerShown = false;
        if (!f.terms.length) shown.push(i);
        continue;
      }
      if (f.terms.length && !matches(f, this.filterable(r))) continue;
      if (f.terms.length && !headerShown && header >= 0) {
        shown.push(header);
        headerShown = true;
      }
      shown.push(i);
      selectable.push(i);
    }
    this.shown = shown;
    this.selectable = selectable;
    const pos = keep === null ? -1 : selectable.findIndex((i) => (this.rows[i] as CheckpointRow).id === keep);
    this.cursor = pos >= 0 ? pos : Math.min(this.cursor, Math.max(0, selectable.length - 1));
    this.listTop = 0;
  }

  /** Keep the selection inside a list window of `height` lines; returns the first line shown. */
  windowFor(height: number): number {
    const i = this.selectable[this.cursor];
    if (i === undefined) return (this.listTop = 0);
    const line = this.shown.indexOf(i);
    if (line < this.listTop) this.listTop = line;
    else if (line >= this.listTop + height) this.listTop = line - height + 1;
    // Show the UID heading above the first resourceVersion when it fits.
    if (this.listTop === line && line > 0 && this.rows[this.shown[line - 1]!]!.kind === 'uid') this.listTop = line - 1;
    this.listTop = Math.max(0, Math.min(this.listTop, Math.max(0, this.shown.length - height)));
    return this.listTop;
  }

  toggleMark(): void {
    const sel = this.selected();
    if (!sel) return;
    this.mark = this.mark === sel.id ? null : sel.id;
  }

  /** The selection is still on disk in the snapshot (and was a directory when read). */
  selectedCheckpoint() {
    const r = this.selected();
    return r ? findCheckpoint(this.session.snap, r.uid, r.rv) : null;
  }

  /** Whether a checkpoint's directory is still on disk now (not only in the snapshot); marks the view stale when not. */
  onDisk(r: CheckpointRow): boolean {
    const e = statEntry(path.join(this.session.snap.storeDir, r.rel), r.rel, r.rv);
    if (e.kind === 'missing') this.stale = true;
    return e.kind !== 'missing';
  }

  // ---- journal -------------------------------------------------------------------------------

  /** Read the journal once (on first view of the Timeline tab, and again after a reload). */
  /** The load in progress: a second caller (recovery asking for the journal's names) waits for it. */
  private journalLoad: Promise<void> | null = null;

  loadJournal(): Promise<void> {
    if (this.journal.state === 'loading' && this.journalLoad) return this.journalLoad;
    if (!this.journalSource || this.journal.state === 'ready' || this.journal.state === 'error') return Promise.resolve();
    return (this.journalLoad = this.readJournal().finally(() => (this.journalLoad = null)));
  }

  private async readJournal(): Promise<void> {
    this.journal = { ...this.journal, state: 'loading' };
    this.journalVersion++;
    try {
      const { readJournal, correlate, namesByUid } = await import('../journal/index.js');
      const { storeViewOf } = await import('../journal/store-view.js');
      const view = storeViewOf(this.session.snap);
      const src = this.journalSource!;
      const live = (src.source ?? (src.file ? 'file' : src.dir ? 'journal-dir' : 'auto')) === 'auto';
      const result = await readJournal({ ...src, store: view, ...(live ? { lines: 50_000, timeoutMs: 10_000 } : {}) });
      const concerns = correlate(result.events, view).concerns;
      const names = namesByUid(result.events);
      this.journal = { state: 'ready', result, concerns, error: null, names };
      // The journal may name ConfigMaps the meta files do not.
      const byUid = configMapNames(this.session.snap, names);
      for (const r of this.rows) if (!r.configMap && byUid.has(r.uid)) r.configMap = byUid.get(r.uid)!;
    } catch (err) {
      this.journal = { ...this.journal, state: 'error', error: asCkptError(err).message };
    }
    this.journalVersion++;
  }
}
