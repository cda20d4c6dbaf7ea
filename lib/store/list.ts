// The `ls` report: every checkpoint with its files, sizes, hashes and markers.

import { sha256Hex } from '../builtins.js';
import { decodeMetaState } from './meta.js';
import { orderRVs } from './order.js';
import { entryWords, type Checkpoint, type PayloadReader, type Snapshot } from './snapshot.js';
import type { Finding } from '../integrity/findings.js';
import { resolveUid } from './refs.js';

export type VerifyState = 'ok' | 'warning' | 'error';

export interface ListedFile {
  name: string;
  size: number;
  /** Hex SHA-256 of the file; null when it could not be read (or is over the cap). */
  sha256: string | null;
}

export interface ListedCheckpoint {
  uid: string;
  resourceVersion: string;
  path: string;
  /** null when the directory could not be examined: never a made-up time. */
  modified: string | null;
  files: ListedFile[];
  assigned: boolean;
  lastKnownGood: boolean;
  /** The kubelet will run this checkpoint at its next start (marker B), when that was predicted. */
  bootsNext?: boolean;
  /** Worst finding severity for this checkpoint, when verify ran. */
  verify?: VerifyState;
}

/** An entry of checkpoints/ that may hold checkpoints but was not listed: why. */
export interface UnlistedEntry {
  path: string;
  why: string;
}

export interface ListReport {
  checkpoints: ListedCheckpoint[];
  /** UID directories that could not be listed, and links there (never followed): never "no checkpoints" in silence. */
  unlisted: UnlistedEntry[];
}

function marked(snap: Snapshot): { assigned: string | null; lkg: string | null } {
  const key = (n: 'assigned' | 'last-known-good') => {
    const d = decodeMetaState(snap.meta[n]);
    return d.state === 'source' ? `${d.source.uid}/${d.source.resourceVersion}` : null;
  };
  return { assigned: key('assigned'), lkg: key('last-known-good') };
}

function listFile(reader: PayloadReader, cp: Checkpoint, name: string, size: number): ListedFile {
  const r = reader.read(cp, name);
  const sha256 = r.ok && !r.truncated ? (r.sha256 ?? sha256Hex(r.bytes)) : null;
  return { name, size, sha256 };
}

export interface ListOptions {
  uid?: string | undefined;
  /** Worst verify state per `UID/RV` (absent = ok), when the caller ran verify. */
  verify?: Map<string, VerifyState>;
  /** `UID/RV` of the checkpoint the next boot runs (null: local, none or unknown), when predicted. */
  bootsNext?: string | null;
}

/** List checkpoints UID by UID (in name order), resourceVersions oldest first. */
export function buildList(snap: Snapshot, reader: PayloadReader, opts: ListOptions = {}): ListReport {
  const m = marked(snap);
  const only = opts.uid ? resolveUid(snap, opts.uid).uid : null;
  const out: ListedCheckpoint[] = [];
  for (const u of snap.uids) {
    if (only !== null && u.uid !== only) continue;
    for (const cp of orderRVs(u.checkpoints)) {
      const id = `${cp.uid}/${cp.rv}`;
      const item: ListedCheckpoint = {
        uid: cp.uid,
        resourceVersion: cp.rv,
        path: cp.rel,
        modified: cp.entry.kind === 'missing' || cp.entry.kind === 'unreadable' ? null : new Date(cp.entry.mtimeMs).toISOString(),
        files: cp.files.map((f) => listFile(reader, cp, f.name, f.size)),
        assigned: m.assigned === id,
        lastKnownGood: m.lkg === id,
      };
      if (opts.bootsNext !== undefined) item.bootsNext = opts.bootsNext === id;
      if (opts.verify) item.verify = opts.verify.get(id) ?? 'ok';
      out.push(item);
    }
  }
  const unlisted: UnlistedEntry[] = [];
  for (const u of snap.uids) {
    if (only !== null && u.uid !== only) continue;
    if (u.listError) unlisted.push({ path: u.entry.rel, why: u.listError });
    // A checkpoint shown with no files because they could not be listed says so.
    for (const cp of u.checkpoints) {
      if (cp.entry.kind !== 'dir') unlisted.push({ path: cp.rel, why: entryWords(cp.entry) });
      else if (cp.listError) unlisted.push({ path: cp.rel, why: cp.listError });
    }
  }
  if (only === null) {
    const c = snap.checkpointsDir;
    if (c.kind === 'unreadable') unlisted.push({ path: 'checkpoints', why: c.error ?? 'cannot be read' });
    for (const e of snap.checkpointsOthers) {
      if (e.kind === 'symlink') unlisted.push({ path: e.rel, why: entryWords(e) });
      else if (e.kind === 'unreadable' || e.error) unlisted.push({ path: e.rel, why: e.error ?? 'cannot be read' });
    }
  }
  return { checkpoints: out, unlisted };
}

/** The checkpoint a finding is about: its ref when that is a `UID/RV`, else the checkpoint its path lies in. */
export function checkpointOfFinding(x: Finding): string | null {
  if (x.ref?.includes('/')) return x.ref;
  // Findings reached through a meta file (PAYLOAD_KEY_MISSING, LKG_UNUSABLE) name the meta file as ref.
  const m = x.path?.match(/^checkpoints\/([^/]+)\/([^/]+)/);
  return m ? `${m[1]}/${m[2]}` : null;
}

/** The worst severity per `UID/RV` (info does not count); checkpoints without findings are ok. */
export function verifyStates(findings: readonly Finding[]): Map<string, VerifyState> {
  const m = new Map<string, VerifyState>();
  for (const x of findings) {
    const id = checkpointOfFinding(x);
    if (!id || x.severity === 'info') continue;
    if (x.severity === 'error' || !m.has(id)) m.set(id, x.severity);
  }
  return m;
}
