// pkg/kubelet/cm/cpuset.Parse, for `reservedSystemCPUs`: the same accepted forms and the
// same error texts (strconv.Atoi errors, `invalid range`). Only checks: a huge range such
// as 0-4000000000 is accepted without materialising it.
// Releases differ: up to 1.21 a range is split at every `-` and a range of three or more
// parts ("0-1-3") is silently skipped; from 1.22 it is split at the first `-` only, so
// "0-1-3" fails on the end bound (`strconv.Atoi: parsing "1-3": invalid syntax`), and an
// inverted range ("3-1") is refused; 1.20/1.21 accept it (and add no CPU).

import { GoNumError, goAtoi, goQuote } from './gostrconv.js';
import { atLeast, DEFAULT_VERSION, type KubeletVersion } from './version.js';

export interface CpuRange {
  start: number;
  end: number;
}

/** The bounds of one range as the release splits it (Split, or SplitN(…, 2) from 1.22). */
function splitRange(r: string, version: KubeletVersion): string[] {
  if (!atLeast(version, '1.22')) return r.split('-');
  const dash = r.indexOf('-');
  return dash < 0 ? [r] : [r.slice(0, dash), r.slice(dash + 1)];
}

/** Parse a Linux CPU list as `version`'s kubelet does; throws Error with the kubelet's message. */
export function parseCpuSet(s: string, version: KubeletVersion = DEFAULT_VERSION): CpuRange[] {
  if (s === '') return [];
  const out: CpuRange[] = [];
  for (const r of s.split(',')) {
    const bounds = splitRange(r, version);
    if (bounds.length === 1) {
      const elem = atoi(bounds[0]!);
      out.push({ start: elem, end: elem });
    } else if (bounds.length === 2) {
      const start = atoi(bounds[0]!);
      const end = atoi(bounds[1]!);
      // The range check came with 1.22; 1.20/1.21 add nothing for an inverted range.
      if (start > end && atLeast(version, '1.22')) throw new Error(`invalid range ${goQuote(r)} (${start} >= ${end})`);
      out.push({ start, end });
    }
    // Up to 1.21, three or more parts ("1-2-3") are silently skipped by the Go code.
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
export function cpuSetError(s: string, version: KubeletVersion = DEFAULT_VERSION): string | null {
  try {
    parseCpuSet(s, version);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
