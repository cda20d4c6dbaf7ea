// Ref candidates for shell completion, read from the store without failing:
// a completion must never print an error into the user's command line.

import { discover } from './store/discover.js';
import { takeSnapshot } from './store/snapshot.js';

export const FIXED_REFS = ['assigned', 'last-known-good', 'lkg', 'local', 'meta/assigned', 'meta/last-known-good'];

export function refCandidates(opts: { dir?: string | undefined; root?: string | undefined }): string[] {
  try {
    const dir = opts.dir ?? discover({ root: opts.root ?? '/' }).dir;
    if (!dir) return FIXED_REFS;
    const snap = takeSnapshot(dir);
    const refs = [...FIXED_REFS];
    for (const u of snap.uids) {
      refs.push(u.uid);
      for (const c of u.checkpoints) refs.push(`${u.uid}/${c.rv}`);
    }
    return refs;
  } catch {
    return FIXED_REFS;
  }
}
