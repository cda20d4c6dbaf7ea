// The byte-level scanner: candidates found on raw bytes, lines split across chunks of any
// size, continuations and watch windows across chunk boundaries, CR/NUL, overlong lines.
import t from 'tap';
import fc from 'fast-check';
import { LineScanner, scanChunks, WATCH_LINES, type Markers } from '../../../lib/journal/scan.js';
import { recorder, type Seen } from './scan-recorder.js';

const markers = (primary: string[], watch: string[] = []): Markers => ({ primary: primary.map((p) => Buffer.from(p)), watch: watch.map((p) => Buffer.from(p)) });

async function* chunked(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function run(text: string | Buffer, m: Markers, chunk: number, maxLine?: number): Promise<Seen> {
  const { sink, seen } = recorder();
  const data = Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1');
  await scanChunks(chunked(data, chunk), () => new LineScanner(m, sink, maxLine), () => {});
  return seen;
}

const TEXT = ['noise one', 'hit A here', 'noise two', 'B hit CONT', ' cont 1', ' cont 2', 'noise three', 'another A', 'START', 'quiet', 'watch me W', 'tail A'].join('\n');

t.test('candidates, continuations and watch windows at every chunk size', async (t) => {
  const want: Seen = { lines: ['hit A here', 'B hit CONT', 'another A', 'START', 'watch me W', 'tail A'], conts: [' cont 1', ' cont 2'], overlong: 0 };
  for (const size of [1, 2, 3, 5, 7, 13, 64, 4096]) {
    t.same(await run(TEXT, markers(['A', 'B', 'START'], ['W']), size), want, `chunk ${size}`);
  }
});

t.test('a line holding several markers is delivered once; the final line without a newline too', async (t) => {
  t.same((await run('x A B A\nA', markers(['A', 'B']), 3)).lines, ['x A B A', 'A']);
});

t.test('watch markers outside a watch window are ignored', async (t) => {
  t.same((await run('W one\nSTART\nW two\n', markers(['START'], ['W']), 4)).lines, ['START', 'W two']);
});

t.test('CR and NUL bytes stay inside the line', async (t) => {
  t.same((await run('a\r\nhit A\r\nb\0A\0\n', markers(['A']), 2)).lines, ['hit A\r', 'b\0A\0']);
});

t.test('an overlong line in a watch window is one of its lines, wherever the reads end', async (t) => {
  // Found by review: a quiet overlong line dropped across reads was not counted against the
  // window, one that ended in the buffer it started in was; a read boundary (a stdin chunk, a
  // jump of the helper thread) then decided whether a watch line just past the window counted.
  const m = markers(['START'], ['W']);
  const body = (quiet: number) => `START kubelet\n${'z'.repeat(1500)}\n${'quiet\n'.repeat(quiet)}a W line\nend\n`;
  for (const size of [1, 7, 100, 999, 1024, 1600, 4096, 65536]) {
    t.same(await run(body(WATCH_LINES - 1), m, size, 1000), { lines: ['START kubelet'], conts: [], overlong: 0 }, `just past the window, chunk ${size}`);
    t.same(await run(body(WATCH_LINES - 2), m, size, 1000), { lines: ['START kubelet', 'a W line'], conts: [], overlong: 0 }, `the window's last line, chunk ${size}`);
  }
});

t.test('overlong lines are dropped and reported when they held a marker', async (t) => {
  const long = 'x'.repeat(5000);
  const text = `${long}A${long}\nok A\n${long}\nlast A`;
  for (const size of [7, 100, 4096, 65536]) {
    t.same(await run(text, markers(['A']), size, 1000), { lines: ['ok A', 'last A'], conts: [], overlong: 1 }, `chunk ${size}`);
  }
  // an overlong line at the very end, without a newline
  t.same(await run(`ok A\n${long}A`, markers(['A']), 64, 1000), { lines: ['ok A'], conts: [], overlong: 1 });
});

t.test('property: the SIMD path (watch windows passed over by counting lines) agrees with the plain one', async (t) => {
  // Lines: quiet ones, primary hits, starts (a watch window), watch-marker lines, continued lines.
  const line = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('quiet', 'q', '', 'more quiet text here') },
    { weight: 2, arbitrary: fc.constantFrom('hit A', 'START now', 'B CONT', ' cont', 'W watch', 'A and W', 'WW') },
  );
  const m = markers(['A', 'START', 'B'], ['W']);
  await fc.assert(
    fc.asyncProperty(fc.array(line, { maxLength: 400 }), fc.integer({ min: 1, max: 300 }), fc.boolean(), async (lines, chunk, endNl) => {
      const text = lines.join('\n') + (endNl ? '\n' : '');
      const data = Buffer.from(text, 'latin1');
      // Reference: one scan of a buffer that is not the scanner's own (no SIMD: per-line checks).
      const ref = recorder();
      const plain = new LineScanner(m, ref.sink);
      plain.scan(Buffer.concat([data, Buffer.alloc(1)]), data.length, true);
      plain.finish();
      const simd = await run(data, m, chunk);
      t.same(simd, ref.seen);
      return true;
    }),
    { numRuns: 400, seed: 16 },
  );
});
