// Recovery edges a review found: resetting one meta file while the other cannot be decoded
// (the kubelet would still not start), undo putting back the owner and mode of a file that
// still exists, undo of a clean whose directory is gone since, and dry runs that must exit as
// the real run would (the store's lock, --restart-kubelet without systemctl).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { cleanEnv, json, runCli } from '../helpers.js';
import { UID, holdLock, makeStore, metaFor, read, treeHash } from '../lib/recovery/fixtures/index.js';

const cli = (dcd: string, ...args: string[]) => runCli(['--dir', dcd, ...args]);

for (const [which, other] of [['assigned', 'last-known-good'], ['last-known-good', 'assigned']] as const) {
  t.test(`reset ${which} while meta/${other} cannot be decoded: refused (exit 4) unless --force`, async (t) => {
    const dcd = makeStore(t.testdir({}));
    fs.writeFileSync(path.join(dcd, 'store/meta', other), 'garbage: [');
    const before = treeHash(dcd);
    for (const args of [['--yes'], ['--dry-run']]) {
      const r = cli(dcd, 'reset', which, '--to', 'local', ...args, '-o', 'json');
      t.equal(r.code, 4, `${args}: ${r.stderr}`);
      const out = args[0] === '--yes' ? json<{ error: { code: string; message: string } }>({ ...r, stdout: r.stdout || r.stderr }).error : null;
      if (out) {
        t.equal(out.code, 'OTHER_META_UNDECODABLE');
        t.match(out.message, `meta/${other} cannot be decoded`);
        t.match(out.message, 'the kubelet stops at start-up on it');
      } else t.match(JSON.parse(r.stdout).wouldRefuse, [new RegExp(`meta/${other} cannot be decoded`)]);
    }
    t.same(treeHash(dcd), before, 'nothing written');
    const f = cli(dcd, 'reset', which, '--to', 'local', '--yes', '--force');
    t.equal(f.code, 0, f.stderr);
    t.match(f.stderr, /warning: .*cannot be decoded.*writing anyway \(--force\)/);
    t.equal(read(dcd, which), '');
    const all = cli(dcd, 'reset', 'all', '--to', 'local', '--yes');
    t.equal(all.code, 0, 'reset all replaces both: no refusal');
    t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], ['', '']);
  });
}

t.test('undo puts back the mode (and owner) a meta file had, also when the file still exists', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const a = path.join(dcd, 'store/meta/assigned');
  fs.chmodSync(a, 0o640);
  const st = fs.statSync(a);
  t.equal(cli(dcd, 'rollback', '--yes').code, 0);
  fs.chmodSync(a, 0o666);
  if (process.getuid?.() === 0) fs.chownSync(a, 7, 7);
  const u = cli(dcd, 'undo', '--yes');
  t.equal(u.code, 0, u.stderr);
  const after = fs.statSync(a);
  t.same([after.mode & 0o7777, after.uid, after.gid], [0o640, st.uid, st.gid]);
  t.equal(read(dcd, 'assigned'), metaFor('120200'));
});

t.test('undo of a clean whose directory is gone since: refused (exit 4) naming it; --force puts back the others', async (t) => {
  const CP = `store/checkpoints/${UID}`;
  const dcd = makeStore(t.testdir({}), { extra: { 'store/meta/tmp_assigned421': 'apiVersion: kubelet.config', [`${CP}/tmp_998877/kubelet`]: 'kind: Kubelet' } });
  t.equal(cli(dcd, 'reset', 'all', '--yes').code, 0);
  t.equal(cli(dcd, 'clean', '--yes').code, 0);
  const backups = JSON.parse(cli(dcd, 'undo', '--list', '-o', 'json').stdout).backups as { id: string; command: string }[];
  const backup = backups.find((b) => b.command === 'clean')!.id;
  fs.rmSync(path.join(dcd, CP), { recursive: true }); // as prune does once the UID holds nothing
  for (const args of [['--dry-run'], ['--yes']]) {
    const r = cli(dcd, 'undo', backup, ...args);
    t.equal(r.code, 4, `${args}: ${r.stderr}`);
    t.match(r.stdout + r.stderr, `checkpoints/${UID}/tmp_998877 cannot be put back: its directory checkpoints/${UID} is gone`);
  }
  t.notOk(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned421')), 'nothing put back');
  const f = cli(dcd, 'undo', backup, '--yes', '--force');
  t.equal(f.code, 0, f.stderr);
  t.equal(fs.readFileSync(path.join(dcd, 'store/meta/tmp_assigned421'), 'utf8'), 'apiVersion: kubelet.config');
  t.match(f.stderr, /warning: .*tmp_998877 cannot be put back.*stays in .*leftovers/);
  t.notOk(fs.existsSync(path.join(dcd, CP)), 'no directory made up');
});

t.test('clean --dry-run and undo --dry-run of a clean exit 4 while another command holds the lock', async (t) => {
  const dcd = makeStore(t.testdir({}), { extra: { 'store/meta/tmp_assigned421': 'x' } });
  const holder = await holdLock(t, dcd, ['reset', 'all', '--yes']);
  const d = cli(dcd, 'clean', '--dry-run', '-o', 'json');
  t.equal(d.code, 4, d.stderr);
  t.match(JSON.parse(d.stdout).wouldRefuse, [new RegExp(`another kubelet-ckpt \\(pid ${holder.pid}`)]);
});

t.test('--restart-kubelet with no systemctl on PATH: the dry run exits 3 as the real run does', async (t) => {
  const root = t.testdir({ bin: {} });
  const dcd = makeStore(path.join(root, 'node'));
  const bin = path.join(root, 'bin');
  fs.symlinkSync(process.execPath, path.join(bin, 'node'));
  const env = { ...cleanEnv(), PATH: bin };
  for (const args of [['rollback'], ['reset', 'all'], ['clean'], ['prune']]) {
    const dry = runCli(['--dir', dcd, ...args, '--restart-kubelet', '--dry-run'], { env });
    t.equal(dry.code, 3, `${args} --dry-run: ${dry.stderr}`);
    t.match(dry.stderr, '--restart-kubelet needs systemctl');
  }
});
