// Long text for a terminal: folded at spaces to the width, never cut and never split inside a
// word (a UID, a path), so what is shown is all there is. Off a terminal lines stay whole.

/** Columns `s` takes on a terminal: SGR colour sequences take none. */
export function columns(s: string): number {
  return s.includes('\u001b') ? s.replace(/\u001b\[[0-9;]*m/g, '').length : s.length;
}

/** Lines of at most `width` columns where spaces allow; a longer word gets a line of its own. */
export function foldWords(s: string, width: number): string[] {
  if (width < 10 || columns(s) <= width) return [s];
  const lines: string[] = [];
  let line = '';
  for (const word of s.split(' ')) {
    if (line && columns(line) + 1 + columns(word) > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** `s` whole, or folded to `width` when `fold` (stdout is a terminal). */
export function fitText(s: string, width: number, fold: boolean): string[] {
  return fold ? foldWords(s, width) : [s];
}
