// Text rendering of the next steps that end `status` and `verify` when something is wrong.

import type { NextStep } from '../integrity/next-steps.js';
import type { TextContext } from './print.js';
import { fitText } from './wrap.js';

const COL = 36;

export function renderNextSteps(steps: readonly NextStep[] | undefined, ctx: TextContext): string[] {
  if (!steps?.length || ctx.quiet) return [];
  const lines = ['', 'Next steps:'];
  for (const s of steps) {
    const cmd = `  ${ctx.p.bold(s.command)}`;
    // At least two spaces between the command and why, or why goes below (found by review: a
    // 33-character command got one space, and read, and pasted, as one command line).
    if (s.command.length + 4 <= COL && (!ctx.tty || COL + s.why.length <= ctx.width)) lines.push(`${cmd}${' '.repeat(COL - s.command.length - 2)}${ctx.p.dim(s.why)}`);
    else lines.push(cmd, ...fitText(s.why, ctx.width - 6, !!ctx.tty).map((w) => `      ${ctx.p.dim(w)}`));
  }
  return lines;
}
