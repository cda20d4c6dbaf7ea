import type { Argv } from 'yargs';
import { output, processStreams, session, setExit, type GlobalArgs } from './common.js';
import { commandLineOf, confirm, dryRunExit, modeOf, printResult, recoveryContext, recoveryOptions, runMetaCommand, runMigrateUndo, type RecoveryArgs } from './shared.js';

export const command = 'undo [id]';
export const describe = 'restore the files of the latest backup (or backup ID): meta files (reset, rollback, undo), the node files of a migrate, or the leftovers clean moved away; --list shows them';

interface Args extends RecoveryArgs {
  id?: string;
  list: boolean;
}

export function builder(y: Argv<GlobalArgs>): Argv<Args> {
  return recoveryOptions(y)
    .positional('id', { type: 'string', describe: 'the backup to restore (20261122T080000.123Z); default: the latest' })
    .option('list', { type: 'boolean', default: false, describe: 'list the backups (id, time, command, files) and change nothing' })
    .option('force', { type: 'boolean', default: false, describe: 'restore even though the meta files changed since the backup, or a kubelet using the store is running' })
    .example('$0 undo --list', 'the history of recovery commands on this store')
    .example('$0 undo --dry-run', 'what restoring the latest backup would write')
    .example('$0 undo 20261122T080000.123Z --yes', 'restore one backup') as unknown as Argv<Args>;
}

export async function handler(args: Args): Promise<void> {
  if (args.list) {
    const streams = processStreams(args);
    const s = session(args, streams);
    const { listBackups } = await import('../lib/recovery/index.js');
    const { renderBackups } = await import('../lib/output/recovery.js');
    const backups = listBackups(s.snap.dynamicConfigDir).map(({ id, time, command, files }) => ({ id, time, command, files }));
    output({ backups }, renderBackups, args, streams, 'BackupList');
    return setExit(0);
  }
  const rec = await import('../lib/recovery/index.js');
  const run = async () => {
    // A backup made by migrate holds node files, not meta files: restore those.
    const { migrateBackup } = await import('../lib/migrate/apply.js');
    const s = session(args, processStreams(args));
    const mb = migrateBackup(s.snap.dynamicConfigDir, args.id ?? null);
    if (mb) return runMigrateUndo(args, s, mb, ['undo', args.id ?? '']);
    if (await undoClean(args)) return;
    await runMetaCommand(args, ['undo', args.id ?? ''], (ctx) => rec.planUndo(ctx, { id: args.id ?? null, force: args.force, restartKubelet: args['restart-kubelet'] }));
  };
  if (modeOf(args) === 'dry-run') return run();
  // The backup is read under the store's lock too: a real run takes it first.
  const dcd = session({ ...args, verbose: false }, processStreams(args)).snap.dynamicConfigDir;
  await rec.withStoreLock(dcd, commandLineOf(['undo', args.id ?? ''], args), run);
}

/** A backup made by `clean` holds leftovers, not meta files: move them back. False for other backups. */
async function undoClean(args: Args): Promise<boolean> {
  const mode = modeOf(args);
  const streams = processStreams(args);
  const s = session(args, streams);
  const rec = await import('../lib/recovery/index.js');
  const b = rec.loadBackup(s.snap.dynamicConfigDir, args.id ?? null, s.snap.storeDir);
  const moved = rec.movedOf(b.manifest);
  if (!moved) return false;
  const ctx = await recoveryContext(args, s, commandLineOf(['undo', b.manifest.id], args));
  const plan = rec.planUnclean(ctx, { id: b.manifest.id, path: b.path, store: b.manifest.store }, moved, { force: args.force, restartKubelet: args['restart-kubelet'] });
  if (mode === 'dry-run') {
    await printResult(rec.previewUnclean(plan), args, streams);
    setExit(dryRunExit(plan.refusals));
    return true;
  }
  if (plan.refusals.length) throw plan.refusals[0];
  if (mode === 'ask' && plan.moves.length) await confirm(rec.previewUnclean(plan), 'Put these back? [y/N] ', 'nothing was moved', args, streams);
  await printResult(await rec.applyUnclean(ctx, plan), args, streams);
  setExit(0);
  return true;
}
