// `show REF --field PATH`: one value out of a config, by the field paths diff prints
// (`maxPods`, `evictionHard["memory.available"]`, `clusterDNS[0]`).

import { UsageError } from '../errors.js';
import { decodeDocument } from './decode.js';
import { hasKey, isObject, type Value } from './value.js';
import { keyStep } from './path.js';

/** A path step: a map key, or a list index. */
export type Step = { key: string } | { index: number };

/** Parse `a.b["c.d"][0]`; a malformed path is a usage error. */
export function parseFieldPath(path: string): Step[] {
  const steps: Step[] = [];
  let i = 0;
  const bad = (why: string) => new UsageError(`--field ${JSON.stringify(path)}: ${why}`, 'write fields as diff prints them: maxPods, evictionHard["memory.available"], clusterDNS[0]', 'BAD_FIELD');
  while (i < path.length) {
    if (path[i] === '[') {
      const close = path[i + 1] === '"' ? closingQuote(path, i + 1) : path.indexOf(']', i);
      if (close < 0) throw bad('an unclosed [');
      if (path[i + 1] === '"') {
        if (path[close + 1] !== ']') throw bad('a quoted key must end with "]');
        try {
          steps.push({ key: JSON.parse(path.slice(i + 1, close + 1)) as string });
        } catch {
          throw bad('a quoted key is not a JSON string');
        }
        i = close + 2;
      } else {
        const n = path.slice(i + 1, close);
        if (!/^[0-9]+$/.test(n)) throw bad(`[${n}] is neither a list index nor a quoted key`);
        steps.push({ index: Number(n) });
        i = close + 1;
      }
    } else {
      if (path[i] === '.') {
        if (i === 0 || i === path.length - 1) throw bad('a path does not start or end with .');
        i++;
      }
      const m = /^[^.[\]]+/.exec(path.slice(i));
      if (!m) throw bad(`nothing to read at position ${i + 1}`);
      steps.push({ key: m[0] });
      i += m[0].length;
    }
  }
  if (!steps.length) throw bad('an empty path');
  return steps;
}

function closingQuote(s: string, open: number): number {
  for (let j = open + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j;
  }
  return -1;
}

export interface FieldValue {
  ref: string;
  /** The path as diff would print it. */
  field: string;
  /** Whether the config sets the field (false: the kubelet would use its default). */
  set: boolean;
  value: Value;
}

/** The value at `path` in a config's bytes; `set: false` (value null) when the config does not set it. */
export function extractField(bytes: Buffer, ref: string, path: string): FieldValue {
  const steps = parseFieldPath(path);
  const d = decodeDocument(bytes);
  if (!d.ok) throw new UsageError(`${ref} cannot be decoded, so it has no fields: ${d.error}`, `see kubelet-ckpt verify ${ref}`, 'UNDECODABLE');
  const field = formatSteps(steps);
  let v: Value = d.value;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    // A step that cannot apply to what is there is a mistake in the path, not an unset field.
    if (v !== null && wrongStep(s, v)) throw new UsageError(`--field ${field}: ${i === 0 ? 'the document' : formatSteps(steps.slice(0, i))} in ${ref} is ${wrongStep(s, v)}`, 'write fields as diff prints them: maxPods, evictionHard["memory.available"], clusterDNS[0]', 'BAD_FIELD');
    if ('key' in s && isObject(v) && hasKey(v, s.key)) v = v[s.key]!;
    else if ('index' in s && Array.isArray(v) && s.index < v.length) v = v[s.index]!;
    else return { ref, field, set: false, value: null };
  }
  return { ref, field, set: true, value: v };
}

/** Why step `s` cannot read `v` (a key of a list, an index of a map, anything of a scalar), or null. */
function wrongStep(s: Step, v: Value): string | null {
  if ('key' in s && Array.isArray(v)) return `a list: index it, as [0]`;
  if ('index' in s && isObject(v)) return `a map: quote a key, as ["${s.index}"]`;
  if (!isObject(v) && !Array.isArray(v)) return `a ${typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'boolean' : 'number'}, which has no fields`;
  return null;
}

/** A path as diff prints it: keys as identifiers or quoted, indexes as [N]. */
function formatSteps(steps: readonly Step[]): string {
  return steps.map((s, i) => ('index' in s ? `[${s.index}]` : keyStep(s.key, i === 0))).join('');
}
