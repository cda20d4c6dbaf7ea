import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { escapeLabel, renderMetrics } from '../../../lib/fleet/metrics.js';
import { writeTextfile } from '../../../lib/fleet/textfile.js';
import type { NodeReport } from '../../../lib/fleet/types.js';
import { fakeReport } from '../../fleet/reports.js';
import { tempDir } from '../../helpers.js';

/** The exposition-format rules the textfile collector enforces, checked line by line. */
function lint(text: string): string[] {
  const errs: string[] = [];
  if (!text.endsWith('\n')) errs.push('no final newline');
  const seen = new Set<string>();
  const series = new Set<string>();
  let current: string | null = null;
  for (const line of text.slice(0, -1).split('\n')) {
    const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      if (m[1] === 'HELP') {
        if (seen.has(m[2]!)) errs.push(`${m[2]}: family split or repeated`);
        seen.add(m[2]!);
        current = m[2]!;
      } else if (m[3] !== 'gauge' || current !== m[2]) errs.push(`${m[2]}: TYPE not right after HELP`);
      continue;
    }
    const s = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (NaN|[+-]Inf|-?[0-9.e+-]+)$/.exec(line);
    if (!s) {
      errs.push(`bad line: ${line}`);
      continue;
    }
    if (s[1] !== current) errs.push(`${s[1]}: sample outside its family`);
    if (series.has(`${s[1]}${s[2] ?? ''}`)) errs.push(`duplicate series ${s[1]}${s[2] ?? ''}`);
    series.add(`${s[1]}${s[2] ?? ''}`);
    if (!s[1]!.startsWith('kubelet_ckpt_')) errs.push(`${s[1]}: not kubelet_ckpt_*`);
  }
  return errs;
}

const report = (k: Parameters<typeof fakeReport>[0]) => fakeReport(k) as unknown as NodeReport;

t.test('label values escaped: backslash, quote, newline', async (t) => {
  t.equal(escapeLabel('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
  const r = report({ name: 'n' });
  r.nextBoot!.ref!.namespace = 'we"ird\\ns\nx';
  const text = renderMetrics(r);
  t.match(text, 'namespace="we\\"ird\\\\ns\\nx"');
  t.same(lint(text), []);
});

t.test('the families, values and labels of a fell-back node in trial', async (t) => {
  const r = report({ name: 'n', source: 'last-known-good', fellBack: true, crashLoop: true });
  r.trial = { inTrial: true, endsAt: '2026-11-25T00:05:00.000Z' };
  r.findings!.byCode = [{ code: 'PAYLOAD_INVALID', severity: 'error', count: 2 }];
  r.findings!.error = 2;
  const text = renderMetrics(r, Date.parse('2026-11-25T00:00:00.000Z'));
  t.same(lint(text), []);
  for (const line of [
    'kubelet_ckpt_last_run_timestamp_seconds 1795564800',
    'kubelet_ckpt_next_boot_source{source="last-known-good",namespace="kube-system",name="node-config",uid="946d785e-998a-11e7-a8dd-42010a800006",resource_version="119980"} 1',
    'kubelet_ckpt_next_boot_source{source="assigned"} 0',
    'kubelet_ckpt_will_start 1',
    'kubelet_ckpt_fell_back 1',
    'kubelet_ckpt_findings{code="PAYLOAD_INVALID",severity="error"} 2',
    'kubelet_ckpt_findings_by_severity{severity="error"} 2',
    'kubelet_ckpt_trial_seconds_left{namespace="kube-system",name="node-config",uid="946d785e-998a-11e7-a8dd-42010a800006",resource_version="119980"} 300',
    'kubelet_ckpt_crash_loop 1',
    `kubelet_ckpt_config_info{role="next-boot",namespace="kube-system",name="node-config",uid="946d785e-998a-11e7-a8dd-42010a800006",resource_version="119980",sha256="${'a'.repeat(64)}"} 1`,
  ])
    t.ok(text.split('\n').includes(line), line);
  t.notMatch(text, / \d+ \d+$/m, 'no sample timestamps');
});

t.test('an unknown next boot is NaN; an unreadable store has only its state', async (t) => {
  t.match(renderMetrics(report({ name: 'n', source: 'unknown', willStart: null })), /^kubelet_ckpt_will_start NaN$/m);
  const text = renderMetrics(report({ name: 'n', store: 'unreadable' }));
  t.same(lint(text), []);
  t.match(text, /^kubelet_ckpt_store_state\{state="unreadable"\} 1$/m);
  t.notMatch(text, /next_boot_source|will_start|findings/);
});

t.test('writeTextfile: atomic rename, 0644, no temp file left, never through a link', async (t) => {
  const d = tempDir('kckpt-textfile-');
  const p = writeTextfile(d, 'a 1\n');
  t.equal(p, path.join(d, 'kubelet_ckpt.prom'));
  t.equal(fs.readFileSync(p, 'utf8'), 'a 1\n');
  t.equal(fs.statSync(p).mode & 0o777, 0o644);
  writeTextfile(d, 'a 2\n');
  t.same(fs.readdirSync(d), ['kubelet_ckpt.prom']);
  t.equal(fs.readFileSync(p, 'utf8'), 'a 2\n');
  const link = path.join(tempDir(), 'link');
  fs.symlinkSync(d, link);
  t.throws(() => writeTextfile(link, 'x\n'), { exitCode: 4 });
  t.throws(() => writeTextfile(path.join(d, 'missing'), 'x\n'), { exitCode: 3 });
});
