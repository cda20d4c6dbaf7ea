// Merge warnings, collapsed per file: a file of garbage lines would otherwise give one warning
// a line (millions, gigabytes). The first few of a file are kept as they are; the rest become
// one line in their place, "… and N more in FILE".

/** Warnings kept per file before the rest are only counted. */
export const WARNINGS_PER_FILE = 20;

export class WarningLog {
  private readonly lines: string[] = [];
  private readonly byFile = new Map<string, { count: number; at: number }>();
  constructor(private readonly per = WARNINGS_PER_FILE) {}

  add(file: string, text: string): void {
    const f = this.byFile.get(file) ?? { count: 0, at: -1 };
    this.byFile.set(file, f);
    f.count++;
    if (f.count <= this.per) this.lines.push(text);
    // The summary's place, filled in by list() once the count is known.
    else if (f.at === -1) f.at = this.lines.push('') - 1;
  }

  list(): string[] {
    const out = [...this.lines];
    for (const [file, f] of this.byFile) if (f.at !== -1) out[f.at] = `… and ${f.count - this.per} more in ${file}`;
    return out;
  }
}
