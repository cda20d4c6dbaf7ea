// The decode error of kubelets 1.20–1.22, whose typed decoder is json-iterator (v1.1.10/11,
// apimachinery's case-sensitive config), not encoding/json as in 1.23. Only its error text
// differs, and that text depends on the decoder's byte-level walk, so this replays the walk
// over the same bytes (the payload itself for JSON, sigs.k8s.io/yaml's JSON for YAML):
// - the first error wins and is reported with a window of bytes around the read position
//   ("error found in #10 byte of ...|…|..., bigger context ...|…|...");
// - decoding goes on after it, and every field decoded later prefixes its Go name, every
//   slice its type, every struct "pkg.Type." — until the walk derails: once an error is
//   set, unreadByte() does nothing, so each ReadNil (pointers, bools, numbers) swallows a
//   byte and the walk stops at the next byte that is not a ','.
// Used only to word an error the typed decoder already found; it never decides a verdict.

import { DurationError, parseGoDuration } from './duration.js';
import { goQuote } from './gostrconv.js';
import type { JNode } from './jnode.js';
import { parseQuantity, QuantityError } from './quantity.js';
import { fieldsOf, type FieldSpec, type StructSpec, type TypeSpec } from './schema.js';
import type { KubeletVersion } from './version.js';

const EOF = Symbol('EOF');
const WS = new Set([0x20, 0x0a, 0x09, 0x0d]);
const MAX_U32 = (1n << 32n) - 1n;
const MAX_U64 = (1n << 64n) - 1n;
const SAFE_U32 = MAX_U32 / 10n - 1n;
const SAFE_U64 = MAX_U64 / 10n - 1n;

/** Go's string([]byte{c}) as text: a lone byte >= 0x80 is invalid UTF-8 (shown as U+FFFD). */
const byteText = (c: number) => (c < 0x80 ? String.fromCharCode(c) : '\ufffd');
const digit = (c: number | undefined) => (c !== undefined && c >= 0x30 && c <= 0x39 ? c - 0x30 : -1);

/** Go field names that are not the JSON name with its first letter raised. */
const GO_NAMES: Record<string, string> = {
  apiVersion: 'APIVersion', tlsCertFile: 'TLSCertFile', tlsPrivateKeyFile: 'TLSPrivateKeyFile', tlsCipherSuites: 'TLSCipherSuites',
  tlsMinVersion: 'TLSMinVersion', httpCheckFrequency: 'HTTPCheckFrequency', cpuManagerPolicy: 'CPUManagerPolicy',
  cpuManagerPolicyOptions: 'CPUManagerPolicyOptions', cpuManagerReconcilePeriod: 'CPUManagerReconcilePeriod', cpuCFSQuota: 'CPUCFSQuota',
  cpuCFSQuotaPeriod: 'CPUCFSQuotaPeriod', iptablesMasqueradeBit: 'IPTablesMasqueradeBit', iptablesDropBit: 'IPTablesDropBit',
  oomScoreAdj: 'OOMScoreAdj', resolvConf: 'ResolverConfig', qosReserved: 'QOSReserved', vmodule: 'VModule', json: 'JSON',
  uid: 'UID', // ConfigMapNodeConfigSource (meta files)
};
const goName = (json: string) => GO_NAMES[json] ?? json.charAt(0).toUpperCase() + json.slice(1);

class Walk {
  head = 0;
  error: string | typeof EOF | null = null;
  constructor(readonly buf: Uint8Array, readonly version: KubeletVersion) {}
  get tail(): number {
    return this.buf.length;
  }
  get failed(): boolean {
    return this.error !== null && this.error !== EOF;
  }

  report(op: string, msg: string): void {
    if (this.failed) return;
    const text = (a: number, b: number) => Buffer.from(this.buf.subarray(a, b)).toString('utf8');
    const peekStart = Math.max(0, this.head - 10);
    const ctxStart = Math.max(0, this.head - 50);
    this.error = `${op}: ${msg}, error found in #${this.head - peekStart} byte of ...|${text(peekStart, Math.min(this.tail, this.head + 10))}|..., bigger context ...|${text(ctxStart, Math.min(this.tail, this.head + 50))}|...`;
  }
  /** Prefix the pending error (fmt.Errorf("%s: %s") and friends). */
  wrap(prefix: string): void {
    if (this.failed) this.error = prefix + (this.error as string);
  }
  loadMore(): false {
    if (this.error === null) {
      this.head = this.tail;
      this.error = EOF;
    }
    return false;
  }
  nextToken(): number {
    for (let i = this.head; i < this.tail; i++) {
      if (WS.has(this.buf[i]!)) continue;
      this.head = i + 1;
      return this.buf[i]!;
    }
    return this.loadMore() ? 0 : 0;
  }
  readByte(): number {
    if (this.head === this.tail) return this.loadMore() ? 0 : 0;
    return this.buf[this.head++]!;
  }
  unreadByte(): void {
    if (this.error !== null) return;
    this.head--;
  }
  skipBytes(op: string, want: string): void {
    for (const ch of want.slice(1)) {
      if (this.readByte() !== ch.charCodeAt(0)) {
        this.report(op, `expect ${want.slice(1)}`);
        return;
      }
    }
  }
  readNil(): boolean {
    const c = this.nextToken();
    if (c === 0x6e) {
      this.skipBytes('skipThreeBytes', 'null');
      return true;
    }
    this.unreadByte();
    return false;
  }
  readBool(): void {
    const c = this.nextToken();
    if (c === 0x74) return this.skipBytes('skipThreeBytes', 'true');
    if (c === 0x66) return this.skipBytes('skipFourBytes', 'false');
    this.report('ReadBool', `expect t or f, but found ${byteText(c)}`);
  }
  readString(): string {
    const c = this.nextToken();
    if (c === 0x22) {
      for (let i = this.head; i < this.tail; i++) {
        const b = this.buf[i]!;
        if (b === 0x22) {
          const s = Buffer.from(this.buf.subarray(this.head, i)).toString('utf8');
          this.head = i + 1;
          return s;
        }
        if (b === 0x5c) break;
        if (b < 0x20) {
          this.report('ReadString', `invalid control character found: ${b}`);
          return '';
        }
      }
      return this.readStringSlowPath();
    }
    if (c === 0x6e) {
      this.skipBytes('skipThreeBytes', 'null');
      return '';
    }
    this.report('ReadString', `expects " or n, but found ${byteText(c)}`);
    return '';
  }
  /** After a backslash: the JSON string from head (just past the opening quote). */
  readStringSlowPath(): string {
    if (this.error !== null) {
      this.report('readStringSlowPath', 'unexpected end of input');
      return '';
    }
    for (let i = this.head; i < this.tail; i++) {
      if (this.buf[i] === 0x5c) i++;
      else if (this.buf[i] === 0x22) {
        const s = JSON.parse(Buffer.from(this.buf.subarray(this.head - 1, i + 1)).toString('utf8')) as string;
        this.head = i + 1;
        return s;
      }
    }
    this.head = this.tail;
    this.loadMore();
    this.report('readStringSlowPath', 'unexpected end of input');
    return '';
  }
  assertInteger(): void {
    if (this.head < this.tail && this.buf[this.head] === 0x2e) this.report('assertInteger', 'can not decode float as int');
  }
  /** readUint32 / readUint64 with their 8-digit fast path and wrap-around overflow test. */
  readUint(c: number, bits: 32 | 64): bigint {
    const op = `readUint${bits}`;
    const mask = bits === 32 ? MAX_U32 : MAX_U64;
    const safe = bits === 32 ? SAFE_U32 : SAFE_U64;
    const first = digit(c);
    if (first === 0) {
      this.assertInteger();
      return 0n;
    }
    if (first < 0) {
      this.report(op, 'unexpected character: \ufffd');
      return 0n;
    }
    let value = BigInt(first);
    if (this.tail - this.head > 10) {
      let i = this.head;
      for (let k = 0; k < 7; k++, i++) {
        const d = digit(this.buf[i]);
        if (d < 0) {
          this.head = i;
          this.assertInteger();
          return value;
        }
        value = value * 10n + BigInt(d);
      }
      this.head = i;
      if (digit(this.buf[i]) < 0) {
        this.assertInteger();
        return value;
      }
    }
    for (let i = this.head; i < this.tail; i++) {
      const d = digit(this.buf[i]);
      if (d < 0) {
        this.head = i;
        this.assertInteger();
        return value;
      }
      const next = (value * 10n + BigInt(d)) & mask;
      if (value > safe && next < value) {
        this.report(op, 'overflow');
        return 0n;
      }
      value = next;
    }
    this.loadMore();
    this.assertInteger();
    return value;
  }
  readInt(bits: 32 | 64): void {
    const max = bits === 32 ? 2147483647n : 9223372036854775807n;
    const c = this.nextToken();
    const neg = c === 0x2d;
    const val = neg ? this.readUint(this.readByte(), bits) : this.readUint(c, bits);
    if (val > (neg ? max + 1n : max)) this.report(`ReadInt${bits}`, `overflow: ${val}`);
  }
  readFloat64(): void {
    const c = this.nextToken();
    if (c !== 0x2d) this.unreadByte();
    let i = this.head;
    while (i < this.tail && /[-+.eE0-9]/.test(String.fromCharCode(this.buf[i]!))) i++;
    const str = Buffer.from(this.buf.subarray(this.head, i)).toString('latin1');
    this.head = i;
    if (i === this.tail) this.loadMore();
    if (this.failed) return;
    if (str === '') this.report('readNumberAsString', 'invalid number');
  }

  // ---- skipping (iter_skip_strict.go) --------------------------------------------------
  /**
   * Skip one value. Nested arrays and objects are walked with a stack of their own, not by
   * recursion: JSON may nest 10000 deep (encoding/json's limit, checked before this runs), Go's
   * stack grows to hold it, and ours would run out at a few thousand levels, at a depth that
   * depends on the thread (a worker's stack is larger) and on how warm the code is. The calls
   * made, and their order, are those of the recursive skip/skipArray/skipObject of
   * iter_skip_strict.go, so a walk derailed by an error goes on as it would there.
   */
  skip(): void {
    /** The arrays (0x5b) and objects (0x7b) whose members are being skipped, innermost last. */
    const open: number[] = [];
    let c = this.nextToken();
    for (;;) {
      // One value starting with `c`; a non-empty array or object is entered instead.
      let entered = false;
      if (c === 0x22) this.skipString();
      else if (c === 0x6e) this.skipBytes('skipThreeBytes', 'null');
      else if (c === 0x74) this.skipBytes('skipThreeBytes', 'true');
      else if (c === 0x66) this.skipBytes('skipFourBytes', 'false');
      else if (c === 0x30) {
        this.unreadByte();
        this.readFloat64();
      } else if (c === 0x2d || (c >= 0x31 && c <= 0x39)) this.skipNumber();
      else if (c === 0x5b) entered = this.enterArray();
      else if (c === 0x7b) entered = this.enterObject();
      else this.report('Skip', `do not know how to skip: ${c}`);
      if (entered) {
        open.push(c);
        c = this.nextToken();
        continue;
      }
      // The value is done: close what it ends, up to a container with another member.
      for (;;) {
        const top = open[open.length - 1];
        if (top === undefined) return;
        const t = this.nextToken();
        if (t === 0x2c) {
          if (top === 0x7b) this.memberName();
          c = this.nextToken();
          break;
        }
        if (top === 0x5b && t !== 0x5d) this.report('ReadArrayCB', `expect ] in the end, but found ${byteText(t)}`);
        if (top === 0x7b && t !== 0x7d) this.report('ReadObjectCB', 'object not ended with }');
        open.pop();
      }
    }
  }
  /** skipArray up to its first element: true when there is one (the caller skips it next). */
  private enterArray(): boolean {
    if (!this.opened(0x5b, 'ReadArrayCB')) return false;
    if (this.nextToken() === 0x5d) return false;
    this.unreadByte();
    return true;
  }
  /** skipObject up to its first member's value: true when there is one (the caller skips it next). */
  private enterObject(): boolean {
    if (!this.opened(0x7b, 'ReadObjectCB')) return false;
    const t = this.nextToken();
    if (t === 0x7d) return false;
    if (t !== 0x22) {
      this.report('ReadObjectCB', `expect " after {, but found ${byteText(t)}`);
      return false;
    }
    this.unreadByte();
    this.memberName();
    return true;
  }
  /** The opening `[` or `{` read again: false when it is a null instead, or neither (reported). */
  private opened(open: number, op: string): boolean {
    this.unreadByte();
    const c = this.nextToken();
    if (c === 0x6e) {
      this.skipBytes('skipThreeBytes', 'null');
      return false;
    }
    if (c !== open) {
      this.report(op, `expect ${String.fromCharCode(open)} or n, but found ${byteText(c)}`);
      return false;
    }
    return true;
  }
  /** A member's name and its colon. */
  private memberName(): void {
    this.readString();
    const t = this.nextToken();
    if (t !== 0x3a) this.report('ReadObject', `expect : after object field, but found ${byteText(t)}`);
  }
  skipNumber(): void {
    for (let i = this.head; i < this.tail; i++) {
      const c = this.buf[i]!;
      if ((c >= 0x30 && c <= 0x39) || c === 0x2e) continue;
      if (c === 0x2c || c === 0x5d || c === 0x7d || WS.has(c)) {
        if (this.head === i) break;
        this.head = i;
        return;
      }
      break;
    }
    this.unreadByte();
    if (this.failed) return;
    this.readFloat64();
  }
  skipString(): void {
    for (let i = this.head; i < this.tail; i++) {
      const c = this.buf[i]!;
      if (c === 0x22) {
        this.head = i + 1;
        return;
      }
      if (c === 0x5c) break;
      if (c < 0x20) return this.report('trySkipString', `invalid control character found: ${c}`);
    }
    this.unreadByte();
    this.readString();
  }
  /** The bytes of the next value (SkipAndReturnBytes). */
  skipAndReturnBytes(): Uint8Array {
    const start = this.head;
    this.skip();
    return this.buf.subarray(start, this.head);
  }

  // ---- typed decoders (reflect_*.go) ------------------------------------------------------
  field(spec: FieldSpec): void {
    if (spec.pointer && this.readNil()) return;
    this.value(spec.type);
  }
  value(type: TypeSpec): void {
    switch (type.kind) {
      case 'bool': if (!this.readNil()) this.readBool(); return;
      case 'int32': if (!this.readNil()) this.readInt(32); return;
      case 'int64': case 'duration-ns': if (!this.readNil()) this.readInt(64); return;
      case 'uint32': if (!this.readNil()) this.readUint(this.nextToken(), 32); return;
      case 'float64': if (!this.readNil()) this.readFloat64(); return;
      case 'string': this.readString(); return;
      case 'duration': case 'quantity': case 'time': return this.unmarshaler(type);
      case 'list': return this.slice(type);
      case 'map': return this.map(type);
      case 'struct': return this.struct(type);
    }
  }
  unmarshaler(type: TypeSpec): void {
    this.nextToken();
    this.unreadByte();
    const raw = Buffer.from(this.skipAndReturnBytes()).toString('utf8');
    const err = unmarshalError(type.kind, raw);
    if (err) this.report('unmarshalerDecoder', err);
  }
  slice(type: TypeSpec): void {
    const c = this.nextToken();
    if (c === 0x6e) this.skipBytes('skipThreeBytes', 'null');
    else if (c !== 0x5b) this.report('decode slice', `expect [ or n, but found ${byteText(c)}`);
    else if (this.nextToken() !== 0x5d) {
      this.unreadByte();
      this.value(type.elem!);
      let t: number;
      for (t = this.nextToken(); t === 0x2c; t = this.nextToken()) this.value(type.elem!);
      if (t !== 0x5d) this.report('decode slice', `expect ], but found ${byteText(t)}`);
    }
    this.wrap(`${type.goType}: `);
  }
  map(type: TypeSpec): void {
    const c = this.nextToken();
    if (c === 0x6e) return this.skipBytes('skipThreeBytes', 'null');
    if (c !== 0x7b) return this.report('ReadMapCB', `expect { or n, but found ${byteText(c)}`);
    let t = this.nextToken();
    if (t === 0x7d) return;
    this.unreadByte();
    do {
      this.readString();
      t = this.nextToken();
      if (t !== 0x3a) return this.report('ReadMapCB', `expect : after object field, but found ${byteText(t)}`);
      this.value(type.elem!);
      t = this.nextToken();
    } while (t === 0x2c);
    if (t !== 0x7d) this.report('ReadMapCB', `expect }, but found ${byteText(t)}`);
  }
  struct(type: TypeSpec): void {
    const fields = fieldsOf(type.struct!, this.version);
    // More than ten fields: generalStructDecoder; fewer: the hash-switch decoders.
    if (fields.length > 10) this.generalStruct(type, fields);
    else this.smallStruct(type, fields);
  }
  objectStart(): boolean {
    const c = this.nextToken();
    if (c === 0x7b) {
      if (this.nextToken() === 0x7d) return false;
      this.unreadByte();
      return true;
    }
    if (c === 0x6e) {
      this.skipBytes('skipThreeBytes', 'null');
      return false;
    }
    this.report('readObjectStart', `expect { or n, but found ${byteText(c)}`);
    return false;
  }
  decodeField(spec: FieldSpec, embeddedIn?: string): void {
    this.field(spec);
    this.wrap(`${goName(spec.name)}: `);
    if (embeddedIn) this.wrap(`${embeddedIn}: `);
  }
  generalStruct(type: TypeSpec, fields: FieldSpec[]): void {
    if (!this.objectStart()) return;
    const byName = new Map(fields.map((f) => [f.name, f]));
    let c: number;
    for (c = 0x2c; c === 0x2c; c = this.nextToken()) {
      const name = this.readString();
      const spec = byName.get(name);
      const colon = this.nextToken();
      if (colon !== 0x3a) this.report('ReadObject', `expect : after object field, but found ${byteText(colon)}`);
      if (spec) this.decodeField(spec, TYPE_META.has(name) && type.struct === KUBELET_STRUCT ? 'TypeMeta' : undefined);
      else this.skip();
    }
    this.wrap(`${type.goType}.`);
    if (c !== 0x7d) this.report('struct Decode', `expect }, but found ${byteText(c)}`);
  }
  /** readFieldHash: the member name when it is followed by ':', else null (error reported). */
  fieldName(): string | null {
    const c = this.nextToken();
    if (c !== 0x22) {
      this.report('readFieldHash', `expect ", but found ${byteText(c)}`);
      return null;
    }
    let name: string;
    const end = this.buf.indexOf(0x22, this.head);
    const slash = this.buf.indexOf(0x5c, this.head);
    if (slash >= 0 && (end < 0 || slash < end)) name = this.readStringSlowPath();
    else if (end < 0) {
      this.loadMore();
      this.report('readFieldHash', 'incomplete field name');
      return null;
    } else {
      name = Buffer.from(this.buf.subarray(this.head, end)).toString('utf8');
      this.head = end + 1;
    }
    const colon = this.nextToken();
    if (colon !== 0x3a) {
      this.report('readFieldHash', `expect :, but found ${byteText(colon)}`);
      return null;
    }
    return name;
  }
  smallStruct(type: TypeSpec, fields: FieldSpec[]): void {
    if (!this.objectStart()) return;
    for (;;) {
      const name = this.fieldName();
      const spec = name === null ? undefined : fields.find((f) => f.name === name);
      if (spec) this.decodeField(spec);
      else this.skip();
      const c = this.nextToken();
      if (c === 0x2c) continue;
      if (c !== 0x7d) this.report('isObjectEnd', `object ended prematurely, unexpected char ${byteText(c)}`);
      break;
    }
    this.wrap(`${type.goType}.`);
  }
}

const TYPE_META = new Set(['kind', 'apiVersion']);
let KUBELET_STRUCT: StructSpec | undefined;

/** What a type's UnmarshalJSON says about these bytes (metav1.Duration, Quantity, metav1.Time). */
function unmarshalError(kind: TypeSpec['kind'], raw: string): string | null {
  if (kind === 'quantity') {
    if (raw === 'null') return null;
    const inner = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    try {
      parseQuantity(inner.trim());
      return null;
    } catch (e) {
      if (e instanceof QuantityError) return e.message;
      throw e;
    }
  }
  if (kind === 'time' && raw === 'null') return null;
  let str: string;
  const first = raw.charAt(0);
  if (first === '"') str = JSON.parse(raw) as string;
  else if (raw === 'null') str = '';
  else return `json: cannot unmarshal ${first === '[' ? 'array' : first === '{' ? 'object' : first === 't' || first === 'f' ? 'bool' : 'number'} into Go value of type string`;
  if (kind === 'time') {
    return Number.isNaN(Date.parse(str)) ? `parsing time ${goQuote(str)} as "2006-01-02T15:04:05Z07:00": cannot parse ${goQuote(str)} as "2006"` : null;
  }
  try {
    parseGoDuration(str);
    return null;
  } catch (e) {
    if (e instanceof DurationError) return e.message;
    throw e;
  }
}

/**
 * json-iterator's error for decoding `json` into `type` (the whole KubeletConfiguration),
 * as a kubelet of `version` (1.20–1.22) words it, or null when it finds none.
 */
export function jsoniterError(json: Uint8Array, type: TypeSpec, version: KubeletVersion): string | null {
  KUBELET_STRUCT = type.struct;
  const w = new Walk(json, version);
  try {
    w.value(type);
  } catch (e) {
    // Thousands of nested levels (allowed up to Go's 10000) outrun the JS stack while
    // skipping: give up on the wording, the caller keeps encoding/json's.
    if (e instanceof RangeError) return null;
    throw e;
  }
  const c = w.nextToken();
  if (c === 0) return w.error === EOF ? null : w.error;
  w.report('Unmarshal', 'there are bytes left after unmarshal');
  return w.error === EOF ? null : w.error;
}

/** The JSON json.Marshal writes for a tree (compact, HTML-safe): what sigs.k8s.io/yaml hands on. */
export function goJsonBytes(root: JNode): Buffer {
  const parts: string[] = [];
  const emit = (n: JNode): void => {
    switch (n.t) {
      case 'null': parts.push('null'); return;
      case 'bool': parts.push(String(n.v)); return;
      case 'num': parts.push(n.s); return;
      case 'str': parts.push(goJsonString(n.v)); return;
      case 'arr':
        parts.push('[');
        n.items.forEach((x, i) => {
          if (i) parts.push(',');
          emit(x);
        });
        parts.push(']');
        return;
      case 'obj':
        parts.push('{');
        n.entries.forEach(([k, v], i) => {
          parts.push(i ? ',' : '', goJsonString(k), ':');
          emit(v);
        });
        parts.push('}');
    }
  };
  emit(root);
  return Buffer.from(parts.join(''), 'utf8');
}

/** encoding/json's string encoding with HTML escaping (<, >, & and U+2028/2029 as \u). */
function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return `${out}"`;
}
