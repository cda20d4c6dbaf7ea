// The typed half of the kubelet's decoder: a JSON tree into the v1beta1 Go struct, with
// encoding/json's rules (sigs.k8s.io/json, case-sensitive): type mismatches are remembered
// (first wins) while decoding continues; errors from a type's own UnmarshalJSON
// (metav1.Duration, resource.Quantity, metav1.Time) stop decoding at once; null leaves
// non-pointer fields alone; a repeated struct or map member merges into the first.
// Unknown members are dropped and listed (the kubelet's strict pass would object to them).

import { DurationError, parseGoDuration } from './duration.js';
import { jsonKindName, setOwn, type JNode } from './jnode.js';
import { childPath } from './json.js';
import { GoNumError, parseGoIntValue, parseGoUint } from './gostrconv.js';
import { parseQuantity, QuantityError, ERR_FORMAT_WRONG } from './quantity.js';
import { fieldsOf, type FieldSpec, type StructSpec, type TypeSpec } from './schema.js';
import type { KubeletVersion } from './version.js';

export type TypedDecode =
  | { ok: true; value: Record<string, unknown>; unknownFields: string[] }
  | { ok: false; error: string };

class Abort extends Error {}

interface Ctx {
  /** encoding/json's errorContext: JSON names of the fields we are inside. */
  stack: string[];
  /** The innermost struct being filled. */
  structName: string;
  saved: string | null;
  unknown: string[];
  version: KubeletVersion;
}

function typeError(ctx: Ctx, value: string, goType: string): string {
  if (ctx.stack.length === 0) return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  return `json: cannot unmarshal ${value} into Go struct field ${ctx.structName}.${ctx.stack.join('.')} of type ${goType}`;
}

function save(ctx: Ctx, value: string, goType: string): undefined {
  if (ctx.saved === null) ctx.saved = typeError(ctx, value, goType);
  return undefined;
}

/** An UnmarshalJSON that decodes into a string first: its type errors carry our context. */
function unmarshalString(ctx: Ctx, n: JNode): string {
  if (n.t === 'str') return n.v;
  if (n.t === 'null') return '';
  throw new Abort(typeError(ctx, jsonKindName(n), 'string'));
}

function decodeDuration(ctx: Ctx, n: JNode): string {
  const s = unmarshalString(ctx, n);
  try {
    parseGoDuration(s);
  } catch (e) {
    if (e instanceof DurationError) throw new Abort(e.message);
    throw e;
  }
  return s;
}

function decodeQuantity(n: JNode): string | undefined {
  if (n.t === 'null') return undefined;
  const text = n.t === 'str' ? n.v.trim() : n.t === 'num' ? n.s : null;
  if (text === null) throw new Abort(ERR_FORMAT_WRONG);
  try {
    parseQuantity(text);
  } catch (e) {
    if (e instanceof QuantityError) throw new Abort(e.message);
    throw e;
  }
  return text;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function decodeTime(ctx: Ctx, n: JNode): string | undefined {
  if (n.t === 'null') return undefined;
  const s = unmarshalString(ctx, n);
  if (!RFC3339.test(s) || Number.isNaN(Date.parse(s))) {
    throw new Abort(`parsing time ${JSON.stringify(s)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(s)} as "2006"`);
  }
  return s;
}

function decodeInt(ctx: Ctx, n: JNode, spec: TypeSpec): number | bigint | undefined {
  if (n.t !== 'num') return save(ctx, jsonKindName(n), spec.goType);
  try {
    if (spec.kind === 'uint32') return Number(parseGoUint(n.s, 10, 32));
    return parseGoIntValue(n.s, spec.kind === 'int32' ? 32 : 64);
  } catch (e) {
    if (e instanceof GoNumError) return save(ctx, `number ${n.s}`, spec.goType);
    throw e;
  }
}

function decodeFloat(ctx: Ctx, n: JNode, spec: TypeSpec): number | undefined {
  if (n.t !== 'num') return save(ctx, jsonKindName(n), spec.goType);
  const v = Number(n.s);
  if (!Number.isFinite(v)) return save(ctx, `number ${n.s}`, spec.goType);
  return v;
}

/** Decode `n` as `spec`. `prev` is what an earlier duplicate member left (JSON merges). */
function decode(ctx: Ctx, n: JNode, spec: TypeSpec, prev: unknown, path: string): unknown {
  switch (spec.kind) {
    case 'duration': return decodeDuration(ctx, n);
    case 'quantity': return decodeQuantity(n);
    case 'time': return decodeTime(ctx, n);
  }
  if (n.t === 'null') return spec.kind === 'map' || spec.kind === 'list' ? undefined : prev;
  switch (spec.kind) {
    case 'bool': return n.t === 'bool' ? n.v : save(ctx, jsonKindName(n), spec.goType);
    case 'string': return n.t === 'str' ? n.v : save(ctx, jsonKindName(n), spec.goType);
    case 'int32': case 'int64': case 'uint32': case 'duration-ns': return decodeInt(ctx, n, spec);
    case 'float64': return decodeFloat(ctx, n, spec);
    case 'map': return decodeMap(ctx, n, spec, prev, path);
    case 'list': return decodeList(ctx, n, spec, path);
    case 'struct': return decodeStruct(ctx, n, spec, prev, path);
  }
  return undefined;
}

function decodeMap(ctx: Ctx, n: JNode, spec: TypeSpec, prev: unknown, path: string): unknown {
  if (n.t !== 'obj') return save(ctx, jsonKindName(n), spec.goType);
  const out: Record<string, unknown> = isRecord(prev) ? prev : {};
  for (const [k, v] of n.entries) {
    // A repeated map key is decoded afresh (Go zeroes the element), not merged.
    const decoded = decode(ctx, v, spec.elem!, undefined, childPath(path, k));
    setOwn(out, k, decoded === undefined ? zeroOf(spec.elem!) : decoded);
  }
  return out;
}

function decodeList(ctx: Ctx, n: JNode, spec: TypeSpec, path: string): unknown {
  if (n.t !== 'arr') return save(ctx, jsonKindName(n), spec.goType);
  return n.items.map((item, i) => {
    const decoded = decode(ctx, item, spec.elem!, undefined, `${path}[${i}]`);
    return decoded === undefined ? zeroOf(spec.elem!) : decoded;
  });
}

/** A struct's fields by JSON name for one release; built once (it was a tenth of decode). */
const fieldMaps = new WeakMap<StructSpec, Map<KubeletVersion, ReadonlyMap<string, FieldSpec>>>();
function fieldMap(struct: StructSpec, version: KubeletVersion): ReadonlyMap<string, FieldSpec> {
  let byVersion = fieldMaps.get(struct);
  if (!byVersion) fieldMaps.set(struct, (byVersion = new Map()));
  let m = byVersion.get(version);
  if (!m) byVersion.set(version, (m = new Map(fieldsOf(struct, version).map((fld) => [fld.name, fld]))));
  return m;
}

function decodeStruct(ctx: Ctx, n: JNode, spec: TypeSpec, prev: unknown, path: string): unknown {
  if (n.t !== 'obj') return save(ctx, jsonKindName(n), spec.goType);
  const out: Record<string, unknown> = isRecord(prev) ? prev : {};
  const fields = fieldMap(spec.struct!, ctx.version);
  for (const [k, v] of n.entries) {
    const fld = fields.get(k);
    const memberPath = childPath(path, k);
    if (!fld) {
      ctx.unknown.push(memberPath);
      continue;
    }
    const outerStruct = ctx.structName;
    ctx.stack.push(k);
    ctx.structName = spec.struct!.name;
    let decoded: unknown;
    if (fld.pointer && v.t === 'null') decoded = undefined;
    else decoded = decode(ctx, v, fld.type, out[k], memberPath);
    ctx.stack.pop();
    ctx.structName = outerStruct;
    if (decoded === undefined) {
      if (fld.pointer || fld.type.kind === 'map' || fld.type.kind === 'list') delete out[k];
    } else {
      setOwn(out, k, decoded);
    }
  }
  return out;
}

/** The Go zero value of an element whose JSON was null (a map entry or list item). */
function zeroOf(spec: TypeSpec): unknown {
  switch (spec.kind) {
    case 'bool': return false;
    case 'string': return '';
    case 'int32': case 'int64': case 'uint32': case 'float64': case 'duration-ns': return 0;
    case 'quantity': return '0';
    case 'duration': return '0s';
    case 'struct': return {};
    default: return null;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Decode a JSON object tree into the struct `spec` as the kubelet of `version` would. */
export function decodeTyped(root: JNode, spec: TypeSpec, version: KubeletVersion): TypedDecode {
  const ctx: Ctx = { stack: [], structName: spec.struct!.name, saved: null, unknown: [], version };
  try {
    const value = decodeStruct(ctx, root, spec, undefined, '');
    if (ctx.saved !== null) return { ok: false, error: ctx.saved };
    return { ok: true, value: (value ?? {}) as Record<string, unknown>, unknownFields: ctx.unknown };
  } catch (e) {
    if (e instanceof Abort) return { ok: false, error: e.message };
    throw e;
  }
}
