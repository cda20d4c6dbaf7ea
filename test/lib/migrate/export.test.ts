// export: the document, its comments and header, refusals; the YAML writer's scalars.
import t from 'tap';
import path from 'node:path';
import fs from 'node:fs';
import { emitYaml, commentKey } from '../../../lib/migrate/yaml-emit.js';
import { buildExport, runExport } from '../../../lib/migrate/export.js';
import { openSession, type Session } from '../../../lib/session.js';
import { decodeKubeletConfig } from '../../../lib/config/decode.js';
import { metaYaml, tempDir, writeTree } from '../../helpers.js';

t.test('yaml-emit: scalars read back as the same values (YAML 1.1)', async (t) => {
  const doc = {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    clusterDomain: 'on', providerID: '1e3', cgroupRoot: '12:30', resolvConf: '/a b/#c',
    podCIDR: '', address: '0.0.0.0', maxPods: 40, failSwapOn: false, memoryThrottlingFactor: 0.8,
    clusterDNS: [], evictionHard: {}, featureGates: { NodeSwap: true },
    tlsCipherSuites: ['TLS_A', 'yes'],
  };
  const text = emitYaml(doc, new Map([[commentKey(['maxPods']), ['a note']]]), ['head']);
  t.match(text, /^# head\n/);
  t.match(text, /\n# a note\nmaxPods: 40\n/);
  t.match(text, /clusterDomain: "on"\n/);
  t.match(text, /providerID: "1e3"\n/);
  t.match(text, /cgroupRoot: "12:30"\n/);
  t.match(text, /evictionHard: \{\}\n/);
  const d = decodeKubeletConfig(Buffer.from(text), '/x/config.yaml');
  t.ok(d.ok);
  if (d.ok) {
    for (const k of ['clusterDomain', 'providerID', 'cgroupRoot', 'resolvConf', 'address', 'maxPods', 'failSwapOn', 'memoryThrottlingFactor', 'featureGates', 'tlsCipherSuites'] as const) {
      t.same(d.config[k], (doc as Record<string, unknown>)[k], k);
    }
  }
});

const UID = '11111111-2222-3333-4444-555555555555';
function store(payload: string, flags: string[] = [], local: string | null = null): { s: Session; dir: string } {
  const dir = t.testdir();
  writeTree(dir, {
    'store/meta/assigned': metaYaml({ uid: UID, rv: '7', name: 'node-cfg' }),
    'store/meta/last-known-good': '',
    [`store/checkpoints/${UID}/7/kubelet`]: payload,
    ...(local ? { 'config.yaml': local } : {}),
  });
  const base = openSession({ dir, kubeletVersion: '1.23', kubeletConfig: local ? path.join(dir, 'config.yaml') : undefined });
  const argv = flags;
  return { s: { ...base, kubeletArgv: argv, judgeOptions: { ...base.judgeOptions, argv } }, dir };
}

const HEAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n';

t.test('export of the next boot: paths, gates, flag comments, header', async (t) => {
  const { s, dir } = store(`${HEAD}staticPodPath: manifests\nmaxPods: 50\nfeatureGates:\n  DynamicKubeletConfig: true\n  NodeSwap: false\nbogusField: 1\n`, ['--max-pods=40', '--feature-gates=DynamicKubeletConfig=true'], `${HEAD}featureGates:\n  CPUManager: true\n`);
  const r = buildExport(s, { ref: null, effective: false, force: false, root: '/' });
  const cp = `${dir}/store/checkpoints/${UID}/7`;
  t.equal(r.kind, 'ExportResult');
  t.equal(r.apiVersion, 'kubelet-ckpt/v1');
  t.equal(r.source.uid, UID);
  t.equal(r.source.name, 'node-cfg');
  t.same(r.config, { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', staticPodPath: `${cp}/manifests`, maxPods: 50, featureGates: { CPUManager: true, NodeSwap: false } });
  t.same(r.removedGates, ['DynamicKubeletConfig']);
  t.same(r.carriedGates, ['CPUManager']);
  t.match(r.text, /# overridden on this node by --max-pods=40: runs with 40\nmaxPods: 50\n/);
  t.match(r.text, /# Source: Dynamic Kubelet Config checkpoint UID 11111111-2222-3333-4444-555555555555, resourceVersion 7\n#\s+ConfigMap kube-system\/node-cfg, key kubelet\n/);
  t.notMatch(r.text, /bogusField/);
  t.match(r.text, /--feature-gates on this node names DynamicKubeletConfig/);
});

t.test('--effective writes the defaults too', async (t) => {
  const { s } = store(`${HEAD}maxPods: 50\n`);
  const r = buildExport(s, { ref: 'assigned', effective: true, force: false, root: '/' });
  t.equal(r.config.port, 10250);
  t.equal(r.config.maxPods, 50);
  t.match(r.text, /\nhealthzPort: 10248\n/);
});

t.test('under --root the paths are node paths', async (t) => {
  const root = t.testdir();
  writeTree(root, {
    'var/lib/kubelet/dynamic-config/store/meta/assigned': metaYaml({ uid: UID, rv: '7' }),
    'var/lib/kubelet/dynamic-config/store/meta/last-known-good': '',
    [`var/lib/kubelet/dynamic-config/store/checkpoints/${UID}/7/kubelet`]: `${HEAD}tlsCertFile: ../pki/c.crt\n`,
  });
  const s = openSession({ root, kubeletVersion: '1.23' });
  const r = buildExport(s, { ref: null, effective: false, force: false, root });
  t.equal(r.config.tlsCertFile, `/var/lib/kubelet/dynamic-config/store/checkpoints/${UID}/pki/c.crt`);
  t.equal(r.source.path, `/var/lib/kubelet/dynamic-config/store/checkpoints/${UID}/7/kubelet`);
});

t.test('refusals', async (t) => {
  const bad = store(`${HEAD}maxPods: -5\nhealthzPort: 99999\n`);
  t.throws(() => buildExport(bad.s, { ref: 'assigned', effective: false, force: false, root: '/' }), { exitCode: 4, code: 'EXPORT_INVALID' });
  const forced = buildExport(bad.s, { ref: 'assigned', effective: false, force: true, root: '/' });
  t.equal(forced.stage, 'validate-error');
  t.match(forced.text, /# WARNING: the kubelet would not accept this config/);
  const undecodable = store('not: [yaml');
  t.throws(() => buildExport(undecodable.s, { ref: `${UID}/7`, effective: false, force: true, root: '/' }), { exitCode: 4, code: 'EXPORT_LOAD' });
  const flags = store(`${HEAD}`, ['--healthz-port=70000']);
  t.throws(() => buildExport(flags.s, { ref: null, effective: false, force: true, root: '/' }), { exitCode: 4, code: 'EXPORT_STARTUP' });
  t.throws(() => buildExport(flags.s, { ref: 'meta/assigned', effective: false, force: false, root: '/' }));
});

t.test('--out: atomic, refuses a different file without --force, never through a link', async (t) => {
  const { s } = store(`${HEAD}maxPods: 50\n`);
  // Outside the store's --dynamic-config-dir (export refuses to write there: OUT_IN_STORE).
  const dir = tempDir();
  const out = path.join(dir, 'out', 'config.yaml');
  const r = runExport(s, { ref: null, effective: false, force: false, root: '/', out });
  t.equal(r.outcome, 'written');
  t.equal(fs.readFileSync(out, 'utf8'), r.text);
  t.equal(runExport(s, { ref: null, effective: false, force: false, root: '/', out }).outcome, 'unchanged');
  fs.writeFileSync(out, 'other\n');
  t.throws(() => runExport(s, { ref: null, effective: false, force: false, root: '/', out }), { exitCode: 4, code: 'OUT_EXISTS', message: /exists and differs.*\n--- /s });
  t.equal(fs.readFileSync(out, 'utf8'), 'other\n');
  t.equal(runExport(s, { ref: null, effective: false, force: true, root: '/', out }).outcome, 'written');
  t.equal(fs.readFileSync(out, 'utf8'), r.text);
  const link = path.join(dir, 'link.yaml');
  fs.symlinkSync(path.join(dir, 'target.yaml'), link);
  t.throws(() => runExport(s, { ref: null, effective: false, force: true, root: '/', out: link }), { exitCode: 4 });
  t.notOk(fs.existsSync(path.join(dir, 'target.yaml')));
  t.same(fs.readdirSync(path.join(dir, 'out')), ['config.yaml'], 'no temp file left');
});

t.test('text from disk in comments stays one line: the file reads back as exactly the exported config', async (t) => {
  const evil = 'manifests\nreadOnlyPort: 10255\r\n#\u001b[2J\t';
  const { s, dir } = store(`${HEAD}staticPodPath: ${JSON.stringify(evil)}\nclusterDomain: cluster.local\n`, ['--cluster-domain=c\nreadOnlyPort: 10256\u2028x: 1\u0085y: 2\u2029#']);
  // A file ref whose name breaks lines too: it is named in the header.
  const file = path.join(dir, 'evil\nreadOnlyPort: 10257\u0085z: 3\ufeff.yaml');
  fs.writeFileSync(file, `${HEAD}staticPodPath: ${JSON.stringify(evil)}\n`);
  for (const ref of ['assigned', file]) {
    const r = buildExport(s, { ref, effective: false, force: false, root: '/' });
    const comments = r.text.split('\n').filter((l) => l.startsWith('#'));
    t.ok(comments.some((l) => l.includes('readOnlyPort: 1025')), `${ref}: the hostile text is there, in a comment`);
    for (const l of r.text.split('\n')) t.notMatch(l, /^\s*(readOnlyPort|x|y|z):/, `${ref}: no key of its own: ${JSON.stringify(l)}`);
    t.notMatch(r.text, /[\r\u0085\u2028\u2029\u001b\ufeff\t]/, `${ref}: no raw line break, control or BOM anywhere`);
    const d = decodeKubeletConfig(Buffer.from(r.text), '/var/lib/kubelet/config.yaml');
    t.ok(d.ok, d.ok ? '' : d.error);
    if (d.ok) t.same(d.config, r.config, `${ref}: the file decodes to exactly the exported config`);
  }
});

t.test('yaml-emit: NEL, LS, PS, DEL, C1, BOM in strings and keys are escaped and read back as themselves', async (t) => {
  const odd = 'p\u0085q\u2028r\u2029s\u007ft\u0080u\u009fv\ufeffw\ufffex\uffffy\u00a0z';
  const doc = { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', podCIDR: odd, evictionHard: { [`k${odd}`]: '10%' }, tlsCipherSuites: [odd] };
  const text = emitYaml(doc);
  t.match(text, /podCIDR: "p\\Nq\\Lr\\Ps\\x7ft\\x80u\\x9fv\\ufeffw\\ufffex\\uffffy\u00a0z"\n/, 'named escapes for the line breaks, hex for the rest');
  t.notMatch(text, /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/, 'none of them raw');
  const d = decodeKubeletConfig(Buffer.from(text), '/x/config.yaml');
  t.ok(d.ok, d.ok ? '' : d.error);
  if (d.ok) {
    t.equal(d.config.podCIDR, odd);
    t.same(d.config.evictionHard, doc.evictionHard);
    t.same(d.config.tlsCipherSuites, [odd]);
  }
});

t.test('a file ref: relative paths resolve against where it is installed (the --config file), not where it is read', async (t) => {
  const { s } = store(`${HEAD}maxPods: 50\n`);
  const elsewhere = path.join(tempDir(), 'rescue', 'x.yaml');
  fs.mkdirSync(path.dirname(elsewhere));
  fs.writeFileSync(elsewhere, `${HEAD}staticPodPath: manifests\ntlsCertFile: ../pki/k.crt\nresolvConf: /etc/resolv.conf\n`);
  const def = buildExport(s, { ref: elsewhere, effective: false, force: false, root: '/' });
  t.same([def.config.staticPodPath, def.config.tlsCertFile, def.config.resolvConf], ['/var/lib/kubelet/manifests', '/var/lib/pki/k.crt', '/etc/resolv.conf'], 'no --config known: /var/lib/kubelet/config.yaml');
  t.match(def.text, '\n# Relative paths resolved against /var/lib/kubelet, the directory of /var/lib/kubelet/config.yaml where this file is to be installed (not where it was read)\n# staticPodPath: relative "manifests" resolved as the kubelet will there, to /var/lib/kubelet/manifests\n');
  t.notMatch(def.text, path.dirname(elsewhere) + '/manifests');
  const at = buildExport(s, { ref: elsewhere, effective: false, force: false, root: '/', installAt: '/etc/kubernetes/kubelet-config.yaml' });
  t.same(at.resolvedPaths, [{ field: 'staticPodPath', value: 'manifests', resolved: '/etc/kubernetes/manifests' }, { field: 'tlsCertFile', value: '../pki/k.crt', resolved: '/etc/pki/k.crt' }]);
  t.equal(at.source.path, elsewhere, 'where it was read is still named');
});

t.test('found by a migrate review: AllBeta layered under a checkpoint is written out gate by gate; the export alone gives the same gates', async (t) => {
  // Under DKC: the local file's AllBeta=true sets every Beta gate; the checkpoint's AllBeta=false sets none of them again.
  const { s } = store(`${HEAD}serverTLSBootstrap: true\nfeatureGates:\n  AllBeta: false\n`, [], `${HEAD}featureGates:\n  AllBeta: true\n`);
  const r = buildExport(s, { ref: null, effective: false, force: false, root: '/' });
  const gates = r.config.featureGates as Record<string, boolean>;
  t.equal(gates.AllBeta, false);
  t.equal(gates.RotateKubeletServerCertificate, true, 'a Beta gate serverTLSBootstrap needs stays on');
  t.ok(r.carriedGates.includes('RotateKubeletServerCertificate'));
  // The export as the node's only --config file: the same gates as now, and it validates.
  const { effectiveGates, gateSnapshot, setFromMap, newGateState } = await import('../../../lib/config/gates.js');
  const now = effectiveGates({ version: '1.23', localGates: { AllBeta: true }, configGates: { AllBeta: false } });
  t.same(gateSnapshot(setFromMap(newGateState('1.23'), gates).state), gateSnapshot(now.state));
  const { loadCheckpointConfig } = await import('../../../lib/config/load.js');
  t.equal(loadCheckpointConfig(Buffer.from(r.text), '/var/lib/kubelet/config.yaml', { version: '1.23', argv: [] }).stage, 'ok');
});

t.test('found by a migrate review: 1.23 resets logging.flushFrequency and splitStream: the export says so', async (t) => {
  const { s } = store(`${HEAD}logging:\n  flushFrequency: 10000000000\n  options:\n    json:\n      splitStream: true\n`);
  const r = buildExport(s, { ref: null, effective: false, force: false, root: '/' });
  t.match(r.text, /# reset by the kubelet at start-up \(1\.23 registers its flag's default over the config\): runs with 5000000000\n {2}flushFrequency: 10000000000\n/);
  t.match(r.text, /# reset by the kubelet at start-up .*: runs with false\n {6}splitStream: true\n/);
  t.match(r.warnings.join('\n'), /logging\.flushFrequency is 10000000000 in the export, but the 1\.23 kubelet resets it at start-up and runs with 5000000000/);
});

t.test('found by a migrate review: local with no --config file is the flag defaults, written out (applyLegacyDefaults)', async (t) => {
  const { s } = store(`${HEAD}maxPods: 50\n`);
  const r = buildExport(s, { ref: 'local', effective: false, force: false, root: '/' });
  t.same(r.config, {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    readOnlyPort: 10255,
  });
  const e = buildExport(s, { ref: 'local', effective: true, force: false, root: '/' });
  t.match(e.config, { readOnlyPort: 10255, authorization: { mode: 'AlwaysAllow' }, authentication: { anonymous: { enabled: true }, webhook: { enabled: false, cacheTTL: '2m0s' } } });
});
