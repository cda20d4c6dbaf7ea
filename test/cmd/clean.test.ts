// clean: the leftovers verify reports are moved into a backup (dry run by default), undo puts
// them back exactly; links, special files and a running kubelet are refused.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { asNobody, copyFixture, isRoot, json, runCli } from '../helpers.js';
import { UID, kubeletBin, makeStore, startKubelet, treeHash } from '../lib/recovery/fixtures/index.js';

const cli = (dcd: string, ...args: string[]) => runCli(['--dir', dcd, ...args]);
const CP = `store/checkpoints/${UID}`;

/** A store with a leftover meta temp file of the kubelet's and a half-written checkpoint directory. */
function withLeftovers(dir: string): string {
  const dcd = makeStore(dir, { extra: { 'store/meta/tmp_assigned421': 'apiVersion: kubelet.config', [`${CP}/tmp_998877/kubelet`]: 'kind: Kubelet' } });
  const old = new Date('2026-11-01T00:00:00Z');
  fs.utimesSync(path.join(dcd, 'store/meta/tmp_assigned421'), old, old);
  fs.chmodSync(path.join(dcd, 'store/meta/tmp_assigned421'), 0o600);
  return dcd;
}

const leftovers = (r: ReturnType<typeof runCli>) => (json(r) as { findings: { code: string; path: string }[] }).findings.filter((f) => f.code === 'TMP_LEFTOVER').map((f) => f.path).sort();

t.test('dry run by default: lists exactly the leftovers verify reports, changes nothing', async (t) => {
  const dcd = withLeftovers(t.testdir({}));
  const before = treeHash(dcd);
  t.same(leftovers(cli(dcd, 'verify', '-o', 'json')), [`checkpoints/${UID}/tmp_998877`, 'meta/tmp_assigned421']);
  const r = cli(dcd, 'clean');
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, [
    'clean: dry run, nothing moved',
    'would move out meta/tmp_assigned421  (26 bytes, left by the kubelet)',
    `would move out checkpoints/${UID}/tmp_998877  (a directory of 1 file, 13 bytes, left by the kubelet)`,
    'would move 39B (39 bytes) out of the store into a backup, kept for undo: no space is freed',
    'pass --yes to move them',
    '',
  ].join('\n'));
  t.same(treeHash(dcd), before, 'the tree is byte-identical');
});

t.test('a checkpoint a meta file names is never a leftover, even with a resourceVersion tmp_*', async (t) => {
  // Found by review: an assigned checkpoint whose resourceVersion is `tmp_1` was listed for removal.
  const dcd = makeStore(t.testdir({}), { extra: { [`${CP}/tmp_1/kubelet`]: 'kind: KubeletConfiguration\n' } });
  const assigned = path.join(dcd, 'store/meta/assigned');
  fs.writeFileSync(assigned, fs.readFileSync(assigned, 'utf8').replace(/resourceVersion: .*/, 'resourceVersion: tmp_1'));
  const before = treeHash(dcd);
  const r = json(cli(dcd, 'clean', '--yes', '-o', 'json')) as { changes: unknown[]; warnings: string[] };
  t.same(r.changes, []);
  // It is a checkpoint like any other (the snapshot lists it as one), so not even a candidate.
  t.notOk(r.warnings.some((w) => w.includes('tmp_1')), 'not offered for removal at all');
  const v = json(cli(dcd, 'verify', '-o', 'json')) as { findings: { code: string; path: string }[] };
  t.notOk(v.findings.some((f) => f.code === 'TMP_LEFTOVER'), 'verify does not call it a leftover');
  t.same(treeHash(dcd), before, 'nothing moved');
});

t.test('--yes moves them into a backup (bytes, mode, mtime kept); undo puts them back exactly', async (t) => {
  const dcd = withLeftovers(t.testdir({}));
  const before = treeHash(path.join(dcd, 'store'));
  const r = cli(dcd, 'clean', '--yes', '-o', 'json');
  t.equal(r.code, 0, r.stderr);
  const out = json(r) as { backup: string; changes: { path: string; kind: string; bytes: number }[]; freedBytes: number; dryRun: boolean };
  t.match(out, { dryRun: false, freedBytes: 39, changes: [{ path: 'meta/tmp_assigned421', kind: 'leftover', bytes: 26 }, { path: `checkpoints/${UID}/tmp_998877`, kind: 'leftover', bytes: 13 }] });
  t.notOk(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned421')));
  t.notOk(fs.existsSync(path.join(dcd, CP, 'tmp_998877')));
  t.same(leftovers(cli(dcd, 'verify', '-o', 'json')), [], 'verify is clean');
  const kept = path.join(out.backup, 'leftovers/0');
  t.equal(fs.readFileSync(kept, 'utf8'), 'apiVersion: kubelet.config');
  t.equal(fs.statSync(kept).mtime.toISOString(), '2026-11-01T00:00:00.000Z');
  t.equal(fs.readFileSync(path.join(out.backup, 'leftovers/1/kubelet'), 'utf8'), 'kind: Kubelet');
  const audit = fs.readFileSync(path.join(dcd, '.kubelet-ckpt/backups/audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; command: string });
  t.same(audit.map((a) => `${a.event} ${a.command}`), ['begin clean', 'done clean']);
  t.match(cli(dcd, 'undo', '--list').stdout, /clean/);
  const listed = json(cli(dcd, 'undo', '--list', '-o', 'json')) as { backups: { command: string; files: string[] }[] };
  t.same(listed.backups.map((b) => [b.command, b.files]), [['clean', ['meta/tmp_assigned421', `checkpoints/${UID}/tmp_998877`]]], 'undo --list names what the backup holds');
  const again = cli(dcd, 'clean', '--yes');
  t.equal(again.stdout, 'clean: done\nnothing to remove: no leftovers of interrupted writes\n');
  const u = cli(dcd, 'undo', '--yes');
  t.equal(u.code, 0, u.stderr);
  t.match(u.stdout, /put back meta\/tmp_assigned421/);
  // A rename changes its directories' mtimes; every entry itself is back as it was.
  const noDirTimes = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.startsWith('dir ') ? v.replace(/ [\d.]+$/, '') : v]));
  t.same(noDirTimes(treeHash(path.join(dcd, 'store'))), noDirTimes(before), 'bytes, modes and mtimes as before');
  t.equal(cli(dcd, 'undo', '--yes').code, 0, 'a second undo finds nothing left to move');
});

t.test('--yes in text says what happened: moved out of the store, kept for undo, not "freed"', async (t) => {
  const dcd = withLeftovers(t.testdir({}));
  const r = cli(dcd, 'clean', '--yes');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^clean: done\nmoved out meta\/tmp_assigned421 {2}\(26 bytes, left by the kubelet\)\n/);
  t.match(r.stdout, /^moved 39B \(39 bytes\) out of the store into the backup, kept for undo: no space is freed$/m);
  t.notMatch(r.stdout, /freed 39B|removed /);
});

t.test('undo refuses (exit 4) when a leftover stands in its place again', async (t) => {
  const dcd = withLeftovers(t.testdir({}));
  t.equal(cli(dcd, 'clean', '--yes').code, 0);
  fs.writeFileSync(path.join(dcd, 'store/meta/tmp_assigned421'), 'new');
  const u = cli(dcd, 'undo', '--yes');
  t.equal(u.code, 4);
  t.match(u.stderr, /meta\/tmp_assigned421 exists again; it is not overwritten/);
  t.equal(fs.readFileSync(path.join(dcd, 'store/meta/tmp_assigned421'), 'utf8'), 'new');
  const d = cli(dcd, 'undo', '--dry-run');
  t.equal(d.code, 4, 'the dry run exits as the real run would');
});

t.test('a link, a special file or a directory holding one is left alone with a warning', async (t) => {
  const dir = t.testdir({ outside: { secret: 'do not touch' } });
  const dcd = makeStore(path.join(dir, 'node'), { extra: { [`${CP}/tmp_sub/inner/x`]: 'y' } });
  fs.symlinkSync(path.join(dir, 'outside'), path.join(dcd, 'store/meta/tmp_link'));
  fs.mkdirSync(path.join(dcd, CP, 'tmp_withlink'));
  fs.symlinkSync(path.join(dir, 'outside/secret'), path.join(dcd, CP, 'tmp_withlink/kubelet'));
  const before = treeHash(dir);
  const r = cli(dcd, 'clean', '--yes');
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, 'clean: done\nnothing to remove: the leftovers found are left alone (see the warnings)\n');
  t.match(r.stderr, /not removed: meta\/tmp_link is a symbolic link/);
  t.match(r.stderr, /not removed: checkpoints\/.*\/tmp_sub holds "inner", which is not a regular file/);
  t.match(r.stderr, /not removed: checkpoints\/.*\/tmp_withlink holds "kubelet", which is not a regular file/);
  const after = treeHash(dir);
  // The lock's state directory appears in node/ (so its mtime moves); nothing else changes.
  for (const k of Object.keys(before).filter((k) => k !== 'node' && !k.includes('.kubelet-ckpt'))) t.equal(after[k], before[k], k);
});

t.test('a kubelet using the store refuses clean (exit 4), also its dry run; --force removes', async (t) => {
  const dir = t.testdir({});
  const dcd = withLeftovers(path.join(dir, 'node'));
  const k = await startKubelet(t, kubeletBin(path.join(dir, 'bin')), [`--dynamic-config-dir=${dcd}`]);
  const before = treeHash(dcd);
  const r = cli(dcd, 'clean', '--yes');
  t.equal(r.code, 4);
  t.match(r.stderr, new RegExp(`pid ${k.pid}`));
  const d = cli(dcd, 'clean', '-o', 'json');
  t.equal(d.code, 4);
  t.match(json(d), { dryRun: true, wouldRefuse: [new RegExp(`pid ${k.pid}`)] });
  t.same(treeHash(dcd), before);
  t.equal(cli(dcd, 'clean', '--yes', '--force').code, 0);
  t.notOk(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned421')));
});

t.test('a meta file whose reference is unclear (a link, an unsafe key): no tmp_ checkpoint is moved (found by review)', async (t) => {
  // (a) meta/assigned a symbolic link (the kubelet reads through it) naming the RV tmp_2abc.
  const a = makeStore(t.testdir({ a: {} }) + '/a', { rvs: ['1', 'tmp_2abc'], assigned: 'tmp_2abc', lkg: '1' });
  fs.renameSync(path.join(a, 'store/meta/assigned'), path.join(a, 'assigned.real'));
  fs.symlinkSync('../../assigned.real', path.join(a, 'store/meta/assigned'));
  const before = treeHash(a);
  const r = cli(a, 'clean', '--yes');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, new RegExp(`not removed: checkpoints/${UID}/tmp_2abc: meta/assigned is a symbolic link.*could be the checkpoint named`));
  t.same(treeHash(a), before, 'nothing moved');
  // (b) an unsafe kubeletConfigKey the kubelet's path join still resolves to tmp_2abc.
  const b = makeStore(t.testdir({ b: {} }) + '/b', { rvs: ['1', 'tmp_2abc'], lkg: '1', assigned: `raw:apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: ../tmp_2abc/kubelet\n    name: cfg\n    namespace: kube-system\n    resourceVersion: tmp_2abc\n    uid: ${UID}\n` });
  const dry = cli(b, 'clean', '-o', 'json');
  t.equal(dry.code, 0, dry.stderr);
  const j = JSON.parse(dry.stdout) as { changes: unknown[]; warnings: string[] };
  t.same(j.changes, [], 'nothing would be moved');
  t.match(j.warnings.join('\n'), /tmp_2abc: meta\/assigned names kubeletConfigKey "\.\.\/tmp_2abc\/kubelet".*could be the checkpoint named/);
});

t.test('a meta file naming its checkpoint through a linked UID directory: the tmp_ checkpoint behind it stays (found by review)', async (t) => {
  const meta = (rv: string) => `raw:apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: cfg\n    namespace: kube-system\n    resourceVersion: \"${rv}\"\n    uid: abcd-alias\n`;
  const d = makeStore(t.testdir({}), { rvs: ['1', 'tmp_2abc'], assigned: meta('1'), lkg: meta('tmp_2abc') });
  fs.symlinkSync(UID, path.join(d, 'store/checkpoints/abcd-alias'));
  const before = treeHash(d);
  const r = cli(d, 'clean', '--yes', '-o', 'json');
  t.equal(r.code, 0, r.stderr);
  const j = JSON.parse(r.stdout) as { changes: unknown[]; warnings: string[] };
  t.same(j.changes, [], 'nothing moved');
  t.match(j.warnings.join('\n'), new RegExp(`not removed: checkpoints/${UID}/tmp_2abc: meta/assigned names checkpoint abcd-alias/1 through checkpoints/abcd-alias, a symbolic link to ${UID}`));
  t.same(treeHash(d), before);
});

t.test('checkpoints/ that cannot be listed: clean and prune say so (exit 3), never "no leftovers" (found by review)', { skip: !isRoot && 'setpriv to nobody needs root' }, async (t) => {
  const dcd = withLeftovers(t.testdir({}));
  // Everything the store's, but checkpoints/ root's alone: nobody reads the rest, not that.
  spawnSync('chown', ['-R', '65534:65534', dcd]);
  fs.chownSync(path.join(dcd, 'store/checkpoints'), 0, 0);
  fs.chmodSync(path.join(dcd, 'store/checkpoints'), 0o700);
  for (const args of [['clean'], ['clean', '--yes'], ['prune'], ['prune', '--yes']]) {
    const r = asNobody(['--dir', dcd, ...args]);
    t.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
    // A dry run prints what the real run would stop at with its plan (stdout); a real run, its error.
    const said = r.stdout + r.stderr;
    t.match(said, /store\/checkpoints cannot be read \(permission denied\)/, args.join(' '));
    t.match(said, /run kubelet-ckpt as root/);
    t.notMatch(said, /no leftovers/);
  }
  t.ok(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned421')), 'nothing moved');
});

t.test('found by a review: undo of a clean whose leftover\'s place cannot be written: the dry run exits 3 as the real run does', { skip: !isRoot && 'setpriv to nobody needs root' }, async (t) => {
  const U = '946d785e-998a-11e7-a8dd-42010a800006';
  const dcd = copyFixture('stores/healthy', t.testdir({}));
  for (let d = path.dirname(dcd); d !== '/'; d = path.dirname(d)) fs.chmodSync(d, fs.statSync(d).mode | 0o005);
  const leftover = path.join(dcd, 'store/checkpoints', U, 'tmp_123');
  fs.mkdirSync(leftover);
  fs.copyFileSync(path.join(dcd, 'store/checkpoints', U, '119980/kubelet'), path.join(leftover, 'kubelet'));
  spawnSync('chown', ['-R', '65534:65534', dcd]);
  const c = asNobody(['--dir', dcd, 'clean', '--yes']);
  t.equal(c.code, 0, c.stderr);
  fs.chownSync(path.join(dcd, 'store/checkpoints', U), 0, 0);
  fs.chmodSync(path.join(dcd, 'store/checkpoints', U), 0o755);
  const dry = asNobody(['--dir', dcd, 'undo', '--dry-run']);
  t.equal(dry.code, 3, dry.stdout + dry.stderr);
  t.match(dry.stdout, /checkpoints\/946d785e-998a-11e7-a8dd-42010a800006\/ cannot be written: permission denied; nothing was put back/);
  const real = asNobody(['--dir', dcd, 'undo', '--yes']);
  t.equal(real.code, 3, real.stderr);
  t.notOk(fs.existsSync(leftover), 'nothing put back');
});
