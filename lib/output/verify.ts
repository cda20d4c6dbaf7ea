// Text rendering of `verify`: findings grouped by checkpoint (or meta file), worst first.

import { countBySeverity, type Finding, type Severity } from '../integrity/findings.js';
import type { VerifyReport } from '../integrity/verify.js';
import type { TextContext } from './print.js';
import { fitText } from './wrap.js';
import { renderNextSteps } from './next-steps.js';
import { compareText } from '../text-order.js';

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const refLabel = (ref: string) => (ref === '-' ? '- (stdin)' : ref);

function groupOf(x: Finding): string {
  if (x.ref === '-' || x.ref === 'local') return refLabel(x.ref);
  if (x.ref && /\//.test(x.ref)) return x.ref;
  if (x.path?.startsWith('meta/')) return x.path;
  if (x.ref === 'assigned' || x.ref === 'last-known-good') return `meta/${x.ref}`;
  return 'store';
}

export function renderVerify(r: VerifyReport, ctx: TextContext): string {
  const { p } = ctx;
  const groups = new Map<string, Finding[]>();
  for (const x of r.findings) {
    if (ctx.quiet && x.severity === 'info') continue;
    const g = groupOf(x);
    groups.set(g, [...(groups.get(g) ?? []), x]);
  }
  const worst = (fs: Finding[]) => Math.min(...fs.map((x) => RANK[x.severity]));
  const ordered = [...groups].sort((a, b) => worst(a[1]) - worst(b[1]) || b[1].length - a[1].length || compareText(a[0], b[0]));
  const sev = (s: Severity) => (s === 'error' ? p.red('error  ') : s === 'warning' ? p.yellow('warning') : p.cyan('info   '));
  const lines: string[] = [];
  for (const [g, fs] of ordered) {
    lines.push(p.bold(g));
    for (const x of fs) {
      lines.push(`  ${sev(x.severity)} ${x.code}`);
      // Never cut: folded to the terminal's width, whole when piped.
      const msg = fitText(x.message, ctx.width - 10, !!ctx.tty).map((l) => `          ${l}`);
      if (x.path && g !== x.path && ctx.verbose) msg[msg.length - 1] += p.dim(` [${x.path}]`);
      lines.push(...msg);
    }
  }
  const c = countBySeverity(r.findings);
  const summary = r.findings.length === 0 ? p.green('ok: no problems found') : `${r.ok ? p.green('ok') : p.red('FAILED')}: ${c.error} error${c.error === 1 ? '' : 's'}, ${c.warning} warning${c.warning === 1 ? '' : 's'}, ${c.info} info`;
  // Say what was judged, so an "ok" is never read as covering more than it did.
  lines.push(r.checked ? `${summary} (checked: ${r.checked.map(refLabel).join(', ')})` : summary);
  lines.push(...renderNextSteps(r.nextSteps, ctx));
  return lines.join('\n');
}
