// A line sink for the scanner's tests (scan.test.ts, tail-finder.test.ts): it records what it
// is given; a line holding CONT asks for continuations (lines starting with a space), one
// holding START for a watch window.
import { Follow, type LineSink } from '../../../lib/journal/scan.js';

export interface Seen {
  lines: string[];
  conts: string[];
  overlong: number;
}

export function recorder(): { sink: LineSink; seen: Seen } {
  const seen: Seen = { lines: [], conts: [], overlong: 0 };
  return {
    seen,
    sink: {
      line: (b, s, e) => {
        const l = b.toString('latin1', s, e);
        seen.lines.push(l);
        return l.includes('CONT') ? Follow.Continuation : l.includes('START') ? Follow.Watch : Follow.None;
      },
      continuation: (b, s, e) => {
        const l = b.toString('latin1', s, e);
        if (!l.startsWith(' ')) return false;
        seen.conts.push(l);
        return true;
      },
      overlong: () => seen.overlong++,
    },
  };
}
