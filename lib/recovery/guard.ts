// The choreography every recovery write shares: take the store's lock, refuse while a
// kubelet runs on the store (unless --force or --restart-kubelet), stop it when asked,
// do the work, start it again whatever happened, release the lock. Called inside a
// withStoreLock() that already holds the lock (the CLI plans under it), it reuses it.

import { findSystemctl, kubeletsUsing, runningError, startKubelet, stopKubelet, type RestartReport } from './kubelet.js';
import { withStoreLock, type HeldLock } from './lock.js';
import type { Overrides, RecoveryContext } from './plan.js';
import type { StepHook } from './steps.js';

export interface GuardedPlan {
  dynamicConfigDir: string;
  store: string;
  commandLine: string;
  overrides: Overrides;
}

export interface GuardOptions {
  ctx: RecoveryContext;
  plan: GuardedPlan;
  hook: StepHook;
  now: () => Date;
  warnings: string[];
  /** Runs right after the lock is taken (clean-up of our own leftovers). */
  afterLock?: () => void;
}

/** Run `work` under the store's lock with the kubelet interlock; returns the restart report. */
export async function guarded(o: GuardOptions, work: (lock: HeldLock) => Promise<void> | void): Promise<RestartReport | null> {
  const { ctx, plan, hook, warnings } = o;
  // With --restart-kubelet, find systemctl before anything is done (exit 3 when absent).
  const sc = plan.overrides.restartKubelet ? findSystemctl(ctx.envPath) : null;
  hook('begin', plan.commandLine);
  return withStoreLock(plan.dynamicConfigDir, plan.commandLine, async (lock: HeldLock) => {
    if (lock.warning && !warnings.includes(lock.warning)) warnings.push(lock.warning);
    for (const n of lock.notes) if (!warnings.includes(n)) warnings.push(n);
    o.afterLock?.();
    hook('locked', lock.path);
    const running = kubeletsUsing(plan.dynamicConfigDir, ctx.procRoot, ctx.root).using;
    if (running.length && !plan.overrides.force && !plan.overrides.restartKubelet) throw runningError(running, plan.store);
    let report: RestartReport | null = null;
    if (sc) {
      report = { stopped: false, started: false, active: null };
      // Whether the unit runs now: only a unit this command stopped is started again on a refusal.
      const wasActive = sc.run(['is-active', 'kubelet']).stdout.trim() === 'active';
      try {
        stopKubelet(sc, plan.dynamicConfigDir, 15_000, ctx.procRoot, ctx.root);
      } catch (err) {
        // systemctl stop stopped the unit, yet a process using the store is left (not the unit's),
        // or the stop failed part-way: a unit that was running is started again, so that a refusal
        // never leaves the node without its kubelet (found by review).
        if (wasActive) {
          const st = startKubelet(sc);
          (err as Error).message += `; the kubelet unit was started again (systemctl start kubelet ${st.error ? `failed: ${st.error}` : 'done'}, is-active: ${st.active ?? 'nothing'})`;
        }
        throw err;
      }
      report.stopped = true;
      hook('kubelet-stopped', 'kubelet');
    }
    let failed: unknown = null;
    try {
      await work(lock);
    } catch (err) {
      failed = err;
    }
    if (sc && report?.stopped) {
      const st = startKubelet(sc);
      report.started = st.started;
      report.active = st.active;
      if (st.error) warnings.push(st.error);
      if (st.active !== 'active') warnings.push(`after systemctl start kubelet, systemctl is-active kubelet says ${st.active ?? 'nothing'}: check journalctl -u kubelet`);
      // A failed command prints its error alone: the kubelet it stopped and could not start again
      // is said there (found by review: only the write's error was shown, the node left without a kubelet).
      if (failed instanceof Error && !st.started) failed.message += `; the kubelet was stopped for it and systemctl start kubelet failed${st.error ? ` (${st.error})` : ''}: the kubelet is not running, start it (systemctl start kubelet)`;
    }
    if (failed !== null) throw failed;
    return report;
  }, { now: o.now() });
}
