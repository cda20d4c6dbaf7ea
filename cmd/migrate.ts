import type { Argv } from 'yargs';
import type { GlobalArgs } from './common.js';
import { recoveryOptions, runMigrateCommand, type RecoveryArgs } from './shared.js';

export const command = 'migrate [ref]';
export const describe = "make the exported config the kubelet's --config file and remove --dynamic-config-dir and the DynamicKubeletConfig gate from its unit and env files; backed up, undoable";

interface Args extends RecoveryArgs {
  ref?: string;
  key?: string;
  'kubeadm-config'?: string;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return recoveryOptions(y)
    .positional('ref', { type: 'string', describe: 'the config to migrate to (as for export); default: the one the kubelet runs at its next start (nothing to do, exit 0, when its command line has no --dynamic-config-dir)' })
    .option('key', { type: 'string', requiresArg: true, describe: 'the payload file of a checkpoint with several' })
    .option('kubeadm-config', { type: 'string', requiresArg: true, describe: "a copy of kubeadm's kubelet-config ConfigMap: list the fields where the export differs from what `kubeadm upgrade node` would write" })
    .option('force', { type: 'boolean', default: false, describe: 'replace a --config file that differs; migrate to a config that fails validation; write although a kubelet using the store runs' })
    .option('restart-kubelet', { type: 'boolean', default: false, describe: 'stop the kubelet, write, systemctl daemon-reload, start it, report systemctl is-active (not with --root)' })
    .option('kubeconfig', { type: 'string', requiresArg: true, describe: 'an admin kubeconfig for the kubectl commands of the next steps (confirm the running config, clear spec.configSource); default: kubectl\'s own' })
    .example('$0 migrate --dry-run', "every file's before/after diff; nothing changed")
    .example('$0 migrate --yes --force --restart-kubelet', 'replace the old config.yaml, edit the flags, daemon-reload and restart the kubelet')
    .example('$0 undo', 'put every file of the migration back exactly') as unknown as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  const words = ['migrate', args.ref ?? '', args.key ? `--key ${args.key}` : ''];
  const { planMigrate } = await import('../lib/migrate/plan.js');
  await runMigrateCommand(args, words, (ctx) => planMigrate(ctx, { ref: args.ref ?? null, key: args.key ?? null, kubeadmConfig: args['kubeadm-config'] ?? null, force: args.force, restartKubelet: args['restart-kubelet'] }));
}
