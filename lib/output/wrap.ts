// Long text for a terminal: folded at spaces to the width, never cut and never split inside a
// word (a UID, a path), so what is shown is all there is. Off a terminal lines stay whole.

/** Lines of at most `width` columns where spaces allow; a longer word gets a line of its own. */
export function foldWords(s: string, width: number): string[] {
  if (width < 10 || s.length <= width) return [s];
  const lines: string[] = [];
  let line = '';
  for (const word of s.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
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
