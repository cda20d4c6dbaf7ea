// No false "ok" (issue 13 item 1): a file or stdin is judged as a candidate config, a ref
// that names nothing is an error, ls's STATE carries what verify knows and marks what boots
// next (B), and permission denied is said as such.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { asNobody, copyFixture, isRoot, json, repoRoot, runCli } from '../helpers.js';

const STORES = path.join(repoRoot, 'fixtures/stores');
const X = '946d785e-998a-11e7-a8dd-42010a800006';
const GOOD = path.join(STORES, `healthy/store/checkpoints/${X}/119980/kubelet`);

t.test('verify PATH and verify -: judged as a checkpoint payload', async (t) => {
  const dir = t.testdir({ 'garbage.yaml': 'garbage: [\n', 'negative.yaml': 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: -1\n' });
  const opts = { cwd: dir };
  const good = runCli(['verify', GOOD], opts);
  t.equal(good.stdout, `ok: no problems found (checked: ${GOOD})\n`);
  t.equal(good.code, 0);
  const garbage = runCli(['verify', './garbage.yaml'], opts);
  t.equal(garbage.stdout, './garbage.yaml\n  error   PAYLOAD_DECODE\n          the kubelet cannot load this config ("failed to load config"): failed to decode: yaml: line 1: did not find expected node content\nFAILED: 1 error, 0 warnings, 0 info (checked: ./garbage.yaml)\n');
  t.equal(garbage.code, 1);
  const missing = runCli(['verify', '/nonexistent.yaml'], opts);
  t.equal(missing.stdout, '');
  t.equal(missing.stderr, 'error: cannot read file /nonexistent.yaml: no such file or directory\n');
  t.equal(missing.code, 3);
  const isDir = runCli(['verify', `./`], opts);
  t.equal(isDir.stdout, '');
  t.equal(isDir.code, 3);
  const stdin = runCli(['verify', '-'], { ...opts, input: fs.readFileSync(path.join(dir, 'negative.yaml')) });
  t.equal(stdin.stdout, '- (stdin)\n  error   PAYLOAD_INVALID\n          the kubelet rejects this config ("failed to validate config"): invalid configuration: maxPods (--max-pods) -1 must not be a negative number\nFAILED: 1 error, 0 warnings, 0 info (checked: - (stdin))\n');
  t.equal(stdin.code, 1);
  const j = json(runCli(['verify', '-', '-o', 'json'], { ...opts, input: fs.readFileSync(GOOD) }));
  t.strictSame(j, { apiVersion: 'kubelet-ckpt/v1', kind: 'VerifyReport', ok: true, findings: [], checked: ['-'] });
  // A store ref and a file in one run: one document.
  const both = json<{ checked: string[]; ok: boolean }>(runCli(['--dir', path.join(STORES, 'healthy'), 'verify', 'lkg', './garbage.yaml', '-o', 'json'], opts));
  t.strictSame(both.checked, ['lkg', './garbage.yaml']);
  t.equal(both.ok, false);
  const typo = runCli(['--dir', path.join(STORES, 'healthy'), 'verify', 'garbage.yaml'], opts);
  t.equal(typo.code, 2, 'a relative path without ./ is not taken for a file');
  t.match(typo.stderr, /a file path must start with \/, \.\/ or \.\.\//);
});

t.test('ls: STATE says what verify knows; B marks what boots next', async (t) => {
  const corrupt = runCli(['--dir', path.join(STORES, 'corrupt'), 'ls']);
  t.match(corrupt.stdout, new RegExp(`^ L  ${X} 120250 .* error   other \\(`, 'm'), 'a last-known-good whose payload key is missing is not ok');
  const fell = runCli(['--dir', path.join(STORES, 'fell-back'), 'ls']);
  t.match(fell.stdout, /^ALB UID /);
  t.match(fell.stdout, new RegExp(`^ LB ${X} 119980 `, 'm'));
  t.match(fell.stdout, new RegExp(`^A   ${X} 120200 .* error `, 'm'));
  const j = json<{ checkpoints: { resourceVersion: string; bootsNext: boolean; verify: string }[] }>(runCli(['--dir', path.join(STORES, 'fell-back'), 'ls', '-o', 'json']));
  t.strictSame(j.checkpoints.map((c) => [c.resourceVersion, c.bootsNext, c.verify]), [['119980', true, 'ok'], ['120200', false, 'error']]);
});

t.test('permission denied is said as such, not "no checkpoints" or "not on disk"', { skip: !isRoot && 'needs root to drop privileges' }, async (t) => {
  const dir = copyFixture('stores/fell-back');
  fs.chmodSync(path.join(dir, 'store/checkpoints'), 0o700);
  // An unreadable entry inside the store is not an environment error (DESIGN's exit codes): ls
  // lists it as not listed, and says why, never "no checkpoints" alone.
  const ls = asNobody(['--dir', dir, 'ls']);
  t.equal(ls.stdout, 'no checkpoints listed\nnot listed: checkpoints: permission denied (run as root (sudo) to list it)\n');
  t.equal(ls.code, 0);
  t.same(json<{ unlisted: unknown[] }>(asNobody(['--dir', dir, 'ls', '-o', 'json'])).unlisted, [{ path: 'checkpoints', why: 'permission denied' }]);
  // status goes on (the meta files are readable) but never counts an unreadable checkpoints/ as 0.
  const st = asNobody(['--dir', dir, 'status', '--no-journal']);
  t.equal(st.code, 1, 'next boot cannot be predicted');
  t.match(st.stdout, /^Checkpoints {6}unreadable \(permission denied\)$/m);
  t.notMatch(st.stdout, /^Checkpoints +0$/m);
  const sj = json<{ checkpoints: number; checkpointsUnreadable: string | null; problems: { code: string; path: string }[] }>(asNobody(['--dir', dir, 'status', '--no-journal', '-o', 'json']));
  t.equal(sj.checkpointsUnreadable, 'permission denied');
  t.equal(sj.checkpoints, 0, 'the schema\'s count stays a number: what was listed');
  t.match(sj.problems, [{ code: 'UNREADABLE', path: 'checkpoints' }]);
  t.equal(json<{ checkpointsUnreadable: string | null }>(runCli(['--dir', dir, 'status', '--no-journal', '-o', 'json'])).checkpointsUnreadable, null, 'as root: listed');
  for (const args of [['show', 'lkg'], ['diff', 'lkg'], ['rollback', '--dry-run'], ['show', X]]) {
    const r = asNobody(['--dir', dir, ...args]);
    t.match(r.stderr, 'error: checkpoints/ cannot be read: permission denied — run as root\n', args.join(' '));
    t.notMatch(r.stderr, /not on disk/, args.join(' '));
    t.equal(r.code, 3, args.join(' '));
  }
});

t.test('a tab on a blank line or after "-": the kubelet cannot load it, and verify says so', async (t) => {
  const dir = t.testdir({});
  const head = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  for (const [body, msg] of [
    ['maxPods: 10\n\t\nport: 10250\n', 'line 4: found a tab character that violates indentation'],
    ['clusterDNS:\n- \t10.96.0.10\n', 'line 4: found character that cannot start any token'],
  ] as const) {
    const f = path.join(dir, 'p.yaml');
    fs.writeFileSync(f, head + body);
    const r = runCli(['--dir', path.join(repoRoot, 'fixtures/stores/healthy'), 'verify', f, '-o', 'json']);
    t.equal(r.code, 1, JSON.stringify(body));
    t.match(json<{ findings: { code: string; message: string }[] }>(r).findings, [{ code: 'PAYLOAD_DECODE', message: new RegExp(`failed to decode: yaml: ${msg}`) }]);
  }
});

t.test('a merge key after the key it overrides: the kubelet runs the merged value (go-yaml), so next boot falls back', async (t) => {
  const dcd = copyFixture('stores/healthy', t.testdir({}));
  const U = '946d785e-998a-11e7-a8dd-42010a800006';
  const cps = path.join(dcd, 'store/checkpoints', U);
  fs.mkdirSync(path.join(cps, '2'));
  fs.writeFileSync(path.join(cps, '2/kubelet'), `${fs.readFileSync(path.join(cps, '119980/kubelet'), 'utf8')}<<: {maxPods: -3}\n`);
  const assigned = path.join(dcd, 'store/meta/assigned');
  fs.writeFileSync(assigned, fs.readFileSync(assigned, 'utf8').replace(/resourceVersion: "?119980"?/, 'resourceVersion: "2"'));
  const v = runCli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(v.code, 1, 'not "ok"');
  t.match(json<{ findings: { code: string; message: string }[] }>(v).findings, [{ code: 'PAYLOAD_INVALID', message: /maxPods \(--max-pods\) -3 must not be a negative number/ }]);
  const s = json<{ nextBoot: { source: string; statusError: string | null } }>(runCli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
  t.equal(s.nextBoot.source, 'last-known-good');
  t.equal(s.nextBoot.statusError, 'failed to validate config, see Kubelet log for details');
});

t.test('--dir alone (no kubelet command line): status does not claim the kubelet has no --config file', async (t) => {
  const dir = copyFixture('stores/empty-meta');
  const r = runCli(['--dir', dir, 'status', '--no-journal', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  const nb = json<{ nextBoot: { reason: string; unchecked: string[] } }>(r).nextBoot;
  t.notMatch(nb.reason, /runs without a --config file/);
  t.match(nb.reason, 'its local config was not checked (no kubelet command line found)');
  t.match(nb.unchecked, [/command line is not known/, /whether the kubelet has a --config file is not known/]);
});

t.test('a checkpoint that turns DynamicKubeletConfig off (1.20/1.21): adopted, then the kubelet exits at every start', async (t) => {
  // Found by review: status said it starts. The gate is on by default on 1.20/1.21, so the flags
  // need not name it; the adopted config's gates then turn it off and ValidateKubeletServer exits.
  const dcd = copyFixture('stores/healthy');
  const payload = path.join(dcd, `store/checkpoints/${X}/119980/kubelet`);
  fs.appendFileSync(payload, 'featureGates:\n  DynamicKubeletConfig: false\n');
  const run = (version: string, flags: string) => json(runCli(['--dir', dcd, '--kubelet-version', version, `--kubelet-flags=${flags}`, 'status', '--no-journal', '-o', 'json'])) as { nextBoot: { source: string; willStart: boolean; reason: string } };
  for (const version of ['1.20', '1.21']) {
    const nb = run(version, '--dynamic-config-dir=/var/lib/kubelet/dynamic-config').nextBoot;
    t.match(nb, { source: 'assigned', willStart: true, exitsAfterBootstrap: 'failed to run Kubelet: the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag', reason: /featureGates turn DynamicKubeletConfig off: the kubelet adopts it, then exits \(failed to run Kubelet: the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag\), at every start/ }, version);
    t.match(run(version, '--dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true').nextBoot, { source: 'assigned', willStart: true }, `${version}: the flag's gate wins over the checkpoint's`);
  }
  t.match(run('1.23', '--dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true').nextBoot, { source: 'assigned', willStart: true }, '1.23 (the flag must name the gate, and wins)');
});

t.test('AllBeta: false in a checkpoint (1.20/1.21) turns DynamicKubeletConfig off too, unless something named it', async (t) => {
  // Found by review: SetFromMap's AllBeta special sets every Beta gate not set before, and the gate is Beta on 1.20/1.21.
  const dcd = copyFixture('stores/healthy');
  fs.appendFileSync(path.join(dcd, `store/checkpoints/${X}/119980/kubelet`), 'featureGates:\n  AllBeta: false\n');
  const run = (version: string, flags: string) => json(runCli(['--dir', dcd, '--kubelet-version', version, `--kubelet-flags=${flags}`, 'status', '--no-journal', '-o', 'json'])) as { nextBoot: { source: string; willStart: boolean; reason: string } };
  const dir = '--dynamic-config-dir=/var/lib/kubelet/dynamic-config';
  for (const version of ['1.20', '1.21']) {
    t.match(run(version, dir).nextBoot, { source: 'assigned', willStart: true, exitsAfterBootstrap: /DynamicKubeletConfig feature gate must be enabled/, reason: /turn DynamicKubeletConfig off: the kubelet adopts it, then exits/ }, version);
    t.match(run(version, `${dir} --feature-gates=DynamicKubeletConfig=true`).nextBoot, { source: 'assigned', willStart: true }, `${version}: named by the flags`);
  }
  t.match(run('1.23', `${dir} --feature-gates=DynamicKubeletConfig=true`).nextBoot, { source: 'assigned', willStart: true }, '1.23: the gate is no longer Beta');
});

t.test('tlsMinVersion or tlsCipherSuites the kubelet does not know: valid, adopted, then InitializeTLS stops it at every start', async (t) => {
  // Found by review: status said it starts. ValidateKubeletConfiguration has no TLS rule on
  // 1.20–1.23; cliflag.TLSVersion / TLSCipherSuites fail in UnsecuredDependencies, after Bootstrap.
  const flags = '--kubelet-flags=--dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true';
  for (const [add, error] of [
    ['tlsMinVersion: TLSv1.2\n', 'unknown tls version "TLSv1.2"'],
    ['tlsCipherSuites:\n- TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n- TLS_RSA_WITH_NULL_SHA\n', "Cipher suite TLS_RSA_WITH_NULL_SHA not supported or doesn't exist"],
  ] as const) {
    const dcd = copyFixture('stores/healthy');
    fs.appendFileSync(path.join(dcd, `store/checkpoints/${X}/119980/kubelet`), add);
    const r = runCli(['--dir', dcd, flags, 'status', '--no-journal', '-o', 'json']);
    t.equal(r.code, 1, 'status: degraded');
    const nb = json<{ nextBoot: { source: string; willStart: boolean; reason: string; exitsAfterBootstrap: string | null } }>(r).nextBoot;
    t.equal(nb.source, 'assigned', add);
    t.equal(nb.willStart, true, `${add}: past Bootstrap, as the kubelet's start-up decides (the referee's willStart)`);
    t.equal(nb.exitsAfterBootstrap, error, add);
    const v = json<{ findings: { code: string; message: string }[] }>(runCli(['--dir', dcd, flags, 'verify', '-o', 'json']));
    t.match(v.findings, [{ code: 'NEXT_BOOT_FAILS', message: /gets past its config bootstrap, then exits at every start/ }], 'verify');
    t.match(runCli(['--dir', dcd, flags, 'status', '--no-journal']).stdout, /^Next boot +assigned 946d785e-998a-11e7-a8dd-42010a800006\/119980: STARTS, THEN EXITS$/m, 'text');
    t.match(nb.reason, `loads and validates, but its tlsCipherSuites or tlsMinVersion name something the kubelet does not know (InitializeTLS): the kubelet adopts it, then exits (${error}), at every start`, add);
  }
  const fine = copyFixture('stores/healthy');
  fs.appendFileSync(path.join(fine, `store/checkpoints/${X}/119980/kubelet`), 'tlsMinVersion: VersionTLS13\ntlsCipherSuites:\n- TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305\n- TLS_AES_128_GCM_SHA256\n');
  t.match(json<{ nextBoot: unknown }>(runCli(['--dir', fine, flags, 'status', '--no-journal', '-o', 'json'])).nextBoot, { source: 'assigned', willStart: true }, 'names it knows');
});

t.test('the local config with a tlsMinVersion the kubelet does not know: the local next boot exits after start-up', async (t) => {
  const dcd = copyFixture('stores/healthy');
  fs.writeFileSync(path.join(dcd, 'store/meta/assigned'), '');
  fs.writeFileSync(path.join(dcd, 'store/meta/last-known-good'), '');
  const local = path.join(t.testdir({ 'kubelet.yaml': 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntlsMinVersion: tls12\n' }), 'kubelet.yaml');
  const nb = json<{ nextBoot: { source: string; willStart: boolean; reason: string; exitsAfterBootstrap: string | null } }>(runCli(['--dir', dcd, '--kubelet-config', local, 'status', '--no-journal', '-o', 'json'])).nextBoot;
  t.match(nb, { source: 'local', willStart: true, exitsAfterBootstrap: 'unknown tls version "tls12"', reason: /the local config is valid, but its tlsCipherSuites or tlsMinVersion name something the kubelet does not know \(InitializeTLS\): the kubelet exits \(unknown tls version "tls12"\), at every start/ });
});

t.test('a kubelet that exits at every start gets the advice of one that does not start', async (t) => {
  // Found by review: with willStart true plus exitsAfterBootstrap, status suggested only verify.
  const dcd = copyFixture('stores/healthy');
  fs.appendFileSync(path.join(dcd, `store/checkpoints/${X}/119980/kubelet`), 'cpuManagerPolicy: Static\n');
  const s = json<{ nextBoot: { source: string; exitsAfterBootstrap: string | null }; nextSteps: { command: string }[] }>(runCli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
  t.equal(s.nextBoot.exitsAfterBootstrap, 'failed to run Kubelet: unknown policy: "Static"');
  t.match(s.nextSteps.map((x) => x.command), [/reset all --dry-run$/]);
  const v = json<{ nextSteps: { command: string }[] }>(runCli(['--dir', dcd, 'verify', '-o', 'json']));
  t.match(v.nextSteps.map((x) => x.command), [/reset all --dry-run$/], 'verify too');
});

t.test('--root: a dangling meta link into a directory of the node is created by the kubelet there', async (t) => {
  // Found by review: the --root branch was handed a descriptor path, which does not map into the root.
  const root = t.testdir({ etc: { systemd: { system: { 'kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true\n' } } } });
  const dcd = path.join(root, 'var/lib/kubelet/dynamic-config');
  fs.cpSync(path.join(repoRoot, 'fixtures/stores/healthy'), dcd, { recursive: true });
  fs.rmSync(path.join(dcd, 'store/meta/assigned'));
  for (const [name, target] of [['relative', '../../../assigned-file'], ['node-absolute', '/var/lib/kubelet/assigned-file']] as const) {
    fs.rmSync(path.join(dcd, 'store/meta/assigned'), { force: true });
    fs.symlinkSync(target, path.join(dcd, 'store/meta/assigned'));
    const nb = json<{ nextBoot: { source: string; willStart: boolean } }>(runCli(['--root', root, 'status', '--no-journal', '-o', 'json'])).nextBoot;
    t.match(nb, { source: 'local', willStart: true }, name);
  }
});
