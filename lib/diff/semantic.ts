// Field-by-field comparison of two decoded documents. Maps are walked key by key (in sorted
// order, so YAML and JSON spellings of one config give the same list); anything else — scalars
// and lists — is compared as a whole value, so a list change is one change carrying both lists.

import { formatPath } from './path.js';
import { compareCodePoints, deepEqual, hasKey, isObject, type Value } from './value.js';

export type ChangeOp = 'added' | 'removed' | 'changed';

/** One difference. `from` is null for `added`, `to` is null for `removed`. */
export interface Change {
  path: string;
  op: ChangeOp;
  from: Value;
  to: Value;
}

/** A change with the raw keys of its path (for callers that walk the documents again). */
export interface KeyedChange extends Change {
  keys: readonly string[];
}

export interface CompareOptions {
  /**
   * Equality for two values at one field, when plain structural equality is too strict
   * (e.g. a duration written `1m0s` and `60s`). Called only when the values differ structurally.
   */
  sameValue?: (keys: readonly string[], a: Value, b: Value) => boolean;
  /** A member whose value is null counts as absent at this field (a Go struct field: null decodes to what absence does). */
  nullIsAbsent?: (keys: readonly string[]) => boolean;
}

/** A path as a chain back to the root, so descending costs O(1) however deep the document is. */
type PathNode = { key: string; up: PathNode | null } | null;

function keysOf(n: PathNode): string[] {
  const keys: string[] = [];
  for (let cur = n; cur; cur = cur.up) keys.push(cur.key);
  return keys.reverse();
}

type Task = { at: PathNode; a: Value; b: Value } | { at: PathNode; op: 'added' | 'removed'; v: Value };

function change(at: PathNode, op: ChangeOp, from: Value, to: Value): KeyedChange {
  const keys = keysOf(at);
  return { path: formatPath(keys), keys, op, from, to };
}

/** The changes that turn `a` into `b`, in path order. Empty when they are semantically equal. */
export function compareValues(a: Value, b: Value, opts: CompareOptions = {}): KeyedChange[] {
  const out: KeyedChange[] = [];
  const stack: Task[] = [{ at: null, a, b }];
  while (stack.length) {
    const task = stack.pop()!;
    if ('op' in task) {
      out.push(task.op === 'added' ? change(task.at, 'added', null, task.v) : change(task.at, 'removed', task.v, null));
      continue;
    }
    const { at, a: x, b: y } = task;
    if (isObject(x) && isObject(y)) {
      const all = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(compareCodePoints);
      // Pushed in reverse so that they are popped, and reported, in key order.
      for (let i = all.length - 1; i >= 0; i--) {
        const k = all[i]!;
        const child = { key: k, up: at };
        const only = !hasKey(y, k) ? x[k]! : !hasKey(x, k) ? y[k]! : undefined;
        if (only === null && opts.nullIsAbsent?.(keysOf(child))) continue;
        if (!hasKey(y, k)) stack.push({ at: child, op: 'removed', v: x[k]! });
        else if (!hasKey(x, k)) stack.push({ at: child, op: 'added', v: y[k]! });
        else stack.push({ at: child, a: x[k]!, b: y[k]! });
      }
      continue;
    }
    if (deepEqual(x, y)) continue;
    if (opts.sameValue?.(keysOf(at), x, y)) continue;
    out.push(change(at, 'changed', x, y));
  }
  return out;
}
