// The second thread on a large file (lib/journal/tail-finder.ts): whatever it searched and
// wherever the front scan jumps, the sink sees exactly what a plain front-to-back scan gives
// it — lines, continuations, watch windows, overlong lines — and the hook that may set V8
// flags runs once, after the worker is up.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { LineScanner, scanFd, type LineSink, type Markers } from '../../../lib/journal/scan.js';
import { recorder, type Seen } from './scan-recorder.js';
import { startTailFinder } from '../../../lib/journal/tail-finder.js';
import { wasmFinder } from '../../../lib/journal/wasm-find.js';

const MARKERS: Markers = { primary: ['<A>', '<B>', 'START'].map((s) => Buffer.from(s)), watch: [Buffer.from('<W>')] };

/** A seeded generator (the same files on every run). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** A journal-like file: long quiet stretches, and now and then hits, starts, continued lines, watch lines, overlong and CR lines. */
function journal(seed: number, lines: number, share: number, maxLine: number): Buffer {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const q = r();
    if (q >= share) {
      out.push('quiet line ' + 'x'.repeat(Math.floor(r() * 120)) + (r() < 0.02 ? '\r' : ''));
      continue;
    }
    const pick = Math.floor(r() * 8);
    if (pick === 0) out.push(`something <A> ${i}`);
    else if (pick === 1) out.push(`START kubelet ${i}`, 'after start', `a <W> line ${i}`);
    else if (pick === 2) out.push(`<B> CONT ${i}`, ' continued 1', ' continued 2');
    else if (pick === 3) out.push(`${'y'.repeat(maxLine + 10)}<A>`); // overlong, holding a marker
    else if (pick === 4) out.push('z'.repeat(maxLine + 50)); // overlong, quiet
    else if (pick === 5) out.push(`two <A> and <B> ${i}\r`);
    else if (pick === 6) out.push(`<W> outside any window ${i}`);
    else out.push(`${'w'.repeat(Math.floor(r() * 3000))} long then <A>`);
  }
  return Buffer.from(out.join('\n') + (seed % 2 ? '\n' : ''), 'latin1');
}

async function scanFile(file: string, tail: Parameters<typeof scanFd>[1]['tail'], maxLine: number, ready?: () => void): Promise<Seen & { bytes: number }> {
  const { sink, seen } = recorder();
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = await scanFd(fd, { start: 0, size: fs.fstatSync(fd).size, tail, ready }, () => new LineScanner(MARKERS, sink, maxLine), () => {});
    return { ...seen, bytes };
  } finally {
    fs.closeSync(fd);
  }
}

t.test('jumping through the searched back gives the sink exactly what a plain scan gives it', async (t) => {
  const dir = t.testdir({});
  const maxLine = 4000;
  let files = 0;
  for (const [seed, lines, share] of [[1, 20000, 0.002], [2, 20000, 0.01], [3, 8000, 0.1], [4, 3000, 0.5], [5, 30000, 0.0005]] as const) {
    const file = path.join(dir, `j${seed}.log`);
    fs.writeFileSync(file, journal(seed, lines, share, maxLine));
    const plain = await scanFile(file, false, maxLine);
    t.ok(plain.lines.length > 0 && plain.bytes === fs.statSync(file).size, `seed ${seed}: the plain scan read it all`);
    for (const chunk of [1000, 4096, 65536]) {
      for (const minJump of [1, 2048]) {
        const helped = await scanFile(file, { minBytes: 0, chunk, minJump, settle: true }, maxLine);
        t.same(helped, plain, `seed ${seed}, chunk ${chunk}, jumps from ${minJump} bytes`);
        files++;
      }
    }
    // And racing the worker as the command does (where it meets the front scan varies).
    t.same(await scanFile(file, { minBytes: 0, chunk: 4096, minJump: 1 }, maxLine), plain, `seed ${seed}, racing`);
  }
  t.equal(files, 30);
});

t.test('a marker cut by a chunk boundary is still found, and a file ending mid-line with one', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'cut.log');
  // Markers at every offset around the 1000-byte chunk boundaries counted from the end.
  const parts: string[] = [];
  for (let i = 0; i < 400; i++) parts.push('q'.repeat(37 + (i % 11)), `x<A>${i}`, 'quiet');
  const body = parts.join('\n') + '\nlast <B>';
  fs.writeFileSync(file, body);
  const plain = await scanFile(file, false, 10_000);
  t.equal(plain.lines.at(-1), 'last <B>');
  for (const chunk of [997, 1000, 1003]) t.same(await scanFile(file, { minBytes: 0, chunk, minJump: 1, settle: true }, 10_000), plain, `chunk ${chunk}`);
});

t.test('a file with no marker at all: one jump to the end, nothing delivered', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'quiet.log');
  fs.writeFileSync(file, 'quiet line\n'.repeat(50_000) + 'no newline at the end');
  const helped = await scanFile(file, { minBytes: 0, chunk: 65536, minJump: 1, settle: true }, 10_000);
  t.same(helped, { lines: [], conts: [], overlong: 0, bytes: fs.statSync(file).size });
});

t.test('the ready hook: once, before the first read without a helper, after the worker is up with one', async (t) => {
  const dir = t.testdir({ 'small.log': 'a <A>\nb\n', 'empty.log': '' });
  const order: string[] = [];
  const { sink } = recorder();
  const logged: LineSink = { ...sink, line: (b, s, e, r) => (order.push('line'), sink.line(b, s, e, r)) };
  const fd = fs.openSync(path.join(dir, 'small.log'), 'r');
  await scanFd(fd, { start: 0, size: 8, ready: () => order.push('ready') }, () => new LineScanner(MARKERS, logged), () => {});
  fs.closeSync(fd);
  t.same(order, ['ready', 'line'], 'a small file: before anything is read');
  for (const [name, tail] of [['empty.log', { minBytes: 0 }], ['small.log', { minBytes: 0, settle: true }], ['small.log', { minBytes: 0 }]] as const) {
    let calls = 0;
    await scanFile(path.join(dir, name), tail, 1000, () => calls++);
    t.equal(calls, 1, `${name} ${JSON.stringify(tail)}: once`);
  }
});

t.test('an aborted read stops the worker; the descriptor can then be closed', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'big.log');
  fs.writeFileSync(file, journal(9, 40000, 0.001, 4000));
  const ac = new AbortController();
  ac.abort();
  const { sink, seen } = recorder();
  const fd = fs.openSync(file, 'r');
  const bytes = await scanFd(fd, { start: 0, size: fs.fstatSync(fd).size, tail: { minBytes: 0, chunk: 4096 } }, () => new LineScanner(MARKERS, sink, 4000), () => {}, ac.signal);
  fs.closeSync(fd);
  t.ok(bytes < fs.statSync(file).size, 'stopped early');
  t.ok(seen.lines.length >= 0);
});

t.test('no helper where it would not pay or cannot run', async (t) => {
  const wasm = wasmFinder(MARKERS.primary, 512 * 1024);
  t.equal(startTailFinder(0, 0, 1024 * 1024, wasm, 5), null, 'a file under the size that pays for a thread');
  t.equal(startTailFinder(0, 0, 1 << 30, null, 5), null, 'no SIMD search to share');
  t.equal(startTailFinder(0, 100, 100, wasm, 5, { minBytes: 0 }), null, 'nothing to search');
});

t.test('a file that grows while it is read: the line cut at the size it had is read whole, and what came after', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'growing.log');
  const head = 'quiet line\n'.repeat(20_000) + 'x <A> early\n' + 'quiet line\n'.repeat(20_000);
  const last = 'Jan 01 00:00:00 node kubelet[1]: the line being written <A> rest';
  fs.writeFileSync(file, head + last + '\nafter <B> appended\n');
  // The size the scan was opened with: inside the last line, before its marker, inside the marker, and at its end.
  for (const cut of [10, last.indexOf('<A>'), last.indexOf('<A>') + 2, last.length, last.length + 1]) {
    const size = Buffer.byteLength(head) + cut;
    const scan = async (tail: Parameters<typeof scanFd>[1]['tail']) => {
      const { sink, seen } = recorder();
      const fd = fs.openSync(file, 'r');
      try {
        await scanFd(fd, { start: 0, size, tail }, () => new LineScanner(MARKERS, sink, 4000), () => {});
      } finally {
        fs.closeSync(fd);
      }
      return seen;
    };
    const plain = await scan(false);
    t.same(plain.lines, ['x <A> early', last, 'after <B> appended'], 'the plain scan reads to the end');
    t.same(await scan({ minBytes: 0, chunk: 4096, minJump: 1, settle: true }), plain, `opened at ${cut} bytes into the last line`);
  }
});

t.test('a file cut short while the worker reads it, then written again: nothing it could not read is passed over', async (t) => {
  // Found by review: the worker published a chunk it read short (the file truncated) as searched
  // and marker-free; the same bytes written back before the front got there were then jumped over.
  const dir = t.testdir({});
  const file = path.join(dir, 'rewritten.log');
  let text = 'first <A> line\n';
  for (let i = 0; i < 4000; i++) text += 'quiet '.repeat(40) + '\n' + (i % 500 === 0 ? `event <B> ${i}\n` : '');
  const content = Buffer.from(text);
  const scan = async (tail: Parameters<typeof scanFd>[1]['tail']) => {
    fs.writeFileSync(file, content);
    const { sink, seen } = recorder();
    let rewritten = false;
    const rewriting: LineSink = {
      ...sink,
      line: (b, s, e, r) => {
        // The first line is read before the worker has searched anything (settle: it has finished, on nothing).
        if (!rewritten) fs.writeFileSync(file, content);
        rewritten = true;
        return sink.line(b, s, e, r);
      },
    };
    const fd = fs.openSync(file, 'r');
    try {
      await scanFd(fd, { start: 0, size: content.length, tail }, () => {
        fs.truncateSync(file, 0); // after the first read, before the worker's
        return new LineScanner(MARKERS, rewriting, 4000);
      }, () => {});
    } finally {
      fs.closeSync(fd);
    }
    return seen;
  };
  const plain = await scan(false);
  t.equal(plain.lines.length, 9, 'the plain scan reads what was written back');
  t.same(await scan({ minBytes: 0, chunk: 65536, minJump: 1, settle: true }), plain);
});

t.test('the worker reads through a descriptor of its own, closed once it has exited', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'own.log');
  fs.writeFileSync(file, journal(11, 20000, 0.002, 4000));
  /** This process's descriptors open on the file. */
  const onFile = () =>
    fs.readdirSync('/proc/self/fd').filter((n) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${n}`) === file;
      } catch {
        return false;
      }
    }).length;
  const plain = await scanFile(file, false, 4000);
  t.same(await scanFile(file, { minBytes: 0, chunk: 4096, minJump: 1, settle: true }, 4000), plain, 'the same lines');
  // The worker's descriptor goes when its exit is seen (an event of this thread).
  for (let i = 0; i < 100 && onFile() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(onFile(), 0, 'no descriptor left open on the file');
  // Reopened through /proc from this thread's: never the path, so a file swapped in under the name is not what it reads.
  const wasm = wasmFinder(MARKERS.primary, 512 * 1024)!;
  const quiet = 'quiet line\n'.repeat(5000);
  fs.writeFileSync(file, `${quiet}the <B> line\n${quiet}`);
  const fd = fs.openSync(file, 'r');
  fs.renameSync(file, `${file}.old`);
  fs.writeFileSync(file, 'swapped in <A> <A> <A>\n');
  const finder = startTailFinder(fd, 0, fs.fstatSync(fd).size, wasm, 5, { minBytes: 0, chunk: 4096, minJump: 1, settle: true });
  t.ok(finder, 'a helper for the open file');
  // Where it sends the front from byte 0: the line of the first marker of the file that was opened.
  t.equal(finder!.jump(0, 0), quiet.length, 'the line of the marker in the file opened, not of the one swapped in');
  finder!.stop();
  fs.closeSync(fd);
});
