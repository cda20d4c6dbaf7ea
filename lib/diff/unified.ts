// The text diff: a unified diff of the raw files (GNU `diff -u` layout), via the `diff`
// package. Binary content and pathological inputs get a one-line verdict instead of hunks.

import { structuredPatch } from 'diff';

export interface TextSide {
  /** The `---`/`+++` label. */
  label: string;
  bytes: Buffer;
  /** The content as text, or null when it is binary (not UTF-8, or holds NUL bytes). */
  text: string | null;
}

export interface Unified {
  /** The patch text (empty when the files are byte-identical). */
  text: string;
  /** Why no hunks were computed although the files differ (too many changes), or null. */
  note: string | null;
}

/**
 * Edit distance past which the line diff gives up. Myers' algorithm costs O(N·D): this bound
 * keeps a 1 MiB worst case under a second; real configs differ by a handful of lines.
 */
export const MAX_LINE_EDITS = 1000;

/** UTF-8 text without NUL bytes, else null (binary). */
export function asText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function range(start: number, count: number): string {
  // Unified-format quirk: an empty range names the line before it.
  if (count === 0) return `${start - 1},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

export function unifiedDiff(a: TextSide, b: TextSide, context: number): Unified {
  if (a.bytes.equals(b.bytes)) return { text: '', note: null };
  if (a.text === null || b.text === null) {
    // Like GNU diff; the semantic side already says which file is binary.
    return { text: `Binary files ${a.label} and ${b.label} differ\n`, note: null };
  }
  const patch = structuredPatch(a.label, b.label, a.text, b.text, undefined, undefined, { context, maxEditLength: MAX_LINE_EDITS });
  if (!patch) {
    const text = `Files ${a.label} and ${b.label} differ\n`;
    return { text, note: `the files differ in more than ${MAX_LINE_EDITS} lines: no line diff computed` };
  }
  const lines = [`--- ${a.label}`, `+++ ${b.label}`];
  for (const h of patch.hunks) {
    lines.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines);
  }
  return { text: `${lines.join('\n')}\n`, note: null };
}
