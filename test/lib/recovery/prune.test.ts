import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { openSession } from '../../../lib/session.js';
import { takeSnapshot } from '../../../lib/store/snapshot.js';
import { verifyStore } from '../../../lib/integrity/verify.js';
import { fsPayloadReader } from '../../../lib/store/snapshot.js';
import { applyPrune, planPrune } from '../../../lib/recovery/prune.js';
import type { RecoveryContext } from '../../../lib/recovery/plan.js';
import { GOOD_PAYLOAD, metaYaml, writeTree } from '../../helpers.js';
import { UID, UID2, makeStore, metaFor, treeHash } from './fixtures/index.js';

const ctxOf = (dcd: string, extra: Partial<RecoveryContext> = {}): RecoveryContext => ({ session: openSession({ dir: dcd, kubeletVersion: '1.23' }), root: '/', commandLine: 'prune', apiTimeoutMs: 0, ...extra });
const NO = { force: false, restartKubelet: false };
const cp = (uid: string, rv: string) => `store/checkpoints/${uid}/${rv}`;

function build(dir: string): string {
  const dcd = makeStore(dir, {
    rvs: ['1', '2', '3', '4', '5', '6'],
    assigned: '6',
    lkg: '4',
    extra: {
      [`${cp(UID2, 'a')}/kubelet`]: 'a'.repeat(10),
      [`${cp(UID2, 'b')}/kubelet`]: 'b'.repeat(20),
      [`${cp(UID2, 'b')}/other`]: 'x',
      [`${cp(UID, '8')}/kubelet`]: GOOD_PAYLOAD,
      [`${cp(UID, '8')}/sub`]: null,
      [`${cp(UID, 'tmp_1203011234567')}/kubelet`]: 'the kubelet\'s own leftover',
      [`${cp(UID, 'tmp_3.kubelet-ckpt-prune.0badcafe')}/kubelet`]: 'ours',
    },
  });
  fs.symlinkSync('/etc', path.join(dcd, cp(UID, '7')));
  const t1 = new Date('2026-01-01T00:00:00Z');
  const t2 = new Date('2026-01-02T00:00:00Z');
  fs.utimesSync(path.join(dcd, cp(UID2, 'a')), t2, t2); // 'a' is newer than 'b' by mtime
  fs.utimesSync(path.join(dcd, cp(UID2, 'b')), t1, t1);
  return dcd;
}

const size = GOOD_PAYLOAD.length;

t.test('plan: unreferenced checkpoints go, referenced and odd ones stay; a dry run changes nothing', async (t) => {
  const dcd = build(t.testdir({}));
  const before = treeHash(dcd);
  const plan = await planPrune(ctxOf(dcd), { keep: 0, ...NO });
  t.same(plan.referenced, [`${UID}/4`, `${UID}/6`]);
  t.same(
    plan.items.map((i) => [i.kind, i.path, i.bytes]),
    [
      ['checkpoint', `checkpoints/${UID2}/b`, 21],
      ['checkpoint', `checkpoints/${UID2}/a`, 10],
      ['uid-dir', `checkpoints/${UID2}`, 0],
      ['checkpoint', `checkpoints/${UID}/1`, size],
      ['checkpoint', `checkpoints/${UID}/2`, size],
      ['checkpoint', `checkpoints/${UID}/3`, size],
      ['checkpoint', `checkpoints/${UID}/5`, size],
      ['leftover', `checkpoints/${UID}/tmp_3.kubelet-ckpt-prune.0badcafe`, 4], // its 'ours' file: a leftover holds a whole checkpoint (found by review: it counted 0),
    ],
  );
  t.match(plan.warnings.join('\n'), new RegExp(`not pruned: checkpoints/${UID}/7 is a symbolic link to /etc`));
  t.match(plan.warnings.join('\n'), new RegExp(`not pruned: checkpoints/${UID}/8 holds sub \\(dir\\), not only regular files`));
  t.same(treeHash(dcd), before);
});

t.test('--keep N keeps the N newest unreferenced resourceVersions per UID besides the referenced ones', async (t) => {
  const dcd = build(t.testdir({}));
  const plan = await planPrune(ctxOf(dcd), { keep: 2, ...NO });
  t.same(
    plan.items.filter((i) => i.kind === 'checkpoint').map((i) => i.before),
    [`${UID}/1`, `${UID}/2`, `${UID}/3`],
    'UID2 keeps both; UID keeps 5 and 8 (the link 7 is not a resourceVersion, and never removed), plus the referenced 4 and 6',
  );
  await t.rejects(planPrune(ctxOf(dcd), { keep: -1, ...NO }), { code: 'USAGE', exitCode: 2 });
});

t.test('apply: removes exactly the plan, frees the bytes, never touches referenced checkpoints or what links point at', async (t) => {
  const dcd = build(t.testdir({}));
  const keep = Object.fromEntries(Object.entries(treeHash(dcd)).filter(([k]) => /\/(4|6|7|8)(\/|$)|tmp_1203|^store\/meta/.test(k)));
  const etc = fs.readdirSync('/etc').length;
  const steps: string[] = [];
  const r = await applyPrune(ctxOf(dcd, { hook: (s) => steps.push(s) }), await planPrune(ctxOf(dcd), { keep: 0, force: true, restartKubelet: false }));
  t.equal(r.freedBytes, 35 + 4 * size);
  t.equal(r.dryRun, false);
  t.equal(r.changes.length, 8);
  const after = treeHash(dcd);
  for (const [k, v] of Object.entries(keep)) t.equal(after[k], v, `kept ${k}`);
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints')), [UID]);
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)).sort(), ['4', '6', '7', '8', 'tmp_1203011234567']);
  t.equal(fs.readdirSync('/etc').length, etc);
  t.same(steps.filter((s) => s === 'moved-aside').length, 6);
  const audit = fs.readFileSync(path.join(dcd, '.kubelet-ckpt/backups/audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(audit.map((a) => [a.event, a.freedBytes]), [['begin', 0], ['done', 35 + 4 * size]]);
});

t.test('an interrupted prune leaves whole checkpoints and one tmp_ directory that verify reports and the next prune removes', async (t) => {
  const dcd = makeStore(t.testdir({}), { rvs: ['1', '2', '3'], assigned: '3', lkg: '3' });
  const stop = (s: string) => {
    if (s === 'moved-aside') throw new Error('crash');
  };
  await t.rejects(applyPrune(ctxOf(dcd, { hook: stop }), await planPrune(ctxOf(dcd), { keep: 0, ...NO })), /crash/);
  const names = fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)).sort();
  t.equal(names.length, 3);
  t.ok(names.includes('2') && names.includes('3'));
  const aside = names.find((n) => n.startsWith('tmp_'))!;
  t.match(aside, /^tmp_1\.kubelet-ckpt-prune\.[0-9a-f]{8}$/);
  t.equal(fs.readFileSync(path.join(dcd, 'store/checkpoints', UID, aside, 'kubelet'), 'utf8'), GOOD_PAYLOAD, 'moved whole');
  const snap = takeSnapshot(dcd);
  const s = openSession({ dir: dcd, kubeletVersion: '1.23' });
  const v = verifyStore(snap, { reader: fsPayloadReader(snap), judge: s.judge, local: s.local });
  t.ok(v.findings.some((f) => f.code === 'TMP_LEFTOVER' && f.path?.endsWith(aside)), 'verify reports it');
  const r = await applyPrune(ctxOf(dcd), await planPrune(ctxOf(dcd), { keep: 0, ...NO }));
  t.same(r.changes.map((c) => c.path), [`checkpoints/${UID}/2`, `checkpoints/${UID}/${aside}`]);
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)), ['3']);
});

t.test('meta files that change between plan and apply stop the prune before anything is removed', async (t) => {
  const dcd = makeStore(t.testdir({}), { rvs: ['1', '2'], assigned: '2', lkg: '2' });
  const plan = await planPrune(ctxOf(dcd), { keep: 0, ...NO });
  t.same(plan.items.map((i) => i.before), [`${UID}/1`]);
  fs.writeFileSync(path.join(dcd, 'store/meta/last-known-good'), metaFor('1')); // now referenced
  await t.rejects(applyPrune(ctxOf(dcd), plan), { code: 'CHANGED_SINCE_PLAN', exitCode: 4, message: /nothing removed/ });
  t.ok(fs.existsSync(path.join(dcd, cp(UID, '1'), 'kubelet')));
});

t.test('an undecodable meta file: references unknown, nothing pruned, even with --force', async (t) => {
  const dcd = makeStore(t.testdir({}), { rvs: ['1', '2'], assigned: 'raw:garbage: [', lkg: '2' });
  await t.rejects(planPrune(ctxOf(dcd), { keep: 0, force: true, restartKubelet: false }), { code: 'REFERENCES_UNKNOWN', exitCode: 4 });
});

t.test('the store swapped for a link to another store while pruning: stopped, nothing outside it removed', async (t) => {
  // Found by review: each removal reopened the store by its path, so a store/ swapped for a
  // link meanwhile led the removals into the other tree. The store is pinned when read.
  const dcd = makeStore(t.testdir({ a: {} }), { rvs: ['1', '2', '3'], assigned: '3', lkg: '3' });
  const other = makeStore(path.join(path.dirname(dcd), 'b'), { rvs: ['1', '2', '3'], assigned: '3', lkg: '3' });
  const before = treeHash(other);
  const ctx = ctxOf(dcd);
  const plan = await planPrune(ctx, { keep: 0, force: true, restartKubelet: false });
  const swap = (s: string) => {
    if (s !== 'audit-begin') return;
    fs.renameSync(path.join(dcd, 'store'), path.join(dcd, 'store.real'));
    fs.symlinkSync(path.join(other, 'store'), path.join(dcd, 'store'));
  };
  await t.rejects(applyPrune({ ...ctx, hook: swap }, plan), { code: 'CHANGED_SINCE_PLAN', message: /is no longer the directory kubelet-ckpt read/ });
  t.same(treeHash(other), before, 'the other store is untouched');
  t.same(fs.readdirSync(path.join(dcd, 'store.real/checkpoints', UID)).sort(), ['1', '2', '3'], 'and so is this one');
});

t.test('a checkpoint a meta file names is never pruned, even named like our leftover', async (t) => {
  // Found by review: prune removed UID/tmp_7.kubelet-ckpt that both meta files named.
  const rv = 'tmp_7.kubelet-ckpt';
  const dcd = makeStore(t.testdir({}), { rvs: ['1', rv], assigned: rv, lkg: rv });
  const plan = await planPrune(ctxOf(dcd), { keep: 0, force: true, restartKubelet: false });
  t.same(plan.items.map((i) => i.path), [`checkpoints/${UID}/1`]);
  await applyPrune(ctxOf(dcd), plan);
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)), [rv]);
});

t.test('--keep orders among all of a UID\'s resourceVersions, as ls does (found by review: the referenced non-numeric RV left out switched the rest to numeric order)', async (t) => {
  const dcd = makeStore(t.testdir({}), { rvs: ['10', '5', 'abc'], assigned: 'abc', lkg: 'abc' });
  for (const [rv, year] of [['10', 2020], ['5', 2021], ['abc', 2022]] as const) {
    const when = new Date(`${year}-01-01T00:00:00Z`);
    fs.utimesSync(path.join(dcd, cp(UID, rv)), when, when);
  }
  const plan = await planPrune(ctxOf(dcd), { keep: 1, ...NO });
  t.same(plan.items.map((i) => i.before), [`${UID}/10`], 'by mtime (not every RV is a number): 10 is the oldest, 5 is kept');
});

t.test('a meta file that names its checkpoint through a link: references unclear, nothing pruned (found by review)', async (t) => {
  // The kubelet follows checkpoints/alias/RV and checkpoints/UID/alias; a comparison of names
  // saw the directory behind the link as unreferenced, and prune removed what the kubelet loads.
  const dir = t.testdir({ a: {}, b: {} });
  const rvAlias = makeStore(path.join(dir, 'a'), { rvs: ['1', '2'], assigned: '2', lkg: 'raw:' + metaFor('alias') });
  fs.symlinkSync('1', path.join(rvAlias, cp(UID, 'alias')));
  const before = treeHash(rvAlias);
  await t.rejects(planPrune(ctxOf(rvAlias), { keep: 0, ...NO }), { code: 'REFERENCES_UNKNOWN', exitCode: 4, message: new RegExp(`meta/last-known-good names checkpoint ${UID}/alias through checkpoints/${UID}/alias, a symbolic link to 1`) });
  const uidAlias = makeStore(path.join(dir, 'b'), { rvs: ['1', '2', '3'], assigned: 'raw:' + metaFor('3', { uid: 'abcd-alias' }), lkg: 'raw:' + metaFor('2', { uid: 'abcd-alias' }) });
  fs.symlinkSync(UID, path.join(uidAlias, 'store/checkpoints/abcd-alias'));
  await t.rejects(planPrune(ctxOf(uidAlias), { keep: 0, force: true, restartKubelet: false }), { code: 'REFERENCES_UNKNOWN', message: /meta\/assigned names checkpoint abcd-alias\/3 through checkpoints\/abcd-alias, a symbolic link to / });
  t.same(treeHash(rvAlias), before, 'nothing changed');
  t.ok(fs.existsSync(path.join(uidAlias, cp(UID, '1'), 'kubelet')));
});

t.test('the audit log unwritable after the removals: the prune is reported done, with a warning (found by review: exit 3, "nothing was changed")', async (t) => {
  const dcd = makeStore(t.testdir({ n: {} }), { rvs: ['1', '2', '3'], assigned: '3', lkg: '3' });
  const ctx = ctxOf(dcd);
  const plan = await planPrune(ctx, { keep: 0, ...NO });
  const swap = (s: string) => {
    if (s !== 'removed' || fs.existsSync(path.join(dcd, 'state.real'))) return;
    fs.renameSync(path.join(dcd, '.kubelet-ckpt'), path.join(dcd, 'state.real'));
    fs.symlinkSync('/nonexistent-kubelet-ckpt-test', path.join(dcd, '.kubelet-ckpt'));
  };
  const r = await applyPrune({ ...ctx, hook: swap }, plan);
  t.same(r.changes.map((c) => c.path), [`checkpoints/${UID}/1`, `checkpoints/${UID}/2`]);
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)), ['3']);
  t.match(r.warnings.join('\n'), /the change is made, but the audit log's closing line could not be written/, 'prune keeps no backup: none is claimed');
});

t.test('a UID directory written into while pruning stays, and is not reported removed (found by review)', async (t) => {
  const dcd = makeStore(t.testdir({ n: {} }), { rvs: ['1'], assigned: '1', lkg: '1', extra: { [`${cp(UID2, 'a')}/kubelet`]: 'a' } });
  const ctx = ctxOf(dcd);
  const plan = await planPrune(ctx, { keep: 0, ...NO });
  t.same(plan.items.map((i) => i.kind), ['checkpoint', 'uid-dir']);
  const write = (s: string, at?: string) => {
    if (s === 'removed' && at === `checkpoints/${UID2}/a`) fs.mkdirSync(path.join(dcd, cp(UID2, '555')));
  };
  const r = await applyPrune({ ...ctx, hook: write }, plan);
  t.same(r.changes.map((c) => c.path), [`checkpoints/${UID2}/a`], 'only what went');
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID2)), ['555']);
  t.match(r.warnings.join('\n'), new RegExp(`checkpoints/${UID2} was not removed: something was written into it while pruning`));
  t.equal(r.freedBytes, 1);
});

t.test('found by review: a file with another name (a hard link) frees nothing, in the plan and in the run', async (t) => {
  const dcd = t.testdir({});
  writeTree(dcd, {
    'store/meta/assigned': metaYaml({ uid: UID, rv: '1' }),
    'store/meta/last-known-good': '',
    [`store/checkpoints/${UID}/1/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${UID}/2/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${UID}/3/kubelet`]: 'abc',
    'outside/file': 'xyz',
  });
  fs.unlinkSync(path.join(dcd, `store/checkpoints/${UID}/3/kubelet`));
  fs.linkSync(path.join(dcd, 'outside/file'), path.join(dcd, `store/checkpoints/${UID}/3/kubelet`));
  const plan = await planPrune(ctxOf(dcd), { keep: 0, force: true, restartKubelet: false });
  t.same(plan.items.map((i) => [i.path, i.bytes]), [[`checkpoints/${UID}/2`, GOOD_PAYLOAD.length], [`checkpoints/${UID}/3`, 0]]);
  const r = await applyPrune(ctxOf(dcd), plan);
  t.equal(r.freedBytes, GOOD_PAYLOAD.length);
  t.same(r.changes.map((c) => (c as { bytes: number }).bytes), [GOOD_PAYLOAD.length, 0]);
  t.equal(fs.readFileSync(path.join(dcd, 'outside/file'), 'utf8'), 'xyz', 'the other name keeps its bytes');
  t.equal(fs.statSync(path.join(dcd, 'outside/file')).nlink, 1);
});
