// kubectl's `--append-hash` (k8s.io/kubectl/pkg/util/hash ConfigMapHash), recomputed from a
// checkpoint directory. The hash covers Go's json.Marshal of
// {"binaryData"?, "data", "kind": "ConfigMap", "name"}, so Go's string escaping and Go's
// byte-wise key order are reproduced exactly: this works on UTF-8 bytes, not JS strings.
// (`immutable` is never set by `kubectl create` and cannot be seen in a checkpoint: omitted.)

import { isUtf8 } from 'node:buffer';
import { sha256Hex } from '../builtins.js';

/**
 * How the Go that built kubectl escaped \b and \f: `\u0008`/`\u000c` before Go 1.22,
 * `\b`/`\f` from Go 1.22 on. Nothing else in the encoding differs.
 */
export type GoEscapes = 'pre-1.22' | 'go1.22';
export const GO_ESCAPES: readonly GoEscapes[] = ['pre-1.22', 'go1.22'];

export interface ConfigMapHashInput {
  /** The name before the suffix. */
  name: string;
  /** ConfigMap.data; null marshals as `null` (kubectl itself always passes a map). */
  data: Record<string, string> | null;
  /** ConfigMap.binaryData; included only when it has an entry. */
  binaryData?: Record<string, Buffer>;
  goEscapes: GoEscapes;
}

/** The 10-character suffix kubectl appends (`<name>-<suffix>`). */
export function configMapHash(input: ConfigMapHashInput): string {
  return hashSuffix(configMapJson(input));
}

/**
 * The exact bytes kubectl hashes. Strings are UTF-8 encoded; a lone surrogate (which no Go
 * string can hold) becomes U+FFFD, as Go's encoder does with invalid UTF-8.
 */
export function configMapJson(input: ConfigMapHashInput): Buffer {
  const data = input.data === null ? null : entries(input.data, (v) => Buffer.from(v, 'utf8'));
  const binary = entries(input.binaryData ?? {}, (v) => v);
  return marshalConfigMap(input.name, data, binary, input.goEscapes);
}

/** A name that ends in `-` + 10 characters of kubectl's hash alphabet. `suffix` is those 10 characters. */
export function parseHashedName(name: string): { base: string; suffix: string } | null {
  const m = /^([\s\S]*)-([2456789bcdfghkmt]{10})$/.exec(name);
  return m ? { base: m[1], suffix: m[2] } : null;
}

/**
 * The outcome of re-hashing a checkpoint against the suffix in its ConfigMap name.
 * `actual` is the suffix the name carries, `expected` what the files hash to (under the
 * escaping that matched, else pre-1.22). `ok` is false only for a real mismatch: a file
 * that is not valid UTF-8 cannot have come from `data`, so such a checkpoint cannot be
 * judged — it is listed in `notUtf8` and reported ok (with `matchedWith: null` unless the
 * hash matches all the same). When no file holds \b or \f both escapings agree and
 * `matchedWith` is 'pre-1.22', the escaping of every kubectl of the Dynamic Kubelet
 * Configuration era.
 */
export type HashCheck =
  | { applies: false }
  | { applies: true; ok: boolean; matchedWith: GoEscapes | null; expected: string; actual: string; notUtf8: string[] };

/** One regular file of a checkpoint directory: file name = data key, content = value. */
export interface CheckpointFile {
  name: string;
  bytes: Buffer;
}

export function checkCheckpointHash(name: string, files: CheckpointFile[]): HashCheck {
  const parsed = parseHashedName(name);
  if (!parsed) return { applies: false };
  const notUtf8 = files.filter((f) => !isUtf8(f.bytes)).map((f) => f.name);
  const data = entries(Object.fromEntries(files.map((f) => [f.name, f.bytes])), (v) => v);
  const hashes = GO_ESCAPES.map((mode) => ({ mode, hash: hashSuffix(marshalConfigMap(parsed.base, data, [], mode)) }));
  const match = hashes.find((h) => h.hash === parsed.suffix) ?? null;
  return {
    applies: true,
    ok: match !== null || notUtf8.length > 0,
    matchedWith: match?.mode ?? null,
    expected: (match ?? hashes[0]).hash,
    actual: parsed.suffix,
    notUtf8,
  };
}

// ---------------------------------------------------------------------------------------

/** A map entry as Go sees it: the key's UTF-8 bytes (the sort key) and the value's bytes. */
interface Entry {
  key: Buffer;
  value: Buffer;
}

/** Entries sorted as Go's encoding/json sorts map keys: by bytes (JS sorts by UTF-16 units). */
function entries<T>(map: Record<string, T>, toBytes: (v: T) => Buffer): Entry[] {
  return Object.entries(map)
    .map(([k, v]) => ({ key: Buffer.from(k, 'utf8'), value: toBytes(v) }))
    .sort((a, b) => Buffer.compare(a.key, b.key));
}

/** kubectl encodeConfigMap: json.Marshal(map[string]interface{}), keys in byte order. */
function marshalConfigMap(name: string, data: Entry[] | null, binary: Entry[], mode: GoEscapes): Buffer {
  const parts: Buffer[] = [Buffer.from('{')];
  if (binary.length > 0) {
    parts.push(Buffer.from('"binaryData":'), marshalObject(binary.map((e) => ({ key: e.key, value: Buffer.from(e.value.toString('base64')) })), mode), Buffer.from(','));
  }
  parts.push(Buffer.from('"data":'), data === null ? Buffer.from('null') : marshalObject(data, mode));
  parts.push(Buffer.from(',"kind":"ConfigMap","name":'), goJsonString(Buffer.from(name, 'utf8'), mode), Buffer.from('}'));
  return Buffer.concat(parts);
}

function marshalObject(items: Entry[], mode: GoEscapes): Buffer {
  const parts: Buffer[] = [Buffer.from('{')];
  items.forEach((e, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    parts.push(goJsonString(e.key, mode), Buffer.from(':'), goJsonString(e.value, mode));
  });
  parts.push(Buffer.from('}'));
  return Buffer.concat(parts);
}

const HEX = '0123456789abcdef';

/** The escape Go writes for an ASCII byte, or null when the byte is written as is (HTML-safe set). */
function asciiEscape(b: number, mode: GoEscapes): string | null {
  switch (b) {
    case 0x22:
      return '\\"';
    case 0x5c:
      return '\\\\';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x08:
      return mode === 'go1.22' ? '\\b' : '\\u0008';
    case 0x0c:
      return mode === 'go1.22' ? '\\f' : '\\u000c';
  }
  if (b < 0x20 || b === 0x3c || b === 0x3e || b === 0x26) return '\\u00' + HEX[b >> 4] + HEX[b & 0xf];
  return null; // including DEL (0x7f)
}

/** Length of the valid UTF-8 sequence at b[i], or 0 where Go's utf8.DecodeRune reports RuneError/1. */
function utf8SeqLength(b: Uint8Array, i: number): number {
  const c = b[i];
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => b[i + k] !== undefined && b[i + k] >= lo && b[i + k] <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0; // no surrogates
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** encoding/json appendString with escapeHTML: bytes in, the quoted JSON string out. */
export function goJsonString(b: Uint8Array, mode: GoEscapes): Buffer {
  const out: number[] = [0x22];
  const pushAscii = (s: string): void => {
    for (let k = 0; k < s.length; k++) out.push(s.charCodeAt(k));
  };
  for (let i = 0; i < b.length; ) {
    if (b[i] < 0x80) {
      const esc = asciiEscape(b[i], mode);
      if (esc === null) out.push(b[i]);
      else pushAscii(esc);
      i++;
      continue;
    }
    const n = utf8SeqLength(b, i);
    if (n === 0) {
      pushAscii('\\ufffd');
      i++;
    } else if (n === 3 && b[i] === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9)) {
      pushAscii(b[i + 2] === 0xa8 ? '\\u2028' : '\\u2029'); // JSONP-safe line separators
      i += 3;
    } else {
      for (let k = 0; k < n; k++) out.push(b[i + k]);
      i += n;
    }
  }
  out.push(0x22);
  return Buffer.from(out);
}

/** sha256 hex, first 10 characters, 0→g 1→h 3→k a→m e→t (kubectl encodeHash: no vowels, no look-alikes). */
function hashSuffix(json: Buffer): string {
  const hex = sha256Hex(json);
  const map: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => map[c] ?? c).join('');
}
