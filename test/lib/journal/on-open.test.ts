// ReadJournalOptions.onOpen: called once, after the source is open and before any byte is read,
// with a plain file's size and null where the bytes to come are not known.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { readJournalDetailed } from '../../../lib/journal/index.js';

const FIXTURE = path.resolve('fixtures/journals/structured-1.22.short.log');

t.test('a plain file: its size, once, before the read; the result is the same with or without the hook', async (t) => {
  const calls: (number | null)[] = [];
  const seen: number[] = [];
  const hooked = await readJournalDetailed({ file: FIXTURE, year: 2021, utc: true, onOpen: (size) => calls.push(size) }, (p) => seen.push(p.bytes));
  const plain = await readJournalDetailed({ file: FIXTURE, year: 2021, utc: true });
  t.same(calls, [fs.statSync(FIXTURE).size]);
  t.same(hooked.result, plain.result);
  t.equal(hooked.stats.bytes, fs.statSync(FIXTURE).size);
});

t.test('a compressed file and a pipe: null (their length is not known before they are read)', async (t) => {
  const dir = t.testdir({});
  const gz = path.join(dir, 'kubelet.log.gz');
  fs.writeFileSync(gz, zlib.gzipSync(fs.readFileSync(FIXTURE)));
  const calls: (number | null)[] = [];
  const fromGz = await readJournalDetailed({ file: gz, year: 2021, utc: true, onOpen: (size) => calls.push(size) });
  const fromPipe = await readJournalDetailed({ file: '-', stdin: Readable.from([fs.readFileSync(FIXTURE)]), year: 2021, utc: true, onOpen: (size) => calls.push(size) });
  t.same(calls, [null, null]);
  t.ok(fromGz.result.events.length > 0, 'the compressed file was read');
  const bare = (evs: { source: string }[]) => evs.map(({ source: _, ...rest }) => rest);
  t.same(bare(fromGz.result.events), bare(fromPipe.result.events), 'the same events, whatever the source label');
});

t.test('a source that cannot be opened: the hook is not called, the error is the same', async (t) => {
  const calls: (number | null)[] = [];
  await t.rejects(readJournalDetailed({ file: '/nonexistent/kubelet.log', onOpen: (size) => calls.push(size) }), { exitCode: 3, code: 'JOURNAL_UNREADABLE' });
  t.same(calls, []);
});

t.test('an empty file and a tail with nothing after it: the hook is still called, once', async (t) => {
  const dir = t.testdir({ 'empty.log': '', 'one-line.log': 'no newline at all in this file' });
  for (const [file, extra] of [['empty.log', {}], ['one-line.log', { tailBytes: 5 }]] as const) {
    const calls: (number | null)[] = [];
    const r = await readJournalDetailed({ file: path.join(dir, file), year: 2021, utc: true, onOpen: (size) => calls.push(size), ...extra });
    t.same(calls, [fs.statSync(path.join(dir, file)).size], `${file}: called once with its size`);
    t.equal(r.result.events.length, 0);
  }
});
