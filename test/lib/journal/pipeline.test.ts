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

t.test('year-less local times: each line its own instant, across DST changes and a new year, with and without --year', async (t) => {
  const saved = process.env.TZ;
  process.env.TZ = 'America/New_York';
  t.teardown(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });
  const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  // [month, day, h, m, s, micros]: the spring gap (02:xx does not exist), the autumn overlap, runs in one second, then January.
  const times = [[3, 14, 1, 59, 59, 999999], [3, 14, 2, 30, 0, 5000], [3, 14, 3, 0, 0, 0], [3, 14, 3, 0, 0, 1000], [11, 7, 1, 30, 0, 0], [11, 7, 1, 30, 0, 999000], [11, 7, 1, 59, 59, 0], [11, 7, 2, 0, 0, 0], [12, 31, 23, 59, 59, 500000], [1, 1, 0, 0, 0, 250000], [1, 1, 0, 0, 0, 251000]] as const;
  const p2 = (n: number) => String(n).padStart(2, '0');
  const lines = times.map(([mo, d, h, mi, s, us], i) => `${MON[mo - 1]} ${String(d).padStart(2)} ${p2(h)}:${p2(mi)}:${p2(s)} node-1 kubelet[${100 + i}]: I${p2(mo)}${p2(d)} ${p2(h)}:${p2(mi)}:${p2(s)}.${String(us).padStart(6, '0')}     ${100 + i} controller.go:101] kubelet config controller: starting controller`);
  const data = Buffer.from(lines.join('\n') + '\n');
  for (const [year, anchor] of [[2021, base.anchor], [null, new Date(2022, 0, 2)]] as const) {
    const r = run(data, { ...base, utc: false, year, anchor }, true);
    const want = times.map(([mo, d, h, mi, s, us], i) => new Date(i < 9 ? 2021 : 2022, mo - 1, d, h, mi, s, Math.floor(us / 1000)).toISOString());
    t.same(r.events.map((e) => e.time), want, `year ${year ?? 'from the anchor'}`);
  }
});

t.test('year-less times a log wrote out of range (48:00:00) are what Date makes of them, whatever comes next', async (t) => {
  // 31 Jan 48:00 is 2 Feb 00:00; the line after it, 1 Feb 00:00, must not be taken for the same second.
  const line = (mo: string, d: string, clock: string, i: number) => `${mo} ${d} ${clock} node-1 kubelet[${200 + i}]: I${mo === 'Jan' ? '01' : '02'}${d} ${clock}.000000     ${200 + i} controller.go:101] kubelet config controller: starting controller`;
  const data = Buffer.from([line('Jan', '31', '48:00:00', 0), line('Feb', '01', '00:00:00', 1), line('Feb', '01', '23:59:60', 2), line('Feb', '02', '00:00:00', 3)].join('\n') + '\n');
  const r = run(data, { ...base, year: 2021 }, true);
  t.same(r.events.map((e) => e.time), [Date.UTC(2021, 0, 31, 48), Date.UTC(2021, 1, 1), Date.UTC(2021, 1, 1, 23, 59, 60), Date.UTC(2021, 1, 2)].map((ms) => new Date(ms).toISOString()));
});
