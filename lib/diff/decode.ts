// Bytes → the value the semantic diff compares. Decoding is the kubelet's own (lib/config:
// JSON when the payload starts with `{`, else YAML 1.1 as go-yaml v2 reads it), but the tree
// is kept generic — unknown fields are part of what changed, so nothing is dropped.

import { parseGoJson, hasJsonPrefix } from '../config/json.js';
import { parseYamlDocument } from '../config/yaml.js';
import { tryParseGoDuration } from '../config/duration.js';
import { lookupField } from '../config/schema.js';
import { asText } from './unified.js';
import { depthOf, fromJNode, isObject, type Value, type ValueObject } from './value.js';

/**
 * Real configs nest a few levels. Far deeper documents are refused for the semantic diff
 * (the text diff still runs): printers and JSON encoders recurse, and would overflow.
 */
export const MAX_DOC_DEPTH = 100;

export type Decoded = { ok: true; value: ValueObject } | { ok: false; error: string };

function kindName(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'a map' : `a ${typeof v}`;
}

/** Decode a config document; never throws on bad input. */
export function decodeDocument(bytes: Buffer): Decoded {
  if (bytes.length === 0) return { ok: false, error: 'the file is empty' };
  if (asText(bytes) === null) return { ok: false, error: 'binary content (not UTF-8 text)' };
  let value: Value;
  try {
    const r = hasJsonPrefix(bytes) ? parseGoJson(bytes) : parseYamlDocument(bytes);
    if (!r.ok) return { ok: false, error: r.error };
    value = fromJNode(r.value);
  } catch (e) {
    // A nesting deep enough to exhaust the parser's stack is not a config anyone wrote.
    if (e instanceof RangeError) return { ok: false, error: 'nested too deeply to decode' };
    throw e;
  }
  if (!isObject(value)) return { ok: false, error: `the document is ${kindName(value)}, not a map of fields` };
  if (depthOf(value, MAX_DOC_DEPTH) > MAX_DOC_DEPTH) return { ok: false, error: `nested more than ${MAX_DOC_DEPTH} levels deep` };
  return { ok: true, value };
}

/** A KubeletConfiguration, or a document that does not say what it is (fields are read as one). */
export function isKubeletConfig(doc: ValueObject): boolean {
  return doc.kind === undefined || doc.kind === 'KubeletConfiguration';
}

/**
 * A struct field of KubeletConfiguration (a member of the document or of a struct-typed field)
 * set to null decodes as if absent (encoding/json leaves the field as it is; a pointer stays
 * nil). A null map entry or list item is not: it decodes to the element's zero value.
 */
export function kubeletNullIsAbsent(keys: readonly string[]): boolean {
  return keys.length === 1 || lookupField(keys.slice(0, -1).join('.'))?.kind === 'struct';
}

/** How two KubeletConfigurations compare: as the kubelet would read them. */
export const KUBELET_COMPARE = { sameValue: sameKubeletValue, nullIsAbsent: kubeletNullIsAbsent } as const;

/**
 * Field-aware equality for the semantic diff: a metav1.Duration is equal however it is
 * spelled (`60s` and `1m0s` are the same to the kubelet). Everything else compares as written.
 */
export function sameKubeletValue(keys: readonly string[], a: Value, b: Value): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const field = lookupField(keys.join('.'));
  if (field?.kind !== 'duration') return false;
  const x = tryParseGoDuration(a);
  return x !== null && x === tryParseGoDuration(b);
}
