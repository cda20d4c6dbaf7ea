// Generated --root nodes whose kubelet unit carries extra flags — in ExecStart, in a drop-in
// that replaces ExecStart, or in an EnvironmentFile expanded through $KUBELET_EXTRA_ARGS —
// judged against an oracle written from the kubelet's own start-up (cmd/kubelet/app/server.go
// and options.go, v1.23.0; the 1.20-1.23 gate defaults from flags-and-gates.json):
//   1. SetFromMap(flag --feature-gates): an unknown gate stops it ("unrecognized feature gate");
//   2. ValidateKubeletFlags: --dynamic-config-dir needs DynamicKubeletConfig, from the flags only;
//   3. the --config file (empty: "was empty"), flags re-applied over it;
//   4. ValidateKubeletConfiguration with the flag and file gates.
// The store itself is healthy: whenever the kubelet gets past start-up it runs assigned.
import t from 'tap';
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { openSession } from '../../../lib/session.js';
import { predictNextBoot } from '../../../lib/integrity/nextboot.js';
import { verifyStore } from '../../../lib/integrity/verify.js';
import type { KubeletVersion } from '../../../lib/config/version.js';
import { GOOD_PAYLOAD, metaYaml, writeTree } from '../../helpers.js';

const UID = 'cccccccc-0000-4000-8000-00000000000c';
const MINIMAL = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

interface Node {
  version: KubeletVersion;
  dkc: 'absent' | 'true' | 'false';
  bogusGate: boolean;
  cfsGateInFlags: boolean;
  maxPods: null | 110 | -3;
  healthzPort: null | 10248 | 70000;
  cfsPeriod: boolean;
  local: null | 'minimal' | 'empty' | 'maxpods-bad' | 'dkc-gate' | 'cfs-gate';
  placement: 'execstart' | 'dropin' | 'envfile';
}

const nodeArb: fc.Arbitrary<Node> = fc.record({
  version: fc.constantFrom<KubeletVersion>('1.20', '1.21', '1.22', '1.23'),
  dkc: fc.constantFrom<'absent' | 'true' | 'false'>('absent', 'true', 'true', 'false'),
  bogusGate: fc.constantFrom(false, false, false, true),
  cfsGateInFlags: fc.boolean(),
  maxPods: fc.constantFrom<null | 110 | -3>(null, null, 110, -3),
  healthzPort: fc.constantFrom<null | 10248 | 70000>(null, null, 10248, 70000),
  cfsPeriod: fc.boolean(),
  local: fc.constantFrom<Node['local']>(null, null, 'minimal', 'empty', 'maxpods-bad', 'dkc-gate', 'cfs-gate'),
  placement: fc.constantFrom<Node['placement']>('execstart', 'dropin', 'envfile'),
});

function flagsOf(n: Node): string[] {
  const gates = [n.dkc !== 'absent' ? `DynamicKubeletConfig=${n.dkc}` : null, n.bogusGate ? 'BogusGate=true' : null, n.cfsGateInFlags ? 'CustomCPUCFSQuotaPeriod=true' : null].filter(Boolean);
  return [
    ...(gates.length ? [`--feature-gates=${gates.join(',')}`] : []),
    ...(n.maxPods !== null ? [`--max-pods=${n.maxPods}`] : []),
    ...(n.healthzPort !== null ? [`--healthz-port=${n.healthzPort}`] : []),
    ...(n.cfsPeriod ? ['--cpu-cfs-quota-period=50ms'] : []),
    ...(n.local ? ['--config=/var/lib/kubelet/config.yaml'] : []),
  ];
}

const LOCAL: Record<NonNullable<Node['local']>, string> = {
  minimal: MINIMAL,
  empty: '',
  'maxpods-bad': MINIMAL + 'maxPods: -1\n',
  'dkc-gate': MINIMAL + 'featureGates:\n  DynamicKubeletConfig: true\n',
  'cfs-gate': MINIMAL + 'featureGates:\n  CustomCPUCFSQuotaPeriod: true\n',
};

/** The oracle: the step that stops the kubelet, or null when it reaches the store. */
function expected(n: Node): string | null {
  if (n.bogusGate) return 'flag-gates';
  const dkcDefault = n.version === '1.20' || n.version === '1.21';
  const dkc = n.dkc === 'absent' ? dkcDefault : n.dkc === 'true';
  if (!dkc) return 'flag-validate';
  if (n.local === 'empty') return 'local-load';
  const maxPodsBad = n.maxPods === -3 || (n.maxPods === null && n.local === 'maxpods-bad');
  const cfsGate = n.cfsGateInFlags || n.local === 'cfs-gate';
  if (maxPodsBad || n.healthzPort === 70000 || (n.cfsPeriod && !cfsGate)) return 'local-validate';
  return null;
}

function build(root: string, n: Node): void {
  const dcd = '/var/lib/kubelet/dynamic-config';
  const flags = flagsOf(n).join(' ');
  const files: Record<string, string> = {
    [`${dcd.slice(1)}/store/meta/assigned`]: metaYaml({ uid: UID, rv: '1' }),
    [`${dcd.slice(1)}/store/meta/last-known-good`]: '',
    [`${dcd.slice(1)}/store/checkpoints/${UID}/1/kubelet`]: GOOD_PAYLOAD,
  };
  const unit = (exec: string) => `[Unit]\nDescription=kubelet\n\n[Service]\n${exec}\nRestart=always\n`;
  if (n.placement === 'execstart') {
    files['etc/systemd/system/kubelet.service'] = unit(`ExecStart=/usr/bin/kubelet --dynamic-config-dir=${dcd} ${flags}`);
  } else if (n.placement === 'dropin') {
    files['lib/systemd/system/kubelet.service'] = unit('ExecStart=/usr/bin/kubelet');
    files['etc/systemd/system/kubelet.service.d/10-kubeadm.conf'] = `[Service]\nExecStart=\nExecStart=/usr/bin/kubelet --dynamic-config-dir=${dcd} ${flags}\n`;
  } else {
    files['etc/systemd/system/kubelet.service'] = unit(`EnvironmentFile=-/etc/default/kubelet\nExecStart=/usr/bin/kubelet --dynamic-config-dir=${dcd} $KUBELET_EXTRA_ARGS`);
    files['etc/default/kubelet'] = `KUBELET_EXTRA_ARGS="${flags}"\n`;
  }
  if (n.local) files['var/lib/kubelet/config.yaml'] = LOCAL[n.local];
  writeTree(root, files);
}

const runs = Number(process.env.FC_RUNS ?? 150);
const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
t.comment(`seed ${seed}, ${runs} nodes`);
const tmp = t.testdir();
let i = 0;
const failures: string[] = [];
const stages: Record<string, number> = {};
for (const n of fc.sample(nodeArb, { numRuns: runs, seed })) {
  const root = path.join(tmp, String(i++));
  fs.mkdirSync(root);
  build(root, n);
  const s = openSession({ root, kubeletVersion: n.version });
  const nb = predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local });
  const want = expected(n);
  const got = s.local.startup && !s.local.startup.ok ? s.local.startup.stage : null;
  stages[want ?? 'starts'] = (stages[want ?? 'starts'] ?? 0) + 1;
  const v = verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local });
  const startupFails = v.findings.some((f) => f.code === 'STARTUP_FAILS');
  const problems = [
    got !== want ? `stage ${got} (${s.local.startup?.error}), expected ${want}` : null,
    want ? (nb.source !== 'none' || nb.willStart !== false || nb.statusError !== null ? `next boot ${nb.source}/${nb.willStart}/${nb.statusError}` : null) : nb.source !== 'assigned' ? `next boot ${nb.source}: ${nb.reason}` : null,
    startupFails !== (want !== null) ? `STARTUP_FAILS ${startupFails}` : null,
    want === 'flag-validate' && !/--feature-gates on the kubelet command line/.test(nb.reason) ? `reason does not say where to set the gate: ${nb.reason}` : null,
  ].filter(Boolean);
  if (problems.length) failures.push(`${JSON.stringify(n)}: ${problems.join('; ')}`);
}
t.comment(`outcomes: ${JSON.stringify(stages)}`);
t.same(failures, [], `every generated node gets the kubelet's start-up verdict (seed ${seed})`);
