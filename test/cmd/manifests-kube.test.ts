// fleet manifest job|daemonset: kubectl's client-side dry run reads them (offline: a dummy
// kubeconfig on a loopback port nobody may connect to, and a discovery cache written here),
// and the containers' commands, run here against a fixture root, produce the reports.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { cliPath, copyFixture, json, repoRoot, runCli, tempDir, writeTree } from '../helpers.js';

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

/** A listener that counts connections: kubectl must make none. */
async function tripwire(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, connections: () => n, close: () => server.close() };
}

/** HOME with a kubeconfig for 127.0.0.1:port and the discovery documents kubectl would fetch. */
function offlineHome(port: number): string {
  const home = tempDir('kckpt-kube-');
  const gv = (group: string, resources: object[]) => ({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group, resources });
  const d = `.kube/cache/discovery/127.0.0.1_${port}`;
  const group = (name: string) => ({ name, versions: [{ groupVersion: name ? `${name}/v1` : 'v1', version: 'v1' }], preferredVersion: { groupVersion: name ? `${name}/v1` : 'v1', version: 'v1' } });
  writeTree(home, {
    '.kube/config': `apiVersion: v1\nkind: Config\nclusters:\n- name: offline\n  cluster: {server: "https://127.0.0.1:${port}"}\nusers:\n- name: nobody\n  user: {token: dummy}\ncontexts:\n- name: offline\n  context: {cluster: offline, user: nobody}\ncurrent-context: offline\n`,
    [`${d}/servergroups.json`]: JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [group(''), group('apps'), group('batch')] }),
    [`${d}/v1/serverresources.json`]: JSON.stringify(gv('v1', [{ name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['create', 'get'] }])),
    [`${d}/apps/v1/serverresources.json`]: JSON.stringify(gv('apps/v1', [{ name: 'daemonsets', singularName: 'daemonset', namespaced: true, kind: 'DaemonSet', verbs: ['create', 'get'], shortNames: ['ds'] }])),
    [`${d}/batch/v1/serverresources.json`]: JSON.stringify(gv('batch/v1', [{ name: 'jobs', singularName: 'job', namespaced: true, kind: 'Job', verbs: ['create', 'get'] }])),
  });
  return home;
}

function kubectl(home: string, args: string[], input: string) {
  return spawnSync('kubectl', args, { input, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: path.join(home, '.kube/config') } });
}

const docsOf = (text: string) => yaml.loadAll(text).filter((d) => d !== null) as Record<string, unknown>[];

for (const [kind, args] of [
  ['job', ['--target-node', 'node-a', '--target-node', 'Node_B.example']],
  ['job', []],
  ['daemonset', ['--image', 'registry.example/kubelet-ckpt:0.1.0']],
] as const) {
  t.test(`fleet manifest ${kind} ${args.join(' ')}: kubectl create --dry-run=client -o yaml round trip, offline`, { skip: hasKubectl ? false : 'kubectl is not installed' }, async (t) => {
    const ours = runCli(['fleet', 'manifest', kind, ...args]);
    t.equal(ours.code, 0, ours.stderr);
    const wire = await tripwire();
    t.teardown(wire.close);
    const home = offlineHome(wire.port);
    // --validate=false: schema validation downloads the server's OpenAPI document (no server here).
    const once = kubectl(home, ['create', '--dry-run=client', '--validate=false', '-o', 'yaml', '-f', '-'], ours.stdout);
    t.equal(once.status, 0, once.stderr);
    const back = docsOf(once.stdout).flatMap((d) => (d.kind === 'List' ? (d.items as Record<string, unknown>[]) : [d]));
    t.same(back, docsOf(ours.stdout), 'kubectl reads every field back unchanged');
    const twice = kubectl(home, ['create', '--dry-run=client', '--validate=false', '-o', 'yaml', '-f', '-'], once.stdout);
    t.equal(twice.status, 0, twice.stderr);
    t.equal(twice.stdout, once.stdout, 'a second round trip is byte-identical');
    t.equal(wire.connections(), 0, 'kubectl contacted no server');
    for (const d of back) {
      const spec = ((d.spec as { template: { spec: Record<string, unknown> } }).template.spec) as { containers: { volumeMounts: { mountPath: string; readOnly?: boolean }[] }[]; volumes: { hostPath?: { path: string } }[] };
      t.same(spec.containers[0]!.volumeMounts[0], { name: 'host', mountPath: '/host', readOnly: true }, 'the host is mounted read-only');
      t.same(spec.volumes[0]!.hostPath, { path: '/', type: 'Directory' });
    }
    if (kind === 'job' && args.length) t.same(back.map((d) => (d.metadata as { name: string }).name), ['kubelet-ckpt-report-node-a', 'kubelet-ckpt-report-node-b-example-6da3d0aa35']);
  });
}

t.test('Job names: distinct nodes get distinct, valid names; a name that fits stays as it is', async (t) => {
  const nodes = [
    'gke-production-cluster-default-pool-1a2b3c4d-x9z1',
    'gke-production-cluster-default-pool-1a2b3c4d-k2m7',
    'node.a',
    'node-a',
    'Node-A',
    '---',
    'x'.repeat(253),
    `${'x'.repeat(252)}y`,
  ];
  const names = (targets: string[]) => docsOf(runCli(['fleet', 'manifest', 'job', ...targets.map((n) => `--target-node=${n}`)]).stdout).map((d) => (d.metadata as { name: string }).name);
  const all = names(nodes);
  t.equal(new Set(all).size, nodes.length, `all distinct: ${all.join(' ')}`);
  for (const n of all) t.match(n, /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, `${n}: a DNS-1123 label of at most 63 characters`);
  t.equal(all[3], 'kubelet-ckpt-report-node-a', 'an unchanged short name stays as it is');
  t.equal(all[0], 'kubelet-ckpt-report-gke-production-cluster-default-p-1a5e5a3255');
  // One invocation per node (the guide's loop) gives the same names.
  t.same(nodes.map((n) => names([n])[0]), all);
});

t.test('the Job container command, run here: one NodeReport on stdout', async (t) => {
  const root = copyFixture('demo');
  writeTree(root, { 'etc/hostname': 'demo-node\n' });
  const doc = docsOf(runCli(['fleet', 'manifest', 'job', '--node', process.execPath, '--bundle', cliPath, '--host-root', root]).stdout)[0] as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
  const argv = doc.spec.template.spec.containers[0]!.command;
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: { PATH: process.env.PATH, NODE_NAME: 'node-from-downward-api', TMPDIR: tempDir('kckpt-podtmp-') } });
  t.equal(r.status, 0, r.stderr);
  t.match(json({ code: 0, stdout: r.stdout, stderr: '' }), { kind: 'NodeReport', node: { name: 'node-from-downward-api' }, store: { state: 'ok' } });
});

// Found by a fleet review: node's images have no journalctl, so every report from a Job or
// DaemonSet said "journalctl not found" and merge could never see a crash loop. The scripts
// then run the node's own journalctl inside its root. Here the "node" is a fixture root with a
// real journal (systemd-journal-remote) and this machine's /usr bind-mounted in, in a mount
// namespace of its own; the pod's PATH has no journalctl.
const REMOTE = ['/lib/systemd/systemd-journal-remote', '/usr/lib/systemd/systemd-journal-remote'].find((p) => fs.existsSync(p));
const isRoot = process.getuid?.() === 0;
t.test('the Job script without journalctl in the image: the node\'s own, through chroot, reads what the host\'s reads', { skip: !isRoot ? 'chroot and mounts need root' : !REMOTE ? 'systemd-journal-remote is not installed' : false }, async (t) => {
  const host = copyFixture('demo');
  writeTree(host, { 'etc/hostname': 'demo-node\n' });
  const jdir = path.join(host, 'var/log/journal/a1b2c3d4e5f60718293a4b5c6d7e8f90');
  fs.mkdirSync(jdir, { recursive: true });
  const made = spawnSync(REMOTE!, ['-o', path.join(jdir, 'system.journal'), '-'], { input: fs.readFileSync(path.join(repoRoot, 'fixtures/journals/structured-1.22.export')) });
  t.equal(made.status, 0, String(made.stderr));
  // The node's programs: this machine's /usr (merged /usr: bin, lib, lib64, sbin are links into it).
  fs.mkdirSync(path.join(host, 'usr'));
  for (const l of ['bin', 'lib', 'lib64', 'sbin']) fs.symlinkSync(`usr/${l}`, path.join(host, l));
  // The image: sh and the tools the script uses, and node; no journalctl.
  const tools = tempDir('kckpt-image-');
  for (const b of ['sh', 'mkdir', 'cat', 'chmod', 'chroot']) fs.symlinkSync(spawnSync('sh', ['-c', `command -v ${b}`], { encoding: 'utf8' }).stdout.trim(), path.join(tools, b));
  const doc = docsOf(runCli(['fleet', 'manifest', 'job', '--node', process.execPath, '--bundle', cliPath, '--host-root', host]).stdout)[0] as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
  const [, , script, ...rest] = doc.spec.template.spec.containers[0]!.command;
  const pod = spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind /usr "$HOST/usr" && exec env -i PATH="$TOOLS" TMPDIR="$PODTMP" NODE_NAME=node-1 sh -c "$SCRIPT" "$@"', 'sh', ...rest], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOST: host, TOOLS: tools, PODTMP: tempDir('kckpt-podtmp-'), SCRIPT: script },
  });
  t.equal(pod.status, 0, pod.stderr);
  const viaPod = JSON.parse(pod.stdout) as { crashLoop: { checked: boolean; detail: string | null } };
  t.equal(viaPod.crashLoop.checked, true, `the journal was read: ${viaPod.crashLoop.detail}`);
  // The same node read with this machine's journalctl: the same crash-loop findings.
  const direct = json<{ crashLoop: unknown }>(runCli(['--root', host, '-q', 'report', '--node-name', 'node-1', '--host', 'node-1']));
  t.same(viaPod.crashLoop, direct.crashLoop);
});

t.test('the DaemonSet container script, run here: report file, done file, log, then it waits', async (t) => {
  const root = copyFixture('demo');
  const results = tempDir('kckpt-sono-results-');
  const doc = docsOf(runCli(['fleet', 'manifest', 'daemonset', '--node', process.execPath, '--bundle', cliPath, '--host-root', root]).stdout)[0] as { spec: { template: { spec: { containers: { command: string[] }[] } } } };
  const cmd = doc.spec.template.spec.containers[0]!.command;
  const child = spawn(cmd[0]!, cmd.slice(1), { detached: true, env: { PATH: process.env.PATH, NODE_NAME: 'ds-node', SONOBUOY_RESULTS_DIR: results } });
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  let log = '';
  child.stdout!.on('data', (b) => (log += b));
  const done = path.join(results, 'done');
  for (let i = 0; i < 300 && !fs.existsSync(done); i++) await new Promise((r) => setTimeout(r, 100));
  t.ok(fs.existsSync(done), 'done written within 30 s');
  const named = fs.readFileSync(done, 'utf8').trim();
  t.equal(named, path.join(results, 'report-ds-node.json'));
  const rep = JSON.parse(fs.readFileSync(named, 'utf8'));
  t.match(rep, { kind: 'NodeReport', node: { name: 'ds-node' } });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(child.exitCode, null, 'still running (a DaemonSet pod must not exit)');
  t.same(JSON.parse(log), rep, 'the same report in the pod log');
  t.same(fs.readdirSync(results).sort(), ['done', 'report-ds-node.json']);
});

t.test('found by a review of this change: --host-root is taken in the form the tool resolves --root to (the journalctl wrapper strips it off paths)', async (t) => {
  for (const kind of ['job', 'daemonset', 'sonobuoy']) {
    const docs = docsOf(runCli(['fleet', 'manifest', kind, '--host-root', '/host//x/../']).stdout);
    t.match(JSON.stringify(docs), /"\/host"/, kind);
    t.notMatch(JSON.stringify(docs), /\/host\//, `${kind}: no /host/ left`);
  }
});

t.test('fleet manifest sonobuoy: a DaemonSet plugin whose container and podSpec kubectl reads as a Pod', { skip: hasKubectl ? false : 'kubectl is not installed' }, async (t) => {
  const out = runCli(['fleet', 'manifest', 'sonobuoy']);
  t.equal(out.code, 0, out.stderr);
  const plugin = docsOf(out.stdout)[0] as { 'sonobuoy-config': Record<string, string>; spec: { volumeMounts: { mountPath: string }[] }; podSpec: Record<string, unknown> };
  t.same(plugin['sonobuoy-config'], { driver: 'DaemonSet', 'plugin-name': 'kubelet-ckpt', 'result-format': 'raw', description: 'kubelet-ckpt NodeReport of every node' });
  t.same(plugin.spec.volumeMounts.map((m) => m.mountPath), ['/host', '/tmp'], 'no results mount of its own: Sonobuoy adds it');
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'kubelet-ckpt-plugin', namespace: 'sonobuoy' }, spec: { ...plugin.podSpec, containers: [plugin.spec] } };
  const wire = await tripwire();
  t.teardown(wire.close);
  const home = offlineHome(wire.port);
  const r = kubectl(home, ['create', '--dry-run=client', '--validate=false', '-o', 'yaml', '-f', '-'], yaml.dump(pod));
  t.equal(r.status, 0, r.stderr);
  t.same(docsOf(r.stdout)[0], pod);
  t.equal(wire.connections(), 0);
});
