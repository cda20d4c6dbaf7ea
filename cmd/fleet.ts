import path from 'node:path';
import type { Argv } from 'yargs';
import { defaultHostRoot, manifest, MANIFEST_KINDS, type ManifestKind } from '../lib/fleet/manifests/index.js';
import { processStreams, setExit, type GlobalArgs } from './common.js';

export const command = 'fleet';
export const describe = 'ready-to-use configuration for the engines that run kubelet-ckpt on many nodes (fleet manifest npd|job|daemonset|sonobuoy|ansible)';

interface ManifestArgs extends GlobalArgs {
  kind: ManifestKind;
  bundle: string;
  node?: string;
  'host-root'?: string;
  image: string;
  namespace: string;
  interval: string;
  timeout: string;
  'target-node'?: string[];
  'local-bundle': string;
  'reports-dir': string;
}

const manifestCommand = {
  command: 'manifest <kind>',
  describe: 'print the configuration for one engine',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .positional('kind', { choices: MANIFEST_KINDS, describe: 'npd: node-problem-detector custom plugin monitor config; job, daemonset: Kubernetes manifests running report on nodes; sonobuoy: a Sonobuoy DaemonSet plugin; ansible: a playbook' })
      .option('bundle', { type: 'string', requiresArg: true, default: '/usr/local/bin/kubelet-ckpt', describe: 'path of the single-file bundle (dist/kubelet-ckpt.cjs) where it runs' })
      .option('node', { type: 'string', requiresArg: true, describe: 'run the bundle with this node binary (default: the bundle runs itself through its #! line)' })
      .option('host-root', { type: 'string', requiresArg: true, describe: "where the node's / is mounted where the tool runs (default /host; ansible: /, the host itself)" })
      .option('image', { type: 'string', requiresArg: true, default: 'node:20-bookworm-slim', describe: 'container image that holds node (Job, DaemonSet)' })
      .option('namespace', { type: 'string', requiresArg: true, default: 'kube-system', describe: 'namespace of the Job/DaemonSet' })
      .option('interval', { type: 'string', requiresArg: true, default: '60s', describe: 'NPD: how often the rules run (Go duration, more than 0)' })
      .option('timeout', { type: 'string', requiresArg: true, default: '5s', describe: "NPD: each rule's timeout (Go duration, more than 0; at most the global timeout)" })
      .option('target-node', { type: 'string', array: true, requiresArg: true, describe: 'job: one Job pinned to each of these nodes (default: one Job on any node)' })
      .option('local-bundle', { type: 'string', requiresArg: true, default: 'dist/kubelet-ckpt.cjs', describe: 'ansible: the bundle on the control machine (copied to --bundle on each host; written into the playbook as an absolute path)' })
      .option('reports-dir', { type: 'string', requiresArg: true, default: 'reports/', describe: 'ansible: where fetched reports land on the control machine (written into the playbook as an absolute path)' })
      .example('$0 fleet manifest daemonset --image registry.example/kubelet-ckpt:0.1.0 | kubectl apply -f -', 'every node reports once; gather with kubectl logs (see the guide at the top)')
      .example('$0 fleet manifest ansible --host-root / > report.yml && ansible-playbook -i inventory.ini report.yml', 'when the API server is down')
      .example('$0 fleet manifest npd > /etc/node-problem-detector/config/kubelet-ckpt.json', 'then start NPD with --config.custom-plugin-monitor=…/kubelet-ckpt.json')
      .epilogue("-o json and -o yaml do not apply: each kind is printed in its engine's own format (npd: JSON; job, daemonset, sonobuoy, ansible: YAML)."),
  handler: (args: ManifestArgs) => {
    const streams = processStreams(args);
    streams.stdout.write(
      manifest(args.kind, { bundle: args.bundle, node: args.node ?? null, hostRoot: args['host-root'] ?? defaultHostRoot(args.kind), image: args.image, namespace: args.namespace, interval: args.interval, timeout: args.timeout, targetNodes: args['target-node'] ?? [], localBundle: path.resolve(args['local-bundle']), reportsDir: `${path.resolve(args['reports-dir'])}/` }),
    );
    setExit(0);
  },
};

export function builder(y: Argv<GlobalArgs>): Argv<GlobalArgs> {
  return y.command(manifestCommand as never).demandCommand(1, 'name a subcommand: fleet manifest KIND');
}

export function handler(): void {
  /* only reached through a subcommand */
}
