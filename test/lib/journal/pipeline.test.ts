// The window of listed events and the records it hands back for reuse: a read whose parser
// refills dropped records gives exactly the result of one that allocates every record,
// whatever the window's size, the filters, continuation lines, and year-less times (whose
// stamps the correlator keeps until the end).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { decodingSink, LineParser } from '../../../lib/journal/lines.js';
import { Pipeline, type PipelineOptions } from '../../../lib/journal/pipeline.js';
import { markersFor } from '../../../lib/journal/index.js';
import { LineScanner } from '../../../lib/journal/scan.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');

function run(data: Buffer, o: PipelineOptions, reuse: boolean) {
  const pipeline = new Pipeline(o);
  const parser = new LineParser('f', (r) => pipeline.add(r), reuse ? () => pipeline.reuse() : undefined);
  const scanner = new LineScanner(markersFor(data), decodingSink(parser));
  data.copy(scanner.buf);
  scanner.scan(scanner.buf, data.length, true);
  scanner.finish();
  return pipeline.finish(parser.skipped);
}

const base: PipelineOptions = { year: null, anchor: new Date('2022-06-01T00:00:00Z'), utc: true, since: null, until: null, uid: undefined, maxEvents: 20_000, store: null };

t.test('reused records: the same result as new ones, for any window and filter', async (t) => {
  for (const name of ['legacy-1.13.short.log', 'structured-1.22.short.log', 'seed-blog.short.log', 'legacy-1.13.short-iso.log']) {
    // Twice over: the second copy's lines refill the first copy's dropped records.
    const one = fs.readFileSync(path.join(FIX, name));
    const data = Buffer.concat([one, one]);
    const first = run(data, base, false);
    const uid = first.checkpoints[0]?.uid.slice(0, 6);
    const times = first.events.map((e) => Date.parse(e.time!)).sort((a, b) => a - b);
    const mid = times[Math.floor(times.length / 2)]!;
    for (const maxEvents of [1, 2, 3, 7, 50, 20_000]) {
      for (const extra of [{}, { year: 2020 }, { uid }, { since: mid }, { until: mid, year: 2019 }] as Partial<PipelineOptions>[]) {
        const o = { ...base, maxEvents, ...extra };
        const fresh = run(data, o, false);
        const reused = run(data, o, true);
        t.same(reused, fresh, `${name}: -n ${maxEvents} ${JSON.stringify(extra)}`);
      }
    }
    t.ok(first.events.length > 10, `${name}: ${first.events.length} events`);
  }
});
