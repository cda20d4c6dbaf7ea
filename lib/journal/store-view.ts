// What the journal correlation needs to know about the store: the checkpoints on disk and
// the sources the meta files name (namespace/name for UIDs the journal mentions).

import { decodeMetaState } from '../store/meta.js';
import { allCheckpoints, type Snapshot } from '../store/snapshot.js';
import type { ConfigMapSource } from '../store/types.js';
import type { StoreView } from './correlate.js';

export function storeViewOf(snap: Snapshot): StoreView {
  const metaSources: ConfigMapSource[] = [];
  for (const name of ['assigned', 'last-known-good'] as const) {
    const d = decodeMetaState(snap.meta[name]);
    if (d.state === 'source') metaSources.push(d.source);
  }
  return { onDisk: allCheckpoints(snap).map((c) => ({ uid: c.uid, resourceVersion: c.rv })), metaSources };
}
