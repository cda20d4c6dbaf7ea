// A multi-marker search in WebAssembly SIMD, emitted at run time for the markers in use (no
// toolchain, no dependency). Per 16 bytes it compares the first and the last byte of every
// marker at once (the "generic SIMD" substring filter), then checks the rare candidates in
// full. One pass finds the next line holding any marker: Buffer#indexOf needs one pass per
// marker and slows down on frequent first bytes. Where WebAssembly SIMD is missing, the
// scanner keeps using indexOf.

// lib ES2023 has no WebAssembly types; these are the few used here.
declare const WebAssembly: {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
};

/** Extra bytes after the data: the filter reads up to 16 + the longest marker past a position. */
const PAD = 128;

export interface WasmFinder {
  /** Memory the data must be in; `buf` views it from offset 0. */
  buf: Buffer;
  /** The first position in `[pos, end)` where a marker starts in full, or -1. */
  find(pos: number, end: number): number;
  /** How many newlines `[pos, end)` holds. */
  lines(pos: number, end: number): number;
  /** find() for the second set of markers (the scanner's watch markers); -1 when none were given. */
  findOther(pos: number, end: number): number;
  /** The compiled module: another thread instantiates it for a memory of its own (tail-finder.ts). */
  module: object;
}

const enc = {
  u32(n: number): number[] {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  },
  i32(n: number): number[] {
    const out: number[] = [];
    for (;;) {
      const b = n & 0x7f;
      n >>= 7;
      if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
        out.push(b);
        return out;
      }
      out.push(b | 0x80);
    }
  },
  vec(items: number[][]): number[] {
    return [...enc.u32(items.length), ...items.flat()];
  },
  section(id: number, body: number[]): number[] {
    return [id, ...enc.u32(body.length), ...body];
  },
  str(s: string): number[] {
    return enc.vec([...Buffer.from(s)].map((b) => [b]));
  },
};

// Opcodes (WebAssembly core + SIMD, final encodings).
const OP = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d, ret: 0x0f, void: 0x40,
  localGet: 0x20, localSet: 0x21, localTee: 0x22,
  i32Load8u: 0x2d, i32Const: 0x41, i32Eqz: 0x45, i32Eq: 0x46, i32LtU: 0x49, i32GtU: 0x4b, i32LeU: 0x4d, i32GeU: 0x4f,
  i32Ctz: 0x68, i32Popcnt: 0x69, i32Add: 0x6a, i32Sub: 0x6b, i32And: 0x71,
  simd: 0xfd, v128Load: 0x00, i8x16Splat: 0x0f, i8x16Eq: 0x23, v128And: 0x4e, v128Or: 0x50, v128AnyTrue: 0x53, i8x16Bitmask: 0x64,
  i32: 0x7f, v128: 0x7b,
};

/** Bytes a quiet stretch is skipped by at once (four vectors tested together: one branch instead of four bitmasks). */
const BLOCK = 64;

/** The code of `find(start, end) -> pos|-1` for these markers. */
function body(markers: readonly Buffer[]): number[] {
  // locals: 0 start, 1 end (params); 2 i, 3 mask, 4 p; 5 v; then a first/last splat per marker
  const I = 2, MASK = 3, Pp = 4, V = 5;
  const F = (k: number) => 6 + 2 * k;
  const L = (k: number) => 7 + 2 * k;
  const get = (l: number) => [OP.localGet, l];
  const set = (l: number) => [OP.localSet, l];
  const simd = (op: number, ...imm: number[]) => [OP.simd, ...enc.u32(op), ...imm];
  const load = (offset: number) => simd(OP.v128Load, 0, ...enc.u32(offset));
  const c: number[] = [];
  markers.forEach((m, k) => {
    c.push(OP.i32Const, ...enc.i32(m[0]!), ...simd(OP.i8x16Splat), ...set(F(k)));
    c.push(OP.i32Const, ...enc.i32(m[m.length - 1]!), ...simd(OP.i8x16Splat), ...set(L(k)));
  });
  c.push(...get(0), ...set(I));
  // Per 16 bytes at `off` from i: a vector with a lane set where some marker's first and last bytes both fit.
  // Each 16 bytes is loaded once: at `off` for every first byte, at `off + length - 1` once per marker length.
  const lengths = [...new Set(markers.map((m) => m.length))];
  const W = (len: number) => 6 + 2 * markers.length + lengths.indexOf(len);
  const candidates = (off: number) => {
    const v: number[] = [...get(I), ...load(off), ...set(V)];
    for (const len of lengths) v.push(...get(I), ...load(off + len - 1), ...set(W(len)));
    markers.forEach((m, k) => {
      v.push(...get(V), ...get(F(k)), ...simd(OP.i8x16Eq));
      v.push(...get(W(m.length)), ...get(L(k)), ...simd(OP.i8x16Eq), ...simd(OP.v128And));
      if (k > 0) v.push(...simd(OP.v128Or));
    });
    return v;
  };
  c.push(OP.block, OP.void, OP.loop, OP.void);
  c.push(...get(I), ...get(1), OP.i32GeU, OP.brIf, 1);
  // A whole block before `end` with no candidate at all is skipped in one step (its reads stay
  // within the padding: i + 48 + 16 + longest marker < end + PAD).
  c.push(...get(I), OP.i32Const, ...enc.i32(BLOCK), OP.i32Add, ...get(1), OP.i32LeU, OP.if, OP.void);
  c.push(...candidates(0), ...candidates(16), ...simd(OP.v128Or), ...candidates(32), ...simd(OP.v128Or), ...candidates(48), ...simd(OP.v128Or));
  c.push(...simd(OP.v128AnyTrue), OP.i32Eqz, OP.if, OP.void);
  c.push(...get(I), OP.i32Const, ...enc.i32(BLOCK), OP.i32Add, ...set(I), OP.br, 2);
  c.push(OP.end, OP.end);
  c.push(...candidates(0));
  c.push(...simd(OP.i8x16Bitmask), OP.localTee, MASK, OP.if, OP.void, OP.loop, OP.void);
  c.push(...get(I), ...get(MASK), OP.i32Ctz, OP.i32Add, ...set(Pp));
  for (const m of markers) {
    // p + len <= end, and every byte equal
    c.push(...get(Pp), OP.i32Const, ...enc.i32(m.length), OP.i32Add, ...get(1), OP.i32LeU);
    for (let t = 0; t < m.length; t++) c.push(...get(Pp), OP.i32Load8u, 0, ...enc.u32(t), OP.i32Const, ...enc.i32(m[t]!), OP.i32Eq, OP.i32And);
    c.push(OP.if, OP.void, ...get(Pp), OP.ret, OP.end);
  }
  c.push(...get(MASK), ...get(MASK), OP.i32Const, 1, OP.i32Sub, OP.i32And, OP.localTee, MASK, OP.brIf, 0);
  c.push(OP.end, OP.end); // bits loop, if
  c.push(...get(I), OP.i32Const, 16, OP.i32Add, ...set(I), OP.br, 0);
  c.push(OP.end, OP.end); // blocks loop, block
  c.push(OP.i32Const, ...enc.i32(-1), OP.end);
  const locals = [
    [...enc.u32(3), OP.i32],
    [...enc.u32(1 + 2 * markers.length + new Set(markers.map((m) => m.length)).size), OP.v128],
  ];
  const fn = [...enc.vec(locals), ...c];
  return [...enc.u32(fn.length), ...fn];
}

/** The code of `lines(start, end) -> newlines in [start, end)`: 16 bytes at a time, then byte by byte. */
function linesBody(): number[] {
  // locals: 0 start, 1 end (params); 2 i, 3 n; 4 the newline splat
  const I = 2, N = 3, NLV = 4;
  const get = (l: number) => [OP.localGet, l];
  const set = (l: number) => [OP.localSet, l];
  const simd = (op: number, ...imm: number[]) => [OP.simd, ...enc.u32(op), ...imm];
  const c: number[] = [OP.i32Const, 10, ...simd(OP.i8x16Splat), ...set(NLV), ...get(0), ...set(I)];
  c.push(OP.block, OP.void, OP.loop, OP.void);
  c.push(...get(I), OP.i32Const, 16, OP.i32Add, ...get(1), OP.i32GtU, OP.brIf, 1);
  c.push(...get(N), ...get(I), ...simd(OP.v128Load, 0, 0), ...get(NLV), ...simd(OP.i8x16Eq), ...simd(OP.i8x16Bitmask), OP.i32Popcnt, OP.i32Add, ...set(N));
  c.push(...get(I), OP.i32Const, 16, OP.i32Add, ...set(I), OP.br, 0);
  c.push(OP.end, OP.end);
  c.push(OP.block, OP.void, OP.loop, OP.void);
  c.push(...get(I), ...get(1), OP.i32GeU, OP.brIf, 1);
  c.push(...get(N), ...get(I), OP.i32Load8u, 0, 0, OP.i32Const, 10, OP.i32Eq, OP.i32Add, ...set(N));
  c.push(...get(I), OP.i32Const, 1, OP.i32Add, ...set(I), OP.br, 0);
  c.push(OP.end, OP.end);
  c.push(...get(N), OP.end);
  const locals = [
    [...enc.u32(2), OP.i32],
    [...enc.u32(1), OP.v128],
  ];
  const fn = [...enc.vec(locals), ...c];
  return [...enc.u32(fn.length), ...fn];
}

function moduleBytes(markers: readonly Buffer[], other: readonly Buffer[], pages: number): Uint8Array {
  const type = enc.section(1, enc.vec([[0x60, ...enc.vec([[OP.i32], [OP.i32]]), ...enc.vec([[OP.i32]])]]));
  const bodies = [body(markers), linesBody()];
  if (other.length) bodies.push(body(other));
  const func = enc.section(3, enc.vec(bodies.map(() => [0])));
  const mem = enc.section(5, enc.vec([[0x00, ...enc.u32(pages)]]));
  const exp = enc.section(7, enc.vec([
    [...enc.str('find'), 0x00, 0],
    [...enc.str('lines'), 0x00, 1],
    ...(other.length ? [[...enc.str('other'), 0x00, 2]] : []),
    [...enc.str('mem'), 0x02, 0],
  ]));
  const code = enc.section(10, enc.vec(bodies));
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...type, ...func, ...mem, ...exp, ...code]);
}

/**
 * A finder over a memory of at least `size` data bytes, or null when WebAssembly SIMD is not
 * available or the markers do not suit it (empty, or longer than the padding).
 */
export function wasmFinder(markers: readonly Buffer[], size: number, other: readonly Buffer[] = []): WasmFinder | null {
  const unfit = (set: readonly Buffer[]) => set.length > 16 || set.some((m) => m.length === 0 || m.length > PAD - 16);
  if (markers.length === 0 || unfit(markers) || unfit(other)) return null;
  try {
    const bytes = moduleBytes(markers, other, Math.ceil((size + PAD) / 65536));
    if (!WebAssembly.validate(bytes)) return null;
    const module = new WebAssembly.Module(bytes);
    const instance = new WebAssembly.Instance(module);
    const mem = instance.exports.mem as { buffer: ArrayBuffer };
    const find = instance.exports.find as (pos: number, end: number) => number;
    const lines = instance.exports.lines as (pos: number, end: number) => number;
    const findOther = (instance.exports.other as ((pos: number, end: number) => number) | undefined) ?? (() => -1);
    return { buf: Buffer.from(mem.buffer, 0, size), find, lines, findOther, module };
  } catch {
    return null;
  }
}
