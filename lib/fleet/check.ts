// `check --npd`: the node-problem-detector custom-plugin verdict. Only what decides whether
// the kubelet runs the config it was given is looked at — the next boot (two payloads) and
// the journal's crash loop — never a verify of every checkpoint, so it stays far inside
// NPD's 5-second timeout on any store. One ASCII line of at most 80 bytes; exit 0 OK,
// 1 problem, 2 unknown (NPD maps every code but 0 and 1 to Unknown).

import { CkptError } from '../errors.js';
import { predictNextBoot, type NextBoot } from '../integrity/nextboot.js';
import type { Evidence } from '../journal/evidence.js';
import type { Session } from '../session.js';

export type Problem = 'will-not-start' | 'fell-back' | 'crash-loop';
export const PROBLEMS: readonly Problem[] = ['will-not-start', 'fell-back', 'crash-loop'];

export interface CheckVerdict {
  /** 0 OK, 1 a problem, 2 unknown. */
  exit: 0 | 1 | 2;
  /** The problem found (the worst, in PROBLEMS order), or ok / unknown. */
  state: Problem | 'ok' | 'unknown';
  line: string;
}

/** NPD keeps the first 80 bytes of stdout (max_output_length) as the condition message. */
export const NPD_MAX_BYTES = 80;

/** One printable-ASCII line of at most 80 bytes (NPD would cut bytes, splitting a UTF-8 character). */
export function npdLine(s: string): string {
  const ascii = s.replace(/\s+/g, ' ').replace(/[^\x20-\x7e]/g, '?').trim();
  return ascii.length <= NPD_MAX_BYTES ? ascii : `${ascii.slice(0, NPD_MAX_BYTES - 3)}...`;
}

const short = (uid: string, rv: string) => `${uid.slice(0, 8)}/${rv}`;

function target(nb: NextBoot): string {
  if (nb.source === 'last-known-good' && nb.ref) return `lkg ${short(nb.ref.uid, nb.ref.resourceVersion)}`;
  return nb.source === 'local' ? 'local config' : nb.source;
}

/** The problems the next boot and the journal show, worst first. */
export function problemsOf(nb: NextBoot | null, crash: Evidence | null): Problem[] {
  const p: Problem[] = [];
  // Past its config bootstrap, then down at every start: for the node, it does not start.
  if (nb?.willStart === false || nb?.exitsAfterBootstrap) p.push('will-not-start');
  if (nb && nb.willStart === true && nb.statusError !== null && (nb.source === 'last-known-good' || nb.source === 'local')) p.push('fell-back');
  if (crash?.crashLoop) p.push('crash-loop');
  return p;
}

function lineFor(p: Problem, nb: NextBoot | null, crash: Evidence | null): string {
  switch (p) {
    case 'will-not-start':
      // NPD keeps 80 bytes: the kubelet's own error says most in them.
      return nb!.willStart !== false && nb!.exitsAfterBootstrap ? `kubelet exits at every start: ${nb!.exitsAfterBootstrap.replace(/^failed to run Kubelet: (failed to create kubelet: )?/, '')}` : `kubelet will not start: ${nb!.reason}`;
    case 'fell-back':
      return `fell back to ${target(nb!)}: assigned ${nb!.statusError!.replace(/, see Kubelet log for details$/, '')}`;
    case 'crash-loop':
      return `kubelet crash loop: ${crash!.restarts} restarts, 3+ failed starts in 10 min`;
  }
}

/**
 * The verdict. `only` narrows it to one problem (NPD temporary rules, one reason each): that
 * problem is 1, anything else 0 — unknown too, since NPD turns a temporary rule's exit 2 into
 * a Warning event with the rule's reason.
 */
export function verdictOf(nb: NextBoot | null, crash: Evidence | null, only?: Problem): CheckVerdict {
  const found = problemsOf(nb, crash).filter((p) => !only || p === only);
  if (found.length) return { exit: 1, state: found[0]!, line: npdLine(lineFor(found[0]!, nb, crash)) };
  // A temporary rule's non-zero exit is an event with its reason: unknown is the permanent rule's to say.
  if (only && (!nb || nb.source === 'unknown')) return { exit: 0, state: 'unknown', line: npdLine(`ok: no ${only} known (next boot unknown)`) };
  if (!nb || nb.source === 'unknown') return { exit: 2, state: 'unknown', line: npdLine(`unknown: ${nb ? nb.reason : 'next boot not predicted'}`) };
  // A journal read cut short by its bound cannot say "no crash loop" (found by review: ok, exit 0).
  if (!only && crash?.cutShort && !crash.crashLoop) return { exit: 2, state: 'unknown', line: npdLine('unknown: journal read cut short (journalctl slow): crash loop not checked') };
  if (only) return { exit: 0, state: 'ok', line: npdLine(`ok: no ${only}`) };
  const what = nb.ref ? `${nb.source} ${short(nb.ref.uid, nb.ref.resourceVersion)}` : target(nb);
  return { exit: 0, state: 'ok', line: npdLine(`ok: kubelet starts on ${what}`) };
}

/** Unknown (exit 2): the store cannot be found or read, or anything went wrong. */
export function unknownVerdict(err: unknown): CheckVerdict {
  const msg = err instanceof CkptError ? err.message : `internal error: ${(err as Error)?.message ?? String(err)}`;
  return { exit: 2, state: 'unknown', line: npdLine(`unknown: ${msg}`) };
}

export interface CheckOptions {
  open: () => Session;
  journal: ((s: Session) => Promise<Evidence>) | null;
  only?: Problem | undefined;
}

/** Never throws: every failure is an unknown verdict. */
export async function runCheck(o: CheckOptions): Promise<CheckVerdict> {
  try {
    const s = o.open();
    const nb = predictNextBoot(s.snap, { reader: s.reader, judge: s.judge, local: s.local, version: s.judgeOptions.version });
    const crash = o.journal ? await o.journal(s) : null;
    return verdictOf(nb, crash, o.only);
  } catch (err) {
    const v = unknownVerdict(err);
    return o.only ? { ...v, exit: 0 } : v;
  }
}
