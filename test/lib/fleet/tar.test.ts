import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { looksLikeTar, readTar } from '../../../lib/fleet/tar.js';
import { tempDir } from '../../helpers.js';

/** A real archive made by GNU tar (ustar prefix, GNU long names, pax). */
function archive(format: string, files: Record<string, string>): Buffer {
  const d = tempDir('kckpt-tar-');
  for (const [rel, body] of Object.entries(files)) {
    fs.mkdirSync(path.join(d, 'in', path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(d, 'in', rel), body);
  }
  const out = path.join(d, 'a.tar');
  const r = spawnSync('tar', [`--format=${format}`, '-cf', out, '-C', path.join(d, 'in'), '.'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return fs.readFileSync(out);
}

const long = `plugins/kubelet-ckpt/results/${'n'.repeat(120)}/report.json`;

for (const format of ['gnu', 'pax', 'ustar', 'v7']) {
  t.test(`GNU tar --format=${format}: regular files with their names and bytes`, async (t) => {
    const files: Record<string, string> = { 'a.json': '{"a":1}', 'dir/b.txt': 'x'.repeat(1000), 'empty.json': '' };
    if (format !== 'v7') files[format === 'ustar' ? `plugins/${'p'.repeat(80)}/results/node/report.json` : long] = '{"long":true}';
    const b = archive(format, files);
    t.ok(looksLikeTar(b));
    const { entries, error } = readTar(b);
    t.equal(error, null);
    const got = Object.fromEntries(entries.map((e) => [e.name.replace(/^\.\//, ''), e.data.toString()]));
    t.same(got, files);
  });
}

t.test('a cut-short archive keeps the entries before the damage and says so', async (t) => {
  const b = archive('gnu', { 'a.json': '{"a":1}', 'b.json': 'y'.repeat(5000) });
  const { entries, error } = readTar(b.subarray(0, 2048));
  t.same(entries.map((e) => e.name), ['./a.json']);
  t.match(error, /b\.json is cut short/);
  t.notOk(looksLikeTar(zlib.gzipSync('{"not":"tar"}')));
  t.notOk(looksLikeTar(Buffer.alloc(100)));
});
