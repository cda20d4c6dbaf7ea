// Field extraction (issue 13 item 10): show REF --field PATH prints one value; several refs
// in one show give one document.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, json, repoRoot, runCli } from '../helpers.js';
import { parseFieldPath } from '../../lib/diff/field.js';
import { Tmux, hasTmux } from '../lib/tui/tmux.js';

const DEMO = path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config');
const UID = '5808539f-48e3-4e47-8ce6-c261c48fa1d9';
const show = (...args: string[]) => runCli(['--dir', DEMO, 'show', ...args]);

t.test('field paths as diff prints them', async (t) => {
  t.strictSame(parseFieldPath('maxPods'), [{ key: 'maxPods' }]);
  t.strictSame(parseFieldPath('evictionHard["memory.available"]'), [{ key: 'evictionHard' }, { key: 'memory.available' }]);
  t.strictSame(parseFieldPath('authentication.x509.clientCAFile'), [{ key: 'authentication' }, { key: 'x509' }, { key: 'clientCAFile' }]);
  t.strictSame(parseFieldPath('clusterDNS[1]'), [{ key: 'clusterDNS' }, { index: 1 }]);
  t.strictSame(parseFieldPath('a["q\\"]"].b'), [{ key: 'a' }, { key: 'q"]' }, { key: 'b' }]);
  for (const bad of ['', '.a', 'a.', 'a[', 'a[x]', 'a["x"', 'a..b']) t.throws(() => parseFieldPath(bad), { code: 'BAD_FIELD' }, bad);
});

t.test('show --field: one value, exit 1 when not set', async (t) => {
  const m = show('lkg', '--field', 'maxPods');
  t.equal(m.stdout, '110\n');
  t.equal(m.code, 0);
  const e = show('lkg', '--field', 'evictionHard["memory.available"]');
  t.equal(e.stdout, '200Mi\n');
  const dns = show('lkg', '--field', 'clusterDNS');
  t.equal(dns.stdout, '["10.96.0.10"]\n');
  const none = show('lkg', '--field', 'kubeReserved');
  t.equal(none.stdout, '# kubeReserved is not set in lkg (the kubelet uses its default)\n');
  t.equal(none.code, 1);
  t.strictSame(json(show('lkg', '--field', 'clusterDNS[0]', '-o', 'json')), { apiVersion: 'kubelet-ckpt/v1', kind: 'FieldValue', ref: 'lkg', field: 'clusterDNS[0]', set: true, value: '10.96.0.10' });
  const bad = show('lkg', '--field', 'a[');
  t.equal(bad.stderr, 'error: --field "a[": an unclosed [\nhint: write fields as diff prints them: maxPods, evictionHard["memory.available"], clusterDNS[0]\n');
  t.equal(bad.code, 2);
});

t.test('several refs: one document', async (t) => {
  const two = show('lkg', 'assigned', '--field', 'maxPods');
  t.equal(two.stdout, 'lkg\t110\nassigned\t150\n');
  const j = json<{ kind: string; items: { ref: string; refKind: string; uid: string; resourceVersion: string }[] }>(show('lkg', 'assigned', '-o', 'json'));
  t.equal(j.kind, 'ShowList');
  t.strictSame(j.items.map((i) => [i.ref, i.refKind, i.resourceVersion]), [['lkg', 'checkpoint', '41877'], ['assigned', 'checkpoint', '42315']]);
  const text = show('lkg', 'assigned');
  t.match(text.stdout, new RegExp(`^==> lkg \\(checkpoints/${UID}/41877/kubelet\\) <==\\n`));
  t.match(text.stdout, `\n\n==> assigned (checkpoints/${UID}/42315/kubelet) <==\n`);
  const raw = show('lkg', 'assigned', '--raw');
  t.equal(raw.code, 2);
  t.equal(raw.stderr, 'error: --raw prints the bytes of one ref\nhint: give one ref, or leave out --raw\n');
});

t.test('an empty checkpoint no meta file names: said plainly, no key to choose (found by review: a dangling colon)', async (t) => {
  const dir = copyFixture('stores/healthy');
  const cp = path.join(dir, 'store/checkpoints/aaaa1111-0000-4000-8000-000000000001/7');
  fs.mkdirSync(cp, { recursive: true });
  const r = runCli(['--dir', dir, 'show', 'aaaa1111-0000-4000-8000-000000000001/7']);
  t.equal(r.code, 2);
  t.equal(r.stderr, 'error: checkpoint aaaa1111-0000-4000-8000-000000000001/7 holds no files: there is nothing to read\n');
});

t.test('found by a review: text diff and --field escape a value once, so different values never print the same', async (t) => {
  const dir = t.testdir({});
  const store = copyFixture('stores/healthy');
  const H = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  fs.writeFileSync(path.join(dir, 'a.yaml'), `${H}staticPodPath: "a\\x1b[31mb"\nprovider: "a\\tb"\nclusterDNS: ["a\\x1bb", "\\u202eevil"]\n`);
  fs.writeFileSync(path.join(dir, 'b.yaml'), `${H}staticPodPath: "a\\\\x1b[31mb"\nprovider: "a  b"\n`);
  const d = runCli(['--dir', store, 'diff', './a.yaml', './b.yaml'], { cwd: dir });
  t.equal(d.code, 1);
  t.match(d.stdout, '  ~ provider: "a\\tb" -> "a  b"\n');
  t.match(d.stdout, '  ~ staticPodPath: "a\\u001b[31mb" -> "a\\\\x1b[31mb"\n');
  t.match(d.stdout, '  - clusterDNS: ["a\\u001bb", "\\u202eevil"]\n', 'a bidi override is escaped too');
  t.notMatch(d.stdout, /[\u001b\u202e]/, 'nothing raw reaches the terminal');
  const f = runCli(['--dir', store, 'show', './a.yaml', '--field', 'clusterDNS'], { cwd: dir });
  t.equal(f.stdout, '["a\\u001bb","\\u202eevil"]\n');
});

t.test('found by a review: a JSON payload repeating a struct member is merged, as encoding/json decodes it', async (t) => {
  const dir = t.testdir({});
  const store = copyFixture('stores/healthy');
  const H = '"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration"';
  fs.writeFileSync(path.join(dir, 'dup.json'), `{${H},"authentication":{"anonymous":{"enabled":true}},"authentication":{"webhook":{"enabled":false}},"maxPods":5,"maxPods":7,"clusterDNS":["a"],"clusterDNS":["b"]}`);
  fs.writeFileSync(path.join(dir, 'merged.json'), `{${H},"authentication":{"anonymous":{"enabled":true},"webhook":{"enabled":false}},"maxPods":7,"clusterDNS":["b"]}`);
  const d = runCli(['--dir', store, 'diff', './dup.json', './merged.json'], { cwd: dir });
  t.equal(d.code, 0, d.stdout);
  const f = runCli(['--dir', store, 'show', './dup.json', '--field', 'authentication.anonymous.enabled'], { cwd: dir });
  t.equal(f.stdout, 'true\n', 'the kubelet runs with anonymous auth enabled');
  t.equal(runCli(['--dir', store, 'show', './dup.json', '--field', 'maxPods'], { cwd: dir }).stdout, '7\n', 'a scalar: the last');
});

t.test('found by a review: a resourceVersion entry that is a symbolic link is not an empty checkpoint', async (t) => {
  const store = copyFixture('stores/healthy');
  const U = '11111111-2222-3333-4444-555555555555';
  fs.mkdirSync(path.join(store, 'store/checkpoints', U));
  fs.symlinkSync('/etc', path.join(store, 'store/checkpoints', U, '119982'));
  const s = runCli(['--dir', store, 'show', `${U}/119982`]);
  t.equal(s.code, 3);
  t.match(s.stderr, `cannot read checkpoint checkpoints/${U}/119982: it is a symbolic link to /etc, which kubelet-ckpt does not follow`);
  const l = runCli(['--dir', store, 'ls']);
  t.match(l.stdout, new RegExp(`${U} 119982 .* \\(not listed: see below\\)\\n`));
  t.match(l.stdout, `not listed: checkpoints/${U}/119982: a symbolic link to /etc, which kubelet-ckpt does not follow`);
  t.match(json<{ unlisted: { path: string }[] }>(runCli(['--dir', store, 'ls', '-o', 'json'])).unlisted, [{ path: `checkpoints/${U}/119982` }]);
});

t.test('found by a review: ls fits an 80-column terminal (UIDs cut to a unique prefix), whole when piped', { skip: !hasTmux && 'tmux is not installed' }, async (t) => {
  const root = copyFixture('demo');
  const x = new Tmux().start(['--root', root, 'ls'], { cols: 80 });
  t.teardown(() => x.kill());
  const s = await x.waitFor('[exit 0]');
  const rows = s.split('\n').filter((l) => /kubelet \(/.test(l));
  t.equal(rows.length, 4);
  t.ok(rows.every((l) => l.trimEnd().length <= 80), rows.join('\n'));
  t.match(rows[0], /^ {4}5808539f 41230 /);
  t.match(runCli(['--root', root, 'ls']).stdout, /5808539f-48e3-4e47-8ce6-c261c48fa1d9 41230/, 'piped: whole UIDs');
});

t.test('found by a review: diff --defaults takes a non-pointer field at its Go zero value as absent', async (t) => {
  const dir = t.testdir({});
  const store = copyFixture('stores/healthy');
  const H = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';
  fs.writeFileSync(path.join(dir, 'a.yaml'), `${H}readOnlyPort: 0\nstaticPodPath: ""\nserverTLSBootstrap: false\nshutdownGracePeriod: 0s\n`);
  fs.writeFileSync(path.join(dir, 'b.yaml'), H);
  fs.writeFileSync(path.join(dir, 'c.yaml'), `${H}readOnlyPort: 10255\n`);
  const same = runCli(['--dir', store, 'diff', '--defaults', './a.yaml', './b.yaml'], { cwd: dir });
  t.equal(same.code, 0, same.stdout);
  t.match(same.stdout, /no semantic differences, v1beta1 defaults applied to both sides/);
  const changed = runCli(['--dir', store, 'diff', '--defaults', './a.yaml', './c.yaml'], { cwd: dir });
  t.equal(changed.code, 1);
  t.match(changed.stdout, /~ readOnlyPort: 0 -> 10255/, 'a zero against a value is still a change from 0');
  t.equal(runCli(['--dir', store, 'diff', './a.yaml', './b.yaml'], { cwd: dir }).code, 1, 'without --defaults the fields differ as written');
});

t.test('found by a review: show re-indents a JSON payload with each number as written, and no bidi control let through', async (t) => {
  const dir = t.testdir({});
  const store = copyFixture('stores/healthy');
  fs.writeFileSync(path.join(dir, 'big.json'), '{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","podPidsLimit":9007199254740993,"cpuCFSQuotaPeriod":"100ms","x":1.0,"y":1e2,"providerID":"\\u202eevil","maxPods":5,"maxPods":7}');
  const s = runCli(['--dir', store, 'show', './big.json'], { cwd: dir });
  t.equal(s.code, 0, s.stderr);
  t.equal(s.stdout, '{\n  "apiVersion": "kubelet.config.k8s.io/v1beta1",\n  "kind": "KubeletConfiguration",\n  "podPidsLimit": 9007199254740993,\n  "cpuCFSQuotaPeriod": "100ms",\n  "x": 1.0,\n  "y": 1e2,\n  "providerID": "\\u202eevil",\n  "maxPods": 5,\n  "maxPods": 7\n}\n');
});
