// ../shared/vectors/effective.json, shared by the tests that hold our effective config
// (test/lib/config) and the export of it (test/lib/migrate) against the kubelet's.
import fs from 'node:fs';
import path from 'node:path';
import { sharedDir } from './helpers.js';

export interface EffectiveVector {
  name: string;
  uid: string;
  resourceVersion: string;
  kubeletConfigKey: string;
  payloadText: string;
  flags: string[];
  ok: boolean;
  /** `startup`: the flags alone stop the kubelet; `load` and `transform` do not occur. */
  stage: '' | 'validate' | 'startup' | 'load' | 'transform';
  error: string | null;
  config: Record<string, unknown> | null;
}

export const EFFECTIVE_VECTORS = path.join(sharedDir, 'vectors', 'effective.json');

/** The vectors, or null when ../shared is not beside the checkout. */
export function effectiveVectors(): EffectiveVector[] | null {
  return fs.existsSync(EFFECTIVE_VECTORS) ? (JSON.parse(fs.readFileSync(EFFECTIVE_VECTORS, 'utf8')) as EffectiveVector[]) : null;
}

/** `<dir>` → the checkpoint directory, the path cleaned as filepath.Join would (`<dir>/../up`). */
export function substituteDir(v: unknown, dir: string): unknown {
  if (typeof v === 'string') return v.includes('<dir>') ? path.posix.normalize(v.split('<dir>').join(dir)).replace(/(.)\/$/, '$1') : v;
  if (Array.isArray(v)) return v.map((x) => substituteDir(x, dir));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substituteDir(x, dir)]));
  return v;
}

/**
 * The kubelet prints its Go struct with every zero value a field without omitempty has
 * ({}, [], 0, "0s", false) and omits some our model fills with their zero; both mean Go's
 * zero value. Zero values are dropped on both sides (keys sorted); every other value must match.
 */
export function withoutGoZeros(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutGoZeros);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = withoutGoZeros((v as Record<string, unknown>)[k]);
    const zero = x === undefined || x === null || x === '' || x === 0 || x === false || x === '0s' || x === '0'
      || (Array.isArray(x) && x.length === 0) || (typeof x === 'object' && x !== null && Object.keys(x).length === 0);
    if (!zero) out[k] = x;
  }
  return out;
}
