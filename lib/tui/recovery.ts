// Recovery from the TUI: the same plan → confirm → apply as the CLI (lib/recovery), with the
// confirmation as a dialog. The dialog shows what the dry run shows: for meta files the exact
// bytes before and after, in write order; for prune the list of what goes; the warnings; and
// the interlocks that refuse the apply. Nothing here writes a file itself.

import type { CkptError } from '../errors.js';
import type { MetaPlan, RecoveryContext, RecoveryResult, ResetWhich } from '../recovery/index.js';
import type { MetaChange } from '../recovery/result.js';
import { renderConfirm, renderRecovery } from '../output/recovery.js';
import { sanitizeDeep } from '../output/sanitize.js';
import { palette } from '../output/streams.js';
import type { Session } from '../session.js';
import { exactLine, line, type Line } from './dialog.js';
import { printable } from './text.js';

export type Request = (
  | { kind: 'rollback' }
  | { kind: 'undo' }
  | { kind: 'prune' }
  | { kind: 'reset'; which: ResetWhich; to: string }
) & {
  /** Stop the kubelet with systemctl, write, start it (the CLI's --restart-kubelet). */
  restartKubelet?: boolean;
};

export interface Planned {
  title: string;
  /** The confirmation button; null when there is nothing to do or the apply is refused. */
  confirm: string | null;
  lines: Line[];
  apply: () => Promise<RecoveryResult>;
  /**
   * Refused only because a kubelet runs on this store (on a live node): the same request with
   * restartKubelet, which the dialog offers as a button of its own.
   */
  restart?: Request;
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

/** What the dialogs call the request: the CLI command it equals. */
export function titleOf(r: Request): string {
  const base = r.kind === 'reset' ? `reset ${r.which} --to ${r.to}` : r.kind;
  return r.restartKubelet ? `${base} --restart-kubelet` : base;
}

/** The audit log's command line: as the CLI's, marked as coming from the TUI. */
export function commandLineOf(r: Request): string {
  return `tui: ${titleOf(r)}`;
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

function refusalLines(refusals: readonly CkptError[], restartable = false): Line[] {
  const out: Line[] = [];
  for (const e of refusals) {
    out.push(line(`REFUSED: ${printable(e.message)}`, 'red', 'bold'));
    if (e.code === 'KUBELET_RUNNING' && restartable) out.push(line('  "Restart kubelet" stops it (systemctl stop kubelet), writes, and starts it again; a new confirmation follows', 'dim'));
    else if (e.hint) out.push(line(`  ${printable(e.hint)} (the CLI command takes --force; the TUI does not)`, 'dim'));
  }
  return out;
}

/** The request again with --restart-kubelet, when a running kubelet is the only refusal on a live node. */
function restartOf(env: RecoveryEnv, r: Request, refusals: readonly CkptError[]): Request | undefined {
  if (r.restartKubelet || env.root !== '/' || !refusals.length || refusals.some((e) => e.code !== 'KUBELET_RUNNING')) return undefined;
  return { ...r, restartKubelet: true };
}

/** The CLI's preview text, titled as the dialog is (no `tui:` prefix). */
function shown(preview: RecoveryResult, title: string): RecoveryResult {
  return { ...preview, command: title };
}

function warningLines(ws: readonly string[]): Line[] {
  return ws.map((w) => line(`warning: ${printable(w)}`, 'yellow'));
}

/**
 * The CLI's confirmation text, its values escaped before it is cut into lines, as the CLI
 * does: a newline in a ConfigMap's name or a UID is `\x0a` on its line, never a line of its own
 * (found by review: a hostile name added fake "after" lines to the dialog).
 */
function confirmLines(preview: RecoveryResult): Line[] {
  return renderConfirm(sanitizeDeep(preview), { p: palette(false), width: 76, verbose: false, quiet: false }).split('\n').map((l) => line(printable(l)));
}

/** The confirmation text of a meta plan: before → after, then the exact bytes in write order. */
export function metaLines(plan: MetaPlan, preview: RecoveryResult, restartable = false): Line[] {
  const out: Line[] = confirmLines(preview);
  if (plan.restore) out.push(line(`restoring backup ${plan.restore.id}`));
  // Interlocks and warnings first: they must be read before anything is confirmed.
  out.push(...warningLines(plan.warnings), ...refusalLines(plan.refusals, restartable));
  if (!plan.refusals.length) out.push(line('The old files are backed up first; undo (u) restores them.', 'dim'));
  out.push(line(''), line('Bytes, in the order they would be written:', 'bold'));
  for (const c of preview.changes as MetaChange[]) {
    out.push(line(`${c.path}`, 'bold'));
    out.push(...textBlock('  before', c.before, c.beforeSha256));
    out.push(...textBlock('  after ', c.after, c.afterSha256));
  }
  return out;
}

/** prune, and undo of a clean: a list of entries rather than bytes. */
export function listLines(plan: { warnings: string[]; refusals: CkptError[] }, preview: RecoveryResult, restartable = false): Line[] {
  const out: Line[] = confirmLines(preview);
  return [...warningLines(plan.warnings), ...refusalLines(plan.refusals, restartable), ...(plan.warnings.length || plan.refusals.length ? [line('')] : []), ...out];
}

/** Make the plan (reads the store, /proc, maybe probes the API server; never writes). */
export async function plan(env: RecoveryEnv, r: Request): Promise<Planned> {
  const rec = await import('../recovery/index.js');
  const ctx = contextOf(env, r);
  const o = { force: false, restartKubelet: !!r.restartKubelet };
  const title = titleOf(r);
  if (r.kind === 'prune') {
    const pp = await rec.planPrune(ctx, { keep: 0, ...o });
    const restart = restartOf(env, r, pp.refusals);
    return {
      title: `${title}: dry run`,
      confirm: pp.items.length === 0 || pp.refusals.length ? null : CONFIRM.prune,
      lines: listLines(pp, shown(rec.previewPrune(pp), title), !!restart),
      apply: () => rec.applyPrune(ctx, pp),
      ...(restart && pp.items.length ? { restart } : {}),
    };
  }
  if (r.kind === 'undo') {
    // A backup made by clean holds leftovers, not meta files: put them back.
    const b = rec.loadBackup(env.session.snap.dynamicConfigDir, null, env.session.snap.storeDir);
    const moved = rec.movedOf(b.manifest);
    if (moved) {
      const up = rec.planUnclean(ctx, { id: b.manifest.id, path: b.path, store: b.manifest.store }, moved, o);
      const restart = restartOf(env, r, up.refusals);
      return { title, confirm: !up.moves.length || up.refusals.length ? null : CONFIRM.undo, lines: listLines(up, shown(rec.previewUnclean(up), title), !!restart), apply: () => rec.applyUnclean(ctx, up), ...(restart && up.moves.length ? { restart } : {}) };
    }
  }
  const mp: MetaPlan =
    r.kind === 'rollback' ? await rec.planRollback(ctx, o) : r.kind === 'undo' ? await rec.planUndo(ctx, { id: null, ...o }) : await rec.planReset(ctx, { which: r.which, to: r.to, ...o });
  const restart = restartOf(env, r, mp.refusals);
  if (!mp.writes.length) {
    return { title, confirm: null, lines: [line(printable(`${title}: nothing to do, the meta files already hold that`)), ...refusalLines(mp.refusals)], apply: () => rec.applyMetaPlan(ctx, mp) };
  }
  return { title, confirm: mp.refusals.length ? null : CONFIRM[r.kind], lines: metaLines(mp, shown(rec.previewMeta(mp), title), !!restart), apply: () => rec.applyMetaPlan(ctx, mp), ...(restart ? { restart } : {}) };
}

/** What was done, as the CLI prints it. */
export function resultLines(r: RecoveryResult): Line[] {
  const p = palette(false);
  const out = renderRecovery(sanitizeDeep({ ...r, command: r.command.replace(/^tui: /, '') }), { p, width: 76, verbose: false, quiet: false }).split('\n').map((l) => line(printable(l)));
  out.push(...warningLines(r.warnings));
  out.push(line(''), line('The store was read again; the screen shows it as it is now.', 'dim'));
  return out;
}
