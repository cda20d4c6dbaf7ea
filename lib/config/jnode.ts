// The JSON document the kubelet's typed decoder reads, as a tree that keeps what plain
// JS values lose: number literals as written (int32 range, "number 1.5" in messages,
// int64 precision), object members in order, and repeated keys (JSON input).

export type JNode =
  | { t: 'null' }
  | { t: 'bool'; v: boolean }
  | { t: 'num'; s: string }
  | { t: 'str'; v: string }
  | { t: 'arr'; items: JNode[] }
  | { t: 'obj'; entries: Array<[string, JNode]> };

/** How encoding/json names a JSON value's kind in "cannot unmarshal X into …". */
export function jsonKindName(n: JNode): string {
  switch (n.t) {
    case 'null': return 'null';
    case 'bool': return 'bool';
    case 'num': return 'number';
    case 'str': return 'string';
    case 'arr': return 'array';
    case 'obj': return 'object';
  }
}

/** The member of an object, last occurrence winning (as for a Go map or struct field). */
export function member(n: JNode, key: string): JNode | undefined {
  if (n.t !== 'obj') return undefined;
  let found: JNode | undefined;
  for (const [k, v] of n.entries) if (k === key) found = v;
  return found;
}

/** A plain JS value (last duplicate wins; numbers as JS numbers). */
export function toPlain(n: JNode): unknown {
  switch (n.t) {
    case 'null': return null;
    case 'bool': return n.v;
    case 'num': return Number(n.s);
    case 'str': return n.v;
    case 'arr': return n.items.map(toPlain);
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of n.entries) setOwn(out, k, toPlain(v));
      return out;
    }
  }
}

/** Assign without tripping over `__proto__` and friends. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  // Only `__proto__` needs defineProperty (assignment would set the prototype); plain
  // assignment is several times faster and this runs for every key of every payload.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
