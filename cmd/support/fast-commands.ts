// The commands the fast path (fastargs.ts) may run without yargs, each module loaded only when
// named. Kept apart from the parser so that the status-only program (cmd/status-main.ts)
// bundles the parser without every other command's modules.

import type { FastTable } from './fastargs.js';

export const FAST_COMMANDS: FastTable = {
  status: () => import('../status.js'),
  ls: () => import('../ls.js'),
  verify: () => import('../verify.js'),
  journal: () => import('../journal.js'),
  tui: () => import('../tui.js'),
};
