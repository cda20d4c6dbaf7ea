// Text rendering of the merged fleet view (`report merge`): tables that fit 80 columns.

import type { FleetReport } from '../fleet/merge.js';
import type { TextContext } from './print.js';
import { clip } from './time.js';

const hash = (k: string) => (/^[0-9a-f]{64}$/.test(k) ? k.slice(0, 12) : k);

function list(items: readonly string[], ctx: TextContext, max = 8): string {
  if (ctx.verbose || items.length <= max) return items.join(', ');
  return `${items.slice(0, max).join(', ')} … and ${items.length - max} more (-v lists all)`;
}

function table(rows: string[][]): string[] {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]! + 2))).join('').trimEnd());
}

/**
 * A group's sources on one line, those that differ only in their role merged:
 * `assigned|last-known-good kube-system/cfg UID/RV` (a node that fell back runs the same
 * config as last-known-good that others run as assigned), so a clipped cell still shows both.
 */
export function runsText(configs: readonly string[]): string {
  const roles = new Map<string, string[]>();
  for (const c of configs) {
    const sp = c.indexOf(' ');
    const [role, rest] = sp < 0 ? [c, ''] : [c.slice(0, sp), c.slice(sp + 1)];
    const rs = roles.get(rest) ?? [];
    if (!rs.includes(role)) rs.push(role);
    roles.set(rest, rs);
  }
  return [...roles].map(([rest, rs]) => (rest ? `${rs.join('|')} ${rest}` : rs.join('|'))).join('; ');
}

export function renderFleet(f: FleetReport, ctx: TextContext): string {
  const { p } = ctx;
  const out: string[] = [];
  const bad = f.trouble.length;
  out.push(`Fleet: ${f.nodes} node${f.nodes === 1 ? '' : 's'}, ${f.groups.length} config${f.groups.length === 1 ? '' : 's'}, ${bad ? p.red(`${bad} in trouble`) : p.green('none in trouble')}`);
  if (f.groups.length) {
    out.push('', p.bold('Nodes by the config they run'));
    out.push(...table([['CONFIG', 'NODES', 'RUNS'], ...f.groups.map((g) => [hash(g.key), String(g.nodes.length), clip(runsText(g.configs), Math.max(20, ctx.width - 30), ctx.verbose)])]));
    for (const g of f.groups) out.push(`  ${hash(g.key)}: ${list(g.nodes, ctx)}`);
  }
  if (bad) {
    out.push('', p.bold('In trouble'));
    out.push(...table([['NODE', 'PROBLEM', 'WHY'], ...f.trouble.map((t) => [t.node, t.problems.join(','), clip(t.reason, Math.max(20, ctx.width - 40), ctx.verbose)])]));
  }
  if (f.nextBootDiffers.length) {
    out.push('', p.bold('Next boot differs from what runs now'));
    out.push(...table([['NODE', 'RUNS NOW', 'NEXT BOOT'], ...f.nextBootDiffers.map((d) => [d.node, d.running, d.nextBoot])]));
  }
  if (f.notReadyToMigrate.length) {
    out.push('', p.bold(`Not ready to leave Dynamic Kubelet Config (${f.notReadyToMigrate[0]!.to})`));
    out.push(...table([['NODE', 'WHY'], ...f.notReadyToMigrate.map((n) => [n.node, clip(n.why, Math.max(20, ctx.width - 30), ctx.verbose)])]));
    out.push('  on each: kubelet-ckpt upgrade-check, then kubelet-ckpt migrate');
  }
  if (f.divergence.length) {
    out.push('', p.bold(p.red('Divergence: one UID/RV and key, different bytes')));
    for (const d of f.divergence) {
      out.push(`  ${d.uid}/${d.resourceVersion} key ${d.kubeletConfigKey}`);
      for (const v of d.variants) out.push(`    ${v.sha256.slice(0, 12)}  ${list(v.nodes, ctx)}`);
    }
  }
  return out.join('\n');
}
