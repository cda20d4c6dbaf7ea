// Text rendering of `ls`: one line per checkpoint, markers first.

import type { ListReport } from '../store/list.js';
import type { TextContext } from './print.js';
import { humanBytes, shortTime } from './time.js';

export function renderList(r: ListReport, ctx: TextContext): string {
  const { p } = ctx;
  const unlisted = (r.unlisted ?? []).map((u) => p.yellow(`not listed: ${u.path}: ${u.why} (${/permission denied/.test(u.why) ? 'run as root (sudo) to list it' : `${ctx.self ?? 'kubelet-ckpt'} verify reports it`})`));
  if (r.checkpoints.length === 0) return ctx.quiet ? '' : [unlisted.length ? 'no checkpoints listed' : 'no checkpoints', ...unlisted].join('\n');
  const rvw = Math.min(12, Math.max(2, ...r.checkpoints.map((c) => c.resourceVersion.length)));
  const filesOf = (c: (typeof r.checkpoints)[number]) => c.files.map((f) => `${f.name} (${humanBytes(f.size)})`).join(', ');
  // On a terminal too narrow for whole UIDs (36 columns), each is cut to the shortest prefix
  // that still tells them apart, 8 at least (refs take prefixes); piped, lines stay whole.
  // A UID is 36 columns as the API server writes it; a longer name in the store is shown whole
  // too (found by review: cut to 36, two UIDs printed alike and the one printed named nothing).
  const whole = Math.max(36, ...r.checkpoints.map((c) => c.uid.length));
  const widest = Math.max(...r.checkpoints.map((c) => 3 + 1 + whole + 1 + rvw + 1 + 20 + 1 + 7 + 1 + Math.max(5, filesOf(c).length)));
  const uidw = ctx.tty && widest > ctx.width ? uniquePrefixLength(r.checkpoints.map((c) => c.uid), 8) : whole;
  const uidOf = (u: string) => (u.length > uidw ? u.slice(0, uidw) : u).padEnd(uidw);
  const head = `${'ALB'} ${'UID'.padEnd(uidw)} ${'RV'.padEnd(rvw)} ${'MODIFIED'.padEnd(20)} ${'STATE'.padEnd(7)} FILES`;
  const lines = ctx.quiet ? [] : [p.dim(head)];
  for (const c of r.checkpoints) {
    const marks = `${c.assigned ? p.bold('A') : ' '}${c.lastKnownGood ? p.bold('L') : ' '}${c.bootsNext ? p.bold('B') : ' '}`;
    const state = c.verify === 'error' ? p.red('error'.padEnd(7)) : c.verify === 'warning' ? p.yellow('warning') : c.verify === 'ok' ? p.green('ok'.padEnd(7)) : '-'.padEnd(7);
    // A checkpoint named below as not listed (a link, no permission) is not "empty".
    const notListed = (r.unlisted ?? []).some((u) => u.path === `checkpoints/${c.uid}/${c.resourceVersion}`);
    const files = filesOf(c) || (notListed ? '(not listed: see below)' : '(empty)');
    lines.push(`${marks} ${uidOf(c.uid)} ${c.resourceVersion.padEnd(rvw)} ${(c.modified === null ? 'unknown' : shortTime(c.modified)).padEnd(20)} ${state} ${files}`);
  }
  if (!ctx.quiet) lines.push(...unlisted);
  return lines.join('\n');
}

/** The shortest prefix length, `min` at least, at which the distinct `ids` all differ. */
function uniquePrefixLength(ids: string[], min: number): number {
  const distinct = [...new Set(ids)].sort();
  let n = min;
  for (let i = 1; i < distinct.length; i++) {
    const [a, b] = [distinct[i - 1]!, distinct[i]!];
    let k = 0;
    while (k < a.length && k < b.length && a[k] === b[k]) k++;
    n = Math.max(n, k + 1);
  }
  return Math.min(n, Math.max(...distinct.map((x) => x.length)));
}
