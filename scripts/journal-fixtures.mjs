#!/usr/bin/env node
// Generate fixtures/journals/: the same kubelet stories in every journalctl output mode, for a
// 1.13-era legacy kubelet (systemd v241, across New Year) and a 1.22 structured one (systemd
// v249, May 2022), plus the journald export format that tests feed to systemd-journal-remote.
// Deterministic: run it again and the files are byte-identical.
//
//   node scripts/journal-fixtures.mjs [OUTDIR]

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const outDir = path.resolve(process.argv[2] ?? path.join(root, 'fixtures/journals'));

const HOST = 'node-1';
const MACHINE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const DIR = '/var/lib/kubelet/dynamic-config';
const CMDLINE = `/usr/bin/kubelet --bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf --config=/var/lib/kubelet/config.yaml --dynamic-config-dir=${DIR} --network-plugin=cni`;

const A = { ns: 'kube-system', name: 'node-config-a', uid: '7a0c1f4e-5b2d-4c3e-9f10-1a2b3c4d5e6f' };
const B = { ns: 'kube-system', name: 'node-config-b', uid: '3f9d2b1a-0c4e-4d5f-8a6b-7c8d9e0f1a2b' };
const C = { ns: 'kube-system', name: 'node-config-c', uid: '9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b' };
const apiPath = (cm) => `/api/v1/namespaces/${cm.ns}/configmaps/${cm.name}`;

// ---- a journal: entries with instants (µs), pids and fields ----

class Journal {
  constructor(startUs, bootId) {
    this.us = startUs;
    this.boot = bootId;
    this.entries = [];
    this.seq = 0;
    this.stream = 0;
  }
  at(seconds) {
    this.us += Math.round(seconds * 1e6);
    return this;
  }
  push(e) {
    this.entries.push({ ...e, us: this.us, boot: this.boot, seq: this.seq++ });
    this.us += 37 + (this.seq % 7) * 11; // entries never share an instant
  }
  kubelet(pid, sev, site, msg) {
    this.push({ kind: 'kubelet', pid, message: klog(this.us, pid, sev, site, msg) });
  }
  stderr(pid, text) {
    this.push({ kind: 'kubelet', pid, message: text });
  }
  systemd(msg, extra = {}) {
    this.push({ kind: 'systemd', pid: 1, message: msg, extra });
  }
  reboot(bootId) {
    this.boot = bootId;
    this.entries.push({ kind: 'reboot', us: this.us, boot: bootId, seq: this.seq++ });
  }
}

const pad = (n, w = 2) => String(n).padStart(w, '0');

function klog(us, pid, sev, site, msg) {
  const d = new Date(Math.floor(us / 1000));
  const micro = pad(us % 1_000_000, 6);
  return `${sev}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${micro} ${String(pid).padStart(7)} ${site}] ${msg}`;
}

// ---- the two eras' texts ----

const q = (s) => JSON.stringify(s); // Go %q and JSON agree on everything used here

const legacy = {
  era: 'legacy-1.13',
  ctl: (j, pid, sev, site, text) => j.kubelet(pid, sev, site, `kubelet config controller: ${text}`),
  source: (cm, rv) => `${apiPath(cm)}, UID: ${cm.uid}, ResourceVersion: ${rv}`,
  start(j, pid, assigned) {
    this.ctl(j, pid, 'I', 'controller.go:101', 'starting controller');
    this.ctl(j, pid, 'I', 'controller.go:267', 'ensuring filesystem is set up correctly');
    this.ctl(j, pid, 'I', 'fsstore.go:59', `initializing config checkpoints directory "${DIR}/store"`);
    if (assigned) this.ctl(j, pid, 'I', 'fsstore.go:116', `loading Kubelet configuration checkpoint for source ${this.source(assigned.cm, assigned.rv)}`);
  },
  loops(j, pid, local) {
    this.ctl(j, pid, 'I', 'controller.go:159', 'starting status sync loop');
    this.ctl(j, pid, 'I', 'controller.go:174', 'starting Node informer');
    if (local) this.ctl(j, pid, 'I', 'controller.go:168', 'local source is assigned, will not start remote config source informer');
    else this.ctl(j, pid, 'I', 'controller.go:170', 'starting remote config source informer');
    this.ctl(j, pid, 'I', 'controller.go:179', 'starting Kubelet config sync loop');
    this.ctl(j, pid, 'I', 'status.go:157', 'updating Node.Status.Config');
    this.ctl(j, pid, 'I', 'watch.go:108', 'initial Node watch event');
  },
  nonEmpty(j, pid) {
    this.ctl(j, pid, 'I', 'configsync.go:96', 'Node.Spec.ConfigSource is non-empty, will checkpoint source and update config if necessary');
  },
  exists(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'configsync.go:131', `checkpoint already exists for ${this.source(cm, rv)}`);
  },
  updated(j, pid, what) {
    this.ctl(j, pid, 'I', 'watch.go:128', what === 'cm' ? 'assigned ConfigMap was updated' : what === 'cm-deleted' ? 'assigned ConfigMap was deleted' : 'Node.Spec.ConfigSource was updated');
  },
  inMemory(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'download.go:181', `checking in-memory store for ${apiPath(cm)}`);
    this.ctl(j, pid, 'I', 'download.go:187', `found ${apiPath(cm)} in in-memory store, UID: ${cm.uid}, ResourceVersion: ${rv}`);
  },
  download(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'download.go:194', `attempting to download ${apiPath(cm)}`);
    this.ctl(j, pid, 'I', 'download.go:202', `successfully downloaded ${apiPath(cm)}, UID: ${cm.uid}, ResourceVersion: ${rv}`);
  },
  restartTo(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'configsync.go:205', cm ? `Kubelet restarting to use ${apiPath(cm)}, UID: ${cm.uid}, ResourceVersion: ${rv}, KubeletConfigKey: kubelet` : 'Kubelet restarting to use local config');
  },
  lkg(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'controller.go:298', `updated last-known-good config to ${this.source(cm, rv)}`);
  },
  rejected(j, pid, reason, err) {
    const [first, ...rest] = err.split('\n');
    this.ctl(j, pid, 'E', 'controller.go:151', `${reason}, error: ${first}`);
    for (const l of rest) j.stderr(pid, l); // journald: one entry per line, no klog header
  },
  syncFailed(j, pid, err) {
    this.ctl(j, pid, 'E', 'configsync.go:89', `failed to sync: failed to download config, see Kubelet log for details, error: ${err}`);
  },
  reset(j, pid) {
    this.ctl(j, pid, 'I', 'configsync.go:90', 'Node.Spec.ConfigSource is empty, will reset assigned and last-known-good to defaults');
  },
  bootstrapFailed(j, pid, err) {
    j.kubelet(pid, 'F', 'server.go:262', `failed to determine a valid configuration, error: ${err}`);
    j.stderr(pid, 'goroutine 1 [running]:');
    j.stderr(pid, 'k8s.io/kubernetes/vendor/k8s.io/klog.stacks(0xc000126300, 0xc0003ae000, 0x9d, 0xf1)');
  },
};

const structured = {
  era: 'structured-1.22',
  s: (msg, kv = []) => [q(msg), ...kv.map(([k, v, raw]) => `${k}=${raw ? v : q(v)}`)].join(' '),
  ctl(j, pid, sev, site, text, kv) {
    j.kubelet(pid, sev, site, this.s(text === '' ? 'Kubelet config controller' : `Kubelet config controller ${text}`, kv));
  },
  src: (cm, rv, uidKey) => [['apiPath', apiPath(cm)], [uidKey, cm.uid], ['resourceVersion', rv]],
  start(j, pid, assigned) {
    j.stderr(pid, 'Flag --dynamic-config-dir has been deprecated, Feature DynamicKubeletConfig is deprecated in 1.22 and will not move to GA. It is planned to be removed from Kubernetes in the version 1.23. Please use alternative ways to update kubelet configuration.');
    j.stderr(pid, 'Flag --network-plugin has been deprecated, will be removed along with dockershim.');
    j.kubelet(pid, 'I', 'server.go:440', this.s('Kubelet version', [['kubeletVersion', 'v1.22.4']]));
    this.ctl(j, pid, 'I', 'controller.go:101', 'starting controller');
    this.ctl(j, pid, 'I', 'controller.go:267', 'ensuring filesystem is set up correctly');
    this.ctl(j, pid, 'I', 'fsstore.go:59', 'initializing config checkpoints directory', [['path', `${DIR}/store`]]);
    if (assigned) this.ctl(j, pid, 'I', 'fsstore.go:116', 'loading Kubelet configuration checkpoint for source', this.src(assigned.cm, assigned.rv, 'sourceUID'));
  },
  loops(j, pid, local) {
    this.ctl(j, pid, 'I', 'controller.go:159', 'starting status sync loop');
    this.ctl(j, pid, 'I', 'controller.go:174', 'starting Node informer');
    if (local) this.ctl(j, pid, 'I', 'controller.go:168', 'local source is assigned, will not start remote config source informer');
    else this.ctl(j, pid, 'I', 'controller.go:170', 'starting remote config source informer');
    this.ctl(j, pid, 'I', 'controller.go:179', 'starting Kubelet config sync loop');
    this.ctl(j, pid, 'I', 'status.go:157', 'updating Node.Status.Config');
    this.ctl(j, pid, 'I', 'watch.go:108', 'initial Node watch event');
  },
  nonEmpty(j, pid) {
    this.ctl(j, pid, 'I', 'configsync.go:96', 'Node.Spec.ConfigSource is non-empty, will checkpoint source and update config if necessary');
  },
  exists(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'configsync.go:131', 'checkpoint already exists for source', this.src(cm, rv, 'checkpointUID'));
  },
  updated(j, pid, what) {
    this.ctl(j, pid, 'I', 'watch.go:128', what === 'cm' ? 'assigned ConfigMap was updated' : what === 'cm-deleted' ? 'assigned ConfigMap was deleted' : 'Node.Spec.ConfigSource was updated');
  },
  inMemory(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'download.go:181', 'checking in-memory store for remoteConfigMap', [['apiPath', apiPath(cm)]]);
    this.ctl(j, pid, 'I', 'download.go:187', 'found remoteConfigMap in in-memory store', [['apiPath', apiPath(cm)], ['configMapUID', cm.uid, true], ['resourceVersion', rv]]);
  },
  download(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'download.go:194', 'attempting to download remoteConfigMap', [['apiPath', apiPath(cm)]]);
    this.ctl(j, pid, 'I', 'download.go:202', 'successfully downloaded remoteConfigMap', [['apiPath', apiPath(cm)], ['configMapUID', cm.uid, true], ['resourceVersion', rv]]);
  },
  restartTo(j, pid, cm, rv) {
    const message = cm ? `Kubelet restarting to use ${apiPath(cm)}, UID: ${cm.uid}, ResourceVersion: ${rv}, KubeletConfigKey: kubelet` : 'Kubelet restarting to use local config';
    this.ctl(j, pid, 'I', 'configsync.go:205', 'event', [['message', message]]);
  },
  lkg(j, pid, cm, rv) {
    this.ctl(j, pid, 'I', 'controller.go:298', 'updated last-known-good config to new checkpointStore', this.src(cm, rv, 'checkpointUID'));
  },
  rejected(j, pid, reason, err) {
    this.ctl(j, pid, 'E', 'controller.go:151', '', [['err', err], ['reason', reason]]);
  },
  syncFailed(j, pid, err) {
    this.ctl(j, pid, 'E', 'configsync.go:89', '', [['err', `failed to sync: failed to download config, see Kubelet log for details, error: ${err}`]]);
  },
  reset(j, pid) {
    this.ctl(j, pid, 'I', 'configsync.go:90', 'Node.Spec.ConfigSource is empty, will reset assigned and last-known-good to defaults');
  },
  bootstrapFailed(j, pid, err) {
    j.kubelet(pid, 'E', 'server.go:285', this.s('Failed to bootstrap a configuration controller', [['err', `failed to determine a valid configuration, error: ${err}`], ['dynamicConfigDir', DIR]]));
  },
  gateOff(j, pid) {
    j.kubelet(pid, 'E', 'server.go:194', this.s('Failed to validate kubelet flags', [['err', 'the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag']]));
  },
};

// systemd wording per version (reference/journal-lines.md §4.4).
const systemd241 = {
  clean: 'kubelet.service: Succeeded.',
  failed: (status) => [`kubelet.service: Main process exited, code=exited, status=${status}/n/a`, "kubelet.service: Failed with result 'exit-code'."],
  restart: (n, sec) => [`kubelet.service: Service RestartSec=${sec}s expired, scheduling restart.`, `kubelet.service: Scheduled restart job, restart counter is at ${n}.`],
  consumed: null,
};
const systemd249 = {
  clean: 'kubelet.service: Deactivated successfully.',
  failed: (status) => [`kubelet.service: Main process exited, code=exited, status=${status}/${status === 1 ? 'FAILURE' : 'n/a'}`, "kubelet.service: Failed with result 'exit-code'."],
  restart: (n) => [`kubelet.service: Scheduled restart job, restart counter is at ${n}.`],
  consumed: (s) => `kubelet.service: Consumed ${s}s CPU time.`,
};

const NOISE = [
  ['I', 'server.go:1190', 'Started kubelet'],
  ['I', 'kubelet.go:1933', 'Starting kubelet main sync loop.'],
  ['E', 'reflector.go:138', 'k8s.io/client-go/informers/factory.go:134: Failed to watch *v1.ConfigMap: failed to list *v1.ConfigMap: configmaps "kube-proxy" is forbidden'],
  ['I', 'reconciler.go:224', 'operationExecutor.VerifyControllerAttachedVolume started for volume "kube-proxy" (UniqueName: "kubernetes.io/configmap/kube-proxy")'],
];

// ---- the stories ----

function story(e, sd, j, pids) {
  let restarts = 0;
  const pid = () => pids.shift();
  const noise = (p) => NOISE.forEach(([s, site, m]) => j.kubelet(p, s, site, m));
  const started = () => j.systemd('Started kubelet: The Kubernetes Node Agent.');
  const restart = (gap = 10, status = null) => {
    if (status === null) j.systemd(sd.clean);
    else sd.failed(status).forEach((m) => j.systemd(m, { EXIT_CODE: 'exited', EXIT_STATUS: String(status) }));
    if (sd.consumed) j.systemd(sd.consumed((1.5 + restarts / 10).toFixed(3)));
    j.at(gap);
    sd.restart(++restarts, gap).forEach((m) => j.systemd(m));
    j.systemd('Stopped kubelet: The Kubernetes Node Agent.');
    started();
  };
  const boot = (p, assigned) => {
    e.start(j, p, assigned);
    e.loops(j, p, !assigned);
    noise(p);
  };
  const badKind = `failed to decode: Object 'Kind' is missing in '{\n  "apiVersion": "kubelet.config.k8s.io/v1beta1",\n  "healthzPort": 10248\n}'`;

  // 1. Boot on A/100.
  started();
  let p = pid();
  boot(p, { cm: A, rv: '100' });
  e.nonEmpty(j, p);
  e.exists(j, p, A, '100');
  // 2. A normal update: the ConfigMap is edited (A/200); the kubelet restarts onto it.
  j.at(60);
  e.updated(j, p, 'cm');
  e.nonEmpty(j, p);
  e.inMemory(j, p, A, '200');
  e.restartTo(j, p, A, '200');
  restart();
  p = pid();
  boot(p, { cm: A, rv: '200' });
  e.nonEmpty(j, p);
  e.exists(j, p, A, '200');
  // 3. Last-known-good promotion after the 10-minute trial.
  j.at(600);
  e.lkg(j, p, A, '200');
  // 4. A rejected config with fall-back: B/300 has no kind (load error, multi-line in legacy).
  j.at(120);
  e.updated(j, p, 'node');
  e.nonEmpty(j, p);
  e.download(j, p, B, '300');
  e.restartTo(j, p, B, '300');
  restart();
  p = pid();
  e.start(j, p, { cm: B, rv: '300' });
  e.rejected(j, p, 'failed to load config, see Kubelet log for details', badKind);
  e.ctl(j, p, 'I', 'fsstore.go:116', ...(e === legacy ? [`loading Kubelet configuration checkpoint for source ${legacy.source(A, '200')}`] : ['loading Kubelet configuration checkpoint for source', structured.src(A, '200', 'sourceUID')]));
  e.loops(j, p, false);
  e.nonEmpty(j, p);
  e.exists(j, p, B, '300');
  // 4b. B is fixed with an invalid value (B/310): a validation error, fall-back again.
  j.at(90);
  e.updated(j, p, 'cm');
  e.nonEmpty(j, p);
  e.inMemory(j, p, B, '310');
  e.restartTo(j, p, B, '310');
  restart();
  p = pid();
  e.start(j, p, { cm: B, rv: '310' });
  e.rejected(j, p, 'failed to validate config, see Kubelet log for details', 'invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive');
  e.ctl(j, p, 'I', 'fsstore.go:116', ...(e === legacy ? [`loading Kubelet configuration checkpoint for source ${legacy.source(A, '200')}`] : ['loading Kubelet configuration checkpoint for source', structured.src(A, '200', 'sourceUID')]));
  e.loops(j, p, false);
  // 4c. The operator deletes ConfigMap B: the sync fails every ~10 s.
  j.at(45);
  e.updated(j, p, 'cm-deleted');
  for (let i = 0; i < 3; i++) {
    e.syncFailed(j, p, `configmaps ${q(B.name)} not found`);
    j.at(10.2);
  }
  // 5. A reset to local: Node.Spec.ConfigSource is cleared.
  j.at(30);
  e.updated(j, p, 'node');
  e.reset(j, p);
  e.restartTo(j, p, null);
  restart();
  p = pid();
  boot(p, null);
  // 6. A bootstrap crash loop: C is assigned, the node reboots, meta/assigned is corrupt.
  j.at(300);
  e.updated(j, p, 'node');
  e.nonEmpty(j, p);
  e.download(j, p, C, '400');
  e.restartTo(j, p, C, '400');
  restart();
  p = pid();
  boot(p, { cm: C, rv: '400' });
  j.at(3600);
  j.reboot('b0000000000000000000000000000002');
  j.at(30);
  restarts = 0;
  started();
  const corrupt = "failed to decode, error: couldn't get version/kind; json parse error: unexpected end of JSON input";
  for (let i = 0; i < 4; i++) {
    p = pid();
    if (e === structured && i >= 2) {
      // 1.22: the operator turns the gate off but leaves the flag: a different failure.
      j.stderr(p, 'Flag --dynamic-config-dir has been deprecated, Feature DynamicKubeletConfig is deprecated in 1.22 and will not move to GA. It is planned to be removed from Kubernetes in the version 1.23. Please use alternative ways to update kubelet configuration.');
      structured.gateOff(j, p);
    } else {
      e.start(j, p, null);
      e.bootstrapFailed(j, p, corrupt);
    }
    if (i < 3) restart(2, e === legacy ? 255 : 1);
  }
  sd.failed(e === legacy ? 255 : 1).forEach((m) => j.systemd(m, { EXIT_CODE: 'exited', EXIT_STATUS: e === legacy ? '255' : '1' }));
  j.systemd('kubelet.service: Start request repeated too quickly.');
  j.systemd("kubelet.service: Failed with result 'exit-code'.");
  j.systemd('Failed to start kubelet: The Kubernetes Node Agent.');
}

function build(e, sd, startIso, bootId, pids) {
  const j = new Journal(Date.parse(startIso) * 1000, bootId);
  story(e, sd, j, pids);
  return j.entries;
}

// ---- output modes ----

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MON_DE = ['Jan', 'Feb', 'Mär', 'Apr', 'Mai', 'Jun', 'Jul', 'Aug', 'Sep', 'Okt', 'Nov', 'Dez'];
const DAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function parts(us) {
  const d = new Date(Math.floor(us / 1000));
  return { d, Y: d.getUTCFullYear(), M: d.getUTCMonth(), D: pad(d.getUTCDate()), hms: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`, micro: pad(us % 1_000_000, 6) };
}

const ident = (en) => (en.kind === 'systemd' ? 'systemd[1]' : `kubelet[${en.pid}]`);
const msgBytes = (en) => (Buffer.isBuffer(en.message) ? en.message : Buffer.from(en.message, 'utf8'));
const lines = (bufs) => Buffer.concat(bufs.flatMap((b) => [b, Buffer.from('\n')]));

const MODES = {
  short: (en, o) => {
    const t = parts(en.us);
    return `${(o.months ?? MON)[t.M]} ${t.D} ${t.hms} ${HOST} ${ident(en)}: `;
  },
  'short-precise': (en) => {
    const t = parts(en.us);
    return `${MON[t.M]} ${t.D} ${t.hms}.${t.micro} ${HOST} ${ident(en)}: `;
  },
  'short-iso': (en, o) => {
    const t = parts(en.us);
    return `${t.Y}-${pad(t.M + 1)}-${t.D}T${t.hms}${o.colon ? '+00:00' : '+0000'} ${HOST} ${ident(en)}: `;
  },
  'short-iso-precise': (en, o) => {
    const t = parts(en.us);
    return `${t.Y}-${pad(t.M + 1)}-${t.D}T${t.hms}.${t.micro}${o.colon ? '+00:00' : '+0000'} ${HOST} ${ident(en)}: `;
  },
  'short-full': (en) => {
    const t = parts(en.us);
    return `${DAY[t.d.getUTCDay()]} ${t.Y}-${pad(t.M + 1)}-${t.D} ${t.hms} UTC ${HOST} ${ident(en)}: `;
  },
};

function textJournal(entries, mode, o = {}) {
  const out = [];
  const first = entries.find((x) => x.kind !== 'reboot');
  if (o.header) out.push(Buffer.from(o.header(first)));
  for (const en of entries) {
    if (en.kind === 'reboot') out.push(Buffer.from('-- Reboot --'));
    else out.push(Buffer.concat([Buffer.from(MODES[mode](en, o), 'utf8'), msgBytes(en)]));
  }
  return lines(out);
}

function catJournal(entries, kubeletOnly) {
  return lines(entries.filter((en) => en.kind !== 'reboot' && (!kubeletOnly || en.kind === 'kubelet')).map(msgBytes));
}

function fields(en, invocations) {
  const common = { __REALTIME_TIMESTAMP: String(en.us), __MONOTONIC_TIMESTAMP: String(en.us - 1_600_000_000_000_000), _BOOT_ID: en.boot, _MACHINE_ID: MACHINE, _HOSTNAME: HOST, PRIORITY: '6', SYSLOG_FACILITY: '3' };
  if (en.kind === 'systemd') {
    return {
      ...common,
      _TRANSPORT: 'journal', _PID: '1', _UID: '0', _GID: '0', _COMM: 'systemd', _EXE: '/lib/systemd/systemd', _CMDLINE: '/sbin/init',
      _SYSTEMD_CGROUP: '/init.scope', _SYSTEMD_UNIT: 'init.scope', _SYSTEMD_SLICE: '-.slice',
      SYSLOG_IDENTIFIER: 'systemd', CODE_FILE: 'src/core/unit.c', CODE_LINE: '5758', CODE_FUNC: 'unit_log_success',
      UNIT: 'kubelet.service', INVOCATION_ID: invocations(en),
      ...en.extra,
      MESSAGE: en.message,
    };
  }
  return {
    ...common,
    _TRANSPORT: 'stdout', _STREAM_ID: `${pad(en.pid, 8)}aa55aa55aa55aa55aa55aa55`, SYSLOG_IDENTIFIER: 'kubelet', _PID: String(en.pid), _UID: '0', _GID: '0',
    _COMM: 'kubelet', _EXE: '/usr/bin/kubelet', _CMDLINE: CMDLINE, _CAP_EFFECTIVE: '1ffffffffff',
    _SYSTEMD_CGROUP: '/system.slice/kubelet.service', _SYSTEMD_UNIT: 'kubelet.service', _SYSTEMD_SLICE: 'system.slice', _SYSTEMD_INVOCATION_ID: invocations(en),
    MESSAGE: en.message,
  };
}

function invocationIds() {
  const ids = new Map();
  return (en) => {
    const k = `${en.boot}:${en.kind === 'kubelet' ? en.pid : ids.size}`;
    if (!ids.has(k)) ids.set(k, pad(ids.size + 1, 32));
    return ids.get(k);
  };
}

function jsonJournal(entries) {
  const inv = invocationIds();
  const lines = entries.filter((en) => en.kind !== 'reboot').map((en, i) => {
    const f = fields(en, inv);
    const o = { __CURSOR: `s=feedface;i=${(i + 1).toString(16)};b=${en.boot};m=${(en.us % 1e9).toString(16)};t=${en.us.toString(16)};x=${(i * 7919).toString(16)}` };
    for (const [k, v] of Object.entries(f)) o[k] = Buffer.isBuffer(v) ? [...v] : v;
    return JSON.stringify(o);
  });
  return Buffer.from(lines.join('\n') + '\n');
}

/** journald's export format (systemd.io/JOURNAL_EXPORT_FORMATS): binary-safe fields as length-prefixed. */
function exportJournal(entries) {
  const inv = invocationIds();
  const chunks = [];
  for (const en of entries) {
    if (en.kind === 'reboot') continue;
    for (const [k, v] of Object.entries(fields(en, inv))) {
      const b = Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8');
      if (b.includes(10) || !isPrintableUtf8(b)) {
        const len = Buffer.alloc(8);
        len.writeBigUInt64LE(BigInt(b.length));
        chunks.push(Buffer.from(`${k}\n`), len, b, Buffer.from('\n'));
      } else {
        chunks.push(Buffer.from(`${k}=`), b, Buffer.from('\n'));
      }
    }
    chunks.push(Buffer.from('\n'));
  }
  return Buffer.concat(chunks);
}

function isPrintableUtf8(b) {
  return Buffer.from(b.toString('utf8'), 'utf8').equals(b) && !/[\u0000-\u0008\u000b-\u001f]/.test(b.toString('utf8'));
}

// ---- write ----

function write(name, data) {
  fs.writeFileSync(path.join(outDir, name), data);
}

function era(e, sd, startIso, pids, opts) {
  const entries = build(e, sd, startIso, 'b0000000000000000000000000000001', pids);
  // One kubelet line carries a byte that is not UTF-8: journald exports its MESSAGE as a byte array.
  const odd = entries.find((en) => en.kind === 'kubelet' && /^ {2}"healthzPort"/.test(en.message));
  if (odd) odd.message = Buffer.from(odd.message.replace('healthzPort', 'healthzPort\u00ff'), 'latin1');
  const name = e.era;
  const header = (first) => {
    const t = parts(first.us);
    return `-- ${opts.headerWord} ${DAY[t.d.getUTCDay()]} ${t.Y}-${pad(t.M + 1)}-${t.D} ${t.hms} UTC. --`;
  };
  write(`${name}.short.log`, textJournal(entries, 'short', { header }));
  write(`${name}.short-precise.log`, textJournal(entries, 'short-precise', { header }));
  write(`${name}.short-iso.log`, textJournal(entries, 'short-iso', { colon: opts.colon }));
  write(`${name}.short-iso-precise.log`, textJournal(entries, 'short-iso-precise', { colon: opts.colon }));
  write(`${name}.short-full.log`, textJournal(entries, 'short-full'));
  write(`${name}.cat.log`, catJournal(entries, false));
  write(`${name}.klog.log`, catJournal(entries, true));
  write(`${name}.json`, jsonJournal(entries));
  write(`${name}.export`, exportJournal(entries));
  write(`${name}.short.log.gz`, zlib.gzipSync(textJournal(entries, 'short', { header }), { mtime: 0 }));
  if (opts.german) write(`${name}.short-de.log`, textJournal(entries, 'short', { months: MON_DE }));
}

fs.mkdirSync(outDir, { recursive: true });
const range = (from, n, step) => Array.from({ length: n }, (_, i) => from + i * step);
// The legacy story runs across New Year (2020-12-31 → 2021-01-01): year inference is part of the test.
era(legacy, systemd241, '2020-12-31T22:58:00.000Z', [...range(1042, 6, 611), ...range(812, 4, 29)], { colon: false, headerWord: 'Logs begin at', german: false });
era(structured, systemd249, '2022-05-22T08:00:00.000Z', [...range(2301, 6, 433), ...range(790, 4, 31)], { colon: true, headerWord: 'Journal begins at', german: true });

// The lines quoted in the seed material (a blog post's journal, kubelet 1.18-era, systemd v245), verbatim.
write(
  'seed-blog.short.log',
  `Aug 21 18:54:30 localhost.worker kubelet[107800]: I0821 18:54:30.679461  107800 watch.go:128] kubelet config controller: assigned ConfigMap was updated
Aug 21 18:54:34 localhost.worker kubelet[107800]: I0821 18:54:34.776572  107800 download.go:181] kubelet config controller: checking in-memory store for /api/v1/namespaces/kube-system/configmaps/k8s-worker16
Aug 21 18:54:34 localhost.worker kubelet[107800]: I0821 18:54:34.776605  107800 download.go:187] kubelet config controller: found /api/v1/namespaces/kube-system/configmaps/k8s-worker16 in in-memory store, UID: 5808539f-48e3-4e47-8ce6-c261c48fa1d9, ResourceVersion: 437429
Aug 21 18:54:34 localhost.worker kubelet[107800]: I0821 18:54:34.806121  107800 configsync.go:205] kubelet config controller: Kubelet restarting to use /api/v1/namespaces/kube-system/configmaps/k8s-worker16, UID: 5808539f-48e3-4e47-8ce6-c261c48fa1d9, ResourceVersion: 437429, KubeletConfigKey: kubelet
Aug 21 18:54:34 localhost.worker systemd[1]: kubelet.service: Succeeded.
Aug 21 18:54:45 localhost.worker systemd[1]: kubelet.service: Scheduled restart job, restart counter is at 19.
Aug 21 18:54:45 localhost.worker systemd[1]: Stopped kubelet: The Kubernetes Node Agent.
Aug 21 18:54:45 localhost.worker systemd[1]: Started kubelet: The Kubernetes Node Agent.
Aug 21 18:54:45 localhost.worker kubelet[108430]: I0821 18:54:45.115977  108430 controller.go:101] kubelet config controller: starting controller
Aug 21 18:54:45 localhost.worker kubelet[108430]: I0821 18:54:45.116038  108430 controller.go:267] kubelet config controller: ensuring filesystem is set up correctly
Aug 21 18:54:45 localhost.worker kubelet[108430]: I0821 18:54:45.116045  108430 fsstore.go:59] kubelet config controller: initializing config checkpoints directory "/var/lib/kubelet/dynamic-config/store"
Aug 24 13:16:04 localhost.worker kubelet[278409]: E0824 13:16:04.368361  278409 controller.go:151] kubelet config controller: failed to load config, see Kubelet log for details, error: failed to decode: Object 'Kind' is missing in '{
Aug 26 16:55:47 localhost.worker kubelet[388430]: F0826 16:55:47.291827  388430 kubelet.go:1384] Failed to start ContainerManager Failed to enforce System Reserved Cgroup Limits on "/system.slice": ["system"] cgroup does not exist
`,
);
