// pkg/kubelet/cm/cpuset.Parse as of 1.23, for `reservedSystemCPUs`: the same accepted
// forms and the same error texts (strconv.Atoi errors, `invalid range`). Only checks: a
// huge range such as 0-4000000000 is accepted without materialising it.

import { GoNumError, goAtoi, goQuote } from './gostrconv.js';

export interface CpuRange {
  start: number;
  end: number;
}

/** Parse a Linux CPU list; throws Error with the kubelet's message. */
export function parseCpuSet(s: string): CpuRange[] {
  if (s === '') return [];
  const out: CpuRange[] = [];
  for (const r of s.split(',')) {
    const bounds = r.split('-');
    if (bounds.length === 1) {
      const elem = atoi(bounds[0]!);
      out.push({ start: elem, end: elem });
    } else if (bounds.length === 2) {
      const start = atoi(bounds[0]!);
      const end = atoi(bounds[1]!);
      if (start > end) throw new Error(`invalid range ${goQuote(r)} (${start} >= ${end})`);
      out.push({ start, end });
    }
    // Three or more parts ("1-2-3") are silently skipped by the Go code.
  }
  return out;
}

function atoi(s: string): number {
  try {
    return goAtoi(s);
  } catch (e) {
    if (e instanceof GoNumError) throw new Error(e.message);
    throw e;
  }
}

/** The parse error message, or null when `s` is a valid CPU list. */
export function cpuSetError(s: string): string | null {
  try {
    parseCpuSet(s);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
