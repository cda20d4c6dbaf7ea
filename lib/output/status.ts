// Text rendering of the `status` report: a short, labelled summary that fits 80 columns.

import { countBySeverity } from '../integrity/findings.js';
import type { StatusReport } from '../integrity/status.js';
import type { SourceRef } from '../store/types.js';
import type { TextContext } from './print.js';
import { ago, shortTime } from './time.js';
import { columns, fitText } from './wrap.js';
import { renderNextSteps } from './next-steps.js';

const L = 17;
const row = (label: string, value: string) => `${label.padEnd(L)}${value}`;
const more = (value: string) => `${' '.repeat(L)}${value}`;

/** What a meta file names, in parts set two spaces apart (a terminal too narrow for them all gets them on lines of their own). */
function sourceParts(r: SourceRef | null, state: string): string[] {
  if (r) return [`${r.namespace}/${r.name}`, `${r.uid}/${r.resourceVersion}`, `key ${r.kubeletConfigKey}`];
  if (state === 'missing') return ['local config (meta file missing; the kubelet creates it empty)'];
  if (state === 'empty') return ['local config (meta file empty)'];
  return [state === 'error' ? 'cannot be decoded' : 'not read'];
}

/**
 * A row of parts `sep` apart: on one line when it fits (or off a terminal), else packed on as
 * few lines as fit, a part never split (a time, a UID/RV). `label` null: continuation lines only.
 */
function partsRows(label: string | null, parts: string[], ctx: TextContext, sep = '  '): string[] {
  const width = ctx.tty ? ctx.width - L : Infinity;
  const out: string[] = [];
  for (const part of parts) {
    const last = out.length - 1;
    if (last >= 0 && columns(out[last]!) + sep.length + columns(part) <= width) out[last] += `${sep}${part}`;
    else out.push(part);
  }
  return out.map((x, i) => (i === 0 && label !== null ? row(label, x) : more(x)));
}

type NextBoot = StatusReport['nextBoot'];

/** The verdict on the next boot in words, and how alarming it is (status, the TUI). */
export function nextBootVerdict(nb: NextBoot): { text: string; tone: 'good' | 'warn' | 'bad' } {
  if (nb.willStart === true && nb.exitsAfterBootstrap) return { text: 'STARTS, THEN EXITS', tone: 'bad' };
  if (nb.willStart === true) return nb.statusError ? { text: 'starts, degraded', tone: 'warn' } : { text: 'starts', tone: 'good' };
  if (nb.willStart === false) return { text: 'WILL NOT START', tone: 'bad' };
  return { text: 'cannot be predicted', tone: 'warn' };
}

/** What boots next: the source and, for a checkpoint, its UID/RV (`short`: the UID's first 8 characters); null when unknown. */
export function nextBootTarget(nb: NextBoot, short = false): string | null {
  if (nb.source === 'unknown') return null;
  return nb.ref ? `${nb.source} ${short ? nb.ref.uid.slice(0, 8) : nb.ref.uid}/${nb.ref.resourceVersion}` : nb.source;
}

/** The trial clause of the `written …` line; never says "in trial" for a config that is already last-known-good. */
function trialText(r: StatusReport, p: TextContext['p']): string {
  if (!r.trial) return '';
  const same = r.assigned && r.lastKnownGood && r.assigned.uid === r.lastKnownGood.uid && r.assigned.resourceVersion === r.lastKnownGood.resourceVersion;
  if (same) return 'already last-known-good';
  return r.trial.inTrial ? p.yellow(`in trial until ${shortTime(r.trial.endsAt)}`) : `trial ended ${shortTime(r.trial.endsAt)}`;
}

/** What promotion to last-known-good waits for, in words that agree with the trial line (status, the TUI's Meta tab). */
export function promotionText(r: StatusReport): string | null {
  if (!r.nextBoot.promotesToLastKnownGood || r.nextBoot.source !== 'assigned') return null;
  // The kubelet exits within seconds of adopting it: only a trial check that runs first (one is
  // started at once, when the trial is already over) may promote it.
  if (r.nextBoot.exitsAfterBootstrap) return r.trial?.inTrial ? null : 'its trial is over: the trial check that runs as the kubelet starts may still make it last-known-good before the kubelet exits';
  if (r.trial?.inTrial) return `becomes last-known-good once its 10-minute trial is over (${shortTime(r.trial.endsAt)})`;
  return 'its trial is over: a running kubelet makes it last-known-good';
}

export function renderStatus(r: StatusReport, ctx: TextContext): string {
  const { p } = ctx;
  const now = new Date();
  // Reasons are never cut: folded to the terminal's width, whole when piped.
  const long = (s: string, paint: (x: string) => string = (x) => x) => fitText(s, ctx.width - L, !!ctx.tty).map((l) => more(paint(l)));
  const lines: string[] = [row('Store', r.store)];
  lines.push(...partsRows('Assigned', sourceParts(r.assigned, r.meta.assigned.state), ctx));
  if (r.meta.assigned.error) lines.push(...long(r.meta.assigned.error, p.red));
  if (r.assignedModified) {
    const trial = trialText(r, p);
    const written = `written ${shortTime(r.assignedModified)} (${ago(r.assignedModified, now)})`;
    lines.push(...partsRows(null, trial ? [`${written};`, trial] : [written], ctx, ' '));
  }
  lines.push(...partsRows('Last-known-good', sourceParts(r.lastKnownGood, r.meta.lastKnownGood.state), ctx));
  if (r.meta.lastKnownGood.error) lines.push(...long(r.meta.lastKnownGood.error, p.red));
  const nb = r.nextBoot;
  const v = nextBootVerdict(nb);
  const verdict = v.tone === 'good' ? p.green(v.text) : v.tone === 'bad' ? p.red(v.text) : p.yellow(v.text);
  const target = nextBootTarget(nb);
  const [nbFirst, ...nbRest] = fitText(target ? `${p.bold(target)}: ${verdict}` : verdict, ctx.width - L, !!ctx.tty);
  lines.push(row('Next boot', nbFirst!), ...nbRest.map((x) => more(x)));
  lines.push(...long(nb.reason));
  // "starts" as the kubelet decides it at its config bootstrap; what fails later is not foreseen.
  if (nb.willStart === true && !ctx.quiet) lines.push(...long('(from the files: errors at run time, e.g. a cgroupDriver the runtime rejects, are not predicted)', p.dim));
  if (nb.statusError) lines.push(...long(`Node.Status.Config.Error: ${JSON.stringify(nb.statusError)}`));
  const promotion = promotionText(r);
  if (promotion) lines.push(...long(promotion));
  if (!r.kubeletCommandLine) {
    lines.push(row('Flags', p.yellow('not applied')));
    lines.push(...long("the kubelet's command line was not found (no running kubelet, no unit naming this store), so no flag overrides were checked; run on the node, give --root for its mounted disk, or give them with --kubelet-flags='--max-pods=110 …'"));
  }
  if (r.upgradeHint) {
    const [first, ...rest] = fitText(r.upgradeHint, ctx.width - L, !!ctx.tty);
    lines.push(row('Upgrade', p.yellow(first!)), ...rest.map((x) => more(p.yellow(x))));
  }
  // An unreadable checkpoints/ is never "0 checkpoints": how many there are is not known.
  lines.push(row('Checkpoints', r.checkpointsUnreadable !== null ? `${p.red('unreadable')} (${r.checkpointsUnreadable})` : String(r.checkpoints)));
  const c = countBySeverity(r.problems);
  // Status judges only the payloads the meta files name: "none" must not read as verify's verdict on the others.
  const named = new Set([r.assigned, r.lastKnownGood].flatMap((x) => (x ? [`${x.uid}/${x.resourceVersion}`] : []))).size;
  const others = r.checkpointsUnreadable === null ? r.checkpoints - named : 0;
  const verify = `\`${ctx.self ?? 'kubelet-ckpt'} verify\``;
  const none = others > 0 ? `${p.green('none')} (${verify} also checks the other ${others > 1 ? `${others} checkpoints` : 'checkpoint'})` : p.green('none');
  const prob = c.error + c.warning === 0 ? none : [c.error ? p.red(`${c.error} error${c.error > 1 ? 's' : ''}`) : '', c.warning ? p.yellow(`${c.warning} warning${c.warning > 1 ? 's' : ''}`) : ''].filter(Boolean).join(', ') + ` (see ${verify})`;
  const scope = p.dim('  (assigned and last-known-good payloads; `verify` checks every checkpoint)');
  const [pfirst, ...prest] = fitText(prob, ctx.width - L, !!ctx.tty);
  lines.push(row('Problems', pfirst!), ...prest.map(more));
  if (ctx.verbose) lines.push(scope);
  if (ctx.verbose && r.localConfig) lines.push(row('Local config', r.localConfig));
  if (r.journal?.read) {
    const j = r.journal;
    const [first, ...rest] = fitText(j.summary ?? 'no kubelet config events found', ctx.width - L, !!ctx.tty);
    lines.push(row('Journal', first!), ...rest.map(more));
    if (j.crashLoop) lines.push(more(p.red(`crash loop: ${j.restarts} restarts, 3 or more failed starts within 10 minutes`)));
  }
  lines.push(...renderNextSteps(r.nextSteps, ctx));
  return lines.join('\n');
}
