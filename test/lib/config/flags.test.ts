import t from 'tap';
import { applyFlagOverrides, applyFlagRegistrationResets, configFlags, parseKubeletFlags } from '../../../lib/config/flags.js';
import { readCsvRecord } from '../../../lib/config/flag-values.js';
import { lookupField } from '../../../lib/config/schema.js';
import type { KubeletVersion } from '../../../lib/config/version.js';

function valueOf(argv: string[], path: string, version: KubeletVersion = '1.23'): unknown {
  const r = parseKubeletFlags(argv, version);
  if (r.errors.length) throw new Error(r.errors.join('; '));
  return r.overrides.find((o) => o.path === path)?.value;
}

t.test('each flag kind parses into the config form', async (t) => {
  const table: [string[], string, unknown][] = [
    [['--fail-swap-on'], 'failSwapOn', true],
    [['--fail-swap-on=false'], 'failSwapOn', false],
    [['--fail-swap-on=F'], 'failSwapOn', false],
    [['--max-pods=0x1f'], 'maxPods', 31],
    [['--max-pods', '010'], 'maxPods', 8],
    [['--pod-max-pids=-1'], 'podPidsLimit', -1],
    [['-v4'], 'logging.verbosity', 4],
    [['-v=2'], 'logging.verbosity', 2],
    [['--v', '3'], 'logging.verbosity', 3],
    [['--cgroup-driver', 'systemd'], 'cgroupDriver', 'systemd'],
    [['--sync-frequency=90s'], 'syncFrequency', '1m30s'],
    [['--log-flush-frequency=10s'], 'logging.flushFrequency', 10_000_000_000],
    [['--cluster-dns=10.0.0.10,10.0.0.11'], 'clusterDNS', ['10.0.0.10', '10.0.0.11']],
    [['--tls-cipher-suites="a,b",c'], 'tlsCipherSuites', ['a,b', 'c']],
    [['--enforce-node-allocatable='], 'enforceNodeAllocatable', []],
    [['--kube-reserved= cpu = 100m ,,memory=1Gi'], 'kubeReserved', { cpu: '100m', memory: '1Gi' }],
    [['--eviction-hard=memory.available<100Mi,nodefs.available<5%'], 'evictionHard', { 'memory.available': '100Mi', 'nodefs.available': '5%' }],
    [['--eviction-hard='], 'evictionHard', {}],
    [['--cpu-manager-policy-options=full-pcpus-only=true,x'], 'cpuManagerPolicyOptions', { 'full-pcpus-only': 'true,x' }],
    [['--feature-gates=NodeSwap=true, MemoryQoS=false'], 'featureGates', { NodeSwap: true, MemoryQoS: false }],
    [['--manifest-url-header=A:1,A:2,B:3'], 'staticPodURLHeader', { A: ['1', '2'], B: ['3'] }],
    [['--address=10.0.0.1'], 'address', '10.0.0.1'],
    [['--address='], 'address', undefined],
    [['--reserved-memory=0:memory=1Gi,hugepages-2Mi=2Gi;1:memory=1Gi'], 'reservedMemory', [{ numaNode: 0, limits: { memory: '1Gi', 'hugepages-2Mi': '2Gi' } }, { numaNode: 1, limits: { memory: '1Gi' } }]],
    [['--register-with-taints=a=b:NoSchedule,c:NoExecute'], 'registerWithTaints', [{ key: 'a', value: 'b', effect: 'NoSchedule' }, { key: 'c', effect: 'NoExecute' }]],
    [['--vmodule=foo=2,bar*=3'], 'logging.vmodule', [{ filePattern: 'foo', verbosity: 2 }, { filePattern: 'bar*', verbosity: 3 }]],
    [['--log-json-info-buffer-size=1Mi'], 'logging.options.json.infoBufferSize', '1Mi'],
    [['--max_pods=7'], 'maxPods', 7],
  ];
  for (const [argv, path, want] of table) t.same(valueOf(argv, path), want, argv.join(' '));
});

t.test('repeated flags: scalars last wins, maps and lists accumulate, taints replace', async (t) => {
  const r = parseKubeletFlags([
    '--max-pods=1', '--max-pods=2',
    '--feature-gates=A=true,B=true', '--feature-gates=B=false',
    '--cluster-dns=1.1.1.1', '--cluster-dns=2.2.2.2',
    '--register-with-taints=a:NoSchedule', '--register-with-taints=b:NoSchedule',
    '--kernel-memcg-notification=true', '--experimental-kernel-memcg-notification=false',
  ], '1.23');
  const by = Object.fromEntries(r.overrides.map((o) => [o.path, o]));
  t.equal(by.maxPods!.value, 2);
  t.equal(by.maxPods!.occurrences, 2);
  t.equal(by.maxPods!.raw, '2');
  t.same(by.featureGates!.value, { A: true, B: false });
  t.same(by.clusterDNS!.value, ['1.1.1.1', '2.2.2.2']);
  t.same(by.registerWithTaints!.value, [{ key: 'b', effect: 'NoSchedule' }]);
  t.equal(by.kernelMemcgNotification!.value, false, 'an alias sets the same field, last wins');
  t.equal(by.kernelMemcgNotification!.flag, '--experimental-kernel-memcg-notification');
});

t.test('non-config flags are skipped with their values', async (t) => {
  const r = parseKubeletFlags(['/usr/bin/kubelet', '--kubeconfig', '/etc/kubernetes/kubelet.conf', '--container-runtime=remote',
    '--exit-on-lock-contention', '--max-pods', '9', '--log-dir', '/var/log', '--docker-env-metadata-whitelist', 'a,b', '--log-cadvisor-usage', '--seccomp-default'], '1.23');
  t.same(r.errors, []);
  t.same(r.overrides.map((o) => [o.flag, o.value]), [['--max-pods', 9]]);
  t.same(r.ignored, ['--kubeconfig', '--container-runtime', '--exit-on-lock-contention', '--log-dir', '--docker-env-metadata-whitelist', '--log-cadvisor-usage', '--seccomp-default']);
  t.same(r.klog, { 'log-dir': '/var/log' });
  t.equal(r.printsAndExits, null);
});

t.test('found by a fidelity review: a flag the release does not register ends the kubelet at its first parse', async (t) => {
  // pflag's ContinueOnError set: "failed to parse kubelet flag: unknown flag: --max-podz".
  const cases: [string[], KubeletVersion, string][] = [
    [['--max-podz=50'], '1.23', 'unknown flag: --max-podz'],
    [['--Max-Pods=5'], '1.23', 'unknown flag: --Max-Pods'],
    [['--unknown-thing', 'value', '--max-pods', '9'], '1.22', 'unknown flag: --unknown-thing'],
    [['--chaos-chance=0.0'], '1.22', 'unknown flag: --chaos-chance'],
    [['--seccomp-default'], '1.21', 'unknown flag: --seccomp-default'],
    [['--redirect-container-streaming'], '1.22', 'unknown flag: --redirect-container-streaming'],
    [['--seccomp-profile-root=/x'], '1.23', 'unknown flag: --seccomp-profile-root'],
    [['--memory-manager-policy=Static'], '1.20', 'unknown flag: --memory-manager-policy'],
  ];
  for (const [argv, version, error] of cases) t.same(parseKubeletFlags(argv, version).errors, [error], `${argv.join(' ')} on ${version}`);
  for (const [argv, version] of [[['--chaos-chance=0.0'], '1.21'], [['--seccomp-default'], '1.22'], [['--seccomp-profile-root=/x'], '1.22'], [['--enable-cadvisor-json-endpoints'], '1.20']] as [string[], KubeletVersion][]) {
    t.same(parseKubeletFlags(argv, version).errors, [], `${argv[0]} is a ${version} flag`);
  }
});

t.test('found by a fidelity review: --help, -h and --version print and end the kubelet (not when false)', async (t) => {
  const p = (argv: string[]) => parseKubeletFlags(argv, '1.23');
  t.equal(p(['--help']).printsAndExits, '--help');
  t.equal(p(['-h']).printsAndExits, '--help');
  t.equal(p(['--version']).printsAndExits, '--version');
  t.equal(p(['--version=raw']).printsAndExits, '--version');
  t.equal(p(['--version=1', '--help=false']).printsAndExits, '--version');
  t.equal(p(['--version=false', '--help=0']).printsAndExits, null);
  // pflag: -h=V sets help to V (found by a later review: -h=false was read as --help).
  t.equal(p(['-h=false']).printsAndExits, null);
  t.equal(p(['-h=0']).printsAndExits, null);
  t.equal(p(['-h=true']).printsAndExits, '--help');
  t.same(p(['-hx']).errors, ["unknown shorthand flag: 'x' in -hx"]);
  t.same(p(['--version=maybe']).errors, ['invalid argument "maybe" for "--version" flag: strconv.ParseBool: parsing "maybe": invalid syntax']);
});

t.test('flags that only became config fields in 1.23', async (t) => {
  const argv = ['--register-node', '--register-with-taints', 'a:NoSchedule', '-v', '4', '--vmodule=x=1', '--max-pods=3'];
  const v22 = parseKubeletFlags(argv, '1.22');
  t.same(v22.errors, []);
  t.same(v22.overrides.map((o) => o.path), ['maxPods']);
  t.same(v22.ignored, ['--register-node', '--register-with-taints', '-v', '--vmodule']);
  t.same(v22.klog, { vmodule: 'x=1' });
  const v23 = parseKubeletFlags(argv, '1.23');
  t.same(v23.overrides.map((o) => o.path), ['registerNode', 'registerWithTaints', 'logging.verbosity', 'logging.vmodule', 'maxPods']);
  t.notOk(parseKubeletFlags(['--memory-manager-policy=Static'], '1.20').overrides.length, 'memoryManagerPolicy is 1.21+');
});

t.test('command-line errors use pflag wording', async (t) => {
  const table: [string[], string][] = [
    [['--max-pods=abc'], 'invalid argument "abc" for "--max-pods" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--max-pods=3000000000'], 'invalid argument "3000000000" for "--max-pods" flag: strconv.ParseInt: parsing "3000000000": value out of range'],
    [['--fail-swap-on=maybe'], 'invalid argument "maybe" for "--fail-swap-on" flag: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [['--fail-swap-on', 'false'], 'unknown command "false"'],
    [['--sync-frequency=10'], 'invalid argument "10" for "--sync-frequency" flag: time: missing unit in duration "10"'],
    [['--feature-gates=NodeSwap'], 'invalid argument "NodeSwap" for "--feature-gates" flag: malformed pair, expect string=bool'],
    [['--feature-gates=NodeSwap=yes'], 'invalid argument "NodeSwap=yes" for "--feature-gates" flag: invalid value of NodeSwap: yes, err: strconv.ParseBool: parsing "yes": invalid syntax'],
    [['--kube-reserved=cpu'], 'invalid argument "cpu" for "--kube-reserved" flag: malformed pair, expect string=string'],
    // Only an empty item is skipped: ", " leaves " ", which has no separator (found by review).
    [['--feature-gates=DynamicKubeletConfig=true, '], 'invalid argument "DynamicKubeletConfig=true, " for "--feature-gates" flag: malformed pair, expect string=bool'],
    [['--kube-reserved=cpu=1, '], 'invalid argument "cpu=1, " for "--kube-reserved" flag: malformed pair, expect string=string'],
    [['--eviction-hard=memory.available<1Gi, '], 'invalid argument "memory.available<1Gi, " for "--eviction-hard" flag: malformed pair, expect string<string'],
    [['--eviction-hard=memory.available=1Gi'], 'invalid argument "memory.available=1Gi" for "--eviction-hard" flag: malformed pair, expect string<string'],
    [['--address=not-an-ip'], 'invalid argument "not-an-ip" for "--address" flag: "not-an-ip" is not a valid IP address'],
    [['-v=x'], 'invalid argument "x" for "-v, --v" flag: strconv.ParseUint: parsing "x": invalid syntax'],
    [['--vmodule=foo'], 'invalid argument "foo" for "--vmodule" flag: "foo" does not have the pattern=N format'],
    [['--max-pods'], 'flag needs an argument: --max-pods'],
    [['-x'], "unknown shorthand flag: 'x' in -x"],
    [['kubelet', 'stray'], 'unknown command "stray"'],
    [['--', '--max-pods=1'], 'unknown command "--max-pods=1"'],
  ];
  for (const [argv, want] of table) t.same(parseKubeletFlags(argv, '1.23').errors, [want], argv.join(' '));
});

t.test('applyFlagOverrides: flags win, checkpoint gates survive, vmodule appends', async (t) => {
  const config = {
    maxPods: 110, featureGates: { NodeSwap: true, MemoryQoS: true }, evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '10%' },
    clusterDNS: ['10.96.0.10'], logging: { format: 'text', vmodule: [{ filePattern: 'a', verbosity: 1 }] },
  };
  const frozen = JSON.stringify(config);
  const { overrides } = parseKubeletFlags(['--max-pods=20', '--feature-gates=MemoryQoS=false', '--eviction-hard=imagefs.available<5%', '--cluster-dns=1.1.1.1', '--vmodule=b=2'], '1.23');
  const out = applyFlagOverrides(config, overrides);
  t.equal(JSON.stringify(config), frozen, 'input untouched');
  t.equal(out.maxPods, 20);
  t.same(out.featureGates, { NodeSwap: true, MemoryQoS: false });
  t.same(out.evictionHard, { 'imagefs.available': '5%' }, 'a map flag replaces the whole map');
  t.same(out.clusterDNS, ['1.1.1.1']);
  t.same((out.logging as { vmodule: unknown }).vmodule, [{ filePattern: 'a', verbosity: 1 }, { filePattern: 'b', verbosity: 2 }]);
});

t.test('1.23 flag registration resets two logging fields', async (t) => {
  const config = { logging: { format: 'text', flushFrequency: 1_000_000_000, options: { json: { splitStream: true, infoBufferSize: '0' } } } };
  const r23 = applyFlagRegistrationResets(config, '1.23');
  t.same(r23.config.logging, { format: 'text', flushFrequency: 5_000_000_000, options: { json: { splitStream: false, infoBufferSize: '0' } } });
  t.same(r23.resets, [
    { path: 'logging.flushFrequency', from: 1_000_000_000, to: 5_000_000_000 },
    { path: 'logging.options.json.splitStream', from: true, to: false },
  ]);
  t.same(applyFlagRegistrationResets(config, '1.22'), { config, resets: [] });
});

t.test('every config flag targets a field of the right kind in its releases', async (t) => {
  const compatible: Record<string, string[]> = {
    bool: ['bool'], int32: ['int32'], int64: ['int64'], uint: ['uint32'], string: ['string'], duration: ['duration'], 'duration-ns': ['duration-ns'],
    list: ['list'], map: ['map'], 'map-lt': ['map'], 'map-1': ['map'], 'map-bool': ['map'], multimap: ['map'], ip: ['string'],
    'reserved-memory': ['list'], taints: ['list'], vmodule: ['list'], quantity: ['quantity'],
  };
  for (const v of ['1.20', '1.21', '1.22', '1.23'] as const) {
    for (const row of configFlags(v).values()) {
      const field = lookupField(row.path, v);
      t.ok(field && compatible[row.kind]!.includes(field.kind), `${v} --${row.flag} → ${row.path} (${row.kind} vs ${field?.kind})`);
    }
  }
});

t.test('CSV reading for list flags', async (t) => {
  t.same(readCsvRecord(''), []);
  t.same(readCsvRecord('a,,b,'), ['a', '', 'b', '']);
  t.same(readCsvRecord('"a ""q""",b'), ['a "q"', 'b']);
  t.throws(() => readCsvRecord('a"b'));
});

t.test('found by review: the program is never a word of the kubelet\'s, whatever runs it', async (t) => {
  for (const argv of [
    ['/usr/local/bin/kubelet-v1.22.4', '--max-pods=7'],
    ['hyperkube', 'kubelet', '--max-pods=7'],
    ['/bin/sh', '/opt/bin/kubelet', '--max-pods=7'],
    ['kubelet', '--max-pods=7'],
  ]) {
    const p = parseKubeletFlags(argv, '1.23');
    t.same(p.errors, [], argv.join(' '));
    t.same(p.overrides.map((o) => [o.flag, o.value]), [['--max-pods', 7]], argv.join(' '));
  }
  t.same(parseKubeletFlags(['/bin/sh', '/opt/bin/kubelet', 'extra'], '1.23').errors, ['unknown command "extra"']);
});
