// `fleet manifest job|daemonset`: run `report` on nodes with the host's / mounted read-only,
// the way kube-bench (a Job per node, the report in the pod log) and Sonobuoy (a DaemonSet
// plugin that writes its result and a `done` file, then waits) do. The text starts with a
// short guide, as YAML comments, to gather the reports into `report merge`.

import { sha256Hex } from '../../builtins.js';
import { jsYaml } from '../../config/js-yaml.js';
import type { ManifestOptions } from './options.js';

export const APP_LABEL = 'kubelet-ckpt-report';

const labels = { 'app.kubernetes.io/name': APP_LABEL, 'app.kubernetes.io/part-of': 'kubelet-ckpt' };

/**
 * The node's own journalctl, run inside its root, for an image that has none (node's images
 * do not): report's crash-loop check reads the journal, and without it every fleet report said
 * "journalctl not found" (found by a fleet review). Paths under the host root are given as the
 * node sees them. chroot needs CAP_SYS_CHROOT, which container runtimes grant by default;
 * Sonobuoy's own systemd-logs plugin reads the journal the same way.
 */
const JOURNALCTL_WRAPPER = [
  '#!/bin/sh',
  'r="$KUBELET_CKPT_HOST_ROOT"',
  'n=$#',
  'while [ "$n" -gt 0 ]; do',
  '  a="$1"; shift; n=$((n - 1))',
  '  case "$a" in "$r"/*) a="${a#"$r"}" ;; esac',
  '  set -- "$@" "$a"',
  'done',
  '# chroot from the image, journalctl from the node\'s own PATH.',
  'c=$(command -v chroot)',
  'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin exec "$c" "$r" journalctl "$@"',
].join('\n');

/**
 * What every container script starts with ($2 is the host's root): a journalctl when the image
 * has none, in a directory of the writable /tmp (the root file system is read-only).
 */
const PREAMBLE = [
  'set -e',
  'if ! command -v journalctl >/dev/null 2>&1; then',
  '  b="${TMPDIR:-/tmp}/kubelet-ckpt-bin"',
  '  mkdir -p "$b"',
  `  cat > "$b/journalctl" <<'EOF'`,
  JOURNALCTL_WRAPPER,
  'EOF',
  '  chmod 755 "$b/journalctl"',
  '  export PATH="$b:$PATH" KUBELET_CKPT_HOST_ROOT="$2"',
  'fi',
];

/**
 * The Job's script: `node BUNDLE --root /host -q report --node-name $NODE_NAME --host $NODE_NAME`.
 * --host: a pod's host name is the pod's, new at every run, and report merge kept two runs on
 * one node as two nodes (found by review).
 */
const JOB_SCRIPT = [...PREAMBLE, 'exec "$0" "$1" --root "$2" -q report --node-name "$NODE_NAME" --host "$NODE_NAME"'].join('\n');

/** `sh -c SCRIPT node BUNDLE HOSTROOT`. */
const scriptCommand = (o: ManifestOptions, script: string): string[] => ['sh', '-c', script, o.node ?? 'node', o.bundle, o.hostRoot];

/** /tmp, writable under a read-only root file system (the journalctl wrapper, results). */
const TMP_VOLUME = { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } };

function container(o: ManifestOptions, command: string[], extraMounts: object[] = []) {
  return {
    name: 'kubelet-ckpt',
    image: o.image,
    command,
    env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
    // Root reads the store (0700 directories) from a read-only mount and writes nothing there.
    securityContext: { runAsUser: 0, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
    resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '512Mi' } },
    volumeMounts: [{ name: 'host', mountPath: o.hostRoot, readOnly: true }, { name: 'tmp', mountPath: '/tmp' }, ...extraMounts],
  };
}

function podSpec(o: ManifestOptions, c: object, extra: Record<string, unknown>, extraVolumes: object[] = []) {
  return {
    ...extra,
    // Every node, control plane and tainted ones included (as Sonobuoy's default podSpec).
    tolerations: [{ operator: 'Exists' }],
    containers: [c],
    volumes: [{ name: 'host', hostPath: { path: '/', type: 'Directory' } }, TMP_VOLUME, ...extraVolumes],
  };
}

function dump(docs: object[]): string {
  return docs.map((d) => `---\n${jsYaml().dump(d, { noRefs: true, lineWidth: -1, sortKeys: false })}`).join('');
}

const comment = (lines: string[]) => lines.map((l) => (l ? `# ${l}` : '#')).join('\n') + '\n';

/** One Job per target node (nodeName pins it), or one Job for whichever node takes it. */
export function jobManifest(o: ManifestOptions, targets: readonly string[]): string {
  const guide = comment([
    'kubelet-ckpt report as Jobs, kube-bench style: one Job per node, the NodeReport in the pod log.',
    'The image needs node and the bundle at the --bundle path (or give --bundle under /host for a',
    'bundle already copied onto the nodes). One Job per node:',
    '  for n in $(kubectl get nodes -o name | cut -d/ -f2); do',
    '    kubelet-ckpt fleet manifest job --target-node "$n"; done | kubectl apply -f -',
    'Gather the reports once the Jobs completed, and merge them:',
    `  kubectl -n ${o.namespace} wait --for=condition=complete job -l app.kubernetes.io/name=${APP_LABEL} --timeout=5m`,
    `  for p in $(kubectl -n ${o.namespace} get pods -l app.kubernetes.io/name=${APP_LABEL} -o name); do`,
    `    kubectl -n ${o.namespace} logs "$p"; done > reports.json`,
    '  kubelet-ckpt report merge reports.json',
    `Clean up: kubectl -n ${o.namespace} delete job -l app.kubernetes.io/name=${APP_LABEL}`,
  ]);
  const nodes: (string | null)[] = targets.length ? [...targets] : [null];
  const docs = nodes.map((n) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: n ? jobName(n) : 'kubelet-ckpt-report', namespace: o.namespace, labels },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: 86400,
      template: { metadata: { labels }, spec: podSpec(o, container(o, scriptCommand(o, JOB_SCRIPT)), { ...(n ? { nodeName: n } : {}), restartPolicy: 'Never' }) },
    },
  }));
  return guide + dump(docs);
}

const JOB_PREFIX = 'kubelet-ckpt-report-';
/** 40 bits of sha256: two of 10,000 changed names share one with odds of about 1 in 20,000. */
const HASH_LEN = 10;

/**
 * A Job name from a node name: DNS-1123, at most 63 characters. A name that fits as it is stays
 * as it is; one that folding or truncation changed gets a hash of the exact node name, so
 * distinct nodes get distinct Jobs (`node.a`, `node-a`; long names alike but for their end),
 * also across one invocation per node.
 */
export function jobName(node: string): string {
  const folded = node.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  if (folded === node && JOB_PREFIX.length + folded.length <= 63) return JOB_PREFIX + folded;
  const hash = sha256Hex(node).slice(0, HASH_LEN);
  const room = 63 - JOB_PREFIX.length - HASH_LEN - 1;
  const head = folded.slice(0, room).replace(/-+$/, '');
  return `${JOB_PREFIX}${head ? `${head}-` : ''}${hash}`;
}

/**
 * The DaemonSet's container: report into the results directory, print it (pod log), write the
 * `done` file naming it (Sonobuoy's worker picks it up), then wait: a container that exits
 * would be restarted and report again.
 */
const DS_SCRIPT = [
  ...PREAMBLE,
  'd="${SONOBUOY_RESULTS_DIR:-/tmp/sonobuoy/results}"',
  'mkdir -p "$d"',
  'f="$d/report-$NODE_NAME.json"',
  '"$0" "$1" --root "$2" -q report --node-name "$NODE_NAME" --host "$NODE_NAME" > "$f.tmp"',
  'mv "$f.tmp" "$f"',
  'cat "$f"',
  'echo "$f" > "$d/done"',
  'exec sleep infinity',
].join('\n');

export function daemonSetManifest(o: ManifestOptions): string {
  const guide = comment([
    'kubelet-ckpt report as a DaemonSet, Sonobuoy style: every node reports once, into the pod',
    'log and $SONOBUOY_RESULTS_DIR (a `done` file names the report), then the pod waits.',
    'The image needs node and the bundle at the --bundle path.',
    '  kubelet-ckpt fleet manifest daemonset | kubectl apply -f -',
    `  kubectl -n ${o.namespace} rollout status ds/kubelet-ckpt-report --timeout=5m`,
    'Gather the reports (one pod per node) and merge them:',
    `  for p in $(kubectl -n ${o.namespace} get pods -l app.kubernetes.io/name=${APP_LABEL} -o name); do`,
    `    kubectl -n ${o.namespace} logs "$p"; done | kubelet-ckpt report merge -`,
    'Under Sonobuoy, use the same container as a DaemonSet plugin (result-format: raw) and merge',
    'the archive: kubelet-ckpt report merge $(sonobuoy retrieve)',
    `Clean up: kubectl -n ${o.namespace} delete ds kubelet-ckpt-report`,
  ]);
  const c = container(o, scriptCommand(o, DS_SCRIPT), [{ name: 'results', mountPath: '/tmp/sonobuoy/results' }]);
  const ds = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'kubelet-ckpt-report', namespace: o.namespace, labels },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/name': APP_LABEL } },
      template: { metadata: { labels }, spec: podSpec(o, c, { terminationGracePeriodSeconds: 1 }, [{ name: 'results', emptyDir: {} }]) },
    },
  };
  return guide + dump([ds]);
}

/**
 * The same container as a Sonobuoy DaemonSet plugin (`sonobuoy run --plugin FILE`): Sonobuoy
 * mounts its own results directory and sets SONOBUOY_RESULTS_DIR, so the plugin has no
 * results volume of its own; `report merge` reads the archive `sonobuoy retrieve` returns.
 */
export function sonobuoyPlugin(o: ManifestOptions): string {
  const guide = comment([
    'kubelet-ckpt report as a Sonobuoy DaemonSet plugin: every node writes its NodeReport and',
    'the done file; Sonobuoy collects them per node.',
    '  kubelet-ckpt fleet manifest sonobuoy > kubelet-ckpt-plugin.yaml',
    '  sonobuoy run --plugin kubelet-ckpt-plugin.yaml --wait',
    '  kubelet-ckpt report merge "$(sonobuoy retrieve)"',
  ]);
  const c = container(o, scriptCommand(o, DS_SCRIPT));
  const plugin = {
    'sonobuoy-config': { driver: 'DaemonSet', 'plugin-name': 'kubelet-ckpt', 'result-format': 'raw', description: 'kubelet-ckpt NodeReport of every node' },
    spec: c,
    // podSpec.containers is Sonobuoy's to fill from spec.
    podSpec: { ...podSpec(o, c, { terminationGracePeriodSeconds: 1 }), containers: [] },
  };
  return guide + dump([plugin]);
}
