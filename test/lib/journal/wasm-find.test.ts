// The SIMD marker search agrees with Buffer#indexOf everywhere, including at block edges.
import t from 'tap';
import fc from 'fast-check';
import { wasmFinder } from '../../../lib/journal/wasm-find.js';

function expected(data: Buffer, markers: Buffer[], pos: number, end: number): number {
  let best = -1;
  for (const m of markers) {
    const i = data.subarray(0, end).indexOf(m, pos);
    if (i >= 0 && (best < 0 || i < best)) best = i;
  }
  return best;
}

t.test('WebAssembly SIMD is available here (Node 20)', async (t) => {
  t.ok(wasmFinder([Buffer.from('fig co')], 1024));
});

t.test('finds every occurrence of any marker, in order', async (t) => {
  const markers = ['fig co', 'ystemd', '"UNIT":"', 'x'].map((s) => Buffer.from(s));
  const f = wasmFinder(markers, 4096)!;
  const text = Buffer.from('a fig co b systemd[1] "UNIT":"k" fig cofig co\nystemdx fig c');
  text.copy(f.buf);
  const got: number[] = [];
  for (let p = f.find(0, text.length); p >= 0; p = f.find(p + 1, text.length)) got.push(p);
  const want: number[] = [];
  for (let p = expected(text, markers, 0, text.length); p >= 0; p = expected(text, markers, p + 1, text.length)) want.push(p);
  t.same(got, want);
  t.equal(f.find(0, 10), 2, 'a match must end before `end`');
  t.equal(f.find(3, 8), -1, 'a marker cut by `end` is not a match');
});

t.test('property: agrees with indexOf on random text', async (t) => {
  const alphabet = fc.constantFrom(...'fig coystemd[1]x\n "'.split(''));
  await fc.assert(
    fc.property(fc.array(alphabet, { maxLength: 300 }), fc.nat(300), fc.nat(300), (chars, a, b) => {
      const data = Buffer.from(chars.join(''));
      const markers = [Buffer.from('fig co'), Buffer.from('ystemd'), Buffer.from('d[1]')];
      const f = wasmFinder(markers, 512)!;
      f.buf.fill(0x66); // garbage after the data must not match
      data.copy(f.buf);
      const end = Math.min(data.length, Math.max(a, b));
      const pos = Math.min(a, b, end);
      return f.find(pos, end) === expected(data, markers, pos, end);
    }),
    { numRuns: 500 },
  );
  t.pass();
});

t.test('markers the SIMD search does not take', async (t) => {
  t.equal(wasmFinder([], 1024), null);
  t.equal(wasmFinder([Buffer.alloc(0)], 1024), null);
  t.equal(wasmFinder([Buffer.alloc(200, 1)], 1024), null);
});

t.test('property: sparse markers in long quiet text (whole blocks skipped at once) at every offset', async (t) => {
  const markers = [Buffer.from('fig co'), Buffer.from('ystemd'), Buffer.from('ynamic')];
  const quiet = fc.constantFrom(...'abehjklmnpqrtuvwxz0123456789 :[].\n'.split(''));
  await fc.assert(
    fc.property(fc.array(quiet, { minLength: 0, maxLength: 700 }), fc.array(fc.tuple(fc.nat(700), fc.nat(2)), { maxLength: 3 }), fc.nat(700), fc.nat(700), (chars, puts, a, b) => {
      const data = Buffer.from(chars.join(''));
      for (const [at, k] of puts) if (at + 6 <= data.length) markers[k]!.copy(data, at);
      const f = wasmFinder(markers, 1024)!;
      f.buf.fill(0x79); // 'y' after the data: half a marker, never a whole one inside `end`
      data.copy(f.buf);
      const end = Math.min(data.length, Math.max(a, b));
      const pos = Math.min(a, b, end);
      return f.find(pos, end) === expected(data, markers, pos, end);
    }),
    { numRuns: 2000 },
  );
  const f = wasmFinder(markers, 4096)!;
  for (let at = 0; at + 6 <= 300; at++) {
    f.buf.fill(0x61, 0, 400);
    markers[at % 3]!.copy(f.buf, at);
    if (f.find(0, 300) !== at) t.fail(`a marker at ${at}`);
    if (f.find(0, at + 5) !== -1) t.fail(`a marker cut by end at ${at + 5}`);
  }
  t.pass('a lone marker is found at every offset');
});

t.test('lines() counts newlines in any range; findOther() searches the second marker set', async (t) => {
  const f = wasmFinder([Buffer.from('fig co')], 4096, [Buffer.from('valid configuration'), Buffer.from('zz')])!;
  const text = Buffer.from(`a\nbb\n\n${'x'.repeat(40)}${'\n'.repeat(17)}yy valid configuration\nzz\nz`);
  f.buf.fill(10, 0, 600); // newlines after the data must not be counted
  text.copy(f.buf);
  let bad = 0;
  for (let a = 0; a <= text.length; a++) {
    for (let b = a; b <= text.length; b++) {
      let n = 0;
      for (let i = a; i < b; i++) n += text[i] === 10 ? 1 : 0;
      if (f.lines(a, b) !== n) bad++;
    }
  }
  t.equal(bad, 0, 'every [a, b) counted exactly');
  const other = [Buffer.from('valid configuration'), Buffer.from('zz')];
  for (let p = 0; p <= text.length; p++) {
    if (f.findOther(p, text.length) !== expected(text, other, p, text.length)) t.fail(`findOther from ${p}`);
  }
  t.equal(f.find(0, text.length), -1, 'find() still looks for its own markers only');
  t.equal(wasmFinder([Buffer.from('fig co')], 64)!.findOther(0, 10), -1, 'no second set: nothing found');
});
