// Text rendering of the `status` report: a short, labelled summary that fits 80 columns.

import { countBySeverity } from '../integrity/findings.js';
import type { StatusReport } from '../integrity/status.js';
import type { SourceRef } from '../store/types.js';
import type { TextContext } from './print.js';
import { ago, clip, shortTime } from './time.js';

const L = 17;
const row = (label: string, value: string) => `${label.padEnd(L)}${value}`;
const more = (value: string) => `${' '.repeat(L)}${value}`;

function sourceLine(r: SourceRef | null, state: string): string {
  if (r) return `${r.namespace}/${r.name}  ${r.uid}/${r.resourceVersion}  key ${r.kubeletConfigKey}`;
  if (state === 'missing') return 'local config (meta file missing; the kubelet creates it empty)';
  if (state === 'empty') return 'local config (meta file empty)';
  return state === 'error' ? 'cannot be decoded' : 'not read';
}

type NextBoot = StatusReport['nextBoot'];

/** The verdict on the next boot in words, and how alarming it is (status, the TUI). */
export function nextBootVerdict(nb: NextBoot): { text: string; tone: 'good' | 'warn' | 'bad' } {
  if (nb.willStart === true) return nb.statusError ? { text: 'starts, degraded', tone: 'warn' } : { text: 'starts', tone: 'good' };
  if (nb.willStart === false) return { text: 'WILL NOT START', tone: 'bad' };
  return { text: 'cannot be predicted', tone: 'warn' };
}

/** What boots next: the source and, for a checkpoint, its UID/RV (`short`: the UID's first 8 characters); null when unknown. */
export function nextBootTarget(nb: NextBoot, short = false): string | null {
  if (nb.source === 'unknown') return null;
  return nb.ref ? `${nb.source} ${short ? nb.ref.uid.slice(0, 8) : nb.ref.uid}/${nb.ref.resourceVersion}` : nb.source;
}

export function renderStatus(r: StatusReport, ctx: TextContext): string {
  const { p } = ctx;
  const now = new Date();
  const lines: string[] = [row('Store', r.store)];
  lines.push(row('Assigned', sourceLine(r.assigned, r.meta.assigned.state)));
  if (r.meta.assigned.error) lines.push(more(p.red(clip(r.meta.assigned.error, ctx.width * 2, ctx.verbose))));
  if (r.assignedModified) {
    const trial = r.trial ? (r.trial.inTrial ? p.yellow(`in trial until ${shortTime(r.trial.endsAt)}`) : `trial ended ${shortTime(r.trial.endsAt)}`) : '';
    lines.push(more(`written ${shortTime(r.assignedModified)} (${ago(r.assignedModified, now)})${trial ? `; ${trial}` : ''}`));
  }
  lines.push(row('Last-known-good', sourceLine(r.lastKnownGood, r.meta.lastKnownGood.state)));
  if (r.meta.lastKnownGood.error) lines.push(more(p.red(clip(r.meta.lastKnownGood.error, ctx.width * 2, ctx.verbose))));
  const nb = r.nextBoot;
  const v = nextBootVerdict(nb);
  const verdict = v.tone === 'good' ? p.green(v.text) : v.tone === 'bad' ? p.red(v.text) : p.yellow(v.text);
  const target = nextBootTarget(nb);
  lines.push(row('Next boot', target ? `${p.bold(target)}: ${verdict}` : verdict));
  lines.push(more(clip(nb.reason, ctx.width * 3, ctx.verbose)));
  if (nb.statusError) lines.push(more(`Node.Status.Config.Error: ${JSON.stringify(nb.statusError)}`));
  if (nb.promotesToLastKnownGood && nb.source === 'assigned') lines.push(more('becomes last-known-good once its 10-minute trial is over'));
  if (r.upgradeHint) lines.push(row('Upgrade', p.yellow(clip(r.upgradeHint, ctx.width * 2, ctx.verbose))));
  lines.push(row('Checkpoints', String(r.checkpoints)));
  const c = countBySeverity(r.problems);
  const prob = c.error + c.warning === 0 ? p.green('none') : [c.error ? p.red(`${c.error} error${c.error > 1 ? 's' : ''}`) : '', c.warning ? p.yellow(`${c.warning} warning${c.warning > 1 ? 's' : ''}`) : ''].filter(Boolean).join(', ') + ' (see `kubelet-ckpt verify`)';
  const scope = p.dim('  (assigned and last-known-good payloads; `verify` checks every checkpoint)');
  lines.push(row('Problems', prob));
  if (ctx.verbose) lines.push(scope);
  if (ctx.verbose && r.localConfig) lines.push(row('Local config', r.localConfig));
  if (r.journal) {
    const j = r.journal;
    lines.push(row('Journal', clip(j.summary ?? 'no kubelet config events found', Math.max(20, ctx.width - L), ctx.verbose)));
    if (j.crashLoop) lines.push(more(p.red(`crash loop: ${j.restarts} restarts, 3 or more failed starts within 10 minutes`)));
  }
  return lines.join('\n');
}
