// "Did you mean …?": the closest of a few known words to a mistyped one.

/** Edit distance (insert, delete, substitute, swap of neighbours) between two short words. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be a typo: at most 1 edit
 * for words of up to 4 characters, 2 up to 8, else a quarter of the length. A candidate
 * that `word` is a prefix of (of at least 3 characters) also counts.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  const limit = w.length <= 4 ? 1 : w.length <= 8 ? 2 : Math.floor(w.length / 4);
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = c.toLowerCase().startsWith(w) && w.length >= 3 ? 0.5 : editDistance(w, c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return bestD <= limit ? best : null;
}
