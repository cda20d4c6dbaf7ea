// Parsers for kubelet flag values, one per flag kind (pflag and component-base/cli/flag
// semantics), returning the value in the form the v1beta1 JSON field holds. Errors carry
// the text the Go Set() method returns; pflag wraps it ("invalid argument …").

import { formatGoDuration, parseGoDuration } from './duration.js';
import type { FlagKind } from './flags-and-gates.data.js';
import { goIntValue, goQuote, parseGoBool, parseGoInt, parseGoUint } from './gostrconv.js';
import { parseQuantity } from './quantity.js';
import { isQualifiedName, isValidLabelValue, TAINT_EFFECTS, type Taint } from './taints.js';

export class FlagValueError extends Error {}

/** encoding/csv reading one record, as pflag's string slices do. */
export function readCsvRecord(s: string): string[] {
  if (s === '') return [];
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (s[i] === '"') {
      i++;
      for (;;) {
        if (i >= s.length) throw new FlagValueError('parse error on line 1, column ' + (i + 1) + ': extraneous or missing " in quoted-field');
        if (s[i] === '"') {
          if (s[i + 1] === '"') { field += '"'; i += 2; continue; }
          i++;
          break;
        }
        field += s[i++];
      }
      if (i < s.length && s[i] !== ',') throw new FlagValueError(`parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`);
    } else {
      const end = s.indexOf(',', i);
      field = end < 0 ? s.slice(i) : s.slice(i, end);
      if (field.includes('"')) throw new FlagValueError(`parse error on line 1, column ${i + field.indexOf('"') + 1}: bare " in non-quoted-field`);
      i = end < 0 ? s.length : end;
    }
    out.push(field);
    if (i >= s.length) return out;
    i++; // the comma
    if (i >= s.length) { out.push(''); return out; }
  }
}

// component-base's map flags (MapStringString, LangleSeparatedMapStringString, MapStringBool,
// ColonSeparatedMultimapStringString) skip only an empty item: `a=1, ` holds " ", which has no
// separator, so the flag fails ("malformed pair"); key and value are trimmed after the split.

/** k<sep>v pairs separated by commas. */
function parsePairs(s: string, sep: '=' | '<', what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of s.split(',')) {
    if (item === '') continue;
    const at = item.indexOf(sep);
    if (at < 0) throw new FlagValueError(`malformed pair, expect string${sep}${what}`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** cliflag.MapStringBool, which binds featureGates on the kubelet's command line. */
function parseGateMap(s: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const item of s.split(',')) {
    if (item === '') continue;
    const at = item.indexOf('=');
    if (at < 0) throw new FlagValueError('malformed pair, expect string=bool');
    const k = item.slice(0, at).trim();
    const v = item.slice(at + 1).trim();
    try {
      out[k] = parseGoBool(v);
    } catch (e) {
      throw new FlagValueError(`invalid value of ${k}: ${v}, err: ${(e as Error).message}`);
    }
  }
  return out;
}

function parseMultimap(s: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const item of s.split(',')) {
    if (item === '') continue;
    const at = item.indexOf(':');
    if (at < 0) throw new FlagValueError('malformed pair, expect string:string');
    const k = item.slice(0, at).trim();
    (out[k] ??= []).push(item.slice(at + 1).trim());
  }
  return out;
}

/** cliflag.ReservedMemoryVar; an empty value leaves the field as it was (a Go quirk). */
function parseReservedMemory(s: string): { numaNode: number; limits: Record<string, string> }[] | undefined {
  if (s === '') return undefined;
  return s.split(';').map((reservation) => {
    const parts = reservation.split(':');
    if (parts.length !== 2) throw new FlagValueError(`the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got ${reservation}`);
    let numaNode: number;
    try {
      numaNode = Number(parseGoInt(parts[0]!, 10, 64));
    } catch {
      throw new FlagValueError(`failed to convert the NUMA node ID, exptected integer, got ${parts[0]}`);
    }
    const limits: Record<string, string> = {};
    for (const typed of parts[1]!.split(',')) {
      const kv = typed.split('=');
      if (kv.length !== 2) throw new FlagValueError(`the reserved limit has incorrect value, expected type=quantatity, got ${typed}`);
      const [name, qty] = kv as [string, string];
      if (name !== 'memory' && !name.startsWith('hugepages-')) throw new FlagValueError(`memory type conversion error, unknown type: ${goQuote(name)}`);
      try {
        parseQuantity(qty);
      } catch {
        throw new FlagValueError(`failed to parse the quantatity, expected quantatity, got ${qty}`);
      }
      limits[name] = qty;
    }
    return { numaNode, limits };
  });
}

/** utiltaints.ParseTaints for `--register-with-taints` (removals `key-` are ignored). */
function parseTaints(s: string): Taint[] {
  if (s === '') return [];
  const out: Taint[] = [];
  const seen = new Set<string>();
  for (const spec of s.split(',')) {
    if (spec.endsWith('-')) continue;
    const parts = spec.split(':');
    let key: string;
    let value = '';
    let effect = '';
    if (parts.length === 1) key = parts[0]!;
    else if (parts.length === 2) {
      effect = parts[1]!;
      if (!(TAINT_EFFECTS as readonly string[]).includes(effect)) {
        throw new FlagValueError(`invalid taint effect: ${effect}, unsupported taint effect`);
      }
      const kv = parts[0]!.split('=');
      if (kv.length > 2) throw new FlagValueError(`invalid taint spec: ${spec}`);
      key = kv[0]!;
      if (kv.length === 2) {
        value = kv[1]!;
        if (!isValidLabelValue(value)) throw new FlagValueError(`invalid taint spec: ${spec}`);
      }
    } else throw new FlagValueError(`invalid taint spec: ${spec}`);
    if (!isQualifiedName(key)) throw new FlagValueError(`invalid taint spec: ${spec}`);
    const id = `${key}:${effect}`;
    if (seen.has(id)) throw new FlagValueError(`duplicated taints with the same key and effect: {${key} ${value} ${effect} <nil>}`);
    seen.add(id);
    out.push({ key, ...(value ? { value } : {}), effect });
  }
  return out;
}

function parseVModule(s: string): { filePattern: string; verbosity: number }[] {
  const out: { filePattern: string; verbosity: number }[] = [];
  for (const pat of s.split(',')) {
    if (pat === '') continue;
    const parts = pat.split('=');
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') throw new FlagValueError(`${goQuote(pat)} does not have the pattern=N format`);
    try {
      out.push({ filePattern: parts[0]!, verbosity: Number(parseGoUint(parts[1]!, 10, 31)) });
    } catch (e) {
      throw new FlagValueError(`parsing verbosity in ${goQuote(pat)}: ${(e as Error).message}`);
    }
  }
  return out;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV4_SLOPPY = /^\d{1,3}(\.\d{1,3}){3}$/;

function isIP(s: string): boolean {
  if (IPV4.test(s) || IPV4_SLOPPY.test(s)) return s.split('.').every((o) => Number(o) <= 255);
  if (!s.includes(':')) return false;
  return /^[0-9a-fA-F:.]+$/.test(s) && (s.match(/::/g) ?? []).length <= 1;
}

/** Parse one flag value; undefined means "leave the field unchanged" (an empty IP or reserved-memory). */
export function parseFlagValue(kind: FlagKind, raw: string): unknown {
  try {
    switch (kind) {
      case 'bool': return parseGoBool(raw);
      case 'int32': return Number(parseGoInt(raw, 0, 32));
      case 'int64': return goIntValue(parseGoInt(raw, 0, 64));
      case 'uint': return Number(parseGoUint(raw, 10, 31));
      case 'string': return raw;
      case 'duration': return formatGoDuration(parseGoDuration(raw));
      case 'duration-ns': return goIntValue(parseGoDuration(raw));
      case 'quantity': parseQuantity(raw); return raw;
      case 'list': return readCsvRecord(raw);
      case 'map': return parsePairs(raw, '=', 'string');
      case 'map-lt': return parsePairs(raw, '<', 'string');
      case 'map-1': {
        const at = raw.indexOf('=');
        if (at < 0) throw new FlagValueError('malformed pair, expect string=string');
        return { [raw.slice(0, at).trim()]: raw.slice(at + 1).trim() };
      }
      case 'map-bool': return parseGateMap(raw);
      case 'multimap': return parseMultimap(raw);
      case 'ip':
        if (raw === '') return undefined;
        if (!isIP(raw)) throw new FlagValueError(`${goQuote(raw)} is not a valid IP address`);
        return raw;
      case 'reserved-memory': return parseReservedMemory(raw);
      case 'taints': return parseTaints(raw);
      case 'vmodule': return parseVModule(raw);
    }
  } catch (e) {
    if (e instanceof FlagValueError) throw e;
    throw new FlagValueError((e as Error).message);
  }
}
