// What to run next when something is wrong, as `git status` says it: each problem status or
// verify finds is followed by the command that investigates or fixes it. Pure: the reports
// in, the steps out; the caller gives the command prefix (with the --dir/--root it was given).

import type { Finding } from './findings.js';
import type { NextBoot } from './nextboot.js';

export interface NextStep {
  /** The command line to run, e.g. `kubelet-ckpt rollback --dry-run`. */
  command: string;
  /** What it shows or does, in a few words. */
  why: string;
}

export interface StepInputs {
  nextBoot?: (Pick<NextBoot, 'source' | 'willStart' | 'statusError'> & { exitsAfterBootstrap?: string | null }) | null;
  findings: readonly (Pick<Finding, 'code' | 'severity'> & Partial<Pick<Finding, 'ref' | 'path'>>)[];
  crashLoop?: boolean | undefined;
  /** The checkpoint meta/last-known-good names (it decodes): status knows, verify does not say. */
  lastKnownGood?: { uid: string; resourceVersion: string } | null;
  /** The command asking: it does not suggest itself. */
  from: 'status' | 'verify';
}

/** The steps for what is wrong, most urgent first, each command once; empty when all is well. */
export function nextSteps(prefix: string, i: StepInputs): NextStep[] {
  const out: NextStep[] = [];
  const add = (args: string, why: string) => {
    const command = `${prefix} ${args}`;
    if (!out.some((s) => s.command === command)) out.push({ command, why });
  };
  const has = (code: string) => i.findings.some((f) => f.code === code);
  const nb = i.nextBoot;
  if (has('STARTUP_FAILS')) {
    // The kubelet exits on its command line or --config file before it reads the store: no
    // reset or rollback can help, and what fails is in verify's finding.
    if (i.from !== 'verify') add('verify', 'the kubelet exits before it reads the store (its flags or --config file): what fails; no change to the store helps');
    if (i.crashLoop) add('journal', 'the kubelet is crash-looping: its restarts and what it logged');
    return out;
  }
  // Past its config bootstrap, then down at every start (verify says so with NEXT_BOOT_FAILS): as bad as not starting.
  const exits = nb?.willStart === true && (!!nb.exitsAfterBootstrap || has('NEXT_BOOT_FAILS'));
  // meta/assigned cannot be decoded (the kubelet stops on it) while last-known-good decodes and
  // nothing is known against it: rollback may put the node back on the config it last ran, which
  // its dry run tells; reset all would drop it for the local config (found by an operator
  // review: only reset all was offered).
  if (nb?.willStart === false && lkgUsable(i) && has('META_DECODE')) {
    add('rollback --dry-run', 'meta/assigned cannot be decoded: what making last-known-good the assigned config again would write, and whether the kubelet would run it');
  }
  if (nb?.willStart === false || exits) {
    add('reset all --dry-run', `the kubelet ${exits ? 'exits at every start' : 'will not start'}: what resetting both meta files to the local config would write`);
  } else if (nb?.source === 'last-known-good' || (nb?.statusError && nb.source === 'local')) {
    add('diff lkg', 'the assigned config fails: what changed from last-known-good to it');
    add('rollback --dry-run', 'what making last-known-good the assigned config again would write');
  }
  // When the kubelet will not start, reset all (above) clears last-known-good as well.
  if (has('LKG_UNUSABLE') && nb?.willStart !== false && !exits) add('reset last-known-good --dry-run', 'last-known-good would not load: what clearing it would write');
  if (i.crashLoop) add('journal', 'the kubelet is crash-looping: its restarts and what it logged');
  if (i.from !== 'verify' && (nb?.willStart === null || i.findings.some((f) => f.severity === 'error'))) add('verify', 'every problem in detail');
  if (has('TMP_LEFTOVER')) add('clean', "remove the leftovers of interrupted writes (a dry run first; backed up, undoable)");
  return out;
}

/**
 * meta/last-known-good names a checkpoint rollback can copy: no error about that meta file, its
 * checkpoint or its UID directory, whose own findings carry no ref (found by review: an unsafe or
 * incomplete one, a payload too large to read, or a link in its UID directory's place had
 * rollback offered, and refused).
 */
function lkgUsable(i: StepInputs): boolean {
  const l = i.lastKnownGood;
  if (!l) return false;
  const cp = `${l.uid}/${l.resourceVersion}`;
  const uidDir = `checkpoints/${l.uid}`;
  return !i.findings.some((p) => p.severity === 'error' && (p.ref === 'last-known-good' || p.ref === cp || p.path === uidDir || p.path?.startsWith(`${uidDir}/`)));
}

/** A word for a shell command line: quoted when it holds anything but safe characters. */
export function shellWord(w: string): string {
  return /^[-\w./:=@%+,]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
