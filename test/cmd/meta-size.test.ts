// Meta files of unusual size, as the kubelet reads them: whole. A hand-edited meta file with a
// long comment still decodes (and the next boot is what it names); one past 1 MiB is not read
// (reported, next boot unknown), and recovery refuses to replace what it cannot back up whole.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, json, runCli } from '../helpers.js';

const cli = (dcd: string, args: string[]) => runCli(['--dir', dcd, ...args]);
/** `text` followed by a comment line that brings it to `size` bytes. */
const padded = (text: string, size: number) => `${text}#${'x'.repeat(size - Buffer.byteLength(text) - 2)}\n`;
type Status = { nextBoot: { source: string; willStart: boolean | null; reason: string; ref: { resourceVersion: string } | null }; problems: { code: string; path: string | null; message: string }[] };

function fellBack(t: Tap.Test, assignedSize?: number, assignedBytes?: Buffer): { dcd: string; assigned: string; before: Buffer } {
  const dcd = copyFixture('stores/fell-back', t.testdir({}));
  const assigned = path.join(dcd, 'store/meta/assigned');
  if (assignedBytes) fs.writeFileSync(assigned, assignedBytes);
  else if (assignedSize) fs.writeFileSync(assigned, padded(fs.readFileSync(assigned, 'utf8'), assignedSize));
  return { dcd, assigned, before: fs.readFileSync(assigned) };
}

t.test('a 200 KB meta file (a long comment) decodes as the kubelet decodes it', async (t) => {
  const plain = fellBack(t);
  const big = fellBack(t, 200 * 1024);
  const want = json<Status>(cli(plain.dcd, ['status', '--no-journal', '-o', 'json']));
  const got = json<Status>(cli(big.dcd, ['status', '--no-journal', '-o', 'json']));
  t.same(got.nextBoot, want.nextBoot, 'the same next boot as without the comment');
  t.notOk(got.problems.some((p) => p.path === 'meta/assigned'), 'no finding about meta/assigned');
  const v = cli(big.dcd, ['verify', '-o', 'json']);
  t.notOk(json<{ findings: { path: string | null }[] }>(v).findings.some((f) => f.path === 'meta/assigned'), 'verify has none either');
});

t.test('200 KB that do not decode are a decode error, as for the kubelet', async (t) => {
  const { dcd } = fellBack(t, undefined, Buffer.alloc(200 * 1024, 'a'));
  const s = json<Status>(cli(dcd, ['status', '--no-journal', '-o', 'json']));
  t.equal(s.nextBoot.source, 'none');
  t.equal(s.nextBoot.willStart, false);
  t.ok(s.problems.some((p) => p.code === 'META_DECODE' && p.path === 'meta/assigned'), 'META_DECODE');
});

t.test('past 1 MiB: not read, reported, and the next boot is unknown', async (t) => {
  const { dcd } = fellBack(t, 1024 * 1024 + 1);
  const r = cli(dcd, ['status', '--no-journal', '-o', 'json']);
  const s = json<Status>(r);
  t.equal(s.nextBoot.source, 'unknown');
  t.equal(s.nextBoot.willStart, null);
  t.match(s.nextBoot.reason, /meta\/assigned is larger than 1 MiB .*; kubelet-ckpt did not read it, so the next boot is unknown/);
  const v = json<{ findings: { code: string; path: string | null; message: string }[] }>(cli(dcd, ['verify', '-o', 'json']));
  t.same(v.findings.filter((f) => f.path === 'meta/assigned').map((f) => f.code), ['UNREADABLE']);
});

t.test('rollback over a 200 KB meta file: done, backed up whole, undone exactly', async (t) => {
  const { dcd, assigned, before } = fellBack(t, 200 * 1024);
  const r = cli(dcd, ['rollback', '--yes', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  const backup = json<{ backup: string }>(r).backup;
  t.same(fs.readFileSync(path.join(backup, 'assigned')), before, 'the backup holds every byte');
  t.equal(fs.readFileSync(assigned, 'utf8'), fs.readFileSync(path.join(dcd, 'store/meta/last-known-good'), 'utf8'), 'assigned := last-known-good');
  const u = cli(dcd, ['undo', '--yes']);
  t.equal(u.code, 0, u.stderr);
  t.same(fs.readFileSync(assigned), before, 'undo put the 200 KB back');
});

t.test('rollback over a meta file past 1 MiB: refused (4), nothing written, told what to do', async (t) => {
  const { dcd, assigned, before } = fellBack(t, 1024 * 1024 + 1);
  const r = cli(dcd, ['rollback', '--yes', '--force']);
  t.equal(r.code, 4, r.stderr);
  t.match(r.stderr, /meta\/assigned is larger than 1 MiB: not a meta file, and too large to back up/);
  t.match(r.stderr, /move it out of the store \(mv .*\/store\/meta\/assigned/);
  t.same(fs.readFileSync(assigned), before, 'untouched');
  t.notOk(fs.existsSync(path.join(dcd, '.kubelet-ckpt/backups')) && fs.readdirSync(path.join(dcd, '.kubelet-ckpt/backups')).length, 'no backup made');
});

t.test('show meta/assigned past 1 MiB: refused (3), never a truncated copy', async (t) => {
  const { dcd } = fellBack(t, 1024 * 1024 + 1);
  for (const extra of [[], ['--raw'], ['-o', 'json']]) {
    const r = cli(dcd, ['show', 'meta/assigned', ...extra]);
    t.equal(r.code, 3, extra.join(' '));
    t.equal(r.stdout, '', 'nothing printed');
    t.match(r.stderr, /meta\/assigned is larger than 1 MiB/);
  }
  const ok = cli(fellBack(t, 200 * 1024).dcd, ['show', 'meta/assigned', '--raw']);
  t.equal(ok.code, 0);
  t.equal(ok.stdout.length, 200 * 1024, 'under the cap: every byte');
});
