// Times for people: UTC, to the second, with a relative hint.

export function shortTime(iso: string | null): string {
  if (!iso) return '-';
  return iso.replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

export function ago(iso: string, now: Date): string {
  const s = Math.round((now.getTime() - Date.parse(iso)) / 1000);
  const abs = Math.abs(s);
  const unit = abs < 90 ? `${abs}s` : abs < 5400 ? `${Math.round(abs / 60)}m` : abs < 172800 ? `${Math.round(abs / 3600)}h` : `${Math.round(abs / 86400)}d`;
  return s >= 0 ? `${unit} ago` : `in ${unit}`;
}

export function humanBytes(n: number): string {
  if (n < 1024) return `${n}B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)}K`;
  return `${(n / 1024 / 1024).toFixed(1)}M`;
}

/**
 * One line of at most `max` characters: the kubelet's messages can embed a whole payload
 * ("Object 'Kind' is missing in '<file>'"); text mode shows the start, -v shows all.
 */
export function clip(s: string, max: number, verbose = false): string {
  const one = s.replace(/\s*\n\s*/g, ' ⏎ ');
  if (verbose || one.length <= max) return verbose ? s : one;
  return `${one.slice(0, max - 1)}…`;
}
