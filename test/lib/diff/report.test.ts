import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fsPayloadReader, takeSnapshot } from '../../../lib/store/snapshot.js';
import { diffExitCode, diffHistory, diffJson, historyFailure, diffNotes, diffRefs, isBareUid, runDiff, type PairReport } from '../../../lib/diff/report.js';
import type { DiffSource } from '../../../lib/diff/sides.js';
import { metaYaml, writeTree } from '../../helpers.js';

const A = 'aaaa1111-0000-4000-8000-00000000000a';
const B = 'bbbb1111-0000-4000-8000-00000000000b';
const HEAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n';
const V1 = `${HEAD}maxPods: 110\nevictionHard:\n  memory.available: 100Mi\nclusterDNS:\n- 10.0.0.1\n`;
const V2_JSON = '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":110,"evictionHard":{"memory.available":"100Mi"},"clusterDNS":["10.0.0.1"]}\n';
const V3 = `${HEAD}maxPods: 150\nevictionHard:\n  memory.available: 200Mi\nclusterDNS:\n- 10.0.0.1\n- 10.0.0.2\nsystemReserved:\n  cpu: 500m\n`;

function source(t: Tap.Test, extra: Record<string, string | Buffer | null> = {}): DiffSource & { dir: string } {
  const dir = t.testdir();
  writeTree(dir, {
    'store/meta/assigned': metaYaml({ uid: A, rv: '30' }),
    'store/meta/last-known-good': metaYaml({ uid: A, rv: '20' }),
    [`store/checkpoints/${A}/10/kubelet`]: V1,
    [`store/checkpoints/${A}/20/kubelet`]: V2_JSON,
    [`store/checkpoints/${A}/30/kubelet`]: V3,
    [`store/checkpoints/${B}/1/kubelet`]: `${HEAD}cgroupDriver: systemd\n`,
    'local.yaml': `${HEAD}cgroupDriver: cgroupfs\n`,
    ...extra,
  });
  const snap = takeSnapshot(path.join(dir, 'store'));
  return { dir, snap, reader: fsPayloadReader(snap), localConfig: path.join(dir, 'local.yaml'), cwd: dir };
}

const changes = (r: PairReport) => r.changes.map(({ path, op, from, to }) => ({ path, op, from, to }));

t.test('two refs: JSON shape of DESIGN.md', async (t) => {
  const src = source(t);
  const r = diffRefs(src, 'lkg', 'assigned');
  t.same(diffJson(r), {
    from: { ref: 'lkg', uid: A, resourceVersion: '20', path: `checkpoints/${A}/20/kubelet` },
    to: { ref: 'assigned', uid: A, resourceVersion: '30', path: `checkpoints/${A}/30/kubelet` },
    changes: [
      { path: 'clusterDNS', op: 'changed', from: ['10.0.0.1'], to: ['10.0.0.1', '10.0.0.2'] },
      { path: 'evictionHard["memory.available"]', op: 'changed', from: '100Mi', to: '200Mi' },
      { path: 'maxPods', op: 'changed', from: 110, to: 150 },
      { path: 'systemReserved', op: 'added', from: null, to: { cpu: '500m' } },
    ],
    unified: r.unified,
  });
  t.match(r.unified, /^--- lkg \(aaaa1111-0000-4000-8000-00000000000a\/20\)\n\+\+\+ assigned \(aaaa1111-0000-4000-8000-00000000000a\/30\)\n@@ /);
  t.equal(diffExitCode(r), 1);
});

t.test('one ref goes to assigned; JSON vs YAML of one config is equal', async (t) => {
  const src = source(t);
  const r = runDiff(src, [`${A}/10`]) as PairReport;
  t.equal(r.to.ref, 'assigned');
  const same = diffRefs(src, `${A}/10`, 'aaaa1111/20');
  t.same(same.changes, []);
  t.ok(same.semantic && same.equal && !same.identicalBytes);
  t.equal(same.to.label, 'aaaa1111/20 (aaaa1111-0000-4000-8000-00000000000a/20)', 'a prefix is labelled with what it resolved to');
  t.equal(diffExitCode(same), 0);
  t.not(same.unified, '', 'the text diff still shows the formatting');
});

t.test('files and local: uid/resourceVersion null, absolute path', async (t) => {
  const src = source(t);
  const r = diffRefs(src, 'local', './local.yaml');
  t.same(diffJson(r), {
    from: { ref: 'local', uid: null, resourceVersion: null, path: path.join(src.dir, 'local.yaml') },
    to: { ref: './local.yaml', uid: null, resourceVersion: null, path: path.join(src.dir, 'local.yaml') },
    changes: [],
    unified: '',
  });
  t.ok(r.sameSource);
  t.match(r.notes, [/both refs name the same file/]);
  const s2 = diffRefs(src, `${B}/1`, 'local');
  t.same(changes(s2), [{ path: 'cgroupDriver', op: 'changed', from: 'systemd', to: 'cgroupfs' }]);
  t.equal(s2.to.label, `local (${path.join(src.dir, 'local.yaml')})`);
});

t.test('--defaults: omitted equals set to the default', async (t) => {
  const src = source(t, {
    'a.yaml': `${HEAD}cgroupDriver: cgroupfs\nmaxPods: 110\n`,
    'b.yaml': `${HEAD}syncFrequency: 60s\n`,
    'c.yaml': `${HEAD}maxPods: 200\n`,
  });
  t.same(changes(diffRefs(src, './a.yaml', './b.yaml')), [
    { path: 'cgroupDriver', op: 'removed', from: 'cgroupfs', to: null },
    { path: 'maxPods', op: 'removed', from: 110, to: null },
    { path: 'syncFrequency', op: 'added', from: null, to: '60s' },
  ]);
  const d = diffRefs(src, './a.yaml', './b.yaml', { defaults: true });
  t.same(d.changes, [], 'cgroupfs, 110 and 1m are the defaults');
  t.ok(d.equal);
  const c = diffRefs(src, './a.yaml', './c.yaml', { defaults: true });
  t.same(c.changes.map((x) => [x.path, x.from, x.to, x.defaulted]), [['maxPods', 110, 200, { from: false, to: false }]]);
  const e = diffRefs(src, './b.yaml', './c.yaml', { defaults: true });
  t.same(e.changes.map((x) => [x.path, x.from, x.to, x.defaulted]), [['maxPods', 110, 200, { from: true, to: false }]], 'the default is marked');
});

t.test('undecodable and binary payloads still get a text diff', async (t) => {
  const src = source(t, { 'bad.yaml': `${HEAD}  oops: [\n`, 'bin': Buffer.from([0, 1, 2]), 'bin2': Buffer.from([0, 1, 3]) });
  const r = diffRefs(src, './bad.yaml', 'assigned');
  t.notOk(r.semantic);
  t.same(r.changes, []);
  t.equal(diffExitCode(r), 1);
  t.match(r.notes, [/semantic comparison impossible: \.\/bad\.yaml does not decode: yaml: line 3/]);
  t.match(r.unified, /^--- \.\/bad\.yaml\n/);
  const same = diffRefs(src, './bad.yaml', './bad.yaml');
  t.equal(diffExitCode(same), 0, 'byte-identical undecodable files are equal');
  const b = diffRefs(src, './bin', './bin2');
  t.equal(b.unified, 'Binary files ./bin and ./bin2 differ\n');
  t.equal(diffExitCode(b), 1);
  t.same(diffNotes(b), ['semantic comparison impossible: ./bin does not decode: binary content (not UTF-8 text)', 'semantic comparison impossible: ./bin2 does not decode: binary content (not UTF-8 text)']);
});

t.test('bad refs: exit 2 with the candidates, unreadable input exit 3', async (t) => {
  const src = source(t, { 'huge.yaml': Buffer.alloc(1024 * 1024 + 1, 0x61) });
  t.throws(() => runDiff(src, ['zzzz/1', 'lkg']), { exitCode: 2, code: 'UNKNOWN_REF', hint: /refs in this store: assigned, last-known-good, local, aaaa1111-0000-4000-8000-00000000000a\/10, .*bbbb1111-0000-4000-8000-00000000000b\/1/ });
  t.throws(() => runDiff(src, ['zzzz']), { exitCode: 2, code: 'UNKNOWN_REF', hint: /refs in this store/ }, 'history of an unknown UID');
  t.throws(() => runDiff(src, ['aa']), { exitCode: 2, message: /"aa" is too short to name a UID: a UID prefix needs at least 4 characters/, hint: /refs in this store/ });
  t.throws(() => runDiff(src, [A, 'lkg']), { exitCode: 2, code: 'AMBIGUOUS_REF', message: /10, 20, 30/ });
  t.throws(() => runDiff(src, [`${A}/..`]), { exitCode: 2, code: 'UNSAFE_REF' });
  t.throws(() => runDiff(src, ['a/b/c']), { exitCode: 2 });
  t.throws(() => runDiff(src, ['./missing.yaml']), { exitCode: 3 });
  t.throws(() => runDiff(src, ['./huge.yaml']), { exitCode: 3, code: 'TOO_LARGE', message: /larger than 1 MiB/ });
  t.throws(() => runDiff(src, []), { exitCode: 2 });
  t.throws(() => runDiff(src, ['lkg', 'assigned'], { labels: ['a', 'b', 'c'] }), { exitCode: 2 });
});

t.test('labels', async (t) => {
  const src = source(t);
  const r = diffRefs(src, 'lkg', 'assigned', { labels: ['before', 'after\u001b[2J'] });
  t.equal(r.from.label, 'before');
  t.equal(r.to.label, 'after\\x1b[2J', 'control characters made visible');
  t.match(r.unified, /^--- before\n\+\+\+ after\\x1b\[2J\n/);
});

t.test('history: every resourceVersion against the one before', async (t) => {
  const src = source(t);
  const h = diffHistory(src, 'aaaa');
  t.equal(h.uid, A);
  t.equal(h.configMap, 'kube-system/cfg');
  t.same(h.versions, [
    { resourceVersion: '10', assigned: false, lastKnownGood: false },
    { resourceVersion: '20', assigned: false, lastKnownGood: true },
    { resourceVersion: '30', assigned: true, lastKnownGood: false },
  ]);
  const j = diffJson(h) as { uid: string; steps: Array<{ from: { ref: string }; to: { ref: string }; changes: unknown[] }> };
  t.same(j.steps.map((s) => [s.from.ref, s.to.ref, s.changes.length]), [[`${A}/10`, `${A}/20`, 0], [`${A}/20`, `${A}/30`, 4]]);
  t.same(Object.keys(j), ['uid', 'steps']);
  t.same(Object.keys(j.steps[0]!), ['from', 'to', 'changes']);
  t.equal(diffExitCode(h), 1);
  t.ok(isBareUid('aaaa') && isBareUid(A) && !isBareUid('lkg') && !isBareUid(`${A}/1`) && !isBareUid('local'));
  const one = diffHistory(src, B);
  t.same(one.steps, []);
  t.equal(diffExitCode(one), 0);
});

t.test('history: an unreadable resourceVersion is reported, the walk goes on', async (t) => {
  const src = source(t, {
    [`store/checkpoints/${A}/40/kubelet`]: Buffer.alloc(1024 * 1024 + 10, 0x61),
    [`store/checkpoints/${A}/50/kubelet`]: V3,
  });
  const h = diffHistory(src, A);
  t.same(h.steps.map((s) => [s.from.resourceVersion, s.to.resourceVersion, s.semantic]), [['10', '20', true], ['20', '30', true], ['30', '40', false], ['40', '50', false]]);
  t.match(h.steps[2]!.notes, [/40 could not be read: .*larger than 1 MiB/]);
  t.ok(h.unreadable);
  t.equal(diffExitCode(h), 3);
  t.match(historyFailure(h), { exitCode: 3, code: 'TOO_LARGE', message: new RegExp(`^${A}/40 could not be read: checkpoints/${A}/40/kubelet is larger than 1 MiB`) });
  t.equal(historyFailure(diffHistory(src, B)), null, 'every version read: no error');
});

t.test('history: several unreadable resourceVersions are all named in one error', async (t) => {
  const src = source(t, {
    [`store/checkpoints/${A}/40/kubelet`]: Buffer.alloc(1024 * 1024 + 10, 0x61),
    [`store/checkpoints/${A}/50/kubelet`]: Buffer.alloc(1024 * 1024 + 10, 0x61),
  });
  const e = historyFailure(diffHistory(src, A))!;
  t.equal(e.exitCode, 3);
  t.equal(e.code, 'TOO_LARGE');
  t.match(e.message, new RegExp(`^2 of the 5 resourceVersions of ${A} could not be read: ${A}/40 could not be read: .*; ${A}/50 could not be read: `));
});

t.test('history: text diffs kept only where needed, or on request', async (t) => {
  const src = source(t, { [`store/checkpoints/${A}/40/kubelet`]: 'kind: [\n' });
  const h = diffHistory(src, A);
  t.same(h.steps.map((s) => s.unified === null), [true, true, false]);
  t.same(diffHistory(src, A, { stepText: true }).steps.map((s) => s.unified === null), [false, false, false]);
});

t.test('a checkpoint with several files needs --key', async (t) => {
  const src = source(t, { [`store/checkpoints/${B}/2/x`]: V1, [`store/checkpoints/${B}/2/y`]: V3 });
  t.throws(() => diffRefs(src, `${B}/2`, 'assigned'), { exitCode: 2, code: 'KEY_REQUIRED' });
  const r = diffRefs(src, `${B}/2`, `${B}/2`, { keys: ['x', 'y'] });
  t.same([r.from.path, r.to.path], [`checkpoints/${B}/2/x`, `checkpoints/${B}/2/y`], 'two keys: one per side');
  t.notOk(r.sameSource);
  t.equal(changes(r).length, 4);
  t.throws(() => diffRefs(src, `${B}/2`, `${A}/30`, { keys: ['y'] }), { exitCode: 2, code: 'KEY_MISSING' }, 'one key applies to both sides');
  t.equal(diffRefs(src, `${B}/2`, `${A}/30`, { keys: ['y', 'kubelet'] }).from.path, `checkpoints/${B}/2/y`);
  t.throws(() => diffHistory(src, B, { keys: ['x', 'y'] }), { exitCode: 2 });
});

t.test('nothing is written', async (t) => {
  const src = source(t);
  const before = fs.readdirSync(src.dir, { recursive: true }).sort();
  diffRefs(src, 'lkg', 'assigned');
  diffHistory(src, A);
  t.same(fs.readdirSync(src.dir, { recursive: true }).sort(), before);
});
