// Verify over an open session, with refs resolved to the checkpoints they name.

import { resolveRef, resolveUid } from '../store/refs.js';
import type { Session } from '../session.js';
import { verifyStore, type VerifyReport } from './verify.js';

function onlySet(s: Session, refs: readonly string[]): Set<string> | undefined {
  if (!refs.length) return undefined;
  const only = new Set<string>();
  for (const ref of refs) {
    if (!ref.includes('/') && !['assigned', 'last-known-good', 'lkg', 'local'].includes(ref)) {
      for (const cp of resolveUid(s.snap, ref).checkpoints) only.add(`${cp.uid}/${cp.rv}`);
      continue;
    }
    const r = resolveRef(s.snap, ref, { localConfig: s.local.path });
    if (r.kind === 'checkpoint') only.add(`${r.checkpoint.uid}/${r.checkpoint.rv}`);
  }
  return only;
}

export function verifySession(s: Session, refs: readonly string[] = [], payloads: 'all' | 'referenced' = 'all'): VerifyReport {
  return verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local, only: onlySet(s, refs), payloads });
}
