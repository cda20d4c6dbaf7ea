// diff compares KubeletConfigurations as the kubelet reads them, and a checkpoint ref reads the
// checkpoint's own payload: (1) a struct field set to null is the field absent (encoding/json
// leaves it alone), while a null map entry or list item is a zero value, not nothing; (2) an
// unsafe kubeletConfigKey in a meta file never becomes the key of another checkpoint of its UID.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, runCli, tempDir } from '../helpers.js';

const HEAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n';
const UID = '946d785e-998a-11e7-a8dd-42010a800006';

t.test('null struct fields are absent; null map entries and list items are not', async (t) => {
  const dir = tempDir('kckpt-diffnull-');
  const w = (name: string, body: string) => {
    fs.writeFileSync(path.join(dir, name), HEAD + body);
    return path.join(dir, name);
  };
  const store = copyFixture('stores/healthy');
  const a = w('a.yaml', 'maxPods: null\nevictionHard: null\nclusterDomain: ~\nauthentication:\n  webhook: null\n');
  const b = w('b.yaml', 'authentication: {}\n');
  const same = runCli(['--dir', store, 'diff', '-q', a, b]);
  t.equal(same.code, 0, same.stdout);
  const c = w('c.yaml', 'evictionHard:\n  memory.available: null\nclusterDNS: [null]\n');
  const d = w('d.yaml', 'evictionHard: {}\nclusterDNS: []\n');
  const r = runCli(['--dir', store, 'diff', c, d, '-o', 'json']);
  t.equal(r.code, 1, 'a null map entry decodes to "", a null list item to "": they differ from nothing');
  t.same(JSON.parse(r.stdout).changes.map((x: { path: string; op: string }) => `${x.op} ${x.path}`), ['changed clusterDNS', 'removed evictionHard["memory.available"]']);
});

t.test('an unsafe key in one meta file does not block the UID\'s other checkpoints', async (t) => {
  const dcd = copyFixture('stores/healthy');
  const cps = path.join(dcd, 'store/checkpoints', UID);
  fs.mkdirSync(path.join(cps, '119990'));
  fs.writeFileSync(path.join(cps, '119990/kubelet'), fs.readFileSync(path.join(cps, '119980/kubelet'), 'utf8').replace(/^maxPods: .*$/m, 'maxPods: 99'));
  const lkg = path.join(dcd, 'store/meta/last-known-good');
  fs.writeFileSync(lkg, fs.readFileSync(lkg, 'utf8').replace('kubeletConfigKey: kubelet', 'kubeletConfigKey: ../119990/kubelet'));
  const show = runCli(['--dir', dcd, 'show', `${UID}/119990`, '--field', 'maxPods']);
  t.equal(show.code, 0, show.stderr);
  t.equal(show.stdout, '99\n');
  t.equal(runCli(['--dir', dcd, 'diff', `${UID}/119990`, `${UID}/119980`, '-q']).code, 1, 'they differ in maxPods, and both are read');
  t.equal(runCli(['--dir', dcd, 'show', 'lkg']).code, 4, 'the meta file itself is still refused');
});

t.test('show --field: a path that cannot apply is a usage error, and the path is printed as diff does', async (t) => {
  const dcd = copyFixture('stores/healthy');
  const cases: [string, RegExp][] = [
    ['clusterDNS.0', /clusterDNS\["0"\]: clusterDNS in assigned is a list: index it, as \[0\]/],
    ['maxPods[0]', /maxPods in assigned is a number, which has no fields/],
    ['evictionHard[0]', /evictionHard in assigned is a map: quote a key, as \["0"\]/],
    ['', /an empty path/],
  ];
  for (const [field, msg] of cases) {
    const r = runCli(['--dir', dcd, 'show', 'assigned', '--field', field]);
    t.equal(r.code, 2, field);
    t.match(r.stderr, msg, field);
  }
  t.equal(runCli(['--dir', dcd, 'show', 'assigned', '--field', 'clusterDNS[0]']).stdout, '10.96.0.10\n');
  const unset = runCli(['--dir', dcd, 'show', 'assigned', '--field', 'nosuch["a.b"][2]']);
  t.equal(unset.code, 1);
  t.match(unset.stdout, /^# nosuch\["a\.b"\]\[2\] is not set in assigned/);
});
