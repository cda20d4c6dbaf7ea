// The NodeReport as Prometheus metrics, in the text exposition format the node exporter's
// textfile collector reads (`kubelet_ckpt.prom`): no sample timestamps (the collector rejects
// a file that has any), one HELP and TYPE per family, each family's samples together.

import type { NodeReport } from './types.js';
import type { SourceRef } from '../store/types.js';

type Labels = Record<string, string>;

interface Family {
  name: string;
  help: string;
  samples: { labels: Labels; value: number }[];
}

/** Label values: `\` → `\\`, `"` → `\"`, newline → `\n` (exposition format 0.0.4). */
export function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: `\` → `\\`, newline → `\n`. */
function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function num(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function refLabels(ref: SourceRef | null): Labels {
  return ref ? { namespace: ref.namespace, name: ref.name, uid: ref.uid, resource_version: ref.resourceVersion } : { namespace: '', name: '', uid: '', resource_version: '' };
}

const bool = (b: boolean) => (b ? 1 : 0);

function families(r: NodeReport, nowMs: number): Family[] {
  const f: Family[] = [];
  const add = (name: string, help: string, samples: Family['samples']) => f.push({ name: `kubelet_ckpt_${name}`, help, samples });
  add('last_run_timestamp_seconds', 'When kubelet-ckpt last wrote these metrics (Unix seconds).', [{ labels: {}, value: Math.floor(Date.parse(r.generatedAt) / 1000) }]);
  add(
    'store_state',
    'The dynamic config store: 1 for its state (ok, absent, unreadable).',
    (['ok', 'absent', 'unreadable'] as const).map((s) => ({ labels: { state: s }, value: bool(r.store.state === s) })),
  );
  const nb = r.nextBoot;
  if (nb) {
    add(
      'next_boot_source',
      'The source the kubelet runs at its next start: 1 for the predicted one (assigned, last-known-good, local, none, unknown).',
      (['assigned', 'last-known-good', 'local', 'none', 'unknown'] as const).map((s) => ({ labels: { source: s, ...refLabels(s === nb.source ? nb.ref : null) }, value: bool(s === nb.source) })),
    );
    // 0 too for a kubelet that gets past its config bootstrap and then exits at every start.
    add('will_start', 'Whether the kubelet starts at its next start: 1 yes, 0 no, NaN unknown.', [{ labels: {}, value: nb.willStart === null ? NaN : bool(nb.willStart && !nb.exitsAfterBootstrap) }]);
    add('fell_back', 'Whether the assigned config fails and the kubelet falls back to last-known-good or local: 1 yes.', [{ labels: {}, value: bool(nb.fellBack) }]);
  }
  const configs: Family['samples'] = [];
  const cfg = (role: string, ref: SourceRef | null, sha: string | null) => configs.push({ labels: { role, ...refLabels(ref), sha256: sha ?? '' }, value: 1 });
  if (r.assigned?.ref) cfg('assigned', r.assigned.ref, r.assigned.sha256);
  if (r.lastKnownGood?.ref) cfg('last-known-good', r.lastKnownGood.ref, r.lastKnownGood.sha256);
  if (nb && (nb.ref || nb.sha256)) cfg('next-boot', nb.ref, nb.sha256);
  if (configs.length) add('config_info', 'A config the node holds, by role (assigned, last-known-good, next-boot), with the sha256 of its payload; always 1.', configs);
  if (r.findings) {
    add('findings_by_severity', 'Findings of kubelet-ckpt verify, by severity.', (['error', 'warning', 'info'] as const).map((s) => ({ labels: { severity: s }, value: r.findings![s] })));
    if (r.findings.byCode.length) add('findings', 'Findings of kubelet-ckpt verify, by code and severity.', r.findings.byCode.map((c) => ({ labels: { code: c.code, severity: c.severity }, value: c.count })));
  }
  if (r.trial) {
    const left = Math.max(0, Math.round((Date.parse(r.trial.endsAt) - nowMs) / 1000));
    add('trial_seconds_left', "Seconds left of the assigned config's 10-minute trial (0 once it is over).", [{ labels: refLabels(r.assigned?.ref ?? null), value: left }]);
  }
  if (r.crashLoop.checked) add('crash_loop', 'Whether the journal shows a kubelet crash loop (3 or more failed starts within 10 minutes): 1 yes.', [{ labels: {}, value: bool(r.crashLoop.crashLoop === true) }]);
  return f;
}

function sample(name: string, labels: Labels, value: number): string {
  // Empty label values are left out: Prometheus treats an empty label as absent anyway.
  const ls = Object.entries(labels)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return `${name}${ls.length ? `{${ls.join(',')}}` : ''} ${num(value)}`;
}

/** The whole file: every family a gauge, HELP and TYPE first, newline-terminated. */
export function renderMetrics(r: NodeReport, nowMs = Date.parse(r.generatedAt)): string {
  const out: string[] = [];
  for (const fam of families(r, nowMs)) {
    out.push(`# HELP ${fam.name} ${escapeHelp(fam.help)}`, `# TYPE ${fam.name} gauge`);
    for (const s of fam.samples) out.push(sample(fam.name, s.labels, s.value));
  }
  return `${out.join('\n')}\n`;
}
