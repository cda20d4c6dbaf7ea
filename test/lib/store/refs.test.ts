import t from 'tap';
import path from 'node:path';
import { takeSnapshot } from '../../../lib/store/snapshot.js';
import { resolveRef, resolveUid } from '../../../lib/store/refs.js';
import { orderRVs } from '../../../lib/store/order.js';
import { GOOD_PAYLOAD, metaYaml, writeTree } from '../../helpers.js';

const A = 'aaaa1111-0000-4000-8000-00000000000a';
const A2 = 'aaaa2222-0000-4000-8000-00000000000a';
const B = 'bbbb1111-0000-4000-8000-00000000000b';

function store(t: Tap.Test) {
  const dir = t.testdir();
  writeTree(dir, {
    'store/meta/assigned': metaYaml({ uid: A, rv: '10', key: 'config' }),
    'store/meta/last-known-good': '',
    [`store/checkpoints/${A}/9/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${A}/10/config`]: GOOD_PAYLOAD,
    [`store/checkpoints/${A}/10/other`]: 'x',
    [`store/checkpoints/${A}/100/config`]: GOOD_PAYLOAD,
    [`store/checkpoints/${A2}/1/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${B}/5/a`]: 'a',
    [`store/checkpoints/${B}/5/b`]: 'b',
  });
  return takeSnapshot(dir);
}

t.test('refs resolve in DESIGN order', async (t) => {
  const s = store(t);
  t.match(resolveRef(s, 'assigned'), { kind: 'checkpoint', via: 'assigned', key: 'config', checkpoint: { uid: A, rv: '10' } });
  t.match(resolveRef(s, 'lkg'), { kind: 'local', via: 'last-known-good' });
  t.match(resolveRef(s, 'last-known-good', { localConfig: '/etc/k.yaml' }), { kind: 'local', path: '/etc/k.yaml' });
  t.match(resolveRef(s, 'meta/assigned'), { kind: 'meta', name: 'assigned' });
  t.match(resolveRef(s, './x.yaml', { cwd: '/tmp' }), { kind: 'file', path: '/tmp/x.yaml' });
  t.match(resolveRef(s, '../x.yaml', { cwd: '/tmp/a' }), { kind: 'file', path: path.resolve('/tmp/x.yaml') });
  t.match(resolveRef(s, `${A}/9`), { kind: 'checkpoint', key: 'kubelet', checkpoint: { rv: '9' }, source: { resourceVersion: '10', kubeletConfigKey: 'config' } }, 'no meta file names it: its kubelet file (DESIGN), not the key of the meta file naming another RV; the ConfigMap is still that one');
  t.match(resolveRef(s, `${A2}`), { kind: 'checkpoint', key: 'kubelet', checkpoint: { uid: A2, rv: '1' } });
  t.match(resolveRef(s, 'aaaa2'), { kind: 'checkpoint', checkpoint: { uid: A2 } }, 'unique prefix');
  t.match(resolveRef(s, `${B}/5`), { kind: 'checkpoint', key: null }, 'two files, no kubelet: --key needed');
  t.match(resolveRef(s, `${B}/5`, { key: 'b' }), { key: 'b' });
});

t.test('bad refs: exit 2 with the candidates', async (t) => {
  const s = store(t);
  t.throws(() => resolveRef(s, 'aaaa'), { exitCode: 2, code: 'AMBIGUOUS_REF', message: /aaaa1111.*aaaa2222/ });
  t.throws(() => resolveRef(s, A), { exitCode: 2, code: 'AMBIGUOUS_REF', message: /3 resourceVersions: 9, 10, 100/ });
  t.throws(() => resolveRef(s, 'aaa'), { exitCode: 2, code: 'UNKNOWN_REF' }, 'prefix shorter than 4');
  t.throws(() => resolveRef(s, 'zzzz'), { exitCode: 2, code: 'UNKNOWN_REF' });
  t.throws(() => resolveRef(s, `${A}/11`), { exitCode: 2, message: /has no resourceVersion "11" \(it has 9, 10, 100\)/ });
  t.match(resolveRef(s, '../..'), { kind: 'file' }, 'a path is a file ref, never a store path');
  t.throws(() => resolveRef(s, `${A}/..`), { exitCode: 2, code: 'UNSAFE_REF' });
  t.throws(() => resolveRef(s, 'a/b/c'), { exitCode: 2 });
  t.throws(() => resolveRef(s, ''), { exitCode: 2 });
});

t.test('resourceVersion order: numeric when all numeric, else mtime then name', async (t) => {
  const s = store(t);
  t.same(resolveUid(s, A).checkpoints.map((c) => c.rv), ['9', '10', '100']);
  const mk = (rv: string, mtimeMs: number) => ({ uid: 'u', rv, rel: '', entry: { mtimeMs } }) as never;
  t.same(orderRVs([mk('b', 2), mk('a', 2), mk('c', 1)]).map((c: { rv: string }) => c.rv), ['c', 'a', 'b']);
  t.same(orderRVs([mk('99999999999999999999', 0), mk('100000000000000000000', 0)]).map((c: { rv: string }) => c.rv), ['99999999999999999999', '100000000000000000000'], 'beyond 2^53');
});

t.test('a meta file naming a missing checkpoint', async (t) => {
  const dir = t.testdir();
  writeTree(dir, { 'store/meta/assigned': metaYaml({ uid: A, rv: '7' }), 'store/checkpoints': null });
  t.throws(() => resolveRef(takeSnapshot(dir), 'assigned'), { exitCode: 3, code: 'CHECKPOINT_MISSING' });
});

t.test('takeSnapshot tells the checkpoints listed so far after each UID directory', async (t) => {
  const dir = store(t).dynamicConfigDir;
  const seen: number[] = [];
  const snap = takeSnapshot(dir, { onCheckpoints: (n) => seen.push(n) });
  t.equal(seen.length, snap.uids.length, 'once per UID directory');
  t.same(seen, snap.uids.map((_, i) => snap.uids.slice(0, i + 1).reduce((a, u) => a + u.checkpoints.length, 0)), 'running totals');
});
