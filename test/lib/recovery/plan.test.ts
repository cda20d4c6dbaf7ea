import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { openSession } from '../../../lib/session.js';
import { encodeMeta } from '../../../lib/store/encode.js';
import { planReset, planRollback, planUndo, type RecoveryContext, type ResetRequest } from '../../../lib/recovery/plan.js';
import { applyMetaPlan } from '../../../lib/recovery/apply.js';
import { GOOD_PAYLOAD } from '../../helpers.js';
import { UID, UID2, makeStore, metaFor, treeHash, type StoreSpec } from './fixtures/index.js';

const ctxOf = (dcd: string): RecoveryContext => ({ session: openSession({ dir: dcd, kubeletVersion: '1.23' }), root: '/', commandLine: 'test', apiTimeoutMs: 0 });
const NO = { force: false, restartKubelet: false };
const LKG_TEXT = metaFor('119980');

interface Case {
  name: string;
  store?: StoreSpec;
  req: Partial<ResetRequest> | 'rollback';
  /** Expected writes, in order: [meta name, exact text]. */
  writes?: [string, string][];
  refusal?: RegExp;
  warning?: RegExp;
  throws?: { code: string; exitCode: number; message?: RegExp };
}

const cases: Case[] = [
  { name: 'reset all := local writes last-known-good, then assigned', req: { which: 'all' }, writes: [['last-known-good', ''], ['assigned', '']] },
  { name: 'reset assigned := local', req: { which: 'assigned' }, writes: [['assigned', '']] },
  { name: 'reset last-known-good := local', req: { which: 'last-known-good' }, writes: [['last-known-good', '']] },
  { name: 'reset all --to UID prefix/RV skips the file that already holds it', req: { which: 'all', to: '946d785e/119980' }, writes: [['assigned', metaFor('119980')]] },
  { name: 'reset assigned --to lkg', req: { which: 'assigned', to: 'lkg' }, writes: [['assigned', metaFor('119980')]] },
  { name: 'reset last-known-good --to assigned (promote by hand)', req: { which: 'last-known-good', to: 'assigned' }, writes: [['last-known-good', metaFor('120200')]] },
  { name: 'reset all --to local on an empty store: nothing to do', store: { assigned: '', lkg: '' }, req: { which: 'all' }, writes: [] },
  { name: 'reset all --to local creates missing meta files (empty)', store: { assigned: null, lkg: null }, req: { which: 'all' }, writes: [['last-known-good', ''], ['assigned', '']] },
  { name: 'rollback: assigned := last-known-good', req: 'rollback', writes: [['assigned', metaFor('119980')]] },
  { name: 'rollback with an empty last-known-good: assigned := local', store: { lkg: '' }, req: 'rollback', writes: [['assigned', '']] },
  { name: 'rollback with no last-known-good file: assigned := local', store: { lkg: null }, req: 'rollback', writes: [['assigned', '']] },
  { name: 'rollback when assigned already is last-known-good: nothing to do', store: { assigned: '119980' }, req: 'rollback', writes: [] },
  {
    name: 'a UID no meta file names takes --configmap (key defaults to kubelet)',
    store: { extra: { [`store/checkpoints/${UID2}/1e3/kubelet`]: GOOD_PAYLOAD } },
    req: { which: 'assigned', to: `${UID2}/1e3`, configmap: 'other-ns/other-name' },
    writes: [['assigned', `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: other-name\n    namespace: other-ns\n    resourceVersion: "1e3"\n    uid: ${UID2}\n`]],
  },
  {
    name: '--configmap with a key',
    store: { extra: { [`store/checkpoints/${UID2}/7/cfg`]: GOOD_PAYLOAD } },
    req: { which: 'assigned', to: `${UID2}/7`, configmap: 'ns/cm:cfg' },
    writes: [['assigned', metaFor('7', { uid: UID2, namespace: 'ns', name: 'cm', key: 'cfg' })]],
  },
  {
    name: 'a UID no meta file names, without --configmap: exit 2 naming the flag',
    store: { extra: { [`store/checkpoints/${UID2}/7/kubelet`]: GOOD_PAYLOAD } },
    req: { which: 'assigned', to: `${UID2}/7` },
    throws: { code: 'NEEDS_CONFIGMAP', exitCode: 2, message: /no meta file names UID 5808539f/ },
  },
  { name: '--configmap contradicting the meta files', req: { which: 'assigned', to: `${UID}/119980`, configmap: 'x/y' }, throws: { code: 'BAD_CONFIGMAP', exitCode: 2, message: /UID 946d.* is ConfigMap kube-system\/node-config/ } },
  { name: 'bad --configmap', req: { which: 'assigned', to: `${UID}/119980`, configmap: 'nonamespace' }, throws: { code: 'BAD_CONFIGMAP', exitCode: 2 } },
  { name: 'a file path is not a target', req: { which: 'all', to: './kubelet.yaml' }, throws: { code: 'UNKNOWN_REF', exitCode: 2 } },
  { name: 'meta/assigned is not a target', req: { which: 'all', to: 'meta/assigned' }, throws: { code: 'UNKNOWN_REF', exitCode: 2 } },
  { name: 'an unknown UID', req: { which: 'all', to: 'ffff0000/1' }, throws: { code: 'UNKNOWN_REF', exitCode: 2 } },
  { name: 'an unsafe ref', req: { which: 'all', to: `${UID}/..` }, throws: { code: 'UNSAFE_REF', exitCode: 2 } },
  { name: 'a ref that escapes', req: { which: 'all', to: '../../etc' }, throws: { code: 'UNKNOWN_REF', exitCode: 2 } },
  {
    name: 'a target that fails verify is refused',
    store: { payloads: { '119980': 'kind: [' } },
    req: { which: 'assigned', to: `${UID}/119980` },
    writes: [['assigned', metaFor('119980')]],
    refusal: /the target 946d.*\/119980 fails verify: PAYLOAD_DECODE/,
  },
  {
    name: '--force writes a failing target with a warning',
    store: { payloads: { '119980': 'kind: [' } },
    req: { which: 'assigned', to: `${UID}/119980`, force: true },
    writes: [['assigned', metaFor('119980')]],
    warning: /fails verify; writing anyway \(--force\)/,
  },
  {
    name: 'a target key the checkpoint lacks is refused',
    store: { extra: { [`store/checkpoints/${UID2}/7/kubelet`]: GOOD_PAYLOAD } },
    req: { which: 'assigned', to: `${UID2}/7`, configmap: 'ns/cm:nokey' },
    writes: [['assigned', metaFor('7', { uid: UID2, namespace: 'ns', name: 'cm', key: 'nokey' })]],
    refusal: /has no file "nokey"/,
  },
  { name: 'rollback to a missing checkpoint is refused', store: { lkg: '100' }, req: 'rollback', writes: [['assigned', metaFor('100')]], refusal: /checkpoint 946d.*\/100 is not on disk/ },
  { name: 'rollback from an undecodable last-known-good', store: { lkg: 'raw:garbage: [' }, req: 'rollback', throws: { code: 'TARGET_UNDECODABLE', exitCode: 4 } },
  // What a meta file names is the store's content, not the operator's input: a refusal (4), as for an undecodable one.
  { name: '--to lkg naming an unsafe uid', store: { lkg: `raw:${metaFor('1', { uid: '..' })}` }, req: { which: 'assigned', to: 'lkg' }, throws: { code: 'UNSAFE_REF', exitCode: 4, message: /^--to lkg: meta\/last-known-good names uid "\.\."/ } },
  { name: 'rollback from a last-known-good naming an unsafe key', store: { lkg: `raw:${metaFor('1', { key: '../../etc/passwd' })}` }, req: 'rollback', throws: { code: 'UNSAFE_REF', exitCode: 4, message: /^rollback: meta\/last-known-good names kubeletConfigKey "\.\.\/\.\.\/etc\/passwd", which contains "\/"$/ } },
  { name: 'rollback from a last-known-good with an empty uid', store: { lkg: `raw:${metaFor('1', { uid: '' })}` }, req: 'rollback', throws: { code: 'META_INCOMPLETE', exitCode: 4, message: /^rollback: meta\/last-known-good has an empty uid, so it names no checkpoint to copy$/ } },
  { name: '--to assigned with an empty resourceVersion', store: { assigned: `raw:${metaFor('')}` }, req: { which: 'last-known-good', to: 'assigned' }, throws: { code: 'META_INCOMPLETE', exitCode: 4, message: /empty resourceVersion/ } },
  ...['..', '.', 'k'.repeat(256)].map((key) => ({ name: `--configmap with the key ${key.slice(0, 8)}`, req: { which: 'assigned' as const, to: `${UID2}/7`, configmap: `ns/cm:${key}` }, store: { extra: { [`store/checkpoints/${UID2}/7/kubelet`]: GOOD_PAYLOAD } }, throws: { code: 'BAD_CONFIGMAP', exitCode: 2, message: /bad --configmap .*: the key .* names no file the kubelet could load/ } })),
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const dcd = makeStore(t.testdir({}), c.store);
    const before = treeHash(dcd);
    const ctx = ctxOf(dcd);
    const run = () => (c.req === 'rollback' ? planRollback(ctx, NO) : planReset(ctx, { which: 'all', ...NO, ...c.req } as ResetRequest));
    if (c.throws) {
      await t.rejects(run(), c.throws);
      return;
    }
    const plan = await run();
    t.same(plan.writes.map((w) => [w.name, w.after?.toString('utf8')]), c.writes);
    if (c.refusal) t.match(plan.refusals.map((r) => r.message).join('\n'), c.refusal);
    else t.same(plan.refusals, []);
    if (c.warning) t.match(plan.warnings.join('\n'), c.warning);
    // every write is the kubelet encoder's own bytes (or empty for local)
    for (const w of plan.writes) {
      const text = w.after!.toString('utf8');
      if (text) t.ok(w.after!.equals(encodeMeta(parseMeta(text))), 'the bytes are the encoder\'s own');
    }
    t.same(treeHash(dcd), before, 'planning changes nothing on disk');
  });
}

function parseMeta(text: string) {
  const get = (k: string) => new RegExp(`^    ${k}: (.*)$`, 'm').exec(text)![1]!.replace(/^"(.*)"$/, '$1');
  return { namespace: get('namespace'), name: get('name'), uid: get('uid'), resourceVersion: get('resourceVersion'), kubeletConfigKey: get('kubeletConfigKey') };
}

t.test('resetting only last-known-good while assigned is past its trial warns that the kubelet promotes it back', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const old = new Date(Date.now() - 20 * 60 * 1000);
  fs.utimesSync(path.join(dcd, 'store/meta/assigned'), old, old);
  const plan = await planReset(ctxOf(dcd), { which: 'last-known-good', ...NO });
  t.match(plan.warnings.join('\n'), /meta\/assigned \(kube-system\/node-config 946d.*\/120200 \(key kubelet\)\) is past its 10-minute trial: a running kubelet promotes it back/);
  const inTrial = makeStore(t.testdir({}));
  t.same((await planReset(ctxOf(inTrial), { which: 'last-known-good', ...NO })).warnings, []);
});

t.test('a symlinked meta file is refused even for planning (never written through)', async (t) => {
  const dcd = makeStore(t.testdir({}), { assigned: null });
  fs.symlinkSync('last-known-good', path.join(dcd, 'store/meta/assigned'));
  await t.rejects(planReset(ctxOf(dcd), { which: 'all', ...NO }), { code: 'META_SYMLINK', exitCode: 4 });
});

t.test('undo: restores exactly, refuses when the meta files changed since, unless --force', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const orig = treeHash(path.join(dcd, 'store'));
  const ctx = ctxOf(dcd);
  const r = await applyMetaPlan(ctx, await planReset(ctx, { which: 'all', ...NO }));
  t.match(r.backup, /\.kubelet-ckpt\/backups\/\d{8}T\d{6}\.\d{3}Z$/);
  const u = await planUndo(ctxOf(dcd), { id: null, ...NO });
  t.same(u.writes.map((w) => [w.name, w.after?.toString()]), [['last-known-good', metaFor('119980')], ['assigned', metaFor('120200')]]);
  t.same(u.refusals, []);
  // the kubelet (or anyone) writes assigned after the reset
  fs.writeFileSync(path.join(dcd, 'store/meta/assigned'), metaFor('119980'));
  const refused = await planUndo(ctxOf(dcd), { id: null, ...NO });
  t.match(refused.refusals[0]?.message, /the meta files changed since backup .* \(test\): meta\/assigned \(now kube-system\/node-config 946d.*\/119980/);
  t.equal(refused.refusals[0]?.exitCode, 4);
  const forced = await planUndo(ctxOf(dcd), { id: null, force: true, restartKubelet: false });
  t.same(forced.refusals, []);
  await applyMetaPlan(ctxOf(dcd), forced);
  const now = treeHash(path.join(dcd, 'store'));
  for (const k of Object.keys(orig)) if (!k.startsWith('meta')) t.equal(now[k], orig[k], k);
  t.equal(fs.readFileSync(path.join(dcd, 'store/meta/assigned'), 'utf8'), metaFor('120200'));
  t.equal(fs.readFileSync(path.join(dcd, 'store/meta/last-known-good'), 'utf8'), metaFor('119980'));
});

t.test('found by review: a backup manifest asking for setuid, setgid or sticky bits gets the permission bits only', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const ctx = ctxOf(dcd);
  const r = await applyMetaPlan(ctx, await planReset(ctx, { which: 'all', ...NO }));
  const manifest = path.join(r.backup!, 'manifest.json');
  const m = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  for (const f of m.files) f.mode = 0o107640;
  fs.writeFileSync(manifest, JSON.stringify(m));
  await applyMetaPlan(ctxOf(dcd), await planUndo(ctxOf(dcd), { id: null, ...NO }));
  for (const n of ['assigned', 'last-known-good']) t.equal(fs.statSync(path.join(dcd, 'store/meta', n)).mode & 0o7777, 0o640, n);
});

t.test('undo of a file that did not exist removes it again', async (t) => {
  const dcd = makeStore(t.testdir({}), { lkg: null });
  const ctx = ctxOf(dcd);
  await applyMetaPlan(ctx, await planReset(ctx, { which: 'all', ...NO }));
  t.equal(fs.readFileSync(path.join(dcd, 'store/meta/last-known-good'), 'utf8'), '');
  const u = await planUndo(ctxOf(dcd), { id: null, ...NO });
  t.same(u.writes.map((w) => [w.name, w.after]), [['last-known-good', null], ['assigned', Buffer.from(metaFor('120200'))]]);
  await applyMetaPlan(ctxOf(dcd), u);
  t.notOk(fs.existsSync(path.join(dcd, 'store/meta/last-known-good')));
});

t.test('--to UID/RV: names from the journal come after the meta files and before --configmap', async (t) => {
  const dcd = makeStore(t.testdir({}), { extra: { [`store/checkpoints/${UID2}/9/kubelet`]: GOOD_PAYLOAD } });
  let reads = 0;
  const journal = new Map([[UID2, { namespace: 'team-j', name: 'from-journal', key: null }], [UID, { namespace: 'x', name: 'y', key: null }]]);
  const ctx = (): RecoveryContext => ({ ...ctxOf(dcd), journalNames: async () => (reads++, journal) });
  const p = await planReset(ctx(), { which: 'assigned', to: `${UID2}/9`, ...NO });
  t.equal(p.writes[0]?.after?.toString(), metaFor('9', { uid: UID2, namespace: 'team-j', name: 'from-journal' }), 'key defaults to kubelet');
  const m = await planReset(ctx(), { which: 'assigned', to: `${UID}/119980`, ...NO });
  t.equal(m.writes[0]?.after?.toString(), LKG_TEXT, 'a meta file wins over the journal');
  await t.rejects(planReset(ctx(), { which: 'assigned', to: `${UID2}/9`, configmap: 'a/b', ...NO }), { code: 'BAD_CONFIGMAP', message: /contradicts the journal/ });
  await planReset(ctx(), { which: 'all', ...NO });
  t.equal(reads, 3, 'not read for local');
});
