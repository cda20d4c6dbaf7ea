// Reading and writing dotted paths ("authentication.webhook.cacheTTL") in the plain
// objects that hold a decoded config. Writes go to copies: callers' objects stay intact.

import { setOwn } from './jnode.js';

export type ConfigObject = Record<string, unknown>;

function isRecord(v: unknown): v is ConfigObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const splitCache = new Map<string, string[]>();

/** `a.b.c` → ['a','b','c'], cached: the same few dozen field paths are read for every payload. */
function keysOf(path: string): string[] {
  let keys = splitCache.get(path);
  if (!keys) splitCache.set(path, (keys = path.split('.')));
  return keys;
}

/** The value at `path`, or undefined when any step is missing. */
export function getAt(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of keysOf(path)) {
    if (!isRecord(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/** True when `path` is present (explicitly set) in `obj`. */
export function hasAt(obj: unknown, path: string): boolean {
  return getAt(obj, path) !== undefined;
}

/** Set `path` in place, creating intermediate objects. */
export function setAt(obj: ConfigObject, path: string, value: unknown): void {
  const keys = keysOf(path);
  let cur = obj;
  for (let i = 0; i < keys.length - 1; i++) {
    const key = keys[i]!;
    if (!isRecord(cur[key])) setOwn(cur, key, {});
    cur = cur[key] as ConfigObject;
  }
  setOwn(cur, keys[keys.length - 1]!, value);
}

/** Remove `path` in place (no-op when absent). */
export function deleteAt(obj: ConfigObject, path: string): void {
  const keys = path.split('.');
  const parent = getAt(obj, keys.slice(0, -1).join('.')) ?? (keys.length === 1 ? obj : undefined);
  if (isRecord(parent)) delete parent[keys[keys.length - 1]!];
}

/** A deep copy of JSON-like data. */
export function deepClone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepClone) as T;
  if (isRecord(v)) {
    const out: ConfigObject = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, deepClone(x));
    return out as T;
  }
  return v;
}
