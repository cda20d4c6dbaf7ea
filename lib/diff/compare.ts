// Comparing two decoded sides: the semantic change list, with the v1beta1 defaults applied
// first when asked (the defaults table is lib/config's), or a note saying why it cannot be made.

import { applyDefaults } from '../config/defaults.js';
import { parseGoDuration } from '../config/duration.js';
import { KUBELET_CONFIGURATION, type StructSpec } from '../config/schema.js';
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
/**
 * Both documents less each non-pointer scalar field that is at its Go zero value ("", 0, false,
 * 0s) or absent on both sides: the kubelet decodes a zero and an absent field to the same struct,
 * so under --defaults they compare equal (found by review: readOnlyPort: 0 against a file without
 * it was "removed"). A zero against a value stays a change from 0; pointer fields keep their
 * zeroes (an explicit zero is not the default there).
 */
function withoutZeroes(a: ValueObject, b: ValueObject, spec: StructSpec): [ValueObject, ValueObject] {
  const x: ValueObject = { ...a };
  const y: ValueObject = { ...b };
  for (const f of spec.fields) {
    if (f.pointer) continue;
    const [u, v] = [x[f.name], y[f.name]];
    if (f.type.kind === 'struct') {
      if (isObject(u as Value) || isObject(v as Value)) {
        const [p, q] = withoutZeroes(isObject(u as Value) ? (u as ValueObject) : {}, isObject(v as Value) ? (v as ValueObject) : {}, f.type.struct!);
        // A struct left empty on one side and absent on the other is the same zero struct.
        const [pe, qe] = [!Object.keys(p).length, !Object.keys(q).length];
        if (u !== undefined) {
          if (pe && (v === undefined || qe)) delete x[f.name];
          else x[f.name] = p;
        }
        if (v !== undefined) {
          if (qe && (u === undefined || pe)) delete y[f.name];
          else y[f.name] = q;
        }
      }
      continue;
    }
    const zeroOrAbsent = (w: Value | undefined) => w === undefined || isZero(f.type.kind, w);
    if ((u !== undefined || v !== undefined) && zeroOrAbsent(u) && zeroOrAbsent(v)) {
      delete x[f.name];
      delete y[f.name];
    }
  }
  return [x, y];
}

function isZero(kind: string, v: Value): boolean {
  switch (kind) {
    case 'string': return v === '';
    case 'bool': return v === false;
    case 'int32': case 'int64': case 'uint32': case 'float64': return v === 0 || v === 0n;
    case 'duration': case 'duration-ns':
      try {
        return typeof v === 'number' ? v === 0 : typeof v === 'string' && parseGoDuration(v) === 0n;
      } catch {
        return false;
      }
    default: return false;
  }
}

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
        [x, y] = withoutZeroes(applyDefaults(rawA, version) as ValueObject, applyDefaults(rawB, version) as ValueObject, KUBELET_CONFIGURATION.struct!);
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

