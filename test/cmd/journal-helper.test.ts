// A journal file large enough for a second thread (lib/journal/tail-finder.ts: 64 MiB and up)
// gives the same report as the same bytes through stdin, which is read front to back by one
// thread. The report is made of real kubelet lines (a fixture) spread through 70 MiB of chatter.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { json, runCli, writeLargeJournal } from '../helpers.js';
import { TAIL_FINDER_MIN_BYTES } from '../../lib/journal/tail-finder.js';

interface Out {
  events: Record<string, unknown>[];
  checkpoints: unknown[];
  processes: unknown[];
  restarts: number;
  crashLoop: boolean;
  skipped: number;
}

t.test('a 70 MiB journal: --file (two threads) and stdin (one) report the same', async (t) => {
  const dir = t.testdir({});
  const file = path.join(dir, 'kubelet.log');
  writeLargeJournal(file, 70);
  t.ok(fs.statSync(file).size >= TAIL_FINDER_MIN_BYTES, 'large enough for the helper');
  const args = ['journal', '--year', '2022', '--utc', '-o', 'json'];
  const two = runCli([...args, '--file', file]);
  const one = runCli([...args, '--file', '-'], { input: fs.readFileSync(file) });
  t.equal(two.code, one.code, 'the same exit code');
  const a = json<Out>(two);
  const b = json<Out>(one);
  const bare = (o: Out) => ({ ...o, events: o.events.map(({ source: _, ...rest }) => rest) });
  t.ok(a.events.length > 20, `${a.events.length} events`);
  t.same(bare(a), bare(b));
  t.equal(a.events[0]!.source, file);
});
