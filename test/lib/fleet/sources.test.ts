// Where report merge reads from, under caps: a source too large is skipped with a warning
// and the merge goes on (small caps here; test/cmd/report.test.ts runs the real ones).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { gatherReports, readCapped, type Capped } from '../../../lib/fleet/sources.js';
import { fakeReport } from '../../fleet/reports.js';
import { tempDir, writeTree } from '../../helpers.js';

const caps = { text: 4096, archive: 16384 };
const noStdin = (): Capped => {
  throw new Error('stdin not expected');
};
const good = () => JSON.stringify(fakeReport({ name: 'good' }));

t.test('a source too large is skipped with a warning; the rest is merged', async (t) => {
  const d = tempDir();
  const padded = `${good()}${' '.repeat(5000)}`;
  writeTree(d, {
    'good.json': good(),
    'bomb.gz': zlib.gzipSync(Buffer.alloc(100_000)),
    'tar/zeros.json': Buffer.alloc(100_000),
    'big.json': padded,
    'walk/big.json': padded,
  });
  const p = (n: string) => path.join(d, n);
  // A tar bomb may inflate up to the archive cap; anything else only to the text cap.
  t.equal(spawnSync('tar', ['-czf', p('tarbomb.tar.gz'), '-C', p('tar'), 'zeros.json']).status, 0);
  const g = gatherReports([p('bomb.gz'), p('tarbomb.tar.gz'), p('big.json'), '/dev/zero', p('walk'), p('good.json')], noStdin, caps);
  t.same(g.warnings, [
    `${p('bomb.gz')}: skipped: inflates to more than 4096 bytes`,
    `${p('tarbomb.tar.gz')}: skipped: inflates to more than 16384 bytes`,
    `${p('big.json')}: skipped: holds more than 4096 bytes`,
    '/dev/zero: skipped: holds more than 4096 bytes',
    `${p('walk/big.json')}: skipped: holds more than 4096 bytes`,
  ]);
  t.same(g.docs.map((x) => x.label), [p('good.json')]);
});

t.test('archive members and nested archives past the caps are skipped by name', async (t) => {
  const d = tempDir();
  writeTree(d, { 'in/big.json': `${good()}${' '.repeat(5000)}`, 'in/ok.json': good(), 'in/nested.tar.gz': zlib.gzipSync(Buffer.alloc(5000)) });
  const out = path.join(d, 'a.tar');
  t.equal(spawnSync('tar', ['-cf', out, '-C', path.join(d, 'in'), 'big.json', 'ok.json', 'nested.tar.gz']).status, 0);
  const g = gatherReports([out], noStdin, { text: 4096, archive: 1 << 20 });
  t.same(g.warnings, [`${out}:big.json: skipped: holds more than 4096 bytes`, `${out}:nested.tar.gz: skipped: inflates to more than 4096 bytes`]);
  t.same(g.docs.map((x) => x.label), [`${out}:ok.json`]);
});

t.test('stdin: read in chunks up to the cap (gzip may be larger); past it, skipped', async (t) => {
  const fd = fs.openSync('/dev/zero', 'r');
  t.teardown(() => fs.closeSync(fd));
  t.same(readCapped(fd, () => 100_000), { bytes: null, cap: 100_000 });
  const g = gatherReports(['-'], () => readCapped(fd, () => 1024), caps);
  t.same(g.warnings, ['-: skipped: holds more than 1024 bytes']);
});

t.test('warnings are collapsed per file, archives as one file', async (t) => {
  const d = tempDir();
  const cut = '{"kind": "NodeReport", "n": 1\n'.repeat(30);
  writeTree(d, { 'cut.ndjson': cut, 'one.json': '{"kind": "NodeReport", oops}', 'good.json': good(), 'tar/a.json': cut, 'tar/b.json': cut });
  const tar = path.join(d, 'cut.tar');
  t.equal(spawnSync('tar', ['-cf', tar, '-C', path.join(d, 'tar'), 'a.json', 'b.json']).status, 0);
  const g = gatherReports([path.join(d, 'cut.ndjson'), path.join(d, 'one.json'), tar, path.join(d, 'good.json')], noStdin, caps);
  t.equal(g.warnings.length, 20 + 1 + 1 + 20 + 1);
  t.equal(g.warnings[19], `${d}/cut.ndjson:20: skipped: truncated JSON (the next document starts before this one ends)`);
  t.equal(g.warnings[20], `… and 10 more in ${d}/cut.ndjson`);
  t.match(g.warnings[21], `${d}/one.json: skipped: corrupt JSON`);
  t.equal(g.warnings[42], `… and 40 more in ${tar}`);
  t.same(g.docs.map((x) => [x.label, x.file]), [[`${d}/good.json`, `${d}/good.json`]]);
});
