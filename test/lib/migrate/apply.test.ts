// applyMigrate with --restart-kubelet (a fake systemctl on PATH, a real process named kubelet),
// a file changed between plan and apply, and the backup manifest undo relies on.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { planMigrate } from '../../../lib/migrate/plan.js';
import { applyMigrate, migrateBackup } from '../../../lib/migrate/apply.js';
import { openSession } from '../../../lib/session.js';
import type { RecoveryContext } from '../../../lib/recovery/plan.js';
import { copyFixture } from '../../helpers.js';
import { fakeSystemctl, kubeletBin, startKubelet } from '../recovery/fixtures/index.js';

function ctxFor(root: string, extra: Partial<RecoveryContext> = {}): RecoveryContext {
  return { session: openSession({ root, kubeletVersion: '1.23' }), root, commandLine: 'migrate', apiTimeoutMs: 0, ...extra };
}

t.test('--restart-kubelet: stop, write, daemon-reload, start, is-active', async (t) => {
  const root = copyFixture('migrate/by-hand');
  const dir = t.testdir();
  const dcd = path.join(root, 'etc/kubernetes/dynamic-kubelet-config');
  const bin = kubeletBin(path.join(dir, 'bin'));
  const state = path.join(dir, 'state');
  fakeSystemctl(path.join(dir, 'sbin'), state, bin);
  fs.writeFileSync(path.join(state, 'args'), '--config=/var/lib/kubelet/config.yaml');
  const k = await startKubelet(t, bin, [`--dynamic-config-dir=${dcd}`]);
  fs.writeFileSync(path.join(state, 'pid'), String(k.pid));
  const ctx = ctxFor(root, { envPath: `${path.join(dir, 'sbin')}:${process.env.PATH}` });
  const plan = await planMigrate(ctx, { ref: null, force: false, restartKubelet: false });
  t.match(plan.refusals.map((r) => r.code), ['KUBELET_RUNNING'], 'without --restart-kubelet a running kubelet refuses');
  plan.refusals = [];
  plan.overrides = { force: false, restartKubelet: true };
  const r = await applyMigrate(ctx, plan);
  const newPid = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8'));
  t.teardown(() => {
    try {
      process.kill(newPid, 'SIGTERM');
    } catch {
      /* gone */
    }
  });
  t.same(fs.readFileSync(path.join(state, 'calls'), 'utf8').trim().split('\n'), ['is-active kubelet', 'stop kubelet', 'daemon-reload', 'start kubelet', 'is-active kubelet']);
  t.match(r, { kind: 'MigrateResult', dryRun: false, kubelet: { stopped: true, started: true, active: 'active' } });
  t.ok(fs.existsSync(path.join(root, 'var/lib/kubelet/config.yaml')));
  const b = migrateBackup(dcd, null);
  t.match(b?.manifest, { kind: 'migrate', files: [{ path: '/var/lib/kubelet/config.yaml', state: 'missing', createdDirs: ['/var', '/var/lib', '/var/lib/kubelet'] }, { path: '/etc/systemd/system/kubelet.service', state: 'file' }] });
});

t.test('a file changed between plan and apply: nothing is written', async (t) => {
  const root = copyFixture('migrate/aks');
  const ctx = ctxFor(root);
  const plan = await planMigrate(ctx, { ref: null, force: true, restartKubelet: false });
  const env = path.join(root, 'etc/default/kubelet');
  fs.appendFileSync(env, 'X=1\n');
  const config = fs.readFileSync(path.join(root, 'etc/default/kubeletconfig.json'));
  await t.rejects(applyMigrate(ctx, plan), { code: 'CHANGED_SINCE_PLAN', exitCode: 4 });
  t.same(fs.readFileSync(path.join(root, 'etc/default/kubeletconfig.json')), config);
  t.equal(migrateBackup(path.join(root, 'etc/default/dynamickubelet'), null), null, 'no backup either');
});

t.test('a directory swapped for a link out of --root between plan and apply: refused, nothing written outside', async (t) => {
  const root = copyFixture('migrate/by-hand');
  const ctx = ctxFor(root);
  const plan = await planMigrate(ctx, { ref: null, force: true, restartKubelet: false });
  t.same(plan.refusals, []);
  t.ok(plan.changes.some((c) => c.file.nodePath === '/etc/systemd/system/kubelet.service'), 'the unit is one of the writes');
  // /etc/systemd goes elsewhere (the same bytes, so the plan's re-check passes through the link).
  const outside = t.testdir();
  const moved = path.join(outside, 'systemd');
  fs.cpSync(path.join(root, 'etc/systemd'), moved, { recursive: true });
  const snapshot = () => Object.fromEntries(fs.readdirSync(moved, { recursive: true, encoding: 'utf8' }).sort().map((n) => [n, fs.statSync(path.join(moved, n)).isFile() ? fs.readFileSync(path.join(moved, n), 'utf8') : 'dir']));
  const before = snapshot();
  fs.renameSync(path.join(root, 'etc/systemd'), path.join(root, 'etc/systemd.orig'));
  fs.symlinkSync(moved, path.join(root, 'etc/systemd'));
  await t.rejects(applyMigrate(ctx, plan), { code: 'META_SYMLINK', message: /^\/etc\/systemd\/system: a directory on the way is a symbolic link that leads nowhere or was put there after the plan/ });
  t.same(snapshot(), before, 'nothing written outside --root, no temp file left there');
});
