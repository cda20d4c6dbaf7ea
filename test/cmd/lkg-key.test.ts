// Assigned and last-known-good naming two resourceVersions of one ConfigMap, each with its own
// kubeletConfigKey: each checkpoint's payload is the file its own meta file names. verify and
// ls once took the key from the assigned file for every checkpoint of the UID, and so judged
// last-known-good by the wrong file: a false LKG_UNUSABLE one way, a false "ok" the other.
import t from 'tap';
import { json, metaYaml, runCli, tempDir, writeTree, GOOD_PAYLOAD } from '../helpers.js';

const UID = '5e1f0000-0000-4000-8000-00000000c0de';
const BAD = 'kind: [\n';
const INVALID = `${GOOD_PAYLOAD}healthzPort: 70000\n`;

function store(files: Record<string, string>, lkgKey = 'cfg'): string {
  const dcd = tempDir('kckpt-lkgkey-');
  writeTree(dcd, {
    'store/meta/assigned': metaYaml({ uid: UID, rv: '2', key: 'kubelet' }),
    'store/meta/last-known-good': metaYaml({ uid: UID, rv: '1', key: lkgKey }),
    ...Object.fromEntries(Object.entries(files).map(([k, v]) => [`store/checkpoints/${UID}/${k}`, v])),
  });
  return dcd;
}

type Report = { ok: boolean; findings: { code: string; ref: string | null; path: string | null }[] };
const codes = (r: Report) => r.findings.map((x) => `${x.code} ${x.ref}`).sort();

t.test('last-known-good good under its own key, a broken file under the assigned key beside it', async (t) => {
  const dcd = store({ '1/cfg': GOOD_PAYLOAD, '1/kubelet': BAD, '2/kubelet': INVALID });
  const v = runCli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(v.code, 1);
  t.same(codes(json<Report>(v)), [`PAYLOAD_INVALID ${UID}/2`], 'no LKG_UNUSABLE, no PAYLOAD_DECODE of the file no meta file names');
  const s = json<{ nextBoot: { source: string; willStart: boolean } }>(runCli(['--dir', dcd, 'status', '--no-journal', '-o', 'json']));
  t.match(s.nextBoot, { source: 'last-known-good', willStart: true });
  const ls = json<{ checkpoints: { resourceVersion: string; verify: string }[] }>(runCli(['--dir', dcd, 'ls', '-o', 'json']));
  t.same(ls.checkpoints.map((c) => [c.resourceVersion, c.verify]), [['1', 'ok'], ['2', 'error']]);
});

t.test('last-known-good broken under its own key, a good file under the assigned key beside it', async (t) => {
  const dcd = store({ '1/cfg': BAD, '1/kubelet': GOOD_PAYLOAD, '2/kubelet': GOOD_PAYLOAD });
  const v = json<Report>(runCli(['--dir', dcd, 'verify', '-o', 'json']));
  t.equal(v.ok, false, 'not a false ok');
  t.ok(codes(v).includes('LKG_UNUSABLE last-known-good'), codes(v).join(', '));
  t.ok(v.findings.some((x) => x.code === 'PAYLOAD_DECODE' && x.path === `checkpoints/${UID}/1/cfg`));
});

t.test('last-known-good names a key its checkpoint does not have: LKG_UNUSABLE too', async (t) => {
  const dcd = store({ '1/kubelet': GOOD_PAYLOAD, '2/kubelet': GOOD_PAYLOAD }, 'nokey');
  const r = runCli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(r.code, 1);
  const v = json<Report>(r);
  t.ok(codes(v).includes('PAYLOAD_KEY_MISSING last-known-good'), codes(v).join(', '));
  t.ok(codes(v).includes('LKG_UNUSABLE last-known-good'), codes(v).join(', '));
  t.match(runCli(['--dir', dcd, 'verify']).stdout, /reset last-known-good --dry-run/, 'the next step that mends it');
});
