// Text rendering of reset / rollback / undo / prune results and of `undo --list`.
// A dry run shows the exact bytes each file would get, in the order they would be written.

import type { BackupSummary } from '../recovery/backup.js';
import type { MetaChange, PruneChange, RecoveryResult } from '../recovery/result.js';
import type { TextContext } from './print.js';
import { shellWord } from '../integrity/next-steps.js';
import { humanBytes, shortTime } from './time.js';

const isPrune = (c: MetaChange | PruneChange): c is PruneChange => 'kind' in c;

function metaSummary(r: RecoveryResult, ctx: TextContext): string[] {
  const { p } = ctx;
  const lines: string[] = [];
  for (const c of r.changes as MetaChange[]) {
    lines.push(p.bold(c.path));
    lines.push(`  before  ${c.from}`);
    lines.push(`  after   ${p.green(c.to)}`);
  }
  return lines;
}

function exactBytes(r: RecoveryResult): string[] {
  const lines: string[] = ['', 'bytes to write, in this order:'];
  for (const c of r.changes as MetaChange[]) {
    const n = c.after === null ? 0 : Buffer.byteLength(c.after);
    if (c.after === null) {
      lines.push(`--- ${r.store}/${c.path}: remove the file`);
      continue;
    }
    lines.push(`--- ${r.store}/${c.path} (${n} bytes${n ? `, sha256 ${c.afterSha256}` : ': an empty file, the local config'})`);
    if (n) lines.push(c.after.endsWith('\n') ? c.after.slice(0, -1) : `${c.after}\n(no newline at end)`);
  }
  lines.push('--- end');
  return lines;
}

/** Why the real run would not go ahead (refused, exit 4; or unable to take its lock, exit 3): a dry run exits as it would. */
function refusals(r: RecoveryResult, ctx: TextContext): string[] {
  if (!r.wouldRefuse?.length) return [];
  return ['', ctx.p.red('the real run would stop here:'), ...r.wouldRefuse.map((x) => `  ${x}`)];
}

/** The preview shown before an interactive confirmation: before → after, no bytes. */
export function renderConfirm(r: RecoveryResult, ctx: TextContext): string {
  if (r.freedBytes !== undefined || (r.changes.length && isPrune(r.changes[0]!))) return renderPrune(r, ctx).replace(/\n[^\n]*pass --yes[^\n]*$/, '');
  return [`${r.command} will change ${r.store}:`, ...metaSummary(r, ctx)].join('\n');
}

export function renderRecovery(r: RecoveryResult, ctx: TextContext): string {
  if (r.freedBytes !== undefined || (r.changes.length && isPrune(r.changes[0]!))) return renderPrune(r, ctx);
  const { p } = ctx;
  const lines: string[] = [];
  if (!r.changes.length) {
    lines.push(`${r.command}: nothing to do, ${r.restored ? `what backup ${r.restored} holds is already in place` : 'the meta files already hold that'}`);
    if (r.dryRun) lines.push(...refusals(r, ctx));
    return lines.join('\n');
  }
  lines.push(r.dryRun ? `${r.command}: ${p.yellow('dry run')}, nothing written` : `${r.command}: ${p.green('done')}`);
  if (r.restored) lines.push(`restoring backup ${r.restored}`);
  lines.push(...metaSummary(r, ctx));
  if (r.dryRun) lines.push(...exactBytes(r), ...refusals(r, ctx));
  lines.push(...backupLines(r), ...kubeletLine(r));
  return lines.join('\n');
}

/** Where the backup is and the undo command that restores it. */
function backupLines(r: RecoveryResult): string[] {
  if (!r.backup) return [];
  // <dynamic-config-dir>/.kubelet-ckpt/backups/<id>
  const parts = r.backup.split('/');
  const id = parts[parts.length - 1];
  // Quoted for a shell: pasted as printed it must reach this store (a path may hold a blank).
  return [`backup  ${r.backup}`, `undo    kubelet-ckpt --dir ${shellWord(parts.slice(0, -3).join('/') || '/')} undo ${id}`];
}

function kubeletLine(r: RecoveryResult): string[] {
  return r.kubelet ? [`kubelet ${r.kubelet.stopped ? 'stopped' : 'not stopped'}, ${r.kubelet.started ? 'started' : 'not started'}; systemctl is-active kubelet: ${r.kubelet.active ?? '-'}`] : [];
}

/** Why prune or clean removed nothing; entries left alone (links, special files) are in the warnings, so it must not say there are none. */
function nothingRemoved(r: RecoveryResult): string {
  // A plan refused (a directory it could not list, …) found nothing because it could not look.
  if (r.wouldRefuse?.some((w) => /were not looked for|is not known/.test(w))) return `nothing to ${/^clean\b/.test(r.command) ? 'remove' : 'prune'} found, but not everything was looked at (below)`;
  const skipped = r.warnings.some((w) => /^not (removed|pruned)\b/.test(w));
  if (/^clean\b/.test(r.command)) return skipped ? 'nothing to remove: the leftovers found are left alone (see the warnings)' : 'nothing to remove: no leftovers of interrupted writes';
  return skipped ? 'nothing to prune: every checkpoint is referenced, kept, or left alone (see the warnings)' : 'nothing to prune: every checkpoint is referenced or kept';
}

/** prune and clean remove entries; undo of a clean moves them back (`restored`). */
function renderPrune(r: RecoveryResult, ctx: TextContext): string {
  const { p } = ctx;
  const items = r.changes as PruneChange[];
  // clean deletes nothing: it moves leftovers into a backup on the same file system, for undo.
  const moves = !r.restored && r.command === 'clean';
  const lines: string[] = [r.dryRun ? `${r.command}: ${p.yellow('dry run')}, nothing ${r.restored || moves ? 'moved' : 'removed'}` : `${r.command}: ${p.green('done')}`];
  if (!items.length) {
    lines.push(r.restored ? `nothing to put back: backup ${r.restored} holds no leftovers any more` : nothingRemoved(r));
    if (r.dryRun) lines.push(...refusals(r, ctx));
    return lines.join('\n');
  }
  const verb = r.restored ? (r.dryRun ? 'would put back' : 'put back') : moves ? (r.dryRun ? 'would move out' : 'moved out') : r.dryRun ? 'would remove' : 'removed';
  for (const c of items) {
    const what = c.note ?? (c.kind === 'checkpoint' ? `${c.files.length} file${c.files.length === 1 ? '' : 's'}, ${humanBytes(c.bytes)}` : c.kind === 'leftover' ? 'left over by an interrupted prune' : 'empty UID directory');
    lines.push(`${verb} ${c.path}  ${p.dim(`(${what})`)}`);
  }
  const n = items.filter((c) => c.kind === 'checkpoint').length;
  if (r.freedBytes !== undefined && moves) {
    lines.push(`${r.dryRun ? 'would move' : 'moved'} ${humanBytes(r.freedBytes)} (${r.freedBytes} bytes) out of the store into ${r.dryRun ? 'a' : 'the'} backup, kept for undo: no space is freed`);
  } else if (r.freedBytes !== undefined) lines.push(`${r.dryRun ? 'would free' : 'freed'} ${humanBytes(r.freedBytes)} (${r.freedBytes} bytes)${n ? ` in ${n} checkpoint${n === 1 ? '' : 's'}` : ''}`);
  lines.push(...refusals(r, ctx), ...backupLines(r), ...kubeletLine(r));
  // Not after "the real run would stop here" (found by an operator review: it read as "go ahead").
  if (r.dryRun && !r.restored && !r.wouldRefuse?.length) lines.push(moves ? 'pass --yes to move them' : 'pass --yes to remove them');
  return lines.join('\n');
}

export function renderBackups(r: { backups: Pick<BackupSummary, 'id' | 'time' | 'command' | 'files'>[] }, ctx: TextContext): string {
  if (!r.backups.length) return 'no backups yet (reset, rollback and undo make one before writing)';
  const rows = r.backups.map((b) => [b.id, shortTime(b.time), b.command, b.files.join(', ')]);
  const head = ['ID', 'TIME', 'COMMAND', 'FILES'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]) => row.map((c, i) => (i < row.length - 1 ? c.padEnd(w[i]!) : c)).join('  ').trimEnd();
  return [ctx.p.bold(fmt(head)), ...rows.map(fmt)].join('\n');
}
