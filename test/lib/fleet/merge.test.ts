import t from 'tap';
import fs from 'node:fs';
import { gatherReports } from '../../../lib/fleet/sources.js';
import { WarningLog } from '../../../lib/fleet/warnings.js';
import { mergeReports, fleetInTrouble } from '../../../lib/fleet/merge.js';
import { fakeReport, SHA_A, SHA_B } from '../../fleet/reports.js';
import { renderFleet } from '../../../lib/output/fleet.js';
import { palette } from '../../../lib/output/streams.js';

const doc = (label: string, value: unknown) => ({ label, file: label, value });

t.test('nodes grouped by the hash of what they run; same ConfigMap version on many nodes is one group', async (t) => {
  const f = mergeReports([
    doc('a.json', fakeReport({ name: 'a' })),
    doc('b.json', fakeReport({ name: 'b' })),
    doc('c.json', fakeReport({ name: 'c', sha: SHA_B, rv: '120200' })),
    doc('d.json', fakeReport({ name: 'd', store: 'absent' })),
  ]);
  t.equal(f.kind, 'FleetReport');
  t.equal(f.apiVersion, 'kubelet-ckpt/v1');
  t.equal(f.nodes, 4);
  t.same(f.groups.map((g) => [g.key, g.nodes]), [[SHA_A, ['a', 'b']], [SHA_B, ['c']], ['no-store', ['d']]]);
  t.same(f.groups[0]!.configs, ['assigned kube-system/node-config 946d785e-998a-11e7-a8dd-42010a800006/119980']);
  t.same(f.trouble, []);
  t.same(f.divergence, []);
  t.equal(fleetInTrouble(f), false);
});

t.test('fell back, will not start, crash loop, unknown and unreadable stores are trouble', async (t) => {
  const f = mergeReports([
    doc('1', fakeReport({ name: 'ok' })),
    doc('2', fakeReport({ name: 'fb', source: 'last-known-good', fellBack: true })),
    doc('3', fakeReport({ name: 'dead', source: 'none', willStart: false })),
    doc('4', fakeReport({ name: 'loop', crashLoop: true })),
    doc('5', fakeReport({ name: 'unk', source: 'unknown', willStart: null })),
    doc('6', fakeReport({ name: 'locked', store: 'unreadable' })),
  ]);
  t.same(
    f.trouble.map((x) => [x.node, x.problems]),
    [
      ['dead', ['will-not-start']],
      ['fb', ['fell-back']],
      ['locked', ['store-unreadable']],
      ['loop', ['crash-loop']],
      ['unk', ['unknown']],
    ],
  );
  t.match(f.trouble.find((x) => x.node === 'locked')!.reason, /permission denied/);
  t.equal(fleetInTrouble(f), true);
});

t.test('divergence: one UID/RV, different bytes on different nodes', async (t) => {
  const f = mergeReports([doc('1', fakeReport({ name: 'a' })), doc('2', fakeReport({ name: 'b' })), doc('3', fakeReport({ name: 'c', sha: SHA_B }))]);
  t.same(f.divergence, [{ uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', kubeletConfigKey: 'kubelet', variants: [{ sha256: SHA_A, nodes: ['a', 'b'] }, { sha256: SHA_B, nodes: ['c'] }] }]);
  t.match(renderFleet(f, { p: palette(false), width: 80, verbose: false, quiet: false }), /Divergence: one UID\/RV and key, different bytes\n  946d785e-998a-11e7-a8dd-42010a800006\/119980 key kubelet\n    aaaaaaaaaaaa  a, b\n    bbbbbbbbbbbb  c/);
});

/** A report whose every ref names ConfigMap key `key`. */
function withKey(r: Record<string, unknown>, key: string): Record<string, unknown> {
  const c = JSON.parse(JSON.stringify(r)) as Record<string, { ref?: { kubeletConfigKey: string } } | null>;
  for (const f of ['assigned', 'lastKnownGood', 'nextBoot']) if (c[f]?.ref) c[f]!.ref!.kubeletConfigKey = key;
  return c;
}

t.test('divergence: different kubeletConfigKeys of one ConfigMap version are different payloads, not divergence', async (t) => {
  const f = mergeReports([
    doc('1', withKey(fakeReport({ name: 'a' }), 'kubelet')),
    doc('2', withKey(fakeReport({ name: 'b', sha: SHA_B, running: { uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', sha256: SHA_B } }), 'kubelet-large')),
  ]);
  t.same(f.divergence, []);
  // One key, different bytes is divergence; the journal's running config takes its node's key.
  const g = mergeReports([
    doc('1', withKey(fakeReport({ name: 'a' }), 'kubelet-large')),
    doc('2', withKey(fakeReport({ name: 'b', sha: SHA_B, running: { uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', sha256: SHA_B } }), 'kubelet-large')),
    doc('3', withKey(fakeReport({ name: 'c', running: { uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', sha256: SHA_B } }), 'kubelet-large')),
  ]);
  t.same(g.divergence, [{ uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', kubeletConfigKey: 'kubelet-large', variants: [{ sha256: SHA_A, nodes: ['a', 'c'] }, { sha256: SHA_B, nodes: ['b', 'c'] }] }]);
});

t.test('next boot differs from the config the journal says runs now', async (t) => {
  const f = mergeReports([doc('1', fakeReport({ name: 'a', running: { uid: 'old-uid', resourceVersion: '7', sha256: SHA_B } })), doc('2', fakeReport({ name: 'b', running: { uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', sha256: SHA_A } }))]);
  t.same(f.nextBootDiffers, [{ node: 'a', running: 'checkpoint old-uid/7 (journal)', nextBoot: 'assigned kube-system/node-config 946d785e-998a-11e7-a8dd-42010a800006/119980' }]);
  t.same(f.groups.map((g) => [g.key, g.nodes]), [[SHA_A, ['b']], [SHA_B, ['a']]]);
});

t.test('duplicate node names: kept apart by host; the same node twice keeps the newer report', async (t) => {
  const f = mergeReports([
    doc('x1', fakeReport({ name: 'n', host: 'h1' })),
    doc('x2', fakeReport({ name: 'n', host: 'h2', sha: SHA_B, rv: '2' })),
    doc('x3', fakeReport({ name: 'm', host: 'h', generatedAt: '2026-11-25T01:00:00.000Z', fellBack: true, source: 'last-known-good' })),
    doc('x4', fakeReport({ name: 'm', host: 'h', generatedAt: '2026-11-25T02:00:00.000Z' })),
  ]);
  t.equal(f.nodes, 3);
  t.same(f.groups.flatMap((g) => g.nodes).sort(), ['m', 'n@h1', 'n@h2']);
  t.same(f.trouble, [], 'the newer report of m (healthy) wins');
  t.match(f.warnings.join('\n'), /m: reported twice from host "h" \(x3, x4\); kept the newer, x4/);
  t.match(f.warnings.join('\n'), /n: 2 reports from different hosts name this node; kept apart as n@HOST/);
});

t.test('reports from other versions: unknown fields ignored, missing fields reported, nameless skipped', async (t) => {
  const newer = { ...fakeReport({ name: 'new' }), apiVersion: 'kubelet-ckpt/v2', futureField: { x: 1 } };
  const older = fakeReport({ name: 'old' });
  delete older.findings;
  delete older.crashLoop;
  const f = mergeReports([doc('new.json', newer), doc('old.json', older), doc('anon.json', { kind: 'NodeReport', apiVersion: 'kubelet-ckpt/v1' })]);
  t.equal(f.nodes, 2);
  t.same(f.warnings, [
    'new.json: report for new is kubelet-ckpt/v2; read as kubelet-ckpt/v1 (fields it does not know are ignored)',
    'old.json: report for old lacks findings, crashLoop (written by another version?); merged with what it has',
    'anon.json: skipped: the report names no node (node.name)',
  ]);
  t.same(f.groups.map((g) => g.nodes), [['new', 'old']]);
});

t.test('hostile field types never throw', async (t) => {
  const weird = { kind: 'NodeReport', node: { name: 'w', host: 7 }, store: 'x', nextBoot: 'y', running: 5, crashLoop: [], assigned: { ref: 'z' } };
  const f = mergeReports([doc('w', weird)]);
  t.equal(f.nodes, 1);
  t.same(f.groups.map((g) => g.key), ['not-reported'], 'a group of its own, not the nodes whose next boot is unknown');
});

t.test('nodes not ready to leave Dynamic Kubelet Config: listed with why, not counted as trouble', async (t) => {
  const ready = { to: '1.24', ready: true, breaks: false, exitMessage: null, revertedFields: [], error: null };
  const f = mergeReports([
    doc('1', fakeReport({ name: 'done', migration: ready })),
    doc('2', fakeReport({ name: 'flag', migration: { ...ready, ready: false, breaks: true, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir' } })),
    doc('3', fakeReport({ name: 'revert', migration: { ...ready, ready: false, revertedFields: ['maxPods', 'kubeReserved'] } })),
    doc('4', fakeReport({ name: 'old' })),
    doc('5', fakeReport({ name: 'guess', migration: { ...ready, ready: false, breaks: true, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir', assumedFlags: ['--dynamic-config-dir=/d'] } })),
  ]);
  t.same(f.notReadyToMigrate, [
    { node: 'flag', to: '1.24', why: 'the kubelet exits: Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir' },
    { node: 'guess', to: '1.24', why: 'the kubelet exits: Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir (command line not found; assumed --dynamic-config-dir=/d)' },
    { node: 'revert', to: '1.24', why: 'silently reverts 2 fields: maxPods, kubeReserved' },
  ]);
  t.same(f.trouble, []);
  t.notOk(fleetInTrouble(f));
  const text = renderFleet(f, { p: palette(false), width: 80, verbose: false, quiet: false });
  t.match(text, /Not ready to leave Dynamic Kubelet Config \(1\.24\)\nNODE +WHY\nflag +the kubelet exits: Error: failed to parse kubelet/);
  t.match(text, /on each: kubelet-ckpt upgrade-check, then kubelet-ckpt migrate/);
});

t.test('runsText: sources that differ only in their role share one entry', async (t) => {
  const { runsText } = await import('../../../lib/output/fleet.js');
  t.equal(runsText(['assigned kube-system/cfg u/1', 'last-known-good kube-system/cfg u/1']), 'assigned|last-known-good kube-system/cfg u/1');
  t.equal(runsText(['assigned kube-system/cfg u/1', 'assigned kube-system/other u/2', 'local']), 'assigned kube-system/cfg u/1; assigned kube-system/other u/2; local');
  t.equal(runsText([]), '');
});

/** Every path to a value in `o` (objects and arrays included). */
function paths(o: unknown, at: string[] = []): string[][] {
  if (o === null || typeof o !== 'object') return [at];
  return [at, ...Object.entries(o).flatMap(([k, v]) => paths(v, [...at, k]))];
}

function withValue(o: unknown, at: string[], v: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
  let c: Record<string, unknown> = copy;
  for (const k of at.slice(0, -1)) c = c[k] as Record<string, unknown>;
  c[at[at.length - 1]!] = v;
  return copy;
}

t.test('any field of any type: merge and its text never throw (the reviewer: sha256 5 and 7)', async (t) => {
  const f = mergeReports([
    doc('1', { ...fakeReport({ name: 'w1' }), nextBoot: { ...(fakeReport({ name: 'w1' }).nextBoot as object), sha256: 5 } }),
    doc('2', { ...fakeReport({ name: 'w2' }), running: { uid: 'u', resourceVersion: '1', sha256: 7 } }),
  ]);
  t.same(f.groups.map((g) => [g.key, g.sha256, g.nodes]), [['assigned', null, ['w1']], ['checkpoint:u/1', null, ['w2']]]);
  // Objects whose own toString/valueOf shadow Object.prototype's: String(x) and `${x}` throw on them.
  const hostile = [5, true, null, [], ['x', { toString: 1 }], {}, { toString: 1, valueOf: 1, toJSON: 1 }, 'x'];
  const base = fakeReport({ name: 'h', running: { uid: 'u', resourceVersion: '1', sha256: SHA_B }, migration: { to: '1.24', ready: false, breaks: false, exitMessage: null, revertedFields: ['a'], error: null } });
  let tried = 0;
  for (const at of paths(base).filter((p) => p.length && p.join('.') !== 'kind')) {
    for (const v of hostile) {
      tried++;
      const r = withValue(base, at, v);
      try {
        const m = mergeReports([doc('a', r), doc('b', fakeReport({ name: 'other' }))]);
        renderFleet(m, { p: palette(false), width: 80, verbose: false, quiet: false });
      } catch (err) {
        t.fail(`${at.join('.')} = ${JSON.stringify(v)}: ${(err as Error).message}`);
      }
    }
  }
  t.ok(tried > 300, `${tried} hostile reports merged`);
});

t.test('merge warnings are collapsed per file too', async (t) => {
  const old = () => {
    const r = fakeReport({ name: 'x' });
    delete r.findings;
    return r;
  };
  const docs = Array.from({ length: 30 }, (_, i) => ({ label: `many.ndjson:${i + 1}`, file: 'many.ndjson', value: { ...old(), node: { name: `n${i}`, host: 'h' } } }));
  const gathered = new WarningLog();
  gathered.add('other.log', 'gathered');
  const f = mergeReports([...docs, doc('one.json', old())], gathered);
  t.equal(f.nodes, 31);
  t.equal(f.warnings.length, 1 + 20 + 1 + 1);
  t.same(f.warnings.slice(0, 2), ['gathered', 'many.ndjson:1: report for n0 lacks findings (written by another version?); merged with what it has']);
  t.same(f.warnings.slice(21), ['… and 10 more in many.ndjson', 'one.json: report for x lacks findings (written by another version?); merged with what it has']);
});

t.test('node ids never collide: a node named a@b and node a from host b stay two nodes', async (t) => {
  const f = mergeReports([
    doc('x1', fakeReport({ name: 'a@b', host: 'x' })),
    doc('x2', fakeReport({ name: 'a', host: 'b', fellBack: true, source: 'last-known-good' })),
    doc('x3', fakeReport({ name: 'a', host: 'c' })),
    doc('x4', fakeReport({ name: 'a@b#2', host: 'y' })),
    // A NUL cannot join name and host into one key either.
    doc('x5', fakeReport({ name: 'n\u0000', host: 'h' })),
    doc('x6', fakeReport({ name: 'n', host: '\u0000h' })),
  ]);
  t.equal(f.nodes, 6);
  const ids = f.groups.flatMap((g) => g.nodes).sort();
  t.same(ids, ['a@b', 'a@b#2', 'a@b#2#2', 'a@c', 'n', 'n\u0000']);
  t.same(f.trouble.map((x) => x.node), ['a@b#2'], 'the trouble is the right node’s');
  t.match(f.warnings, ['a: 2 reports from different hosts name this node; kept apart as a@HOST', 'x2: another node is already known as a@b; this one is a@b#2', 'x4: another node is already known as a@b#2; this one is a@b#2#2']);
});

t.test('found by a fleet review: the newer of two reports is the later time, not the later text', async (t) => {
  // 09:00+01:00 is 08:00Z: as text it sorts after 08:30Z, and the older (healthy) report was kept.
  const older = fakeReport({ name: 'm', generatedAt: '2026-11-27T09:00:00.000+01:00' });
  const newer = fakeReport({ name: 'm', source: 'last-known-good', fellBack: true, generatedAt: '2026-11-27T08:30:00.000Z' });
  for (const order of [[doc('old', older), doc('new', newer)], [doc('new', newer), doc('old', older)]]) {
    const f = mergeReports(order);
    t.same(f.trouble.map((x) => x.node), ['m'], 'the fell-back report, 30 minutes newer, is the one kept');
    t.match(f.warnings.join('\n'), /kept the newer, new/);
  }
  // Millisecond precision or none: the same instant compares equal, a stamp that does not parse is the oldest.
  const bare = fakeReport({ name: 'p', generatedAt: '2026-11-27T08:30:00Z' });
  const junk = fakeReport({ name: 'p', source: 'last-known-good', fellBack: true, generatedAt: 'yesterday' });
  t.same(mergeReports([doc('junk', junk), doc('bare', bare)]).trouble, [], 'a time that does not parse loses to any that does');
});

t.test('found by a fleet review: one file gives at most 20 warnings, the gathering\'s and the merge\'s together', async (t) => {
  const dir = t.testdir({});
  const file = `${dir}/pods.log`;
  const lines: string[] = [];
  for (let i = 0; i < 25; i++) lines.push(`log noise ${i}`, JSON.stringify({ apiVersion: 'kubelet-ckpt/v1', kind: 'NodeReport', node: { name: null } }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const g = gatherReports([file], () => ({ bytes: Buffer.alloc(0), cap: 0 }));
  const f = mergeReports(g.docs, g.log);
  t.equal(f.warnings.length, 21, f.warnings.join('\n'));
  t.same(f.warnings.filter((w) => w.startsWith('…')), [`… and 30 more in ${file}`], 'one summary line for the file: 50 warnings, 20 shown');
});
