#!/usr/bin/env node
// Generates the fixture trees under fixtures/ byte for byte, so they are reproducible.
//   node scripts/fixtures.mjs          write every fixture tree (then commit them)
//   node scripts/fixtures.mjs --check  fail if the committed trees differ from what this writes
//   node scripts/fixtures.mjs --modes  set what git does not keep: mtimes (relative to now),
//                                      file modes, and entries git cannot hold (FIFOs, big files)
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(new URL('..', import.meta.url).pathname, 'fixtures');
const args = new Set(process.argv.slice(2));

// ---- payloads -------------------------------------------------------------------------
/** A configz-style full KubeletConfiguration, as the reconfigure-kubelet task produces. */
function configz(over = {}) {
  return {
    kind: 'KubeletConfiguration',
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    staticPodPath: '/etc/kubernetes/manifests',
    syncFrequency: '1m0s',
    fileCheckFrequency: '20s',
    httpCheckFrequency: '20s',
    address: '0.0.0.0',
    port: 10250,
    tlsCertFile: '/var/lib/kubelet/pki/kubelet.crt',
    tlsPrivateKeyFile: '/var/lib/kubelet/pki/kubelet.key',
    rotateCertificates: true,
    authentication: { x509: { clientCAFile: '/etc/kubernetes/pki/ca.crt' }, webhook: { enabled: true, cacheTTL: '2m0s' }, anonymous: { enabled: false } },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
    registryPullQPS: 5,
    registryBurst: 10,
    eventRecordQPS: 5,
    eventBurst: 10,
    enableDebuggingHandlers: true,
    healthzPort: 10248,
    healthzBindAddress: '127.0.0.1',
    oomScoreAdj: -999,
    clusterDomain: 'cluster.local',
    clusterDNS: ['10.96.0.10'],
    streamingConnectionIdleTimeout: '4h0m0s',
    nodeStatusUpdateFrequency: '10s',
    nodeStatusReportFrequency: '1m0s',
    nodeLeaseDurationSeconds: 40,
    imageMinimumGCAge: '2m0s',
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    volumeStatsAggPeriod: '1m0s',
    cgroupsPerQOS: true,
    cgroupDriver: 'systemd',
    cpuManagerPolicy: 'none',
    cpuManagerReconcilePeriod: '10s',
    runtimeRequestTimeout: '2m0s',
    hairpinMode: 'promiscuous-bridge',
    maxPods: 110,
    podPidsLimit: -1,
    resolvConf: '/run/systemd/resolve/resolv.conf',
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: '100ms',
    maxOpenFiles: 1000000,
    contentType: 'application/vnd.kubernetes.protobuf',
    kubeAPIQPS: 5,
    kubeAPIBurst: 10,
    serializeImagePulls: true,
    evictionHard: { 'imagefs.available': '15%', 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%' },
    evictionPressureTransitionPeriod: '5m0s',
    enableControllerAttachDetach: true,
    makeIPTablesUtilChains: true,
    iptablesMasqueradeBit: 14,
    iptablesDropBit: 15,
    failSwapOn: true,
    containerLogMaxSize: '10Mi',
    containerLogMaxFiles: 5,
    configMapAndSecretChangeDetectionStrategy: 'Watch',
    enforceNodeAllocatable: ['pods'],
    ...over,
  };
}

/** YAML the way `kubectl create configmap --from-file` keeps a hand-edited file: block style. */
function yamlOf(v, indent = '') {
  const out = [];
  for (const [k, val] of Object.entries(v)) {
    const key = /^[A-Za-z][A-Za-z0-9]*$/.test(k) ? k : JSON.stringify(k);
    if (Array.isArray(val)) {
      out.push(`${indent}${key}:`);
      for (const x of val) out.push(`${indent}- ${typeof x === 'string' ? scalar(x) : x}`);
    } else if (val && typeof val === 'object') {
      out.push(`${indent}${key}:`);
      out.push(yamlOf(val, `${indent}  `));
    } else out.push(`${indent}${key}: ${typeof val === 'string' ? scalar(val) : val}`);
  }
  return out.join('\n');
}
const scalar = (s) => (/^[A-Za-z/][A-Za-z0-9./_-]*$/.test(s) && !/^(true|false|yes|no|on|off|null|y|n)$/i.test(s) ? s : JSON.stringify(s));
const yamlDoc = (v) => `${yamlOf(v)}\n`;
const jsonDoc = (v) => `${JSON.stringify(v, null, 2)}\n`;

/** The kubelet's encoding of a SerializedNodeConfigSource (golden form, store-format.md). */
function meta({ namespace = 'kube-system', name, uid, rv, key = 'kubelet' }) {
  const q = (s) => (/^[0-9]+$/.test(s) ? `"${s}"` : s);
  return `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: ${key}\n    name: ${name}\n    namespace: ${namespace}\n    resourceVersion: ${q(rv)}\n    uid: ${uid}\n`;
}

// ---- trees ------------------------------------------------------------------------------
const UID_A = '5808539f-48e3-4e47-8ce6-c261c48fa1d9'; // node-config-worker, edited in place
const UID_OLD = '705ab4f5-6393-11e8-b7cc-42010a800002'; // an older ConfigMap no meta names
const UID_X = '946d785e-998a-11e7-a8dd-42010a800006';

const trees = {};

/** fixtures/demo: a node's root with kubeadm wiring and a dynamic-config store. */
trees.demo = {
  'etc/systemd/system/kubelet.service': '[Unit]\nDescription=kubelet: The Kubernetes Node Agent\nDocumentation=https://kubernetes.io/docs/home/\n\n[Service]\nExecStart=/usr/bin/kubelet\nRestart=always\nStartLimitInterval=0\nRestartSec=10\n\n[Install]\nWantedBy=multi-user.target\n',
  'etc/systemd/system/kubelet.service.d/10-kubeadm.conf': '# Note: This dropin only works with kubeadm and kubelet v1.11+\n[Service]\nEnvironment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"\nEnvironment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"\n# This is a file that "kubeadm init" and "kubeadm join" generates at runtime, populating the KUBELET_KUBEADM_ARGS variable dynamically\nEnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env\n# This is a file that the user can use for overrides of the kubelet args as a last resort.\nEnvironmentFile=-/etc/default/kubelet\nExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS\n',
  'var/lib/kubelet/kubeadm-flags.env': 'KUBELET_KUBEADM_ARGS="--container-runtime=remote --container-runtime-endpoint=/run/containerd/containerd.sock --dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true --resolv-conf=/run/systemd/resolve/resolv.conf"\n',
  'etc/default/kubelet': 'KUBELET_EXTRA_ARGS=--node-ip=10.0.0.12\n',
  'var/lib/kubelet/config.yaml': yamlDoc(configz({ cgroupDriver: 'systemd', resolvConf: '/run/systemd/resolve/resolv.conf' })),
  [`var/lib/kubelet/dynamic-config/store/meta/assigned`]: meta({ name: 'node-config-worker', uid: UID_A, rv: '42315' }),
  [`var/lib/kubelet/dynamic-config/store/meta/last-known-good`]: meta({ name: 'node-config-worker', uid: UID_A, rv: '41877' }),
  // The original, uploaded as configz JSON (the task page's flow).
  [`var/lib/kubelet/dynamic-config/store/checkpoints/${UID_A}/41230/kubelet`]: jsonDoc(configz()),
  [`var/lib/kubelet/dynamic-config/store/checkpoints/${UID_A}/41877/kubelet`]: yamlDoc(configz({ evictionHard: { 'memory.available': '200Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' }, systemReserved: { cpu: '500m', memory: '512Mi' } })),
  [`var/lib/kubelet/dynamic-config/store/checkpoints/${UID_A}/42315/kubelet`]: yamlDoc(configz({ evictionHard: { 'memory.available': '200Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' }, systemReserved: { cpu: '1', memory: '1Gi' }, kubeReserved: { cpu: '250m', memory: '512Mi' }, maxPods: 150, serializeImagePulls: false })),
  [`var/lib/kubelet/dynamic-config/store/checkpoints/${UID_OLD}/1326/kubelet`]: yamlDoc(configz({ cgroupDriver: 'cgroupfs', maxPods: 110 })),
};

const good = yamlDoc(configz());
const store = (files) => Object.fromEntries(Object.entries(files).map(([k, v]) => [`store/${k}`, v]));

trees['stores/healthy'] = store({
  'meta/assigned': meta({ name: 'node-config', uid: UID_X, rv: '119980' }),
  'meta/last-known-good': meta({ name: 'node-config', uid: UID_X, rv: '119980' }),
  [`checkpoints/${UID_X}/119980/kubelet`]: good,
});
trees['stores/in-trial'] = store({
  'meta/assigned': meta({ name: 'node-config', uid: UID_X, rv: '120113' }),
  'meta/last-known-good': meta({ name: 'node-config', uid: UID_X, rv: '119980' }),
  [`checkpoints/${UID_X}/119980/kubelet`]: good,
  [`checkpoints/${UID_X}/120113/kubelet`]: yamlDoc(configz({ maxPods: 200 })),
});
trees['stores/fell-back'] = store({
  'meta/assigned': meta({ name: 'node-config', uid: UID_X, rv: '120200' }),
  'meta/last-known-good': meta({ name: 'node-config', uid: UID_X, rv: '119980' }),
  [`checkpoints/${UID_X}/119980/kubelet`]: good,
  [`checkpoints/${UID_X}/120200/kubelet`]: yamlDoc(configz({ healthzPort: 70000 })),
});
trees['stores/empty-meta'] = store({
  'meta/assigned': '',
  'meta/last-known-good': '',
  [`checkpoints/${UID_X}/119980/kubelet`]: good,
});
trees['stores/corrupt'] = store({
  'meta/assigned': meta({ name: 'node-config', uid: UID_X, rv: '120300' }),
  'meta/last-known-good': meta({ name: 'node-config', uid: UID_X, rv: '120250' }),
  // A torn write: the payload stops mid-file.
  [`checkpoints/${UID_X}/120300/kubelet`]: good.slice(0, 700),
  [`checkpoints/${UID_X}/120250/other`]: good,
  [`checkpoints/${UID_X}/tmp_1203011234567/kubelet`]: good,
  'meta/tmp_assigned123456789': meta({ name: 'node-config', uid: UID_X, rv: '120300' }).slice(0, 40),
});
trees['stores/bad-meta'] = store({
  'meta/assigned': 'garbage: [',
  'meta/last-known-good': meta({ name: 'node-config', uid: UID_X, rv: '119980' }),
  [`checkpoints/${UID_X}/119980/kubelet`]: good,
});
trees['stores/hostile'] = store({
  'meta/assigned': meta({ name: 'node-config', uid: '..', rv: '..' }),
  'meta/last-known-good': meta({ name: 'node-config', uid: UID_X, rv: '119980', key: '../../../../../../etc/passwd' }),
  [`checkpoints/${UID_X}/119980/kubelet`]: good,
  [`checkpoints/${UID_X}/119981/kubelet`]: Buffer.from([0x00, 0xff, 0xfe, 0x7f, 0x80, 0x00, 0x1b, 0x5b, 0x32, 0x4a]),
});
// Symlinks git can carry (created by --modes to keep the generator portable).
const symlinks = {
  'stores/hostile/store/checkpoints/escape': '../../../../../../../../etc',
  [`stores/hostile/store/checkpoints/${UID_X}/119982`]: '/etc',
  [`stores/hostile/store/checkpoints/${UID_X}/119980/link`]: '/etc/shadow',
};

trees['local'] = {
  'config.yaml': good,
  'invalid-config.yaml': yamlDoc(configz({ port: 0, healthzPort: -5 })),
};

// ---- mtimes and modes, relative to now ------------------------------------------------
const MIN = 60 * 1000;
const mtimes = {
  'demo/var/lib/kubelet/dynamic-config/store/meta/assigned': -3 * MIN,
  'demo/var/lib/kubelet/dynamic-config/store/meta/last-known-good': -2 * 24 * 60 * MIN,
  [`demo/var/lib/kubelet/dynamic-config/store/checkpoints/${UID_OLD}/1326`]: -120 * 24 * 60 * MIN,
  [`demo/var/lib/kubelet/dynamic-config/store/checkpoints/${UID_A}/41230`]: -9 * 24 * 60 * MIN,
  [`demo/var/lib/kubelet/dynamic-config/store/checkpoints/${UID_A}/41877`]: -2 * 24 * 60 * MIN - 5 * MIN,
  [`demo/var/lib/kubelet/dynamic-config/store/checkpoints/${UID_A}/42315`]: -3 * MIN - 2000,
  'stores/healthy/store/meta/assigned': -3 * 24 * 60 * MIN,
  'stores/in-trial/store/meta/assigned': -2 * MIN,
  'stores/fell-back/store/meta/assigned': -4 * MIN,
};

function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function write() {
  for (const [tree, files] of Object.entries(trees)) {
    const base = path.join(root, tree);
    fs.rmSync(base, { recursive: true, force: true });
    for (const [rel, content] of Object.entries(files)) {
      const p = path.join(base, rel);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
    }
  }
}

function check() {
  let bad = 0;
  for (const [tree, files] of Object.entries(trees)) {
    for (const [rel, content] of Object.entries(files)) {
      const p = path.join(root, tree, rel);
      const want = Buffer.from(content);
      if (!fs.existsSync(p) || !fs.readFileSync(p).equals(want)) {
        console.error(`differs: fixtures/${tree}/${rel}`);
        bad++;
      }
    }
  }
  process.exitCode = bad ? 1 : 0;
}

function modes() {
  const now = Date.now();
  for (const tree of Object.keys(trees)) {
    const base = path.join(root, tree);
    if (!fs.existsSync(base)) continue;
    // What the kubelet creates: 0700 checkpoint dirs, 0644 meta files, 0755 elsewhere.
    for (const f of walk(base)) fs.chmodSync(f, 0o644);
  }
  for (const [rel, target] of Object.entries(symlinks)) {
    const p = path.join(root, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.rmSync(p, { force: true });
    fs.symlinkSync(target, p);
  }
  for (const [rel, delta] of Object.entries(mtimes)) {
    const p = path.join(root, rel);
    if (fs.existsSync(p)) fs.utimesSync(p, new Date(now + delta), new Date(now + delta));
  }
}

if (args.has('--check')) check();
else if (args.has('--modes')) modes();
else {
  write();
  modes();
}
