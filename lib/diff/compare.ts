// Comparing two decoded sides: the semantic change list, with the v1beta1 defaults applied
// first when asked (the defaults table is lib/config's), or a note saying why it cannot be made.

import { applyDefaults } from '../config/defaults.js';
import { parseKubeletVersion, DEFAULT_VERSION, type KubeletVersion } from '../config/version.js';
import { isKubeletConfig, KUBELET_COMPARE, type Decoded } from './decode.js';
import { compareValues, type Change } from './semantic.js';
import { hasKey, isObject, type Value, type ValueObject } from './value.js';

export interface DiffOptions {
  /**
   * --key: the payload file of checkpoints with several. One key applies to every side;
   * two are for the first and the second ref.
   */
  keys?: readonly string[];
  /** Lines of context in the unified diff (-U). */
  context?: number;
  /** Apply the v1beta1 defaults to both sides before comparing (--defaults). */
  defaults?: boolean;
  /** Labels for the two sides (--label), replacing the default ones. */
  labels?: readonly string[];
  /** The kubelet release whose defaults apply (`X.Y`; default 1.23). */
  version?: string;
  /** History: keep every step's unified diff (text output with -u), not only undecodable ones. */
  stepText?: boolean;
}

export const DEFAULT_CONTEXT = 3;

/** A change plus what text output needs: the raw keys, and which values only defaults supplied. */
export interface FieldChange extends Change {
  keys: readonly string[];
  /** With --defaults: the side had no value of its own here, the default filled it in. */
  defaulted: { from: boolean; to: boolean };
}

/** The outcome of comparing two decoded documents. */
export interface Comparison {
  changes: FieldChange[];
  /** Both sides decoded, so `changes` is meaningful. */
  semantic: boolean;
  /** Semantically equal; byte-equal when a side could not be decoded. */
  equal: boolean;
  notes: string[];
}

/** A side to compare: its label, and the decoded document or why there is none. */
export type Doc = { label: string; decoded: Decoded; readError?: string | null };

/** The modelled release for defaults; releases before 1.20 share its defaults. */
function releaseOf(v: string | undefined): KubeletVersion {
  if (!v) return DEFAULT_VERSION;
  try {
    return parseKubeletVersion(v);
  } catch {
    return DEFAULT_VERSION;
  }
}

/** Walk keys down a value; undefined when a step is missing. */
function valueAt(v: Value, keys: readonly string[]): Value | undefined {
  let cur: Value | undefined = v;
  for (const k of keys) {
    if (!isObject(cur) || !hasKey(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** Compare two decoded sides; a side that does not decode makes the comparison textual. */
export function compareDocs(a: Doc, b: Doc, sameBytes: boolean, opts: Pick<DiffOptions, 'defaults' | 'version'> = {}): Comparison {
  const notes: string[] = [];
  for (const s of [a, b]) {
    if (s.readError) notes.push(`semantic comparison impossible: ${s.label} could not be read: ${s.readError}`);
    else if (!s.decoded.ok) notes.push(`semantic comparison impossible: ${s.label} does not decode: ${s.decoded.error}`);
  }
  if (!a.decoded.ok || !b.decoded.ok) return { changes: [], semantic: false, equal: sameBytes, notes };
  const rawA = a.decoded.value;
  const rawB = b.decoded.value;
  const kubelet = isKubeletConfig(rawA) && isKubeletConfig(rawB);
  let x: ValueObject = rawA;
  let y: ValueObject = rawB;
  if (opts.defaults) {
    if (kubelet) {
      const version = releaseOf(opts.version);
      try {
        x = applyDefaults(rawA, version) as ValueObject;
        y = applyDefaults(rawB, version) as ValueObject;
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        x = rawA;
        y = rawB;
        notes.push('--defaults not applied: a document is nested too deeply');
      }
    } else notes.push('--defaults ignored: not both sides are a KubeletConfiguration');
  }
  const changes = compareValues(x, y, kubelet ? KUBELET_COMPARE : {}).map((c) => ({
    ...c,
    defaulted: {
      from: x !== rawA && c.from !== null && valueAt(rawA, c.keys) === undefined,
      to: y !== rawB && c.to !== null && valueAt(rawB, c.keys) === undefined,
    },
  }));
  return { changes, semantic: true, equal: changes.length === 0, notes };
}

