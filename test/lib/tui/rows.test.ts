import t from 'tap';
import path from 'node:path';
import { openSession } from '../../../lib/session.js';
import { buildRows, configMapNames, markers, renderRow, shortStamp, type CheckpointRow } from '../../../lib/tui/rows.js';
import { buildStatus } from '../../../lib/integrity/status.js';
import { painter, untag } from '../../../lib/tui/text.js';
import { repoRoot } from '../../helpers.js';

const UID = '5808539f-48e3-4e47-8ce6-c261c48fa1d9';
const p = painter(false);

const cp = (o: Partial<CheckpointRow> = {}): CheckpointRow => ({
  kind: 'checkpoint',
  uid: UID,
  rv: '42315',
  id: `${UID}/42315`,
  rel: `checkpoints/${UID}/42315`,
  mtimeMs: Date.UTC(2026, 10, 22, 8, 5, 0),
  configMap: 'kube-system/node-config-worker',
  assigned: false,
  lkg: false,
  boot: false,
  odd: false,
  ...o,
});

t.test('buildRows on the demo store: UIDs in name order, RVs oldest first, markers', async (t) => {
  const s = openSession({ dir: path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config'), kubeletVersion: '1.23' });
  const rows = buildRows(s.snap, buildStatus(s, []).nextBoot, configMapNames(s.snap));
  t.same(
    rows.map((r) => (r.kind === 'uid' ? `${r.uid.slice(0, 4)} ${r.configMap ?? '-'} (${r.count})` : `  ${r.rv} ${markers(r, false, undefined)}`)),
    ['5808 kube-system/node-config-worker (3)', '  41230      ', '  41877   L  ', '  42315  A B ', '705a - (1)', '  1326      '],
  );
});

t.test('configMapNames: the meta files win over what the journal says', async (t) => {
  const s = openSession({ dir: path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config'), kubeletVersion: '1.23' });
  const names = configMapNames(s.snap, new Map([[UID, { namespace: 'x', name: 'y' }], ['705ab4f5-6393-11e8-b7cc-42010a800002', { namespace: 'kube-system', name: 'old' }]]));
  t.equal(names.get(UID), 'kube-system/node-config-worker');
  t.equal(names.get('705ab4f5-6393-11e8-b7cc-42010a800002'), 'kube-system/old');
});

t.test('renderRow: exact width, markers, stamp when it fits, selection without colour', async (t) => {
  const base = { selected: false, focused: true, marked: false, verify: undefined, p };
  const table: [CheckpointRow, Partial<typeof base> & { width: number }, string][] = [
    [cp({ assigned: true, boot: true }), { width: 28 }, ' A B  42315      11-22 08:05'],
    [cp({ lkg: true }), { width: 28, verify: 'error' }, '  L ! 42315      11-22 08:05'],
    [cp(), { width: 28, verify: 'warning', marked: true }, '*   ? 42315      11-22 08:05'],
    [cp({ rv: 'a-very-long-resource-version' }), { width: 28 }, '      a-very-long-resource-…'],
    [cp(), { width: 12 }, '      42315 '],
  ];
  for (const [r, v, want] of table) {
    const out = renderRow(r, { ...base, ...v });
    t.equal(untag(out), want, want);
    t.equal(untag(out).length, v.width);
  }
  t.equal(renderRow(cp(), { ...base, width: 20, selected: true }), '{inverse}      42315         {/inverse}', 'selection in inverse video (no room for the stamp)');
  t.match(renderRow(cp(), { ...base, width: 28, selected: true, focused: false }), /^\{underline\}/, 'unfocused selection underlined');
  t.equal(renderRow(cp(), { ...base, width: 28, verify: 'error' }).includes('{red-fg}'), false, 'no colour with NO_COLOR');
  t.equal(renderRow(cp(), { ...base, width: 28, verify: 'error', p: painter(true) }).startsWith('{red-fg}'), true);
});

t.test('renderRow: UID rows; hostile names are printable and escaped', async (t) => {
  const u = { kind: 'uid' as const, uid: UID, configMap: 'kube-system/node-config-worker', count: 3 };
  t.equal(untag(renderRow(u, { width: 28, selected: false, focused: true, marked: false, verify: undefined, p })), '5808539f kube-system/node-c…');
  t.equal(untag(renderRow(u, { width: 70, selected: false, focused: true, marked: false, verify: undefined, p })), `${UID} kube-system/node-config-worker`.padEnd(70));
  const evil = cp({ rv: '1\u001b[2J{bold}' });
  const out = renderRow(evil, { width: 40, selected: false, focused: true, marked: false, verify: undefined, p });
  t.notMatch(out, /\u001b/);
  t.match(out, /\\x1b\[2J\{open\}bold\{close\}/);
});

t.test('shortStamp', async (t) => {
  t.equal(shortStamp(Date.UTC(2026, 0, 2, 3, 4, 5)), '01-02 03:04');
  t.equal(shortStamp(0), '');
});
