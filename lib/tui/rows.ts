// The left pane: every UID, and under it its resourceVersions in order, each with its
// markers. Rows are plain data built from the snapshot; rendering one row is a pure
// function of the row, its verify state and the width.

import { decodeMetaState } from '../store/meta.js';
import { orderRVs } from '../store/order.js';
import type { Checkpoint, Snapshot } from '../store/snapshot.js';
import type { NextBoot } from '../integrity/nextboot.js';
import type { VerifyState } from '../store/list.js';
import { fit, printable, type Painter } from './text.js';

export interface UidRow {
  kind: 'uid';
  uid: string;
  /** `namespace/name` when a meta file (or the journal) names this UID. */
  configMap: string | null;
  count: number;
}

export interface CheckpointRow {
  kind: 'checkpoint';
  uid: string;
  rv: string;
  /** `UID/RV` */
  id: string;
  rel: string;
  mtimeMs: number;
  configMap: string | null;
  assigned: boolean;
  lkg: boolean;
  /** The kubelet will run this checkpoint at its next start. */
  boot: boolean;
  /** Not a directory (a symlink or a stray file in its place). */
  odd: boolean;
}

export type Row = UidRow | CheckpointRow;

function metaId(snap: Snapshot, name: 'assigned' | 'last-known-good'): string | null {
  const d = decodeMetaState(snap.meta[name]);
  return d.state === 'source' ? `${d.source.uid}/${d.source.resourceVersion}` : null;
}

/** ConfigMap names by UID: the meta files first, then names learned elsewhere (the journal). */
export function configMapNames(snap: Snapshot, learned?: ReadonlyMap<string, { namespace: string; name: string }>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [uid, n] of learned ?? []) out.set(uid, `${n.namespace}/${n.name}`);
  for (const name of ['last-known-good', 'assigned'] as const) {
    const d = decodeMetaState(snap.meta[name]);
    if (d.state === 'source' && d.source.uid && d.source.name) out.set(d.source.uid, `${d.source.namespace}/${d.source.name}`);
  }
  return out;
}

/**
 * A checkpoint's row, whose entry facts are read when the row is drawn: a checkpoint's entry
 * is examined when first asked (lib/store/snapshot.ts), and the first screen shows twenty of
 * 10,000 rows. (A class: getters in 10,000 object literals cost more than the lstats saved.)
 */
class ListedRow implements CheckpointRow {
  readonly kind = 'checkpoint';
  readonly uid: string;
  readonly rv: string;
  readonly rel: string;

  constructor(
    private readonly cp: Checkpoint,
    readonly id: string,
    readonly configMap: string | null,
    readonly assigned: boolean,
    readonly lkg: boolean,
    readonly boot: boolean,
  ) {
    this.uid = cp.uid;
    this.rv = cp.rv;
    this.rel = cp.rel;
  }

  get mtimeMs(): number {
    return this.cp.entry.mtimeMs;
  }

  get odd(): boolean {
    return this.cp.entry.kind !== 'dir';
  }
}

/** UID by UID (name order), resourceVersions oldest first, as `ls` lists them. */
export function buildRows(snap: Snapshot, nextBoot: NextBoot | null, names: ReadonlyMap<string, string>): Row[] {
  const assigned = metaId(snap, 'assigned');
  const lkg = metaId(snap, 'last-known-good');
  const boot = nextBoot?.ref && (nextBoot.source === 'assigned' || nextBoot.source === 'last-known-good') ? `${nextBoot.ref.uid}/${nextBoot.ref.resourceVersion}` : null;
  const rows: Row[] = [];
  for (const u of snap.uids) {
    const configMap = names.get(u.uid) ?? null;
    rows.push({ kind: 'uid', uid: u.uid, configMap, count: u.checkpoints.length });
    for (const cp of orderRVs(u.checkpoints)) {
      const id = `${cp.uid}/${cp.rv}`;
      rows.push(new ListedRow(cp, id, configMap, id === assigned, id === lkg, id === boot));
    }
  }
  return rows;
}

/** `MM-DD HH:MM` in UTC. */
export function shortStamp(ms: number): string {
  if (!ms) return '';
  const iso = new Date(ms).toISOString();
  return `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

export interface RowView {
  width: number;
  selected: boolean;
  /** The list has the focus (the selection is drawn in inverse video; otherwise underlined). */
  focused: boolean;
  marked: boolean;
  verify: VerifyState | undefined;
  p: Painter;
}

/** The five marker columns: `*` marked for diff, `A`, `L`, `B`, then `!` errors / `?` warnings. */
export function markers(r: CheckpointRow, marked: boolean, verify: VerifyState | undefined): string {
  return `${marked ? '*' : ' '}${r.assigned ? 'A' : ' '}${r.lkg ? 'L' : ' '}${r.boot ? 'B' : ' '}${verify === 'error' ? '!' : verify === 'warning' ? '?' : ' '}`;
}

/** One line of the left pane, exactly `v.width` columns, in blessed tags. */
export function renderRow(r: Row, v: RowView): string {
  const { p } = v;
  if (r.kind === 'uid') {
    const uid = printable(r.uid);
    const name = r.configMap ? printable(r.configMap) : '';
    // 36 characters of UID rarely fit beside the name: the first 8 say which one it is.
    const head = v.width >= uid.length + name.length + 2 ? uid : uid.slice(0, 8);
    return p.paint(fit(`${head}${name ? ` ${name}` : ''}`, v.width), 'bold');
  }
  const marks = markers(r, v.marked, v.verify);
  const stamp = shortStamp(r.mtimeMs);
  const rvRoom = v.width - marks.length - 1;
  const withStamp = rvRoom - stamp.length - 1 >= Math.min(12, printable(r.rv).length) && stamp;
  const rv = withStamp ? fit(printable(r.rv), rvRoom - stamp.length - 1) + ' ' + stamp : fit(printable(r.rv), rvRoom);
  const text = fit(`${marks} ${rv}`, v.width);
  if (v.selected) return p.paint(text, v.focused ? 'inverse' : 'underline');
  if (v.verify === 'error') return p.paint(text, 'red');
  if (v.verify === 'warning') return p.paint(text, 'yellow');
  return p.paint(text);
}
