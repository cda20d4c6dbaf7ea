import t from 'tap';
import fc from 'fast-check';
import path from 'node:path';
import { readJournal, type JournalResult } from '../../../lib/journal/index.js';
import { eventText, progressLine, PROGRESS_MIN_BYTES, renderEventLine, renderJournalText, shortRef } from '../../../lib/journal/render.js';
import { EVENT_KINDS, type JournalEvent } from '../../../lib/journal/events.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
const U = '705ab4f5-6393-11e8-b7cc-42010a800002';
const base: JournalEvent = { time: '2021-08-24T13:16:04.368Z', pid: 278409, kind: 'controller-start', uid: null, resourceVersion: null, apiPath: null, key: null, exitStatus: null, message: '', source: 'x' };

t.test('a readable timeline, then the checkpoints, processes and a summary', async (t) => {
  const r = await readJournal({ file: path.join(FIX, 'legacy-1.13.short.log'), year: 2020, utc: true });
  const text = renderJournalText(r, { color: false, width: 0 });
  const lines = text.split('\n');
  t.match(lines[0], /^Timeline \(UTC\)$/, 'two years: full dates in the rows');
  t.match(text, /^  2020-12-31 22:59:00     1042  restart-for-config  7a0c1f4e\/200  kube-system\/node-config-a key=kubelet$/m);
  t.match(text, /^  2020-12-31 22:58:00     1042  store-init          -             \/var\/lib\/kubelet\/dynamic-config\/store$/m);
  t.match(text, /^! 2020-12-31 23:11:20     2264  load-failed         -             failed to decode: Object 'Kind' is missing in '\{ ⏎ "apiVersion"/m, 'failures are marked with !, continuation lines folded');
  t.match(text, /^! 2021-01-01 00:20:37  systemd  kubelet-exited      status=255    Main process exited, code=exited, status=255\/n\/a$/m);
  t.match(text, /^! 2021-01-01 00:20:37      841  bootstrap-failed    -             failed to decode, error: couldn't get version\/kind/m);
  t.match(text, /^Checkpoints$/m);
  t.match(text, /^  UID\s+RV\s+EVENTS\s+ON DISK\s+FIRST SEEN\s+LAST SEEN\s+CONFIGMAP$/m);
  t.match(text, /^  3f9d2b1a-0c4e-4d5f-8a6b-7c8d9e0f1a2b  300\s+5\s+\?\s+2020-12-31 23:11:10  2020-12-31 23:11:20  kube-system\/node-config-b$/m);
  t.match(text, /^Kubelet processes$/m);
  t.match(text, /^  1042\s+7a0c1f4e\/100\s+restart-for-config\s+2020-12-31 22:58:00\s+2020-12-31 22:59:00$/m);
  t.match(lines.at(-3), /^\d+ events, 8 restarts, \d+ lines skipped$/);
  t.equal(lines.at(-2), 'CRASH LOOP: 3 or more failed starts within 10 minutes');
  t.notMatch(text, /\x1b/, 'no colour when not asked');
});

t.test('one year: the year goes to the heading; width truncates messages', async (t) => {
  const r = await readJournal({ file: path.join(FIX, 'structured-1.22.short.log'), year: 2022, utc: true });
  const text = renderJournalText(r, { color: false, width: 80 });
  t.match(text.split('\n')[0], 'Timeline (UTC, 2022-05-22)', 'one day: the date goes to the heading');
  t.match(text, /^  08:00:00 systemd kubelet-started/m);
  for (const l of text.split('\n')) t.ok([...l].length <= 80, `fits 80 columns: ${l.slice(0, 40)}`);
  t.match(text, /…$/m, 'long messages are cut with an ellipsis');
  t.match(text, /^  3f9d2b1a\s/m, 'narrow: short UIDs in the table');
  const wide = renderJournalText(r, { color: false, width: 200 });
  t.match(wide, /^  3f9d2b1a-0c4e-4d5f-8a6b-7c8d9e0f1a2b\s/m, 'wide: full UIDs to copy');
});

t.test('found by an operator review: at 80 columns a failure\'s reason is whole, folded below; ConfigMaps are cut in the middle', async (t) => {
  const r = await readJournal({ file: path.join(FIX, 'structured-1.22.short.log'), year: 2022, utc: true });
  const text = renderJournalText(r, { color: false, width: 80 });
  const wide = renderJournalText(r, { color: false, width: 1000 });
  const failures = r.events.filter((e) => ['bootstrap-failed', 'validate-failed', 'load-failed', 'feature-gate-off'].includes(e.kind));
  t.ok(failures.length > 0);
  const joined = text.replace(/\n {6}/g, ' ');
  for (const e of failures) {
    const whole = wide.split('\n').find((l) => l.startsWith('!') && l.includes(e.kind))!;
    const reason = whole.slice(whole.lastIndexOf(e.kind)).replace(/^\S+\s+\S+\s+/, '');
    t.ok(joined.includes(reason), `${e.kind}: the whole reason: ${reason.slice(0, 50)}`);
  }
  for (const l of text.split('\n')) if (!l.startsWith('      ')) t.ok([...l].length <= 80, `fits 80 columns: ${l.slice(0, 40)}`);
  const table = (s: string) => s.slice(s.indexOf('\nCheckpoints\n')).split('\n\n')[0]!.split('\n').slice(3).map((l) => l.trim().split(/\s+/).at(-1));
  const cut = table(text);
  t.equal(new Set(cut).size, new Set(table(wide)).size, `the ConfigMaps stay told apart: ${cut.join(' ')}`);
  t.ok(new Set(table(wide)).size > 1);
});

t.test('colour: failures red, restarts yellow, systemd dim', async (t) => {
  const r: JournalResult = {
    events: [
      { ...base, kind: 'validate-failed', message: '"Kubelet config controller" err="invalid configuration: x" reason="failed to validate config, see Kubelet log for details"' },
      { ...base, kind: 'restart-for-local', message: 'kubelet config controller: Kubelet restarting to use local config' },
      { ...base, kind: 'kubelet-started', pid: 1, message: 'Started kubelet.' },
      { ...base, kind: 'checkpoint-exists', uid: U, resourceVersion: '3', message: 'x' },
    ],
    checkpoints: [],
    processes: [],
    restarts: 0,
    crashLoop: false,
    skipped: 0,
  };
  const lines = renderJournalText(r, { color: true, width: 0 }).split('\n');
  t.match(lines[1], /^\x1b\[31m! .*validate-failed\s+-\s+invalid configuration: x\x1b\[0m$/);
  t.match(lines[2], /^\x1b\[33m .*restart-for-local\s+local\s+Kubelet restarting to use local config/);
  t.match(lines[3], /^\x1b\[2m .*systemd\s+kubelet-started/);
  t.match(lines[4], /^ .*checkpoint-exists\s+705ab4f5\/3/);
});

t.test('no events: a plain sentence', async (t) => {
  const text = renderJournalText({ events: [], checkpoints: [], processes: [], restarts: 0, crashLoop: false, skipped: 2, truncated: 0 }, { color: false, width: 80 });
  t.match(text, /^No kubelet config events found \(2 unrecognised lines skipped\)\.\n\n0 events, 0 restarts, 2 lines skipped, no crash loop\n$/);
});

t.test('hostile text never reaches the terminal raw', async (t) => {
  const evil = '\x1b[2J\x1b]0;pwned\x07\u202eevil\r';
  const r: JournalResult = {
    events: [{ ...base, kind: 'checkpoint-load', uid: `${evil}uid`, resourceVersion: evil, apiPath: `/api/v1/namespaces/${evil}/configmaps/x`, message: `kubelet config controller: ${evil}` }],
    checkpoints: [{ uid: evil, resourceVersion: evil, apiPath: `/api/v1/namespaces/a${evil}/configmaps/b`, firstSeen: null, lastSeen: null, events: 1, onDisk: false }],
    processes: [],
    restarts: 0,
    crashLoop: false,
    skipped: 0,
  };
  const text = renderJournalText(r, { color: false, width: 0 });
  t.notMatch(text, /[\x00-\x08\x0b-\x1f\x7f\u202e]/);
  t.match(text, '\\x1b[2J\\x1b]0;pwned\\x07\\u202eevil\\x0d', 'escaped as everywhere else (\\x1b, \\u202e), not replaced');
});

t.test('property: whatever a log put in any field, no unsafe character and no line of its own reaches the text', async (t) => {
  // The printer hands this renderer the result as it is (print.ts sanitizesItself): this is the only guard.
  const nasty = fc.constantFrom('\x1b[2J', '\x1b]0;t\x07', '\u202e', '\u2066', '\u2028', '\u2029', '\u0085', '\r', '\n', '\t', '\0', '\x7f', '\\x0a', '"', 'UID: x, ResourceVersion: y', '/api/v1/namespaces/a/configmaps/b', '\n  x', 'path="', 'err="e"');
  const text = fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 4 }), nasty), { maxLength: 8 }).map((a) => a.join(''));
  const opt = (a: fc.Arbitrary<string>) => fc.option(a, { nil: null });
  const event = fc.record({
    time: opt(fc.constant('2021-08-24T13:16:04.368Z')),
    pid: opt(fc.nat(99999)),
    kind: fc.constantFrom(...EVENT_KINDS),
    uid: opt(text),
    resourceVersion: opt(text),
    apiPath: opt(fc.oneof(text, text.map((x) => `/api/v1/namespaces/${x}/configmaps/${x}`))),
    key: opt(text),
    exitStatus: opt(fc.integer({ min: -1, max: 255 })),
    message: fc.oneof(text, text.map((x) => `"Kubelet config controller" err="${x}" path="${x}" k=${x}`), text.map((x) => `kubelet config controller: ${x}`)),
    source: text,
  });
  const result = fc.record({
    events: fc.array(event, { maxLength: 6 }),
    checkpoints: fc.array(fc.record({ uid: text, resourceVersion: opt(text), apiPath: opt(text), firstSeen: fc.constant(null), lastSeen: fc.constant('2021-08-24T13:16:04.368Z'), events: fc.nat(9), onDisk: fc.option(fc.boolean(), { nil: null }) }), { maxLength: 3 }),
    processes: fc.array(fc.record({ pid: opt(fc.nat(99999)), firstSeen: fc.constant(null), lastSeen: fc.constant(null), loaded: fc.option(fc.record({ uid: text, resourceVersion: opt(text) }), { nil: null }), ended: fc.option(fc.constantFrom(...EVENT_KINDS), { nil: null }) }), { maxLength: 3 }),
    restarts: fc.nat(5),
    crashLoop: fc.boolean(),
    skipped: fc.nat(5),
    truncated: fc.nat(5),
  });
  // What the same result renders to with every string from outside a plain word: the lines are ours.
  const plain = (r: JournalResult): JournalResult => ({
    ...r,
    events: r.events.map((e) => ({ ...e, uid: e.uid && 'u', resourceVersion: e.resourceVersion && 'v', apiPath: e.apiPath && 'p', key: e.key && 'k', message: 'm', source: 's' })),
    checkpoints: r.checkpoints.map((c) => ({ ...c, uid: 'u', resourceVersion: c.resourceVersion && 'v', apiPath: c.apiPath && 'p' })),
    processes: r.processes.map((p) => ({ ...p, loaded: p.loaded && { uid: 'u', resourceVersion: p.loaded.resourceVersion && 'v' } })),
  });
  await fc.assert(
    fc.asyncProperty(result, fc.constantFrom(0, 40, 120), async (r, width) => {
      const out = renderJournalText(r, { color: false, width });
      t.notMatch(out, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      if (width === 0) t.equal(out.split('\n').length, renderJournalText(plain(r), { color: false, width }).split('\n').length, 'no extra line');
      return true;
    }),
    { numRuns: 300, seed: 20261127 },
  );
});

t.test('escapes in a message are shown as the one sanitizer shows them, in -f lines too', async (t) => {
  const e: JournalEvent = { ...base, kind: 'sync-failed', message: 'kubelet config controller: failed to sync: bad \x1b[2J\u202e thing\u0085' };
  t.equal(eventText(e), 'bad \\x1b[2J\\u202e thing\\x85');
  t.equal(renderEventLine(e, { color: false, width: 0 }), '! 2021-08-24 13:16:04   278409  sync-failed         -                      bad \\x1b[2J\\u202e thing\\x85');
  t.equal(shortRef({ ...base, uid: '\x1bbcdefghij', resourceVersion: '1\u202e2' }), '\\x1bbcdefgh/1\\u202e2');
});

t.test('helpers', async (t) => {
  t.equal(shortRef({ ...base, uid: U, resourceVersion: '1326' }), '705ab4f5/1326');
  t.equal(shortRef({ ...base, uid: U }), '705ab4f5');
  t.equal(shortRef({ ...base, kind: 'kubelet-exited', exitStatus: 1 }), 'status=1');
  t.equal(shortRef(base), '-');
  t.equal(eventText({ ...base, message: `kubelet config controller: loading Kubelet configuration checkpoint for source /api/v1/namespaces/ns/configmaps/cm, UID: ${U}, ResourceVersion: 1`, uid: U }), 'loading Kubelet configuration checkpoint for source ns/cm');
  t.equal(eventText({ ...base, message: '"Kubelet config controller event" message="Kubelet restarting to use local config"' }), 'Kubelet restarting to use local config');
  t.equal(eventText({ ...base, message: '"Kubelet config controller starting controller"' }), 'starting controller');
});

t.test('progress line', async (t) => {
  t.equal(progressLine({ bytes: 312 * 1048576, total: 1024 * 1048576, events: 1200 }, 'kubelet.log'), 'reading kubelet.log: 312 MiB of 1024 MiB (30%), 1200 events');
  t.equal(progressLine({ bytes: 0, total: null, events: 1 }, '-'), 'reading -: 0 MiB, 1 event');
  t.equal(PROGRESS_MIN_BYTES, 100 * 1048576);
});
