// Text rendering of `ls`: one line per checkpoint, markers first.

import type { ListReport } from '../store/list.js';
import type { TextContext } from './print.js';
import { humanBytes, shortTime } from './time.js';

export function renderList(r: ListReport, ctx: TextContext): string {
  const { p } = ctx;
  const unlisted = (r.unlisted ?? []).map((u) => p.yellow(`not listed: ${u.path}: ${u.why} (${/permission denied/.test(u.why) ? 'run as root (sudo) to list it' : 'kubelet-ckpt verify reports it'})`));
  if (r.checkpoints.length === 0) return ctx.quiet ? '' : [unlisted.length ? 'no checkpoints listed' : 'no checkpoints', ...unlisted].join('\n');
  const rvw = Math.min(12, Math.max(2, ...r.checkpoints.map((c) => c.resourceVersion.length)));
  const head = `${'ALB'} ${'UID'.padEnd(36)} ${'RV'.padEnd(rvw)} ${'MODIFIED'.padEnd(20)} ${'STATE'.padEnd(7)} FILES`;
  const lines = ctx.quiet ? [] : [p.dim(head)];
  for (const c of r.checkpoints) {
    const marks = `${c.assigned ? p.bold('A') : ' '}${c.lastKnownGood ? p.bold('L') : ' '}${c.bootsNext ? p.bold('B') : ' '}`;
    const state = c.verify === 'error' ? p.red('error'.padEnd(7)) : c.verify === 'warning' ? p.yellow('warning') : c.verify === 'ok' ? p.green('ok'.padEnd(7)) : '-'.padEnd(7);
    // A checkpoint named below as not listed (a link, no permission) is not "empty".
    const notListed = (r.unlisted ?? []).some((u) => u.path === `checkpoints/${c.uid}/${c.resourceVersion}`);
    const files = c.files.map((f) => `${f.name} (${humanBytes(f.size)})`).join(', ') || (notListed ? '(not listed: see below)' : '(empty)');
    lines.push(`${marks} ${c.uid.padEnd(36)} ${c.resourceVersion.padEnd(rvw)} ${(c.modified === null ? 'unknown' : shortTime(c.modified)).padEnd(20)} ${state} ${files}`);
  }
  if (!ctx.quiet) lines.push(...unlisted);
  return lines.join('\n');
}
