// Text rendering of export, migrate and upgrade-check results.

import type { ExportResult } from '../migrate/export.js';
import type { MigrateResult } from '../migrate/apply.js';
import { nothingToCompare, type UpgradeCheck } from '../migrate/upgrade.js';
import { jsonText, printsContent, type TextContext } from './print.js';

/** Without --out the file itself is the output; with --out, one line saying where it went. */
export function renderExport(r: ExportResult & { outcome?: string }, ctx: TextContext): string {
  if (!r.out) return r.text;
  const what = r.outcome === 'unchanged' ? 'already holds this export; not rewritten' : 'written';
  const lines = [`${r.out}: ${what}`];
  if (!ctx.quiet) {
    const src = r.source.kind === 'checkpoint' ? `checkpoint ${r.source.uid}/${r.source.resourceVersion}` : r.source.path ?? 'defaults';
    lines.push(`  from ${src} (${r.source.why})`);
    for (const f of r.flagOverrides) lines.push(`  flag ${f.flag} wins over ${f.field} in this file`);
    if (r.removedGates.length) lines.push(`  removed from featureGates: ${r.removedGates.join(', ')}`);
  }
  return lines.join('\n');
}

/** migrate / undo of a migration: each file's diff, then what must still happen. `undo`: the command that restores the backup. */
export function renderMigrate(r: MigrateResult, ctx: TextContext, undo = 'kubelet-ckpt undo'): string {
  const { p } = ctx;
  const lines: string[] = [];
  const verb = r.command === 'undo' ? `Restore backup ${r.restored}` : 'Migrate';
  if (r.nothing) lines.push(`nothing to do: ${r.nothing}`);
  else if (!r.changes.length) lines.push(r.command === 'undo' ? `nothing to do: the files already hold backup ${r.restored}` : 'nothing to do: the files already hold the migration');
  else lines.push(r.dryRun ? `${verb} would write ${r.changes.length} file(s) (dry run: nothing was changed):` : `${verb}: wrote ${r.changes.length} file(s):`);
  for (const c of r.changes) {
    lines.push('', p.bold(`${c.path} (${c.role}${c.before === null ? ', new file' : c.after === null ? ', removed' : ''})`));
    for (const e of c.edits) lines.push(`  line ${e.line}: ${e.action}`);
    if (r.dryRun || ctx.verbose) lines.push(c.diff.replace(/\n$/, ''));
  }
  if (r.backup) lines.push('', `backup: ${r.backup} (${undo} restores it)`);
  if (r.kubelet) lines.push(`kubelet: stopped ${r.kubelet.stopped ? 'yes' : 'no'}, started ${r.kubelet.started ? 'yes' : 'no'}, systemctl is-active: ${r.kubelet.active ?? 'unknown'}`);
  if (r.kubeadm?.differences?.length) {
    lines.push('', `kubeadm: fields where the export differs from ${r.kubeadm.file}:`);
    for (const d of r.kubeadm.differences) lines.push(`  ${d.path}: ${d.op} ${d.op !== 'added' ? jsonText(d.from) : ''}${d.op === 'changed' ? ' -> ' : ''}${d.op !== 'removed' ? jsonText(d.to) : ''}`);
  }
  if (r.wouldRefuse?.length) {
    lines.push('', p.red('The real run would refuse:'));
    for (const w of r.wouldRefuse) lines.push(`  ${w.split('\n')[0]}`);
  }
  if (r.nextSteps.length && !ctx.quiet) {
    lines.push('', 'Still to do:');
    r.nextSteps.forEach((s, i) => lines.push(`  ${i + 1}. ${s}`));
  }
  return lines.join('\n');
}

function showValue(v: unknown): string {
  return v === null || v === undefined ? '' : jsonText(v);
}

/** upgrade-check: starts or exits (in the kubelet's words), which config, the field changes. */
export function renderUpgrade(r: UpgradeCheck, ctx: TextContext): string {
  const { p } = ctx;
  const what = (c: UpgradeCheck['now']) => (c.ref ? `${c.source} ${c.ref}` : c.source === 'local' ? `local (${c.path ?? 'defaults and flags'})` : c.source);
  const label = (s: string) => `${s}:`.padEnd(13);
  const lines: string[] = [];
  if (r.assumedFlags) lines.push(p.yellow(`${label('Assumed')}${r.assumedFlags.join(' ')} (the kubelet's command line was not found)`));
  lines.push(`${label(`Now (${r.from})`)}runs ${what(r.now)}`);
  const uncompared = nothingToCompare(r.now);
  if (r.after.starts === false) {
    lines.push(`${label(`After ${r.to}`)}${p.red('the kubelet EXITS at start-up')}`, `  ${r.after.exitMessage}`);
  } else if (r.after.starts === null) {
    lines.push(`${label(`After ${r.to}`)}${p.yellow('whether the kubelet starts is unknown')}`);
  } else {
    const verdict = uncompared ? p.yellow(` — ${uncompared}`) : r.changesConfig ? p.yellow(' — a DIFFERENT config') : p.green(' — the same config');
    lines.push(`${label(`After ${r.to}`)}starts, runs ${what(r.after)}${verdict}`);
  }
  lines.push(`  ${r.after.reason}`);
  if (r.changes.length) {
    lines.push('', `Fields that change (${r.changes.length}):`);
    for (const c of r.changes) lines.push(`  ${c.op === 'added' ? '+' : c.op === 'removed' ? '-' : '~'} ${c.path}: ${showValue(c.from)}${c.op === 'changed' ? ' -> ' : ''}${showValue(c.to)}`);
  }
  const w = r.withoutFlag;
  if (w) {
    lines.push('', `Without --dynamic-config-dir (as provisioners drop it for ${r.to}): ${w.starts ? `starts, runs local (${w.path ?? 'defaults and flags'})` : p.red(`still exits: ${w.exitMessage}`)}`);
    if (w.changes.length) {
      lines.push(p.yellow(`  and silently runs a different config (${w.changes.length} field${w.changes.length > 1 ? 's' : ''}):`));
      for (const c of w.changes) lines.push(`  ${c.op === 'added' ? '+' : c.op === 'removed' ? '-' : '~'} ${c.path}: ${showValue(c.from)}${c.op === 'changed' ? ' -> ' : ''}${showValue(c.to)}`);
    } else if (w.starts) lines.push(uncompared ? p.yellow(`  ${uncompared}`) : '  with the same config');
  }
  for (const n of r.notes) lines.push(`note: ${n}`);
  return lines.join('\n');
}

// The exported config is a file's content.
printsContent(renderExport);
