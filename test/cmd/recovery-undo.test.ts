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
