// One side of a diff: a ref resolved through the store (DESIGN.md "Refs"), its bytes read
// through the same capped reader as `show`, decoded, and labelled for people.

import { printable } from '../output/sanitize.js';

export { printable };
import { UsageError, CkptError } from '../errors.js';
import { metaSources, resolveRef, type Resolved } from '../store/refs.js';
import { refBytes } from '../store/show.js';
import { orderRVs } from '../store/order.js';
import type { PayloadReader, Snapshot } from '../store/snapshot.js';
import { decodeDocument, type Decoded } from './decode.js';
import { asText } from './unified.js';

/** What the JSON output says about a side (DESIGN.md `diff`). */
export interface Side {
  /** The ref as given (`assigned` for the implicit second side). */
  ref: string;
  /** Null for files and `local`. */
  uid: string | null;
  resourceVersion: string | null;
  /** Store-relative for store files, absolute otherwise. */
  path: string;
}

export interface LoadedSide extends Side {
  kind: Resolved['kind'];
  /** For `---`/`+++` lines and headings: the ref and what it resolved to. */
  label: string;
  /** The meta file the ref went through (`assigned`, `last-known-good`), if any. */
  via: string | null;
  bytes: Buffer;
  /** UTF-8 text, or null for binary content. */
  text: string | null;
  decoded: Decoded;
}

/** Everything the diff needs from a session. */
export interface DiffSource {
  snap: Snapshot;
  reader: PayloadReader;
  /** Host path of the node's --config file, when known. */
  localConfig: string | null;
  cwd?: string;
}

/** The default label: the ref, and what it resolved to when that is not obvious from the ref. */
export function defaultLabel(r: Resolved, path: string): string {
  switch (r.kind) {
    case 'checkpoint': {
      const id = `${r.checkpoint.uid}/${r.checkpoint.rv}`;
      return printable(r.ref === id ? id : `${r.ref} (${id})`);
    }
    case 'local':
      return printable(r.ref === 'local' ? `local (${path})` : `${r.ref} (local: ${path})`);
    default:
      return printable(r.ref);
  }
}

const MAX_CANDIDATES = 8;

/** The refs this store offers, for "unknown ref" messages. */
export function candidates(snap: Snapshot): string {
  const ids: string[] = [];
  for (const u of snap.uids) for (const cp of orderRVs(u.checkpoints)) ids.push(`${cp.uid}/${cp.rv}`);
  const shown = ids.slice(0, MAX_CANDIDATES);
  const more = ids.length > shown.length ? `, … ${ids.length - shown.length} more (see \`kubelet-ckpt ls\`)` : '';
  return ['assigned', 'last-known-good', 'local', ...shown].join(', ') + more;
}

/** Run a ref lookup; an unknown ref comes back with the store's refs listed. */
export function withCandidates<T>(snap: Snapshot, lookup: () => T): T {
  try {
    return lookup();
  } catch (err) {
    if (err instanceof CkptError && err.code === 'UNKNOWN_REF') {
      const hint = [err.hint && !err.hint.includes('kubelet-ckpt ls') ? err.hint : null, `refs in this store: ${candidates(snap)}`].filter(Boolean).join('; ');
      throw new UsageError(err.message, hint, err.code);
    }
    throw err;
  }
}

/** resolveRef, with the store's refs listed when the ref is unknown. */
export function resolveForDiff(src: DiffSource, ref: string, key: string | null): Resolved {
  return withCandidates(src.snap, () => resolveRef(src.snap, ref, { key, localConfig: src.localConfig, ...(src.cwd ? { cwd: src.cwd } : {}) }));
}

/** Read and decode a resolved ref. Throws the typed errors of `refBytes` (exit 2 or 3). */
export function loadSide(src: DiffSource, r: Resolved, label?: string): LoadedSide {
  const b = refBytes(src.snap, src.reader, r);
  const cp = r.kind === 'checkpoint' ? r.checkpoint : null;
  return {
    ref: r.ref,
    uid: cp?.uid ?? null,
    resourceVersion: cp?.rv ?? null,
    path: b.path,
    kind: r.kind,
    label: label ? printable(label) : defaultLabel(r, b.path),
    via: r.kind === 'meta' || r.kind === 'file' ? null : r.via,
    bytes: b.bytes,
    text: asText(b.bytes),
    decoded: decodeDocument(b.bytes),
  };
}

/** Two resolved refs that name the same bytes on disk (same checkpoint file, same path). */
export function sameSource(a: Resolved, b: Resolved): boolean {
  if (a.kind === 'checkpoint' && b.kind === 'checkpoint') return a.checkpoint.rel === b.checkpoint.rel && a.key === b.key;
  if ((a.kind === 'local' || a.kind === 'file') && (b.kind === 'local' || b.kind === 'file')) return a.path !== null && a.path === b.path;
  if (a.kind === 'meta' && b.kind === 'meta') return a.name === b.name;
  return false;
}

/** `namespace/name` of a UID's ConfigMap when a meta file records it. */
export function configMapOf(snap: Snapshot, uid: string): string | null {
  const s = metaSources(snap).get(uid)?.source;
  return s ? `${s.namespace}/${s.name}` : null;
}
