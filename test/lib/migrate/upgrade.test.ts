// upgrade-check: the kubelet's start-up verdict per release, and the config it then runs.
import t from 'tap';
import path from 'node:path';
import { startupExit, upgradeCheck, parseTarget } from '../../../lib/migrate/upgrade.js';
import { upgradeHint } from '../../../lib/migrate/hint.js';
import { flagValue } from '../../../lib/store/proc.js';
import { openSession, type Session } from '../../../lib/session.js';
import { metaYaml, writeTree } from '../../helpers.js';

const UID = '11111111-2222-3333-4444-555555555555';
const HEAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n';

function node(argv: string[], local: string | null): Session {
  const dir = t.testdir();
  writeTree(dir, {
    'store/meta/assigned': metaYaml({ uid: UID, rv: '7' }),
    'store/meta/last-known-good': '',
    [`store/checkpoints/${UID}/7/kubelet`]: `${HEAD}maxPods: 50\n`,
    ...(local !== null ? { 'config.yaml': local } : {}),
  });
  const base = openSession({ dir, kubeletVersion: '1.23', kubeletConfig: local !== null ? path.join(dir, 'config.yaml') : undefined });
  const full = ['/usr/bin/kubelet', ...argv];
  // A command line as discovery would have found it in the unit.
  return { ...base, discovery: { ...base.discovery, commandLine: { argv: full, source: 'systemd unit', pid: null, cwd: '/' } }, kubeletArgv: full, judgeOptions: { ...base.judgeOptions, argv: full } };
}

t.test('start-up, in the kubelet\'s words, per release', async (t) => {
  const DIR = '--dynamic-config-dir=/d';
  const rows: [string[], string | null, string, RegExp | null][] = [
    [[DIR, '--feature-gates=DynamicKubeletConfig=true'], null, '1.23', null],
    [[DIR], null, '1.23', /the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag/],
    [[DIR], `${HEAD}featureGates:\n  DynamicKubeletConfig: true\n`, '1.22', /feature gate must be enabled/],
    [[DIR, '--feature-gates=DynamicKubeletConfig=true'], null, '1.24', /^Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir$/],
    [['--feature-gates=DynamicKubeletConfig=true'], null, '1.24', /^Error: cannot set feature gate DynamicKubeletConfig to true, feature is locked to false$/],
    [['--feature-gates=DynamicKubeletConfig=false'], null, '1.25', null],
    [[], `${HEAD}featureGates:\n  DynamicKubeletConfig: true\n`, '1.25', /locked to false/],
    [['--feature-gates=DynamicKubeletConfig=false'], null, '1.26', /^Error: failed to set feature gates from initial flags-based config: unrecognized feature gate: DynamicKubeletConfig$/],
    [[], `${HEAD}featureGates:\n  DynamicKubeletConfig: false\n`, '1.27', /unrecognized feature gate: DynamicKubeletConfig/],
    [[], `${HEAD}`, '1.30', null],
    // Removed with dockershim in 1.24: the first unknown flag in argv order is the one named.
    [['--network-plugin=cni', DIR, '--feature-gates=DynamicKubeletConfig=true'], null, '1.24', /^Error: failed to parse kubelet flag: unknown flag: --network-plugin$/],
    [['--cni_bin_dir', '/opt/cni/bin'], null, '1.26', /^Error: failed to parse kubelet flag: unknown flag: --cni_bin_dir$/],
    [['--network-plugin=cni', DIR, '--feature-gates=DynamicKubeletConfig=true'], null, '1.23', null],
    // klog's flags went in 1.26, --container-runtime in 1.27 (found by a migrate review).
    [['--logtostderr=true', '--v=2'], null, '1.26', /^Error: failed to parse kubelet flag: unknown flag: --logtostderr$/],
    [['--logtostderr=true', '--v=2'], null, '1.25', null],
    [['--v=2', '--log_dir', '/var/log', '--network-plugin=cni'], null, '1.26', /^Error: failed to parse kubelet flag: unknown flag: --log_dir$/],
    [['--container-runtime=remote'], null, '1.26', null],
    [['--container-runtime=remote'], null, '1.27', /^Error: failed to parse kubelet flag: unknown flag: --container-runtime$/],
    // A gate a later release removed, in the --config file or the flags (found by a migrate
    // review: kubespray's CSIMigration, carried into the config file, stops a 1.27 kubelet).
    [[], `${HEAD}featureGates:\n  CSIMigration: true\n`, '1.26', null],
    [[], `${HEAD}featureGates:\n  CSIMigration: true\n`, '1.27', /^Error: failed to set feature gates from initial flags-based config: unrecognized feature gate: CSIMigration$/],
    [['--feature-gates=RotateKubeletServerCertificate=true,TTLAfterFinished=true'], null, '1.25', /unrecognized feature gate: TTLAfterFinished$/],
    [['--feature-gates=TTLAfterFinished=true'], null, '1.24', null],
    [['--feature-gates=RotateKubeletServerCertificate=true'], `${HEAD}featureGates:\n  GracefulNodeShutdown: true\n`, '1.30', null],
  ];
  for (const [argv, local, to, want] of rows) {
    const got = startupExit(node(argv, local), parseTarget(to));
    if (want === null) t.equal(got, null, `${argv.join(' ')} at ${to}: starts`);
    else t.match(got, want, `${argv.join(' ')} at ${to}`);
  }
  t.throws(() => parseTarget('2.0'), { exitCode: 2 });
});

t.test('the silent revert, and the same config after a migration', async (t) => {
  const on = node(['--dynamic-config-dir=/d', '--feature-gates=DynamicKubeletConfig=true'], `${HEAD}maxPods: 110\n`);
  const r = upgradeCheck(on, { to: '1.24', root: '/' });
  t.equal(r.kind, 'UpgradeCheck');
  t.equal(r.breaks, true);
  t.equal(r.now.source, 'assigned');
  t.same(r.withoutFlag?.changes, [{ path: 'maxPods', op: 'changed', from: 50, to: 110 }]);
  const off = node(['--max-pods=60'], `${HEAD}maxPods: 50\n`);
  const m = upgradeCheck(off, { to: '1.24', root: '/' });
  t.equal(m.now.source, 'local', 'no flag: the store is not read');
  t.equal(m.breaks, false);
  t.equal(m.changesConfig, false);
  t.equal(m.now.config?.maxPods, 60, 'flags applied');
});

t.test('a dockershim flag left on the command line: 1.24 exits on it even after the migration', async (t) => {
  const on = node(['--dynamic-config-dir=/d', '--feature-gates=DynamicKubeletConfig=true', '--network-plugin=cni'], `${HEAD}maxPods: 110\n`);
  const r = upgradeCheck(on, { to: '1.24', root: '/' });
  t.match(r.after, { starts: false, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir' });
  t.match(r.withoutFlag, { starts: false, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --network-plugin' }, 'without --dynamic-config-dir the next removed flag stops it');
});

t.test('the status hint', async (t) => {
  t.equal(upgradeHint(['kubelet', '--config=/c'], 'assigned'), null);
  t.match(upgradeHint(['kubelet', '--dynamic-config-dir', '/d'], 'assigned'), /1\.24\+ exits on --dynamic-config-dir; without the flag it silently drops the checkpoint/);
  t.notMatch(upgradeHint(['kubelet', '--dynamic-config-dir=/d'], 'local'), /silently/);
  t.match(upgradeHint(['kubelet', '--feature-gates', 'DynamicKubeletConfig=false'], 'local'), /--feature-gates still names DynamicKubeletConfig/);
  t.equal(upgradeHint(['kubelet', '--feature-gates=X=true'], 'local'), null);
});

t.test('flag names are normalised _ → - (cliflag.WordSepNormalizeFunc), as the kubelet reads them', async (t) => {
  const u = node(['--dynamic_config_dir=/d', '--feature_gates=DynamicKubeletConfig=true'], null);
  t.equal(startupExit(u, parseTarget('1.23')), null, '1.23 starts: the flag and its gate are there');
  t.equal(startupExit(u, parseTarget('1.24')), 'Error: failed to parse kubelet flag: unknown flag: --dynamic_config_dir', 'pflag names the flag as written');
  const r = upgradeCheck(u, { to: '1.24', root: '/' });
  t.equal(r.now.source, 'assigned', 'the store is read');
  t.ok(r.withoutFlag);
  t.match(upgradeHint(['kubelet', '--dynamic_config_dir', '/d'], 'assigned'), /1\.24\+ exits on --dynamic-config-dir; without the flag/);
  t.equal(flagValue(['kubelet', '--hostname_override=a', '--hostname-override', 'b'], 'hostname-override'), 'b', 'both spellings are one flag; the last wins');
  t.equal(flagValue(['kubelet', '--dynamic_config_dir=/x'], 'dynamic_config_dir'), '/x');
});

t.test('no command line found: "now" and "after" rest on one assumption, --dynamic-config-dir', async (t) => {
  const dir = t.testdir();
  writeTree(dir, { 'store/meta/assigned': metaYaml({ uid: UID, rv: '7' }), 'store/meta/last-known-good': '', [`store/checkpoints/${UID}/7/kubelet`]: `${HEAD}maxPods: 50\n` });
  const r = upgradeCheck(openSession({ dir, kubeletVersion: '1.23' }), { to: '1.24', root: '/' });
  t.same(r.assumedFlags, [`--dynamic-config-dir=${dir}`, '--feature-gates=DynamicKubeletConfig=true']);
  t.equal(r.now.source, 'assigned', 'now: the store is read');
  t.match(r, { breaks: true, after: { starts: false, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir', reason: /with the assumed command line/ } });
  // With no --config, the kubelet runs its flag defaults (applyLegacyDefaults; found by review).
  t.same(
    r.withoutFlag?.changes,
    [
      { path: 'authentication.anonymous.enabled', op: 'changed', from: false, to: true },
      { path: 'authentication.webhook.enabled', op: 'changed', from: true, to: false },
      { path: 'authorization.mode', op: 'changed', from: 'Webhook', to: 'AlwaysAllow' },
      { path: 'maxPods', op: 'changed', from: 50, to: 110 },
      { path: 'readOnlyPort', op: 'added', from: null, to: 10255 },
    ],
    'dropping the flag reverts the checkpoint to the flag defaults',
  );
  const old = upgradeCheck(openSession({ dir, kubeletVersion: '1.21' }), { to: '1.22', root: '/' });
  t.same(old.assumedFlags, [`--dynamic-config-dir=${dir}`], 'a 1.21 kubelet needs no gate to read the store: none is assumed');
  t.match(old.after, { starts: false, exitMessage: /feature gate must be enabled in order to use the --dynamic-config-dir flag/ });
});

t.test('nothing runs now: never "the same config"', async (t) => {
  const dir = t.testdir();
  writeTree(dir, { 'store/meta/assigned': 'garbage: [', 'store/meta/last-known-good': '', 'store/checkpoints': null });
  const s = node(['--dynamic-config-dir=/d', '--feature-gates=DynamicKubeletConfig=true'], null);
  const broken = { ...s, snap: openSession({ dir, kubeletVersion: '1.23' }).snap };
  const r = upgradeCheck(broken, { to: '1.23', root: '/' });
  t.equal(r.now.source, 'none');
  t.match(r, { breaks: true, changesConfig: false, after: { starts: false, exitMessage: /cannot be decoded, so the kubelet will not start/ } });
  const r24 = upgradeCheck(broken, { to: '1.24', root: '/' });
  t.match(r24, { breaks: true, withoutFlag: { starts: true, changes: [] } });
});

t.test('found by a migrate review: what runs now has the old local file\'s gates under the checkpoint\'s', async (t) => {
  const on = node(['--dynamic-config-dir=/d', '--feature-gates=DynamicKubeletConfig=true'], `${HEAD}featureGates:\n  CPUManager: false\n`);
  const r = upgradeCheck(on, { to: '1.24', root: '/' });
  t.equal(r.now.source, 'assigned');
  t.equal((r.now.config?.featureGates as Record<string, boolean>).CPUManager, false);
  t.notOk(r.withoutFlag?.changes.some((c) => c.path === 'featureGates.CPUManager'), 'a gate the local file sets holds now as after');
});
