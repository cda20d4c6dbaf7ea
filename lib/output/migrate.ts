// Text rendering of export, migrate and upgrade-check results.

import type { ExportResult } from '../migrate/export.js';
import type { TextContext } from './print.js';

/** Without --out the file itself is the output; with --out, one line saying where it went. */
export function renderExport(r: ExportResult & { outcome?: string }, ctx: TextContext): string {
  if (!r.out) return r.text;
  const what = r.outcome === 'unchanged' ? 'already holds this export; not rewritten' : 'written';
  const lines = [`${r.out}: ${what}`];
  if (!ctx.quiet) {
    const src = r.source.kind === 'checkpoint' ? `checkpoint ${r.source.uid}/${r.source.resourceVersion}` : r.source.path ?? 'defaults';
    lines.push(`  from ${src} (${r.source.why})`);
    for (const f of r.flagOverrides) lines.push(`  flag ${f.flag} wins over ${f.field} in this file`);
    if (r.removedGates.length) lines.push(`  removed from featureGates: ${r.removedGates.join(', ')}`);
  }
  return lines.join('\n');
}
