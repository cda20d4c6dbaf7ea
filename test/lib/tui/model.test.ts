// The model and the tab views over real fixture stores: what each tab says, the verify sweep
// reaching the same findings as `verify`, the filter, and a store that changes underneath.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { openSession, type Session } from '../../../lib/session.js';
import { verifySession } from '../../../lib/integrity/run.js';
import { countBySeverity } from '../../../lib/integrity/findings.js';
import { EnvError } from '../../../lib/errors.js';
import { Model, TABS, type JournalSource } from '../../../lib/tui/model.js';
import { MIN_LIST_ROWS, MIN_ROWS, headerLines, listLines, tabBar, tabContent, paintLines, footerLine, tooSmallLines } from '../../../lib/tui/views.js';
import { bindingsFor } from '../../../lib/tui/keys.js';
import { promotionText } from '../../../lib/output/status.js';
import { painter, untag } from '../../../lib/tui/text.js';
import { addCheckpoints, copyFixture, repoRoot } from '../../helpers.js';

const UID = '5808539f-48e3-4e47-8ce6-c261c48fa1d9';
const p = painter(false);
const open = (dir: string): Session => openSession({ dir, kubeletVersion: '1.23' });
const model = (dir: string, journal: JournalSource | null = null, reopen?: () => Session) => {
  const s = open(dir);
  return new Model({ session: s, reopen: reopen ?? (() => open(dir)), readOnly: false, journal });
};
const tab = (m: Model, name: (typeof TABS)[number], cols = 51) => {
  m.tab = TABS.indexOf(name);
  return paintLines(tabContent(m, cols), cols, p).map((l) => untag(l).trimEnd());
};
/** The tab as one line of words (wrapping is not what these tests are about). */
const flat = (lines: string[]) => lines.join(' ').replace(/\s+/g, ' ');
const sweep = (m: Model) => {
  let n = 0;
  while (m.verifyStep(20)) if (++n > 100_000) throw new Error('sweep does not end');
};
const demo = () => copyFixture('demo/var/lib/kubelet/dynamic-config');

t.test('demo store: the assigned checkpoint is selected first; each tab', async (t) => {
  const m = model(demo());
  t.equal(m.selected()?.id, `${UID}/42315`);
  const payload = tab(m, 'Payload');
  t.equal(payload[0], `${UID}/42315`);
  t.match(payload[1], /^key kubelet {2}2\.0K {2}sha256 [0-9a-f]{12}$/);
  t.ok(payload.includes('kind: KubeletConfiguration'), 'pretty YAML of a JSON payload');
  m.raw = true;
  const raw = fs.readFileSync(path.join(m.session.snap.storeDir, `checkpoints/${UID}/42315/kubelet`), 'utf8');
  t.ok(tab(m, 'Payload', 200).join('\n').includes(raw.split('\n')[0]!), 'raw: the bytes as written');
  const diff = tab(m, 'Diff').join('\n');
  t.match(diff, /semantic diff against the previous resourceVersion/);
  t.match(diff, /--- 5808539f-48e3-4e47-8ce6-c261c48fa1d9\/41877\n\+\+\+ 5808539f-48e3-4e47-8ce6-c261c48fa1d9\/42315/);
  m.unified = true;
  t.match(tab(m, 'Diff').join('\n'), /^@@ /m, 'unified diff');
  m.unified = false;
  // Mark the first RV, select the assigned one: the diff is from the mark.
  m.move(-2);
  t.equal(m.selected()?.rv, '41230');
  t.match(flat(tab(m, 'Diff')), /first resourceVersion of its UID/);
  m.toggleMark();
  m.move(2);
  t.match(tab(m, 'Diff').join('\n'), /against the marked checkpoint[\s\S]*--- 5808539f-48e3-4e47-8ce6-c261c48fa1d9\/41230/);
  const findings = tab(m, 'Findings').join('\n');
  t.match(findings, /5808539f\/42315: no errors or warnings/);
  t.match(flat(tab(m, 'Findings')), /Store-wide .*: none/);
  const meta = tab(m, 'Meta', 120).join('\n');
  t.match(meta, /^Next boot: assigned 5808539f-48e3-4e47-8ce6-c261c48fa1d9\/42315, starts/);
  t.match(meta, /meta\/assigned\n {2}file {2}mode 0644 {2}uid \d+ {2}\d+ bytes/);
  t.match(meta, / {2}\| +resourceVersion: "42315"/);
  t.match(meta, /meta\/last-known-good[\s\S]*"41877"/);
  t.match(tab(m, 'Timeline').join('\n'), /not read \(--no-journal\)/);
});

t.test('header, list and footer fit 80 columns', async (t) => {
  const m = model(demo());
  const h = headerLines(m, 80, p, new Date()).map(untag);
  t.equal(h.length, 4, 'the next-boot reason wraps to a second line rather than being cut');
  for (const l of h) t.equal(l.length, 80, l);
  t.match(h[0], /^kubelet-ckpt {2}\/.*\/store/);
  t.match(h[1], /^Next boot: assigned 5808539f\/42315 starts - assigned checkpoint/);
  t.match(h[2], /^ {2}\S.* validates/);
  t.match(h[3], /Problems: checking…/);
  sweep(m);
  t.match(untag(headerLines(m, 80, p, new Date())[3]!), /Problems: none {2}\| {2}4 checkpoints/);
  const read = m.status;
  m.status = { ...read, checkpoints: 0, checkpointsUnreadable: 'permission denied' };
  t.match(untag(headerLines(m, 120, p, new Date()).at(-1)!), /Problems: none {2}\| {2}checkpoints unreadable {2,}$/, 'an unreadable checkpoints/ is not "0 checkpoints"');
  t.notMatch(headerLines(m, 80, p, new Date()).map(untag).join('\n'), /0 checkpoints/);
  m.status = read;
  const wide = headerLines(m, 200, p, new Date()).map(untag);
  t.equal(wide.length, 3, 'one line for the next boot when it fits');
  const narrow = headerLines(m, 60, p, new Date()).map(untag);
  t.match(flat(narrow.slice(1, -1)), /loads and validates +$/, 'at 60 columns the reason is whole too');
  const list = listLines(m, 28, 10, p).map(untag);
  t.same(list.slice(0, 6).map((l) => l.slice(0, 11).trimEnd()), ['5808539f ku', '      41230', '  L   41877', ' A B  42315', '705ab4f5', '      1326']);
  t.equal(untag(footerLine(bindingsFor(false), m, 80, p, null)).trimEnd(), '? help  q quit  Tab tabs  / filter  m mark  b rollback  r reset  u undo  p prune');
  t.equal(untag(footerLine(bindingsFor(true), m, 80, p, null)).trimEnd(), '? help  q quit  Tab tabs  / filter  m mark  R reload  v verify');
  const small = tooSmallLines(40, 5);
  t.ok(small.length <= 5 && small.every((l) => l.length === 40));
  t.match(small.join(' ').replace(/\s+/g, ' '), /The terminal is 40x5; kubelet-ckpt tui needs at least 60x15/);
});

t.test('filter: rows, UID headings and the selection follow it', async (t) => {
  const m = model(demo());
  m.setFilter('L');
  t.same(m.selectable.map((i) => (m.rows[i] as { rv: string }).rv), ['41877']);
  t.equal(m.shown.length, 2, 'the UID heading and its one match');
  t.equal(m.selected()?.rv, '41877');
  m.setFilter('uid:705a');
  t.equal(m.selected()?.rv, '1326');
  m.setFilter('nothing-matches');
  t.equal(m.selected(), null);
  t.match(untag(listLines(m, 28, 5, p)[0]!), /nothing matches/);
  t.match(untag(footerLine(bindingsFor(false), m, 80, p, null)), /^\[\/nothing-matches: 0\]/);
  m.setFilter('');
  t.equal(m.selectable.length, 4);
});

for (const store of ['stores/hostile', 'stores/corrupt', 'stores/bad-meta', 'stores/fell-back']) {
  t.test(`${store}: the sweep finds what verify finds, never throws`, async (t) => {
    const dir = copyFixture(store);
    const m = model(dir);
    sweep(m);
    const v = countBySeverity(verifySession(open(dir)).findings);
    t.same(m.problemCount(), { error: v.error, warning: v.warning });
    for (const name of TABS) {
      for (let i = 0; i < m.selectable.length; i++) {
        m.setCursor(i);
        t.doesNotThrow(() => tab(m, name), `${name} of row ${i}`);
      }
    }
    // Nothing printed may carry a raw escape or control character.
    for (const name of TABS) for (const l of tab(m, name)) t.notMatch(l, /[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
}

t.test('hostile names: the UID and RV shown are printable', async (t) => {
  const dir = copyFixture('stores/healthy');
  const uidDir = fs.readdirSync(path.join(dir, 'store/checkpoints'))[0]!;
  fs.cpSync(path.join(dir, 'store/checkpoints', uidDir), path.join(dir, 'store/checkpoints', 'evil\u001b[2J{bold}'), { recursive: true });
  const m = model(dir);
  const list = listLines(m, 40, 10, p).join('\n');
  t.notMatch(list, /\u001b/);
  t.match(list, /evil\\x1b\[2J\{open\}bold\{close\}/);
});

t.test('the store changes underneath: a deleted checkpoint, an unreadable store', async (t) => {
  const dir = demo();
  let fail = false;
  const m = model(dir, null, () => {
    if (fail) throw new EnvError('cannot read the store: permission denied', null, 'STORE_UNREADABLE');
    return open(dir);
  });
  fs.rmSync(path.join(dir, `store/checkpoints/${UID}/42315`), { recursive: true });
  t.match(flat(tab(m, 'Payload')), /5808539f\/42315 was removed from disk after the store was read/);
  t.ok(m.stale, 'the header will say the store changed');
  t.doesNotThrow(() => tab(m, 'Diff'));
  t.doesNotThrow(() => tab(m, 'Findings'));
  m.reload();
  t.equal(m.selectable.length, 3, 'after R the deleted checkpoint is gone');
  t.notOk(m.rows.some((r) => r.kind === 'checkpoint' && r.rv === '42315'));
  t.match(untag(headerLines(m, 80, p, new Date())[1]!), /WILL NOT START|starts/);
  fail = true;
  t.equal(m.reload(), false);
  t.match(m.loadError, /permission denied/);
  t.equal(m.selectable.length, 3, 'the last good read stays on screen');
  t.match(untag(headerLines(m, 120, p, new Date())[0]!), /^cannot re-read the store \(R retries; showing the last read\): cannot read the store: permission denied/);
});

t.test('Timeline: the journal events about the selection', async (t) => {
  const dir = demo();
  const log = path.join(dir, 'kubelet.log');
  const line = (time: string, pid: number, text: string) => `Nov 22 ${time} node-1 kubelet[${pid}]: I1122 ${time}.000100    ${pid} fsstore.go:116] kubelet config controller: ${text}\n`;
  const src = '/api/v1/namespaces/kube-system/configmaps/node-config-worker';
  fs.writeFileSync(
    log,
    line('08:00:00', 1042, `loading Kubelet configuration checkpoint for source ${src}, UID: ${UID}, ResourceVersion: 41877`) +
      line('08:05:00', 1042, `Kubelet restarting to use ${src}, UID: ${UID}, ResourceVersion: 42315, KubeletConfigKey: kubelet`) +
      line('08:05:10', 1653, `loading Kubelet configuration checkpoint for source ${src}, UID: ${UID}, ResourceVersion: 42315`),
  );
  const m = model(dir, { file: log, year: 2026, utc: true });
  t.match(tab(m, 'Timeline').join('\n'), /reading the journal/);
  await m.loadJournal();
  const tl = tab(m, 'Timeline', 60).join('\n');
  t.match(tl, /3 events, 1 restart/);
  t.match(tl, /11-22 08:05:00 {2}restart-for-config {2}5808539f\/42315/);
  t.match(tl, /11-22 08:05:10 {2}checkpoint-load {2}5808539f\/42315/);
  t.notMatch(tl, /08:00:00/, 'the 41877 load is not about 42315');
  t.match(tl, /1 more event name other resourceVersions/);
  const bad = model(dir, { file: path.join(dir, 'missing.log') });
  await bad.loadJournal();
  t.match(flat(tab(bad, 'Timeline')), /journal not available: cannot read .*missing\.log/);
});

t.test('tab bar: all tabs when they fit; else the current one and a hint to reach the others', async (t) => {
  const m = model(demo());
  t.equal(untag(tabBar(m, 60, p, '')).trimEnd(), ' 1 Payload  2 Diff  3 Findings  4 Timeline  5 Meta');
  m.tab = 3;
  t.equal(untag(tabBar(m, 40, p, '1-9/20 ')).trimEnd(), ' 4 Timeline  4 more: Tab, 1-5');
  t.equal(untag(tabBar(m, 40, p, '')).length, 40);
});

t.test('payload: keys sorted for a JSON payload too', async (t) => {
  const dir = demo();
  const file = path.join(dir, `store/checkpoints/${UID}/42315/kubelet`);
  fs.writeFileSync(file, '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","maxPods":50,"address":"0.0.0.0"}');
  const lines = tab(model(dir), 'Payload');
  const body = lines.slice(lines.findIndex((l) => l === '') + 1).filter(Boolean);
  t.same(body, ['address: 0.0.0.0', 'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration', 'maxPods: 50']);
});

t.test('the store-wide checks read a large store a slice per step, and find what one step finds', async (t) => {
  const dir = copyFixture('demo/var/lib/kubelet/dynamic-config');
  const cps = path.join(dir, 'store/checkpoints');
  addCheckpoints(cps, 60, 10, fs.readFileSync(path.join(cps, UID, '42315/kubelet')));
  // Defects found only by looking inside unreferenced checkpoints.
  const odd = path.join(cps, '00000000-0000-4000-8000-000000000007');
  fs.chmodSync(path.join(odd, '3'), 0o777);
  fs.symlinkSync('/etc/passwd', path.join(odd, '4', 'stray'));
  fs.mkdirSync(path.join(odd, '5', 'sub'));

  const sliced = model(dir);
  t.equal(sliced.verifyStep(0), true, 'a step with no time reads one slice');
  t.equal(sliced.storeChecked, false, 'the checks wait for the reading');
  sweep(sliced);
  t.equal(sliced.storeChecked, true);
  // What the checks find when run over the store in one go (as `status` and `verify` do).
  const all = verifySession(open(dir), [], 'all').findings;
  const isCp = (ref: string | null) => !!ref && ref.includes('/') && !ref.startsWith('meta/');
  t.same(sliced.storeFindings, verifySession(open(dir), [], 'referenced').findings.filter((f) => !isCp(f.ref)));
  t.same([...sliced.verified.values()].flat().sort((a, b) => (a.path ?? '').localeCompare(b.path ?? '') || a.code.localeCompare(b.code)), all.filter((f) => isCp(f.ref)).sort((a, b) => (a.path ?? '').localeCompare(b.path ?? '') || a.code.localeCompare(b.code)));
  const codes = [...sliced.verified.values()].flat().map((f) => f.code);
  t.ok(codes.includes('PERMISSIONS') && codes.includes('CHECKPOINT_ENTRY'), `the planted defects are found (${[...new Set(codes)].join(', ')})`);

  // Findings opened before the store is read: the checkpoint's own findings now, the store's later.
  const early = model(dir);
  const own = early.findingsOf('00000000-0000-4000-8000-000000000007/3');
  t.equal(early.storeChecked, false, 'not forced on a large store');
  t.same(own.map((f) => f.code), ['PERMISSIONS']);
  early.select('00000000-0000-4000-8000-000000000007/3');
  t.match(flat(tab(early, 'Findings')), /Store-wide \(meta files, store layout, next boot\): checking…/);
  sweep(early);
  t.match(flat(tab(early, 'Findings')), /Store-wide \(meta files, store layout, next boot\): (none|\d)/);

  // A sweep that stops (its step threw, say EIO) says so where it would have said "checking…".
  const stopped = model(dir);
  stopped.sweepFailed('EIO: i/o error, read');
  t.equal(stopped.verifying, false, 'no longer verifying');
  stopped.select('00000000-0000-4000-8000-000000000007/3');
  t.match(flat(tab(stopped, 'Findings')), /Store-wide \(meta files, store layout, next boot\): not checked verify stopped: EIO: i\/o error, read; v reads the store again/);
  t.notMatch(flat(tab(stopped, 'Findings')), /checking…/);
  t.match(flat(headerLines(stopped, 120, p, new Date()).map(untag)), /Problems: not checked/);
  const hostile = model(dir);
  hostile.sweepFailed('checkpoints/\x1b]0;pwned\x07\x1b[2J\nok: no problems found');
  hostile.select('00000000-0000-4000-8000-000000000007/3');
  const shown = tab(hostile, 'Findings').join('\n');
  t.notMatch(shown, /[\x00-\x08\x0b-\x1f\x7f]/, 'no control character from the error reaches the screen');
  t.notOk(shown.split('\n').some((l) => l.startsWith('ok: no problems found')), 'nor a line of its own');
  stopped.reload(false);
  t.equal(stopped.sweepError, null, 'reading the store again starts the sweep over');
  t.match(flat(tab(stopped, 'Findings')), /checking…/);
});

t.test('the next-boot reason is never cut while the list keeps its rows; the header grows with it', async (t) => {
  const m = model(copyFixture('stores/fell-back'));
  const reason = m.status.nextBoot.reason;
  t.match(reason, /the kubelet falls back to last-known-good 946d785e-998a-11e7-a8dd-42010a800006\/119980$/);
  for (const [cols, rows] of [[80, 24], [60, 24], [200, 50]] as const) {
    const h = headerLines(m, cols, p, new Date(), rows).map(untag);
    const next = flat(h.slice(1, -1));
    t.ok(next.includes(flat([reason])), `${cols}x${rows}: the whole reason`);
    t.notMatch(next, /…/, `${cols}x${rows}: nothing cut`);
    t.ok(h.every((l) => l.length === cols), `${cols}x${rows}: every line fits`);
  }
  t.ok(headerLines(m, 80, p, new Date(), 24).length > 4, 'at 80 columns the reason takes more than three lines, and the header grows');
  // The smallest screen: the list keeps MIN_LIST_ROWS rows; what does not fit says where it is whole.
  const small = headerLines(m, 60, p, new Date(), MIN_ROWS).map(untag);
  t.ok(MIN_ROWS - 1 - small.length >= MIN_LIST_ROWS, `60x${MIN_ROWS}: ${small.length} header rows leave the list ${MIN_LIST_ROWS}`);
  const tiny = headerLines(m, 60, p, new Date(), 12).map(untag);
  t.equal(tiny.length, 5, 'a header of 5 rows when 12 rows leave the next boot only 3');
  t.match(tiny[3], /… \(5 Meta: in full\)$/, 'cut only with a pointer to the Meta tab');
  t.equal(tiny[3]!.length, 60);
});

t.test('Meta tab: promotion to last-known-good in the words of status, in and after the trial', async (t) => {
  const dir = copyFixture('stores/in-trial');
  const assigned = path.join(dir, 'store/meta/assigned');
  const inTrial = model(dir);
  t.ok(inTrial.status.trial?.inTrial, 'written just now: in trial');
  t.match(flat(tab(inTrial, 'Meta', 200)), /becomes last-known-good once its 10-minute trial is over \(\d{4}-/);
  // Written three hours ago: the trial is long over.
  const then = new Date(Date.now() - 3 * 3600_000);
  fs.utimesSync(assigned, then, then);
  const over = model(dir);
  t.equal(over.status.trial?.inTrial, false);
  const meta = flat(tab(over, 'Meta', 200));
  t.match(meta, /its trial is over: a running kubelet makes it last-known-good/);
  t.notMatch(meta, /once its 10-minute trial is over/);
  t.ok(meta.includes(promotionText(over.status)!), 'the same text as status');
});

t.test('Diff tab: the marked checkpoint removed from disk says so, not "has no file"', async (t) => {
  const m = model(demo());
  m.move(-2);
  t.equal(m.selected()?.id, `${UID}/41230`);
  m.toggleMark();
  m.move(2);
  fs.rmSync(path.join(m.session.snap.storeDir, `checkpoints/${UID}/41230`), { recursive: true });
  const diff = flat(tab(m, 'Diff'));
  t.match(diff, /the marked checkpoint 5808539f\/41230 was removed from disk after the store was read .*R reads the store again/);
  t.notMatch(diff, /has no file/);
  t.ok(m.stale, 'the header says the store changed');
  // The previous resourceVersion gone: the same words.
  m.mark = null;
  fs.rmSync(path.join(m.session.snap.storeDir, `checkpoints/${UID}/41877`), { recursive: true });
  t.match(flat(tab(m, 'Diff')), /the previous resourceVersion 5808539f\/41877 was removed from disk after the store was read/);
});

t.test('found by review: a finding reached through a meta file is its checkpoint\'s, in the list and its Findings tab, as in ls', async (t) => {
  const dir = copyFixture('stores/in-trial');
  const lkg = path.join(dir, 'store/meta/last-known-good');
  fs.writeFileSync(lkg, fs.readFileSync(lkg, 'utf8').replace('kubeletConfigKey: kubelet', 'kubeletConfigKey: config'));
  const m = model(dir);
  sweep(m);
  const id = '946d785e-998a-11e7-a8dd-42010a800006/119980';
  t.equal(m.stateOf(id), 'error', 'the list marks it');
  t.same(m.findingsOf(id).map((f) => f.code).sort(), ['LKG_UNUSABLE', 'PAYLOAD_KEY_MISSING']);
  t.notOk(m.storeFindings.some((f) => f.code === 'PAYLOAD_KEY_MISSING' || f.code === 'LKG_UNUSABLE'), 'not store-wide as well');
  t.same(m.problemCount(), { error: 2, warning: 0 }, 'counted once, as verify does');
});
