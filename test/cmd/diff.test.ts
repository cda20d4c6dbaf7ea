// `kubelet-ckpt diff`, run as a user would: args → exact stdout, stderr, exit code.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, json, metaYaml, repoRoot, runCli, writeTree } from '../helpers.js';

const DEMO_ROOT = path.join(repoRoot, 'fixtures/demo');
const UID = '5808539f-48e3-4e47-8ce6-c261c48fa1d9';
const CP = (rv: string) => `checkpoints/${UID}/${rv}/kubelet`;
const demo = (...args: string[]) => runCli(['--root', DEMO_ROOT, 'diff', ...args]);

const DEMO_LKG_TEXT = `--- lkg (${UID}/41877)
+++ assigned (${UID}/42315)
5 changes (1 added, 4 changed):
  + kubeReserved: {cpu: "250m", memory: "512Mi"}
  ~ maxPods: 110 -> 150
  ~ serializeImagePulls: true -> false
  ~ systemReserved.cpu: "500m" -> "1"
  ~ systemReserved.memory: "512Mi" -> "1Gi"
`;

const DEMO_LKG_UNIFIED = `--- lkg (${UID}/41877)
+++ assigned (${UID}/42315)
@@ -47,7 +47,7 @@
 cpuManagerReconcilePeriod: "10s"
 runtimeRequestTimeout: "2m0s"
 hairpinMode: promiscuous-bridge
-maxPods: 110
+maxPods: 150
 podPidsLimit: -1
 resolvConf: /run/systemd/resolve/resolv.conf
 cpuCFSQuota: true
@@ -56,7 +56,7 @@
 contentType: application/vnd.kubernetes.protobuf
 kubeAPIQPS: 5
 kubeAPIBurst: 10
-serializeImagePulls: true
+serializeImagePulls: false
 evictionHard:
   "memory.available": "200Mi"
   "nodefs.available": "10%"
@@ -74,5 +74,8 @@
 enforceNodeAllocatable:
 - pods
 systemReserved:
-  cpu: "500m"
+  cpu: "1"
+  memory: "1Gi"
+kubeReserved:
+  cpu: "250m"
   memory: "512Mi"
`;

t.test('demo store: diff lkg reads like an incident note', async (t) => {
  const r = demo('lkg');
  t.equal(r.code, 1, r.stderr);
  t.equal(r.stdout, DEMO_LKG_TEXT);
  t.equal(r.stderr, '');
});

t.test('demo store: diff lkg -o json is the DESIGN.md shape, exactly', async (t) => {
  const r = demo('lkg', '-o', 'json');
  t.equal(r.code, 1, r.stderr);
  t.equal(r.stderr, '');
  t.strictSame(json(r), {
    apiVersion: 'kubelet-ckpt/v1', kind: 'DiffReport',
    from: { ref: 'lkg', uid: UID, resourceVersion: '41877', path: CP('41877') },
    to: { ref: 'assigned', uid: UID, resourceVersion: '42315', path: CP('42315') },
    changes: [
      { path: 'kubeReserved', op: 'added', from: null, to: { cpu: '250m', memory: '512Mi' } },
      { path: 'maxPods', op: 'changed', from: 110, to: 150 },
      { path: 'serializeImagePulls', op: 'changed', from: true, to: false },
      { path: 'systemReserved.cpu', op: 'changed', from: '500m', to: '1' },
      { path: 'systemReserved.memory', op: 'changed', from: '512Mi', to: '1Gi' },
    ],
    unified: DEMO_LKG_UNIFIED,
  });
});

t.test('demo store: -u prints the unified diff; -U sets its context', async (t) => {
  const r = demo('lkg', '-u');
  t.equal(r.code, 1);
  t.equal(r.stdout, DEMO_LKG_UNIFIED);
  const u0 = demo('lkg', 'assigned', '-U', '0');
  t.equal(u0.code, 1);
  t.equal(u0.stdout, `--- lkg (${UID}/41877)\n+++ assigned (${UID}/42315)\n@@ -50 +50 @@\n-maxPods: 110\n+maxPods: 150\n@@ -59 +59 @@\n-serializeImagePulls: true\n+serializeImagePulls: false\n@@ -77 +77,4 @@\n-  cpu: "500m"\n+  cpu: "1"\n+  memory: "1Gi"\n+kubeReserved:\n+  cpu: "250m"\n`);
  const j = json(demo('lkg', '-U', '0', '-o', 'json'));
  t.equal(j.unified, u0.stdout, '-o json carries the same text');
});

t.test('demo store: a JSON checkpoint against a YAML one compares by value', async (t) => {
  const r = demo('5808/41230', '5808/41877');
  t.equal(r.code, 1);
  t.equal(r.stdout, `--- 5808/41230 (${UID}/41230)\n+++ 5808/41877 (${UID}/41877)\n2 changes (1 added, 1 changed):\n  ~ evictionHard["memory.available"]: "100Mi" -> "200Mi"\n  + systemReserved: {cpu: "500m", memory: "512Mi"}\n`);
});

t.test('demo store: the history of one ConfigMap', async (t) => {
  const r = demo('5808');
  t.equal(r.code, 1, r.stderr);
  t.equal(r.stdout, [
    `history of ${UID} (kube-system/node-config-worker): 3 resourceVersions`,
    '',
    '41230 -> 41877 [last-known-good]: 2 changes (1 added, 1 changed)',
    '  ~ evictionHard["memory.available"]: "100Mi" -> "200Mi"',
    '  + systemReserved: {cpu: "500m", memory: "512Mi"}',
    '',
    '41877 [last-known-good] -> 42315 [assigned]: 5 changes (1 added, 4 changed)',
    '  + kubeReserved: {cpu: "250m", memory: "512Mi"}',
    '  ~ maxPods: 110 -> 150',
    '  ~ serializeImagePulls: true -> false',
    '  ~ systemReserved.cpu: "500m" -> "1"',
    '  ~ systemReserved.memory: "512Mi" -> "1Gi"',
    '',
  ].join('\n'));
  const j = json(demo(UID, '-o', 'json'));
  const side = (rv: string) => ({ ref: `${UID}/${rv}`, uid: UID, resourceVersion: rv, path: CP(rv) });
  t.strictSame(j, {
    apiVersion: 'kubelet-ckpt/v1', kind: 'DiffHistory',
    uid: UID,
    steps: [
      {
        from: side('41230'),
        to: side('41877'),
        changes: [
          { path: 'evictionHard["memory.available"]', op: 'changed', from: '100Mi', to: '200Mi' },
          { path: 'systemReserved', op: 'added', from: null, to: { cpu: '500m', memory: '512Mi' } },
        ],
      },
      { from: side('41877'), to: side('42315'), changes: json(demo('lkg', '-o', 'json')).changes },
    ],
  });
});

t.test('demo store: local, identical refs, --defaults', async (t) => {
  const local = path.join(DEMO_ROOT, 'var/lib/kubelet/config.yaml');
  const r = demo('705a/1326', 'local', '-o', 'json');
  t.equal(r.code, 1);
  t.match(json(r), { to: { ref: 'local', uid: null, resourceVersion: null, path: local }, changes: [{ path: 'cgroupDriver', op: 'changed', from: 'cgroupfs', to: 'systemd' }] });
  const same = demo('assigned', `${UID}/42315`);
  t.equal(same.code, 0);
  t.equal(same.stdout, `--- assigned (${UID}/42315)\n+++ ${UID}/42315\nnote: both refs name the same file (${CP('42315')}): nothing to compare\nno differences (identical content)\n`);
  const self = demo('lkg', 'lkg', '-o', 'json');
  t.equal(self.code, 0);
  t.same(json(self).changes, []);
  t.equal(json(self).unified, '');
  const d = demo('local', '705a/1326', '--defaults', '-q');
  t.equal(d.code, 1);
  t.equal(d.stdout, `local (${local}) and 705a/1326 (705ab4f5-6393-11e8-b7cc-42010a800002/1326) differ: 1 change (1 changed)\n`);
  const q = demo('lkg', 'lkg', '-q');
  t.equal(q.code, 0);
  t.equal(q.stdout, `lkg (${UID}/41877) and lkg (${UID}/41877) are the same: identical content\n`, '-q prints its one line when equal too');
  t.equal(q.stderr, '');
});

const A = 'aaaa1111-0000-4000-8000-00000000000a';
const B = 'bbbb2222-0000-4000-8000-00000000000b';
const HEAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n';

/** A scenario store: a YAML/JSON pair, nested maps, lists, a removed field, unicode, bad payloads. */
function store(t: Tap.Test): string {
  const dir = t.testdir();
  writeTree(dir, {
    'store/meta/assigned': metaYaml({ uid: A, rv: '3', name: 'worker' }),
    'store/meta/last-known-good': metaYaml({ uid: A, rv: '2', name: 'worker' }),
    [`store/checkpoints/${A}/1/kubelet`]: `${HEAD}maxPods: 110\ncgroupsPerQOS: yes\nsyncFrequency: 60s\nclusterDNS:\n- 10.0.0.1\n- 10.0.0.2\nevictionHard:\n  memory.available: 100Mi\n  nodefs.available: 10%\nnodeLabels:\n  région: "Zürich ☃"\n`,
    [`store/checkpoints/${A}/2/kubelet`]: '{"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "cgroupsPerQOS": true, "syncFrequency": "1m0s", "maxPods": 110,\n "clusterDNS": ["10.0.0.1", "10.0.0.2"], "evictionHard": {"nodefs.available": "10%", "memory.available": "100Mi"}, "nodeLabels": {"région": "Zürich ☃"}}\n',
    [`store/checkpoints/${A}/3/kubelet`]: `${HEAD}cgroupsPerQOS: true\nsyncFrequency: 1m\nclusterDNS:\n- 10.0.0.1\n- 10.0.0.3\n- 10.0.0.2\nevictionHard:\n  memory.available: 200Mi\nnodeLabels:\n  région: "Genève ☃"\nauthentication:\n  webhook:\n    cacheTTL: 5m\n`,
    [`store/checkpoints/${B}/1/kubelet`]: `${HEAD}  broken: [\n`,
    [`store/checkpoints/${B}/2/kubelet`]: Buffer.from([0x00, 0x01, 0xfe, 0xff]),
    [`store/checkpoints/${B}/3/kubelet`]: Buffer.alloc(1024 * 1024 + 1, 0x61),
  });
  return dir;
}

t.test('scenario store: JSON-vs-YAML pair, nested maps, lists, a removed field, unicode', async (t) => {
  const dir = store(t);
  const eq = runCli(['--dir', dir, 'diff', `${A}/1`, 'lkg']);
  t.equal(eq.code, 0, 'YAML (yes, 60s) and JSON (true, "1m0s") of one config are equal');
  t.equal(eq.stdout, `--- ${A}/1\n+++ lkg (${A}/2)\nno semantic differences; the files differ only in formatting or spelling (-u shows the text diff)\n`);
  const eqQuiet = runCli(['--dir', dir, 'diff', `${A}/1`, 'lkg', '-q']);
  t.equal(eqQuiet.code, 0);
  t.equal(eqQuiet.stdout, `${A}/1 and lkg (${A}/2) are the same: no semantic differences\n`, '-q: the one line when equal');
  const r = runCli(['--dir', dir, 'diff', 'lkg']);
  t.equal(r.code, 1);
  t.equal(r.stdout, [
    `--- lkg (${A}/2)`,
    `+++ assigned (${A}/3)`,
    '6 changes (1 added, 2 removed, 3 changed):',
    '  + authentication: {webhook: {cacheTTL: "5m"}}',
    '  ~ clusterDNS:',
    '        "10.0.0.1"',
    '      + "10.0.0.3"',
    '        "10.0.0.2"',
    '  ~ evictionHard["memory.available"]: "100Mi" -> "200Mi"',
    '  - evictionHard["nodefs.available"]: "10%"',
    '  - maxPods: 110',
    '  ~ nodeLabels["région"]: "Zürich ☃" -> "Genève ☃"',
    '',
  ].join('\n'));
  const j = json(runCli(['--dir', dir, 'diff', 'lkg', '-o', 'json']));
  t.strictSame(j.changes, [
    { path: 'authentication', op: 'added', from: null, to: { webhook: { cacheTTL: '5m' } } },
    { path: 'clusterDNS', op: 'changed', from: ['10.0.0.1', '10.0.0.2'], to: ['10.0.0.1', '10.0.0.3', '10.0.0.2'] },
    { path: 'evictionHard["memory.available"]', op: 'changed', from: '100Mi', to: '200Mi' },
    { path: 'evictionHard["nodefs.available"]', op: 'removed', from: '10%', to: null },
    { path: 'maxPods', op: 'removed', from: 110, to: null },
    { path: 'nodeLabels["région"]', op: 'changed', from: 'Zürich ☃', to: 'Genève ☃' },
  ]);
  const d = runCli(['--dir', dir, 'diff', 'lkg', '--defaults']);
  t.equal(d.code, 1);
  t.match(d.stdout, /5 changes \(1 removed, 4 changed\) \(v1beta1 defaults applied to both sides\):\n {2}~ authentication\.webhook\.cacheTTL: "2m0s" \(default\) -> "5m"\n/);
  t.notMatch(d.stdout, /maxPods/, '110 is the default: omitted equals set');
  t.match(d.stdout, /evictionHard\["nodefs.available"\]: "10%"/, 'a partial evictionHard is not merged with the defaults');
  const y = runCli(['--dir', dir, 'diff', 'lkg', '-o', 'yaml']);
  t.match(y.stdout, /^apiVersion: kubelet-ckpt\/v1\nkind: DiffReport\nfrom:\n {2}ref: lkg\n/);
});

t.test('scenario store: undecodable, binary and huge payloads', async (t) => {
  const dir = store(t);
  const bad = runCli(['--dir', dir, 'diff', `${B}/1`, 'assigned']);
  t.equal(bad.code, 1);
  t.match(bad.stdout, new RegExp(`^--- ${B}/1\\n\\+\\+\\+ assigned \\(${A}/3\\)\\nnote: semantic comparison impossible: ${B}/1 does not decode: yaml: line 3: .*\\n@@ -1,3 \\+1,\\d+ @@\\n kind: KubeletConfiguration\\n`));
  const badJson = runCli(['--dir', dir, 'diff', `${B}/1`, 'assigned', '-o', 'json']);
  t.equal(badJson.code, 1);
  t.same(json(badJson).changes, []);
  t.match(json(badJson).unified, /^--- /);
  t.match(badJson.stderr, /^warning: semantic comparison impossible: /);
  const bin = runCli(['--dir', dir, 'diff', `${B}/2`, `${B}/1`]);
  t.equal(bin.code, 1);
  t.match(bin.stdout, new RegExp(`note: semantic comparison impossible: ${B}/2 does not decode: binary content \\(not UTF-8 text\\)\\n(.*\\n)?Binary files ${B}/2 and ${B}/1 differ\\n$`));
  const huge = runCli(['--dir', dir, 'diff', `${B}/3`]);
  t.equal(huge.code, 3);
  t.equal(huge.stdout, '');
  t.match(huge.stderr, /^error: checkpoints\/bbbb2222-0000-4000-8000-00000000000b\/3\/kubelet is larger than 1 MiB/);
  const hugeJson = runCli(['--dir', dir, 'diff', `${B}/3`, '-o', 'json']);
  t.equal(hugeJson.stdout, '');
  t.match(JSON.parse(hugeJson.stderr), { error: { code: 'TOO_LARGE', exitCode: 3 } });
  const hist = runCli(['--dir', dir, 'diff', 'bbbb']);
  t.equal(hist.code, 3, 'a history with an unreadable version prints what it can, then exits 3');
  t.match(hist.stdout, /2 -> 3: not comparable field by field\n {2}note: .*\n {2}note: semantic comparison impossible: bbbb2222-0000-4000-8000-00000000000b\/3 could not be read: .*larger than 1 MiB/);
  t.equal(hist.stderr, `error: ${B}/3 could not be read: checkpoints/${B}/3/kubelet is larger than 1 MiB (the ConfigMap limit); refusing to read it whole\nhint: kubelet-ckpt verify reports every unreadable file; two readable versions compare with diff UID/RV UID/RV\n`);
  // DESIGN: errors under -o json leave stdout empty; stderr holds the Error document alone.
  for (const format of ['json', 'yaml']) {
    const h = runCli(['--dir', dir, 'diff', 'bbbb', '-o', format]);
    t.equal(h.code, 3, `history -o ${format}: exit 3`);
    t.equal(h.stdout, '', `history -o ${format}: no DiffHistory on stdout`);
    if (format === 'json') {
      t.same(JSON.parse(h.stderr), {
        apiVersion: 'kubelet-ckpt/v1',
        kind: 'Error',
        error: {
          code: 'TOO_LARGE',
          message: `${B}/3 could not be read: checkpoints/${B}/3/kubelet is larger than 1 MiB (the ConfigMap limit); refusing to read it whole`,
          hint: 'kubelet-ckpt verify reports every unreadable file; two readable versions compare with diff UID/RV UID/RV',
          exitCode: 3,
        },
      });
    } else t.match(h.stderr, /^apiVersion: kubelet-ckpt\/v1\nkind: Error\nerror:\n {2}code: TOO_LARGE\n/);
  }
});

t.test('bad refs and bad usage: exit 2 with the candidates', async (t) => {
  const dir = store(t);
  const cases: Array<[string[], RegExp]> = [
    [['zzzz'], /^error: unknown ref "zzzz".*\nhint: refs in this store: assigned, last-known-good, local, aaaa1111-0000-4000-8000-00000000000a\/1, /],
    [['zzzz/1', 'lkg'], /hint: refs in this store: /],
    [['aa'], /^error: "aa" is too short to name a UID: a UID prefix needs at least 4 characters\n/],
    [[A, 'lkg'], /^error: UID aaaa1111-0000-4000-8000-00000000000a has 3 resourceVersions: 1, 2, 3\n/],
    [[`${A}/..`], /^error: bad ref .*"\.\." is/],
    [['../../x', 'lkg', 'assigned'], /^error: too many arguments: "assigned" \(diff takes <from> \[to\]\)\nhint: see kubelet-ckpt diff --help\n$/],
    [['lkg', '-U', '-1'], /^error: -U "-1": not a whole number ≥ 0\n/],
    [['lkg', '-L', 'a', '-L', 'b', '-L', 'c'], /--label may be given at most twice/],
  ];
  for (const [args, re] of cases) {
    const r = runCli(['--dir', dir, 'diff', ...args]);
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.stdout, '', args.join(' '));
    t.match(r.stderr, re, args.join(' '));
  }
  const j = runCli(['--dir', dir, 'diff', 'zzzz', '-o', 'json']);
  t.equal(j.stdout, '');
  t.match(JSON.parse(j.stderr), { error: { code: 'UNKNOWN_REF', exitCode: 2, hint: /refs in this store/ } });
  const missing = runCli(['--dir', dir, 'diff', './nope.yaml']);
  t.equal(missing.code, 3, 'a file that cannot be read is unreadable input');
});

t.test('labels, keys and files', async (t) => {
  const dir = store(t);
  writeTree(dir, { 'a.yaml': `${HEAD}maxPods: 1\n`, 'b.json': '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":2}' });
  const r = runCli(['--dir', dir, 'diff', './a.yaml', './b.json', '-L', 'before', '-L', 'after'], { cwd: dir });
  t.equal(r.code, 1);
  t.equal(r.stdout, '--- before\n+++ after\n1 change (1 changed):\n  ~ maxPods: 1 -> 2\n');
  const abs = runCli(['--dir', dir, 'diff', path.join(dir, 'a.yaml'), '-o', 'json']);
  t.match(json(abs), { from: { ref: path.join(dir, 'a.yaml'), uid: null, resourceVersion: null, path: path.join(dir, 'a.yaml') }, to: { ref: 'assigned' } });
  writeTree(dir, { [`store/checkpoints/${B}/9/x`]: `${HEAD}maxPods: 1\n`, [`store/checkpoints/${B}/9/y`]: `${HEAD}maxPods: 3\n` });
  t.equal(runCli(['--dir', dir, 'diff', `${B}/9`]).code, 2, 'two files, no kubelet: --key needed');
  const k = runCli(['--dir', dir, 'diff', `${B}/9`, `${B}/9`, '--key', 'x', '--key', 'y', '-o', 'json']);
  t.equal(k.code, 1, k.stderr);
  t.same([json(k).from.path, json(k).to.path], [`checkpoints/${B}/9/x`, `checkpoints/${B}/9/y`]);
});

t.test('--help has examples; the man page names every option', async (t) => {
  const h = runCli(['diff', '--help']);
  t.equal(h.code, 0);
  t.match(h.stdout, /Examples:\n.*kubelet-ckpt diff lkg/);
  const page = fs.readFileSync(path.join(repoRoot, 'man/kubelet-ckpt-diff.md'), 'utf8');
  t.match(page, /^# kubelet-ckpt-diff\(1\) -- /);
  for (const s of ['## SYNOPSIS', '## DESCRIPTION', '## OPTIONS', '## EXIT STATUS', '## EXAMPLES', '## SEE ALSO']) t.ok(page.includes(s), s);
  const own = h.stdout.split(/\nOptions:\n/)[1]!.split(/\n\n/)[0]!;
  const opts = [...own.matchAll(/^\s+(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!).filter((o) => o !== '--help' && o !== '--version');
  t.same(opts.sort(), ['--context', '--defaults', '--key', '--label', '--unified']);
  for (const o of opts) t.ok(page.includes('`' + o), `${o} in the man page`);
});

t.test('diff UID whose only resourceVersion cannot be read: exit 3, and it says why', async (t) => {
  const dir = copyFixture('stores/healthy', t.testdir({}));
  const U = '946d785e-998a-11e7-a8dd-42010a800006';
  const p = path.join(dir, 'store/checkpoints', U, '119980');
  fs.renameSync(path.join(p, 'kubelet'), path.join(p, 'real'));
  fs.symlinkSync('/etc/passwd', path.join(p, 'kubelet'));
  const text = runCli(['--dir', dir, 'diff', U]);
  t.equal(text.code, 3);
  t.match(text.stdout, /note: 119980 .*could not be read: .*symbolic link/);
  const j = runCli(['--dir', dir, 'diff', U, '-o', 'json']);
  t.equal(j.code, 3);
  t.equal(j.stdout, '', 'JSON: stdout stays empty');
  t.match(JSON.parse(j.stderr), { kind: 'Error', error: { exitCode: 3, message: /^946d785e-998a-11e7-a8dd-42010a800006\/119980 could not be read: .*symbolic link/ } }, 'JSON: the reason in the Error document');
});
