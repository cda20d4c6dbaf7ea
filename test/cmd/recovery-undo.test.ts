// Exact undo: bytes, mode, owner and modification time come back; a backup naming a checkpoint
// that prune has removed since is refused (exit 4, naming it) unless --force.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers.js';
import { UID, makeStore, metaFor, read } from '../lib/recovery/fixtures/index.js';

const cli = (dcd: string, args: string[]) => runCli(['--dir', dcd, ...args]);

t.test('undo restores the modification time (the trial clock) with the bytes, mode and owner', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const a = path.join(dcd, 'store/meta/assigned');
  fs.chmodSync(a, 0o640);
  const then = new Date('2026-11-22T08:00:00.123Z');
  fs.utimesSync(a, then, then);
  const before = fs.statSync(a);
  t.equal(cli(dcd, ['reset', 'all', '--yes']).code, 0);
  t.not(fs.statSync(a).mtimeMs, before.mtimeMs);
  const u = cli(dcd, ['undo', '--yes']);
  t.equal(u.code, 0, u.stderr);
  const after = fs.statSync(a);
  t.equal(read(dcd, 'assigned'), metaFor('120200'));
  t.same([after.mtime.toISOString(), after.mode & 0o7777, after.uid, after.gid], [then.toISOString(), 0o640, before.uid, before.gid]);
});

t.test('undo refuses (exit 4) to re-point meta files at checkpoints prune removed, unless --force', async (t) => {
  const dcd = makeStore(t.testdir({}));
  t.equal(cli(dcd, ['reset', 'all', '--yes']).code, 0);
  const p = cli(dcd, ['prune', '--yes']);
  t.equal(p.code, 0, p.stderr);
  t.notOk(fs.existsSync(path.join(dcd, 'store/checkpoints', UID)), 'both checkpoints pruned');
  const u = cli(dcd, ['undo', '--yes']);
  t.equal(u.code, 4, u.stderr);
  t.match(u.stderr, `meta/last-known-good would name ${UID}/119980, meta/assigned would name ${UID}/120200`);
  t.match(u.stderr, /no longer on disk/);
  t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], ['', ''], 'nothing restored');
  const d = cli(dcd, ['undo', '--dry-run', '-o', 'json']);
  t.match(JSON.parse(d.stdout).wouldRefuse, [/no longer on disk/]);
  const f = cli(dcd, ['undo', '--yes', '--force']);
  t.equal(f.code, 0, f.stderr);
  t.match(f.stderr, /warning: backup .* names checkpoints no longer on disk.*restoring anyway \(--force\)/);
  t.equal(read(dcd, 'assigned'), metaFor('120200'));
});

t.test('found by a hostile-store review: a backup whose manifest is not of kubelet-ckpt\'s shape is skipped by the list and refused by undo, never exit 5', async (t) => {
  const dcd = makeStore(t.testdir({}));
  for (const [i, manifest] of ['{"files":[null],"time":"t","command":"c"}', '{"files":[],"moved":[null],"time":"t","command":"c"}', '{"files":[1],"time":"t","command":"c"}', '{"time":{"a":1},"command":"c","files":[]}'].entries()) {
    const id = `2026112${i}T080000.123Z`;
    fs.mkdirSync(path.join(dcd, '.kubelet-ckpt/backups', id), { recursive: true });
    fs.writeFileSync(path.join(dcd, '.kubelet-ckpt/backups', id, 'manifest.json'), manifest);
  }
  for (const args of [['undo', '--list'], ['undo', '--list', '-o', 'json']]) {
    const r = cli(dcd, args);
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  t.match(cli(dcd, ['undo', '--dry-run']), { code: 4, stderr: /backup 20261123T080000\.123Z, the newest, is damaged/ });
  t.match(cli(dcd, ['undo', '20261120T080000.123Z', '--dry-run']), { code: 4, stderr: /backup 20261120T080000\.123Z is damaged: its manifest cannot be read/ });
});

t.test('found by review: a damaged newest backup stops a plain undo (not passed over for an older one); a manifest mode that is no number is damage', async (t) => {
  const dcd = makeStore(t.testdir({}));
  t.equal(cli(dcd, ['reset', 'assigned', '--yes']).code, 0);
  t.equal(cli(dcd, ['reset', 'last-known-good', '--yes']).code, 0);
  const ids = fs.readdirSync(path.join(dcd, '.kubelet-ckpt/backups')).filter((n) => /^\d{8}T/.test(n)).sort();
  const manifest = path.join(dcd, '.kubelet-ckpt/backups', ids.at(-1)!, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  m.files[0].mode = 'rw-r--r--';
  fs.writeFileSync(manifest, JSON.stringify(m));
  for (const args of [['undo', '--dry-run'], ['undo', '--yes']]) t.match(cli(dcd, args), { code: 4, stderr: new RegExp(`backup ${ids.at(-1)!.replace(/\./g, '\\.')}, the newest, is damaged`) }, args.join(' '));
  t.notMatch(cli(dcd, ['undo', ids[0]!, '--dry-run']).stderr, /is damaged/, 'the older one by its id is not');
});

t.test('two stores side by side share one backups directory: undo takes this store\'s backups only (found by a TUI review)', async (t) => {
  const dir = t.testdir({});
  const a = makeStore(path.join(dir, 'a'));
  const b = makeStore(path.join(dir, 'b'));
  // Flat: each given as the store itself, so both back up into dir/.kubelet-ckpt.
  const A = path.join(a, 'store');
  const B = path.join(b, 'store');
  fs.renameSync(A, path.join(dir, 'sa'));
  fs.renameSync(B, path.join(dir, 'sb'));
  const sa = path.join(dir, 'sa');
  const sb = path.join(dir, 'sb');
  const before = fs.readFileSync(path.join(sa, 'meta/assigned'));
  t.equal(runCli(['--dir', sa, 'reset', 'assigned', '--yes']).code, 0);
  t.equal(runCli(['--dir', sb, 'reset', 'all', '--yes']).code, 0);
  const ids = fs.readdirSync(path.join(dir, '.kubelet-ckpt/backups')).filter((n) => /^\d{8}T/.test(n)).sort();
  t.equal(ids.length, 2, 'one backups directory for both');
  const u = runCli(['--dir', sa, 'undo', '--yes']);
  t.equal(u.code, 0, u.stderr);
  t.match(u.stdout, new RegExp(ids[0]!.replace(/\./g, '\\.')), "sa's own backup, not sb's newer one");
  t.same(fs.readFileSync(path.join(sa, 'meta/assigned')), before);
  const other = runCli(['--dir', sa, 'undo', ids[1]!, '--dry-run']);
  t.equal(other.code, 4, 'sb\'s backup named on sa: refused');
  t.match(other.stdout + other.stderr, /was made for .*sb, not for this store/);
});
