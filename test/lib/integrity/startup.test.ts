// The kubelet's start-up checks before it reads the store (server.go), as a table:
// command line (+ local config) → the step that stops it and the kubelet's text.
import t from 'tap';
import { checkStartup, startupReason } from '../../../lib/integrity/startup.js';
import { judgeLocalConfig } from '../../../lib/integrity/pipeline.js';
import type { KubeletVersion } from '../../../lib/config/version.js';

const DIR = '--dynamic-config-dir=/var/lib/kubelet/dynamic-config';
const GATE = '--feature-gates=DynamicKubeletConfig=true';
const GATE_TEXT = 'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag';
const MINIMAL = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

function run(argv: string[] | null, opts: { version?: KubeletVersion; local?: string } = {}) {
  const version = opts.version ?? '1.23';
  const full = argv === null ? null : ['/usr/bin/kubelet', ...argv];
  const config = opts.local === undefined ? null : { path: '/etc/kubelet.yaml', judgement: judgeLocalConfig(Buffer.from(opts.local), '/etc/kubelet.yaml', { version, argv: full ?? [] }) };
  return checkStartup({ version, argv: full, config });
}

t.test('the gate off: its default, or --feature-gates, is named as the cause (found by review)', async (t) => {
  const cases: [string[], KubeletVersion, string][] = [
    [[DIR], '1.23', '--dynamic-config-dir (DynamicKubeletConfig is off by default on 1.23)'],
    [[DIR, '--feature-gates=DynamicKubeletConfig=false'], '1.23', '--dynamic-config-dir (--feature-gates turns DynamicKubeletConfig off)'],
    [[DIR, '--feature-gates=DynamicKubeletConfig=false'], '1.21', '--dynamic-config-dir (--feature-gates turns DynamicKubeletConfig off)'],
    [[DIR, '--feature-gates=AllBeta=false'], '1.20', '--dynamic-config-dir (--feature-gates turns DynamicKubeletConfig off)'],
  ];
  for (const [argv, version, subject] of cases) {
    const s = run(argv, { version });
    t.same({ stage: s.stage, subject: s.subject }, { stage: 'flag-validate', subject }, `${version} ${argv.join(' ')}`);
  }
  t.equal(run([DIR], { version: '1.21' }).ok, true, 'on by default on 1.21');
});

t.test('flags with no --config file: defaults + flags are validated', async (t) => {
  const table: [string[], string | null, string | null][] = [
    [[DIR, GATE], null, null],
    [[DIR, GATE, '--max-pods=-3'], 'local-validate', 'invalid configuration: maxPods (--max-pods) -3 must not be a negative number'],
    [[DIR, GATE, '--healthz-port=70000'], 'local-validate', 'invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive'],
    [[DIR, GATE, '--healthz-port=70000', '--max-pods=-3'], 'local-validate', '[invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive, invalid configuration: maxPods (--max-pods) -3 must not be a negative number]'],
    [[DIR, GATE, '--cpu-cfs-quota-period=50ms'], 'local-validate', 'invalid configuration: cpuCFSQuotaPeriod {50ms} requires feature gate CustomCPUCFSQuotaPeriod'],
    [[DIR, GATE, '--cpu-cfs-quota-period=50ms', '--feature-gates=CustomCPUCFSQuotaPeriod=true'], null, null],
    [[DIR, GATE, '--feature-gates=BogusGate=true'], 'flag-gates', 'unrecognized feature gate: BogusGate'],
    [[DIR, '--feature-gates=DynamicKubeletConfig=true,BogusGate=false'], 'flag-gates', 'unrecognized feature gate: BogusGate'],
    [[DIR, GATE, '--max-pods=many'], 'flags', 'invalid argument "many" for "--max-pods" flag: strconv.ParseInt: parsing "many": invalid syntax'],
    [[DIR], 'flag-validate', GATE_TEXT],
    [[DIR, '--feature-gates=DynamicKubeletConfig=false'], 'flag-validate', GATE_TEXT],
    // AllAlpha sets Alpha gates only: on 1.23 DynamicKubeletConfig is Deprecated.
    [[DIR, '--feature-gates=AllAlpha=true'], 'flag-validate', GATE_TEXT],
    [['--max-pods=-3'], 'local-validate', 'invalid configuration: maxPods (--max-pods) -3 must not be a negative number'],
    [[], null, null],
  ];
  for (const [argv, stage, error] of table) {
    const s = run(argv);
    t.same({ ok: s.ok, stage: s.stage, error: s.error }, { ok: stage === null, stage, error }, argv.join(' ') || '(no flags)');
  }
});

t.test('the DynamicKubeletConfig gate: off by default on 1.22 and 1.23, on before', async (t) => {
  for (const version of ['1.20', '1.21'] as const) t.equal(run([DIR], { version }).ok, true, `${version}: on by default`);
  for (const version of ['1.22', '1.23'] as const) {
    const s = run([DIR], { version });
    t.equal(s.error, GATE_TEXT, `${version}: off by default`);
    t.match(startupReason(s), /--feature-gates on the kubelet command line/, 'the reason says where to set it');
    t.match(startupReason(s), new RegExp(`off by default on ${version.replace('.', '\\.')}`));
  }
  // ValidateKubeletFlags runs before --config is read: a gate only in featureGates does not help.
  const s = run([DIR, '--config=/etc/kubelet.yaml'], { local: MINIMAL + 'featureGates:\n  DynamicKubeletConfig: true\n' });
  t.equal(s.error, GATE_TEXT, 'a gate in the local config comes too late');
  t.equal(run([DIR, GATE, '--config=/etc/kubelet.yaml'], { local: MINIMAL }).ok, true);
  t.equal(run(['--config=/etc/kubelet.yaml'], { local: MINIMAL }).ok, true, 'no --dynamic-config-dir, no gate needed');
  // ValidateKubeletFlags asks Provided(): given empty, the flag still needs the gate (found by review).
  for (const empty of [['--dynamic-config-dir='], ['--dynamic-config-dir', '']]) {
    t.equal(run(empty, { version: '1.23' }).error, GATE_TEXT, `${JSON.stringify(empty)} on 1.23`);
    t.equal(run([...empty, GATE], { version: '1.23' }).ok, true, `${JSON.stringify(empty)} with the gate`);
  }
});

t.test('the gate turned off in the local config: the config controller does not start', async (t) => {
  // reference flags-and-gates.md §3.1 step 4; found by review (1.20/1.21: status said it starts).
  const off = MINIMAL + 'featureGates:\n  DynamicKubeletConfig: false\n';
  const local = ['--config=/etc/kubelet.yaml'];
  for (const version of ['1.20', '1.21'] as const) {
    const s = run([DIR, ...local], { version, local: off });
    t.equal(s.error, 'failed to bootstrap Kubelet config controller, you must enable the DynamicKubeletConfig feature gate', version);
    t.match(startupReason(s), /featureGates in the local config \/etc\/kubelet\.yaml/);
    t.equal(run([DIR, GATE, ...local], { version, local: off }).ok, true, `${version}: the flag's gate wins over the file's`);
    t.equal(run(local, { version, local: off }).ok, true, `${version}: no --dynamic-config-dir, no controller`);
    t.equal(run(['--dynamic-config-dir=', ...local], { version, local: off }).ok, true, `${version}: an empty one starts no controller`);
  }
});

t.test('--seccomp-default needs its gate on releases that have it', async (t) => {
  t.equal(run([DIR, GATE, '--seccomp-default']).error, 'the SeccompDefault feature gate must be enabled in order to use the --seccomp-default flag');
  t.equal(run([DIR, GATE, '--seccomp-default', '--feature-gates=SeccompDefault=true']).ok, true);
  t.equal(run([DIR, '--seccomp-default'], { version: '1.21' }).error, 'unknown flag: --seccomp-default', '1.21 has no such flag (flags-and-gates.md §2: 1.22+)');
});

t.test('flag names are normalised _ → - (cliflag.WordSepNormalizeFunc)', async (t) => {
  t.match(run(['--dynamic_config_dir=/var/lib/kubelet/dynamic-config']), { ok: false, stage: 'flag-validate', error: GATE_TEXT });
  t.equal(run([DIR, GATE, '--seccomp_default']).error, 'the SeccompDefault feature gate must be enabled in order to use the --seccomp-default flag');
});

t.test('the local --config file, with the flags over it', async (t) => {
  t.same(run([DIR, GATE, '--config=/etc/kubelet.yaml'], { local: '' }), {
    ok: false, stage: 'local-load', error: 'failed to load Kubelet config file /etc/kubelet.yaml, error kubelet config file "/etc/kubelet.yaml" was empty',
    subject: 'the local config /etc/kubelet.yaml', fix: null, unchecked: [],
  });
  t.equal(run([DIR, GATE, '--config=/etc/kubelet.yaml'], { local: MINIMAL + 'maxPods: -1\n' }).stage, 'local-validate');
  t.equal(run([DIR, GATE, '--config=/etc/kubelet.yaml', '--max-pods=10'], { local: MINIMAL + 'maxPods: -1\n' }).ok, true, 'a flag overrides the bad field');
  t.equal(run([DIR, '--feature-gates=Bogus=true', '--config=/etc/kubelet.yaml'], { local: '' }).stage, 'flag-gates', 'flag gates are set before the file is read');
});

t.test('command line unknown: only the local file is checked, and that is said', async (t) => {
  const s = run(null);
  t.equal(s.ok, true);
  t.match(s.unchecked, [/command line is not known/]);
  const l = run(null, { local: MINIMAL + 'maxPods: -1\n' });
  t.same([l.ok, l.stage], [false, 'local-validate']);
  t.match(l.unchecked, [/not checked/]);
});

t.test('no command line and no --kubelet-config: the local config is said to be unchecked, not absent', async (t) => {
  const c = checkStartup({ argv: null, config: null, version: '1.22' });
  t.equal(c.ok, true);
  t.match(c.unchecked, [/command line is not known/, /whether the kubelet has a --config file is not known/]);
});

t.test('--node-labels in the kubernetes.io or k8s.io namespace: only those the kubelet may set on itself', async (t) => {
  // Found by review: ValidateKubeletFlags exits on node-role.kubernetes.io/worker (since 1.16); we said it starts.
  for (const version of ['1.20', '1.23'] as const) {
    const bad = run([DIR, GATE, '--node-labels=node-role.kubernetes.io/worker=,team=a', '--node-labels', 'x.k8s.io/y=1'], { version, local: MINIMAL });
    t.equal(bad.ok, false, version);
    t.equal(bad.stage, 'flag-validate');
    t.equal(bad.error, "unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [node-role.kubernetes.io/worker x.k8s.io/y]\n--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) or be in the specifically allowed set (beta.kubernetes.io/arch, beta.kubernetes.io/instance-type, beta.kubernetes.io/os, failure-domain.beta.kubernetes.io/region, failure-domain.beta.kubernetes.io/zone, kubernetes.io/arch, kubernetes.io/hostname, kubernetes.io/os, node.kubernetes.io/instance-type, topology.kubernetes.io/region, topology.kubernetes.io/zone)");
  }
  const fine = run([DIR, GATE, '--node-labels=node.kubernetes.io/pool=a,kubernetes.io/hostname=h,a.kubelet.kubernetes.io/x=1,example.com/kubernetes.io=2,kubernetes.io=3,team=b'], { local: MINIMAL });
  t.equal(fine.ok, true, 'allowed prefixes, the allowed set, other namespaces, no namespace');
  const malformed = run([DIR, GATE, '--node-labels=team=a, '], { local: MINIMAL });
  t.match(malformed, { ok: false, stage: 'flags', error: 'invalid argument "team=a, " for "--node-labels" flag: malformed pair, expect string=string' });
});

t.test('found by a fidelity review: an unknown flag, --help or --version end the kubelet before the store', async (t) => {
  t.match(run([DIR, GATE, '--max-podz=50']), { ok: false, stage: 'flags', error: 'unknown flag: --max-podz' });
  t.match(run([DIR, GATE, '--version']), { ok: false, stage: 'flags', error: '--version given: the kubelet prints its version and exits 0', fix: 'remove --version from the kubelet unit or its env file' });
  t.match(run([DIR, GATE, '-h']), { ok: false, stage: 'flags', error: '--help given: the kubelet prints its usage and exits 0' });
  t.equal(run([DIR, GATE, '--version=false']).ok, true);
  // The parse comes first: a bad flag after --help is what the kubelet says.
  t.match(run([DIR, GATE, '--help', '--max-podz=1']), { error: 'unknown flag: --max-podz' });
});
