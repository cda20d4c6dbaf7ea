// Parallel parts give exactly the records of one scan, wherever the part boundaries fall
// (inside continuation blocks, right after a kubelet start). Workers load the TypeScript
// sources through tap's loader here, a few seconds each: the part counts are kept few.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { markersFor, readJournal } from '../../../lib/journal/index.js';
import { scanParallel, scanPart } from '../../../lib/journal/parallel.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
t.setTimeout(300_000); // worker threads under a loaded CI machine

function bigFile(dir: string, src: string, copies: number): string {
  const f = path.join(dir, path.basename(src));
  const data = fs.readFileSync(src);
  fs.writeFileSync(f, Buffer.concat(Array.from({ length: copies }, () => data)));
  return f;
}

const words = (b: readonly Buffer[]) => b.map((x) => x.toString());

t.test('any number of parts: the same records as one scan', async (t) => {
  const dir = t.testdir({});
  for (const [name, counts] of [['legacy-1.13.short.log', [2, 5]], ['structured-1.22.json', [3]]] as const) {
    const file = bigFile(dir, path.join(FIX, name), 7);
    const size = fs.statSync(file).size;
    const m = markersFor(fs.readFileSync(file).subarray(0, 65536));
    const job = { file, label: file, primary: words(m.primary), watch: words(m.watch), maxRecords: 1_000_000 };
    const one = await scanPart({ ...job, start: 0, end: Infinity }, () => {});
    t.ok(one.records.length > 300, `${name}: ${one.records.length} records`);
    for (const parts of counts) {
      const many = await scanParallel(job, 0, size, parts, () => {});
      t.ok(many, `${name}: workers ran`);
      t.same(many!.records, one.records, `${name}: ${parts} parts`);
      t.equal(many!.skipped, one.skipped, `${name}: ${parts} parts, same skipped count`);
    }
  }
});

t.test('readJournal in two parts gives the result of one', async (t) => {
  const dir = t.testdir({});
  // ~5 MB, ~13k events: the parts hold all their records.
  const small = bigFile(dir, path.join(FIX, 'structured-1.22.short.log'), 150);
  const par = await readJournal({ file: small, year: 2022, utc: true, parallel: 2, maxEvents: 100_000 });
  const one = await readJournal({ file: small, year: 2022, utc: true, parallel: false, maxEvents: 100_000 });
  t.same(par, one);
  t.ok(par.events.length > 13_000);
  t.equal(par.truncated, 0);
  // ~45 MB, ~126k events: more than a part may hold (50000), so the read streams in one
  // thread; the newest 20000 are listed, every one is summarised.
  const big = path.join(dir, 'big.log');
  fs.renameSync(bigFile(dir, path.join(FIX, 'structured-1.22.short.log'), 1400), big);
  const progress: number[] = [];
  const bigPar = await readJournal({ file: big, year: 2022, utc: true, parallel: 2 }, (p) => progress.push(p.bytes));
  const bigOne = await readJournal({ file: big, year: 2022, utc: true, parallel: false });
  t.same(bigPar, bigOne);
  t.equal(bigPar.events.length, 20_000);
  t.ok(bigPar.truncated > 100_000);
  t.equal(bigPar.restarts, (one.restarts / 150) * 1400, 'restarts are counted over every event, listed or not');
  t.equal(bigPar.processes.length, 10_000, 'the newest 10000 processes are listed (14000 ran)');
  t.ok(progress.length > 1);
});
