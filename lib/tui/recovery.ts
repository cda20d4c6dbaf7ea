// Recovery from the TUI: the same plan → confirm → apply as the CLI (lib/recovery), with the
// confirmation as a dialog. The dialog shows what the dry run shows: for meta files the exact
// bytes before and after, in write order; for prune the list of what goes; the warnings; and
// the interlocks that refuse the apply. Nothing here writes a file itself.

import type { CkptError } from '../errors.js';
import type { MetaPlan, PrunePlan, RecoveryContext, RecoveryResult, ResetWhich } from '../recovery/index.js';
import type { MetaChange } from '../recovery/result.js';
import { renderConfirm, renderRecovery } from '../output/recovery.js';
import { palette } from '../output/streams.js';
import type { Session } from '../session.js';
import { exactLine, line, type Line } from './dialog.js';
import { printable } from './text.js';

export type Request =
  | { kind: 'rollback' }
  | { kind: 'undo' }
  | { kind: 'prune' }
  | { kind: 'reset'; which: ResetWhich; to: string };

export interface Planned {
  title: string;
  /** The confirmation button; null when there is nothing to do or the apply is refused. */
  confirm: string | null;
  lines: Line[];
  apply: () => Promise<RecoveryResult>;
}

export interface RecoveryEnv {
  session: Session;
  /** --root, '/' on a live node. */
  root: string;
  /** ConfigMap names from the journal, for `reset --to UID/RV` of a UID no meta file names. */
  journalNames?: () => Promise<ReadonlyMap<string, { namespace: string; name: string; key: string | null }>>;
  /** Test seam: skip the API server probe (0) or bound it. */
  apiTimeoutMs?: number;
}

export function commandLineOf(r: Request): string {
  switch (r.kind) {
    case 'reset':
      return `tui: reset ${r.which} --to ${r.to}`;
    default:
      return `tui: ${r.kind}`;
  }
}

function contextOf(env: RecoveryEnv, r: Request): RecoveryContext {
  const ctx: RecoveryContext = { session: env.session, root: env.root, commandLine: commandLineOf(r), kubeconfig: null };
  if (env.apiTimeoutMs !== undefined) ctx.apiTimeoutMs = env.apiTimeoutMs;
  if (env.journalNames) ctx.journalNames = env.journalNames;
  return ctx;
}

const CONFIRM: Record<Request['kind'], string> = { rollback: 'Roll back', reset: 'Reset', undo: 'Restore', prune: 'Remove' };

function textBlock(label: string, text: string | null, sha: string | null): Line[] {
  if (text === null) return [line(`${label}: no file`, 'dim')];
  const n = Buffer.byteLength(text);
  if (n === 0) return [line(`${label}: 0 bytes (an empty file: the local config)`)];
  const lines = [line(`${label}: ${n} bytes, sha256 ${sha?.slice(0, 16) ?? '?'}`)];
  for (const l of text.replace(/\n$/, '').split('\n')) lines.push(exactLine(`  | ${printable(l)}`));
  if (!text.endsWith('\n')) lines.push(line('  (no newline at end)', 'dim'));
  return lines;
}

function refusalLines(refusals: readonly CkptError[]): Line[] {
  const out: Line[] = [];
  for (const e of refusals) {
    out.push(line(`REFUSED: ${printable(e.message)}`, 'red', 'bold'));
    if (e.hint) out.push(line(`  ${printable(e.hint)} (the CLI command takes --force; the TUI does not)`, 'dim'));
  }
  return out;
}

function warningLines(ws: readonly string[]): Line[] {
  return ws.map((w) => line(`warning: ${printable(w)}`, 'yellow'));
}

/** The confirmation text of a meta plan: before → after, then the exact bytes in write order. */
export function metaLines(plan: MetaPlan, preview: RecoveryResult): Line[] {
  const p = palette(false);
  const out: Line[] = renderConfirm(preview, { p, width: 76, verbose: false, quiet: false }).split('\n').map((l) => line(printable(l)));
  if (plan.restore) out.push(line(`restoring backup ${plan.restore.id}`));
  // Interlocks and warnings first: they must be read before anything is confirmed.
  out.push(...warningLines(plan.warnings), ...refusalLines(plan.refusals));
  if (!plan.refusals.length) out.push(line('The old files are backed up first; undo (u) restores them.', 'dim'));
  out.push(line(''), line('Bytes, in the order they would be written:', 'bold'));
  for (const c of preview.changes as MetaChange[]) {
    out.push(line(`${c.path}`, 'bold'));
    out.push(...textBlock('  before', c.before, c.beforeSha256));
    out.push(...textBlock('  after ', c.after, c.afterSha256));
  }
  return out;
}

export function pruneLines(plan: PrunePlan, preview: RecoveryResult): Line[] {
  const p = palette(false);
  const out: Line[] = renderConfirm(preview, { p, width: 76, verbose: false, quiet: false }).split('\n').map((l) => line(printable(l)));
  return [...warningLines(plan.warnings), ...refusalLines(plan.refusals), ...(plan.warnings.length || plan.refusals.length ? [line('')] : []), ...out];
}

/** Make the plan (reads the store, /proc, maybe probes the API server; never writes). */
export async function plan(env: RecoveryEnv, r: Request): Promise<Planned> {
  const rec = await import('../recovery/index.js');
  const ctx = contextOf(env, r);
  const o = { force: false, restartKubelet: false };
  if (r.kind === 'prune') {
    const pp = await rec.planPrune(ctx, { keep: 0, ...o });
    const preview = rec.previewPrune(pp);
    const nothing = pp.items.length === 0;
    return {
      title: 'prune: dry run',
      confirm: nothing || pp.refusals.length ? null : CONFIRM.prune,
      lines: pruneLines(pp, preview),
      apply: () => rec.applyPrune(ctx, pp),
    };
  }
  const mp: MetaPlan =
    r.kind === 'rollback' ? await rec.planRollback(ctx, o) : r.kind === 'undo' ? await rec.planUndo(ctx, { id: null, ...o }) : await rec.planReset(ctx, { which: r.which, to: r.to, ...o });
  const preview = rec.previewMeta(mp);
  const title = commandLineOf(r).replace(/^tui: /, '');
  if (!mp.writes.length) {
    return { title, confirm: null, lines: [line(`${title}: nothing to do, the meta files already hold that`), ...refusalLines(mp.refusals)], apply: () => rec.applyMetaPlan(ctx, mp) };
  }
  return { title, confirm: mp.refusals.length ? null : CONFIRM[r.kind], lines: metaLines(mp, preview), apply: () => rec.applyMetaPlan(ctx, mp) };
}

/** What was done, as the CLI prints it. */
export function resultLines(r: RecoveryResult): Line[] {
  const p = palette(false);
  const out = renderRecovery(r, { p, width: 76, verbose: false, quiet: false }).split('\n').map((l) => line(printable(l)));
  out.push(...warningLines(r.warnings));
  out.push(line(''), line('The store was read again; the screen shows it as it is now.', 'dim'));
  return out;
}
