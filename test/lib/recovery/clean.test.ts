// clean and its undo under races on the backup (found by a race review): the leftovers move
// into the directory clean made, through its descriptor, never into what a name swapped for a
// link meanwhile points at; undo reaches the backup one name at a time, links refused.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { openSession } from '../../../lib/session.js';
import { applyClean, applyUnclean, loadBackup, movedOf, planClean, planUnclean } from '../../../lib/recovery/index.js';
import type { RecoveryContext } from '../../../lib/recovery/plan.js';
import { UID, makeStore, treeHash } from './fixtures/index.js';

const NO = { force: false, restartKubelet: false };
const ctxOf = (dcd: string, extra: Partial<RecoveryContext> = {}): RecoveryContext => ({ session: openSession({ dir: dcd, kubeletVersion: '1.23' }), root: '/', commandLine: 'clean', apiTimeoutMs: 0, ...extra });

/** A store with a meta temp file and a half-written checkpoint of the kubelet's, and an empty directory outside it. */
function setup(dir: string): { dcd: string; outside: string } {
  const dcd = makeStore(path.join(dir, 'node'), { extra: { 'store/meta/tmp_assigned421': 'apiVersion: kubelet.config', [`store/checkpoints/${UID}/tmp_998877/kubelet`]: 'kind: Kubelet' } });
  const outside = path.join(dir, 'outside');
  fs.mkdirSync(outside);
  return { dcd, outside };
}

const backupsOf = (dcd: string) => path.join(dcd, '.kubelet-ckpt', 'backups');
const idOf = (dcd: string) => fs.readdirSync(backupsOf(dcd)).find((n) => /^\d{8}T/.test(n))!;

t.test('clean: the backup swapped for a link after it was made: the leftovers still go into it, nothing outside', async (t) => {
  const { dcd, outside } = setup(t.testdir({}));
  const ctx = ctxOf(dcd);
  const plan = planClean(ctx, NO);
  t.equal(plan.items.length, 2);
  const swap = (step: string) => {
    if (step !== 'audit-begin') return;
    const id = idOf(dcd);
    fs.renameSync(path.join(backupsOf(dcd), id), path.join(backupsOf(dcd), `${id}.real`));
    fs.mkdirSync(path.join(outside, 'leftovers'));
    fs.symlinkSync(outside, path.join(backupsOf(dcd), id));
  };
  const r = await applyClean({ ...ctx, hook: swap }, plan);
  t.same(r.changes.map((c) => c.path), ['meta/tmp_assigned421', `checkpoints/${UID}/tmp_998877`]);
  t.same(fs.readdirSync(path.join(outside, 'leftovers')), [], 'nothing moved outside');
  const real = fs.readdirSync(backupsOf(dcd)).find((n) => n.endsWith('.real'))!;
  t.same(fs.readdirSync(path.join(backupsOf(dcd), real, 'leftovers')).sort(), ['0', '1'], 'they are in the backup clean made');
  t.equal(fs.readFileSync(path.join(backupsOf(dcd), real, 'leftovers', '0'), 'utf8'), 'apiVersion: kubelet.config');
});

t.test('clean: the state directory swapped for a link mid-run: nothing outside; the audit log it cannot write is a warning, not a false failure', async (t) => {
  const { dcd, outside } = setup(t.testdir({}));
  const ctx = ctxOf(dcd);
  const plan = planClean(ctx, NO);
  const swap = (step: string) => {
    if (step !== 'audit-begin') return;
    fs.renameSync(path.join(dcd, '.kubelet-ckpt'), path.join(dcd, 'state.real'));
    fs.symlinkSync(outside, path.join(dcd, '.kubelet-ckpt'));
  };
  const r = await applyClean({ ...ctx, hook: swap }, plan);
  t.equal(r.changes.length, 2, 'both were moved');
  t.same(fs.readdirSync(outside), [], 'nothing outside, not even an audit line');
  t.match(r.warnings.join('\n'), /the change is made and backed up, but the audit log's closing line could not be written: .*\.kubelet-ckpt is a symbolic link/);
  t.notMatch(r.warnings.join('\n'), /nothing was changed/);
  const id = fs.readdirSync(path.join(dcd, 'state.real', 'backups')).find((n) => /^\d{8}T/.test(n))!;
  t.same(fs.readdirSync(path.join(dcd, 'state.real', 'backups', id, 'leftovers')).sort(), ['0', '1']);
});

t.test('undo of a clean: the backup swapped for a link to a look-alike: refused, the look-alike untouched, nothing put back from it', async (t) => {
  const { dcd, outside } = setup(t.testdir({}));
  const ctx = ctxOf(dcd);
  await applyClean(ctx, planClean(ctx, NO));
  const uctx = ctxOf(dcd, { commandLine: 'undo' });
  const b = loadBackup(dcd, null);
  const plan = planUnclean(uctx, { id: b.manifest.id, path: b.path }, movedOf(b.manifest)!, NO);
  t.equal(plan.moves.length, 2);
  // A look-alike outside, with a canary where the first leftover would be.
  fs.mkdirSync(path.join(outside, 'leftovers'));
  fs.writeFileSync(path.join(outside, 'leftovers', '0'), 'CANARY');
  fs.renameSync(b.path, `${b.path}.real`);
  fs.symlinkSync(outside, b.path);
  const before = treeHash(outside);
  await t.rejects(applyUnclean(uctx, plan), { exitCode: 3, message: /symbolic link|nothing was put back/ });
  t.same(treeHash(outside), before, 'the canary stays where it was');
  t.notOk(fs.existsSync(path.join(dcd, 'store/meta/tmp_assigned421')), 'nothing came back from outside');
});
