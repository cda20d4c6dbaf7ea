// The plain, typed values the semantic diff compares and reports: what a decoded
// KubeletConfiguration document is once YAML vs JSON no longer matters. Everything here is
// iterative, so a hostile 10,000-level document cannot overflow the JS stack.

import type { JNode } from '../config/jnode.js';

/** An integer literal past 2^53 is a bigint, so that two configs that differ there do not compare equal. */
export type Value = null | boolean | number | bigint | string | Value[] | { [key: string]: Value };
export type ValueObject = { [key: string]: Value };

export function isObject(v: Value | undefined): v is ValueObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own enumerable keys present on `o` (never the prototype chain: `__proto__` is data here). */
export function hasKey(o: ValueObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Assign as data, so a key named `__proto__` stays an ordinary key. */
export function setKey(o: ValueObject, key: string, v: Value): void {
  Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Map keys in code-point order (Go sorts map keys by bytes; UTF-16 order differs for astral characters). */
export function sortedKeys(o: ValueObject): string[] {
  return Object.keys(o).sort(compareCodePoints);
}

export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The JSON tree a parser produced, as plain values: repeated keys keep the last value, or merge
 * when both are objects (as the kubelet's lenient decode does) and numbers become JS numbers (`1e3`, `1000` and `1000.0` are
 * equal), but for an integer written past 2^53, kept exact as a bigint (an int64 field).
 */
export function fromJNode(root: JNode): Value {
  const out: { v: Value } = { v: null };
  const stack: Array<{ n: JNode; put: (v: Value) => void }> = [{ n: root, put: (v) => (out.v = v) }];
  while (stack.length) {
    const { n, put } = stack.pop()!;
    switch (n.t) {
      case 'null':
        put(null);
        break;
      case 'bool':
        put(n.v);
        break;
      case 'num': {
        const x = Number(n.s);
        put(Number.isSafeInteger(x) || !Number.isInteger(x) || !/^-?[0-9]+$/.test(n.s) ? x : BigInt(n.s));
        break;
      }
      case 'str':
        put(n.v);
        break;
      case 'arr': {
        const a: Value[] = new Array<Value>(n.items.length).fill(null);
        put(a);
        n.items.forEach((item, i) => stack.push({ n: item, put: (v) => (a[i] = v) }));
        break;
      }
      case 'obj': {
        const o: ValueObject = {};
        put(o);
        // encoding/json decodes a repeated member into the field it already filled: a struct
        // or map is merged (its members by the same rule), anything else replaced (found by
        // review: a second "authentication" dropped the first's anonymous.enabled: true).
        const last = new Map<string, JNode>();
        for (const [k, child] of n.entries) {
          const prev = last.get(k);
          last.set(k, prev?.t === 'obj' && child.t === 'obj' ? { t: 'obj', entries: [...prev.entries, ...child.entries] } : child);
        }
        for (const [k, child] of last) {
          setKey(o, k, null);
          stack.push({ n: child, put: (v) => setKey(o, k, v) });
        }
        break;
      }
    }
  }
  return out.v;
}

/** Structural equality of two values (iterative). Object key order never matters; list order does. */
export function deepEqual(a: Value, b: Value): boolean {
  const stack: Array<[Value, Value]> = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i]!, y[i]!]);
      continue;
    }
    const ox = x as ValueObject;
    const oy = y as ValueObject;
    const kx = Object.keys(ox);
    if (kx.length !== Object.keys(oy).length) return false;
    for (const k of kx) {
      if (!hasKey(oy, k)) return false;
      stack.push([ox[k]!, oy[k]!]);
    }
  }
  return true;
}

/** How deeply `v` nests (a scalar is 0); stops counting once past `limit`. */
export function depthOf(v: Value, limit = Infinity): number {
  let max = 0;
  const stack: Array<[Value, number]> = [[v, 0]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > limit) return max;
    if (Array.isArray(x)) for (const item of x) stack.push([item, d + 1]);
    else if (isObject(x)) for (const k of Object.keys(x)) stack.push([x[k]!, d + 1]);
  }
  return max;
}
