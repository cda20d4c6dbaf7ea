// The named steps of an apply, reported to an optional hook. Production code passes no
// hook; the test-only fault switch (KUBELET_CKPT_FAULT, read in cmd/) uses the hook to
// stop the process at one step so a test can SIGKILL it there.

/** Every step an apply passes, in order of first occurrence. */
export const STEPS = [
  'begin',
  'locked',
  'backup-written',
  'backup-renamed',
  'audit-begin',
  'kubelet-stopped',
  'temp-created',
  'after-temp-write',
  'after-rename',
  'dir-synced',
  'between-files',
  'moved-aside',
  'removed',
  'audit-done',
  'end',
] as const;

export type Step = (typeof STEPS)[number];

/** Called at each step; `detail` names the file or checkpoint concerned. */
export type StepHook = (step: Step, detail: string) => void;

/** Test-only failure simulation that cannot be produced with a signal. */
export interface Simulate {
  /** The temp file write fails with ENOSPC (a full disk). */
  enospc?: boolean;
}

export interface FaultSpec {
  /** Stop at this step … */
  step: Step | null;
  /** … on its n-th occurrence (1-based). */
  occurrence: number;
  /** Sleep this long at every step (spreads an apply out for random SIGKILL loops). */
  delayMs: number;
  simulate: Simulate;
}

/**
 * Parse the fault switch: `STEP`, `STEP#N`, `delay:MS`, `enospc`, comma-separated.
 * Unknown words are an error (a typo must not silently test nothing).
 */
export function parseFault(value: string | undefined): FaultSpec | null {
  if (!value) return null;
  const spec: FaultSpec = { step: null, occurrence: 1, delayMs: 0, simulate: {} };
  for (const word of value.split(',').map((w) => w.trim()).filter(Boolean)) {
    const delay = /^delay:(\d+)$/.exec(word);
    if (delay) {
      spec.delayMs = Number(delay[1]);
      continue;
    }
    if (word === 'enospc') {
      spec.simulate.enospc = true;
      continue;
    }
    const m = /^([a-z-]+)(?:#(\d+))?$/.exec(word);
    if (!m || !(STEPS as readonly string[]).includes(m[1]!)) throw new Error(`unknown fault "${word}" (steps: ${STEPS.join(', ')}; also delay:MS, enospc)`);
    spec.step = m[1] as Step;
    spec.occurrence = m[2] ? Number(m[2]) : 1;
  }
  return spec;
}

/** Block the thread for `ms` (a real sleep between two syscalls, as a slow disk would). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * The hook for a fault spec. At the chosen step it writes a marker through `announce` and
 * then blocks for good: the process holds whatever it holds (lock, temp file) until killed.
 */
export function faultHook(spec: FaultSpec, announce: (line: string) => void): StepHook {
  const seen = new Map<Step, number>();
  return (step, detail) => {
    const n = (seen.get(step) ?? 0) + 1;
    seen.set(step, n);
    if (step === 'begin' && spec.delayMs > 0) announce(`kubelet-ckpt: fault: apply begins (delay ${spec.delayMs} ms per step)`);
    sleepSync(spec.delayMs);
    if (step === spec.step && n === spec.occurrence) {
      announce(`kubelet-ckpt: fault: stopped at ${step}#${n} ${detail}`);
      for (;;) sleepSync(60_000);
    }
  };
}
