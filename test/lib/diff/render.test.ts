// lib/output/diff.ts: the text a person reads.
import t from 'tap';
import { block, inline, renderChange, renderDiff, sanitizeLine, summary } from '../../../lib/output/diff.js';
import { palette } from '../../../lib/output/streams.js';
import type { FieldChange, HistoryReport, PairReport } from '../../../lib/diff/report.js';
import type { Value } from '../../../lib/diff/value.js';

const p = palette(false);
const ctx = { p, width: 80, verbose: false, quiet: false };
const ch = (path: string, op: FieldChange['op'], from: Value, to: Value, defaulted = { from: false, to: false }): FieldChange => ({ path, keys: [path], op, from, to, defaulted });
const render = (c: FieldChange, width = 80) => renderChange(c, p, width).join('\n');

t.test('values: inline when they fit, typed', async (t) => {
  t.equal(inline({ memory: '512Mi', cpu: '250m' }, 80), '{cpu: "250m", memory: "512Mi"}', 'keys sorted, strings quoted');
  t.equal(inline({ 'memory.available': '1' }, 80), '{"memory.available": "1"}');
  t.equal(inline([1, true, null, 'x'], 80), '[1, true, null, "x"]');
  t.equal(inline('a'.repeat(100), 50), null);
  let deep: Value = 1;
  for (let i = 0; i < 50; i++) deep = { k: deep };
  t.match(inline(deep, 10_000), /\{…\}/, 'deep values are elided');
  t.same(block({ b: { c: ['x'.repeat(40), 'y'.repeat(40)] }, a: 1 }, '  ', 40), ['  a: 1', '  b:', '    c:', `      - "${'x'.repeat(40)}"`, `      - "${'y'.repeat(40)}"`]);
});

t.test('one change per op', async (t) => {
  const cases: Array<[FieldChange, string, number?]> = [
    [ch('maxPods', 'changed', 110, 150), '  ~ maxPods: 110 -> 150'],
    [ch('systemReserved.cpu', 'changed', '500m', '1'), '  ~ systemReserved.cpu: "500m" -> "1"'],
    [ch('kubeReserved', 'added', null, { cpu: '250m' }), '  + kubeReserved: {cpu: "250m"}'],
    [ch('maxPods', 'removed', 110, null), '  - maxPods: 110'],
    [ch('nodeLabels["région"]', 'changed', 'Zürich ☃', 'Genève ☃'), '  ~ nodeLabels["région"]: "Zürich ☃" -> "Genève ☃"'],
    [ch('k', 'changed', 'a\u001b[2J', 'b'), '  ~ k: "a\\u001b[2J" -> "b"'],
    [ch('maxPods', 'changed', 110, 150, { from: true, to: false }), '  ~ maxPods: 110 (default) -> 150'],
    [ch('', 'changed', [1], [2]), '  ~ (whole document):\n      - 1\n      + 2'],
    [ch('clusterDNS', 'changed', ['10.0.0.1', '10.0.0.2'], ['10.0.0.1', '10.0.0.3', '10.0.0.2']), '  ~ clusterDNS:\n        "10.0.0.1"\n      + "10.0.0.3"\n        "10.0.0.2"'],
    [ch('taints', 'changed', [{ key: 'a', effect: 'NoSchedule' }], []), '  ~ taints:\n      - {effect: "NoSchedule", key: "a"}'],
    [ch('staticPodPath', 'changed', '/a'.repeat(20), '/b'.repeat(20)), `  ~ staticPodPath:\n      - "${'/a'.repeat(20)}"\n      + "${'/b'.repeat(20)}"`, 60],
    [ch('m', 'added', null, { a: 'x'.repeat(50), b: 1 }), `  + m:\n      a: "${'x'.repeat(50)}"\n      b: 1`, 60],
  ];
  for (const [c, want, width] of cases) t.equal(render(c, width), want, c.path || 'root');
});

t.test('summary', async (t) => {
  t.equal(summary([]), 'no changes');
  t.equal(summary([ch('a', 'added', null, 1)]), '1 change (1 added)');
  t.equal(summary([ch('a', 'added', null, 1), ch('b', 'changed', 1, 2), ch('c', 'removed', 1, null)]), '3 changes (1 added, 1 removed, 1 changed)');
});

const side = (label: string) => ({ ref: label, uid: null, resourceVersion: null, path: `/x/${label}`, kind: 'file' as const, label, via: null, bytes: Buffer.alloc(0), text: '', decoded: { ok: false as const, error: '' } });
const pair = (over: Partial<PairReport>): PairReport => ({
  mode: 'pair', from: side('a'), to: side('b'), changes: [], unified: '', semantic: true, equal: true, identicalBytes: false, sameSource: false, defaults: false, notes: [], ...over,
});

t.test('a pair report', async (t) => {
  const r = pair({ changes: [ch('maxPods', 'changed', 110, 150)], equal: false, unified: '--- a\n+++ b\n@@ -1 +1 @@\n-maxPods: 110\n+maxPods: 150\n' });
  const text = renderDiff({ unified: false, sanitize: false });
  t.equal(text(r, ctx), '--- a\n+++ b\n1 change (1 changed):\n  ~ maxPods: 110 -> 150');
  t.equal(text(r, { ...ctx, quiet: true }), 'a and b differ: 1 change (1 changed)');
  t.equal(renderDiff({ unified: true, sanitize: false })(r, ctx), '--- a\n+++ b\n@@ -1 +1 @@\n-maxPods: 110\n+maxPods: 150');
  t.equal(text(pair({ identicalBytes: true }), ctx), '--- a\n+++ b\nno differences (identical content)');
  t.match(text(pair({}), ctx), /no semantic differences; the files differ only in formatting/);
  t.match(text(pair({ defaults: true }), ctx), /no semantic differences, v1beta1 defaults applied to both sides/);
  t.equal(text(pair({}), { ...ctx, quiet: true }), 'a and b are the same: no semantic differences', '-q: one line when equal too');
  t.equal(text(pair({ identicalBytes: true }), { ...ctx, quiet: true }), 'a and b are the same: identical content');
  const bad = pair({ semantic: false, equal: false, notes: ['semantic comparison impossible: b does not decode: yaml: line 1: x'], unified: '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+\u001b[2J\n' });
  // Under our own headings the fallback is no patch: escaped on a terminal and in a pipe alike.
  t.equal(text(bad, ctx), '--- a\n+++ b\nnote: semantic comparison impossible: b does not decode: yaml: line 1: x\n@@ -1 +1 @@\n-x\n+\\x1b[2J', 'not a terminal: control characters made visible too');
  t.match(renderDiff({ unified: false, sanitize: true })(bad, ctx), /\+\\x1b\[2J$/, 'a terminal: control characters made visible');
  t.match(renderDiff({ unified: true, sanitize: false })(bad, ctx), /\+\u001b\[2J$/, '-u, not a terminal: the exact patch');
});

t.test('colour on a terminal', async (t) => {
  const r = pair({ changes: [ch('maxPods', 'changed', 110, 150)], equal: false });
  const out = renderDiff({ unified: false, sanitize: true })(r, { ...ctx, p: palette(true) });
  t.match(out, /\u001b\[33m~\u001b\[39m \u001b\[1mmaxPods\u001b\[22m: \u001b\[31m110\u001b\[39m -> \u001b\[32m150\u001b\[39m/);
  const u = renderDiff({ unified: true, sanitize: true })(pair({ unified: '--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n' }), { ...ctx, p: palette(true) });
  t.equal(u, '\u001b[1m--- a\u001b[22m\n\u001b[1m+++ b\u001b[22m\n\u001b[36m@@ -1 +1 @@\u001b[39m\n\u001b[31m-x\u001b[39m\n\u001b[32m+y\u001b[39m');
});

t.test('a history report', async (t) => {
  const s = (rv: string) => ({ ref: `u/${rv}`, uid: 'u', resourceVersion: rv, path: `checkpoints/u/${rv}/kubelet`, label: rv, error: null });
  const h: HistoryReport = {
    mode: 'history', uid: 'u', configMap: 'kube-system/cfg', defaults: false, unreadable: false, unread: [], equal: false,
    versions: [{ resourceVersion: '1', assigned: false, lastKnownGood: true }, { resourceVersion: '2', assigned: true, lastKnownGood: false }, { resourceVersion: '3', assigned: false, lastKnownGood: false }],
    steps: [
      { from: s('1'), to: s('2'), changes: [ch('maxPods', 'changed', 1, 2)], semantic: true, equal: false, unified: null, notes: [] },
      { from: s('2'), to: s('3'), changes: [], semantic: false, equal: false, unified: '--- u/2\n+++ u/3\n@@ -1 +1 @@\n-a\n+b\n', notes: ['semantic comparison impossible: u/3 does not decode: x'] },
    ],
  };
  t.equal(renderDiff({ unified: false, sanitize: false })(h, ctx), [
    'history of u (kube-system/cfg): 3 resourceVersions',
    '',
    '1 [last-known-good] -> 2 [assigned]: 1 change (1 changed)',
    '  ~ maxPods: 1 -> 2',
    '',
    '2 [assigned] -> 3: not comparable field by field',
    '  note: semantic comparison impossible: u/3 does not decode: x',
    '  --- u/2',
    '  +++ u/3',
    '  @@ -1 +1 @@',
    '  -a',
    '  +b',
  ].join('\n'));
  const one: HistoryReport = { ...h, versions: [h.versions[0]!], steps: [], equal: true };
  t.equal(renderDiff({ unified: false, sanitize: false })(one, ctx), 'history of u (kube-system/cfg): 1 resourceVersion\nonly 1 [last-known-good]: no history to compare (to compare it with assigned: kubelet-ckpt diff u/1)');
});

t.test('sanitizeLine keeps tabs', async (t) => {
  t.equal(sanitizeLine('a\tb\u0007c\u009bd'), 'a\tb\\x07c\\x9bd');
});
