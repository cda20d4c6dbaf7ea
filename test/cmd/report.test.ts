// `report` and `report merge` end to end, through the built CLI on real trees.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { asNobody, copyFixture, isRoot, json, repoRoot, runCli, tempDir, writeTree } from '../helpers.js';
import { validate } from '../json-schema.js';
import { fakeReport, SHA_B } from '../fleet/reports.js';

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, 'schema/NodeReport.json'), 'utf8'));
const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');

/** A node root: the demo node, with an /etc/hostname and optional extra kubelet args. */
function nodeRoot(hostname: string | null, extraArgs = '--node-ip=10.0.0.12'): string {
  const root = copyFixture('demo');
  if (hostname !== null) writeTree(root, { 'etc/hostname': `${hostname}\n` });
  writeTree(root, { 'etc/default/kubelet': `KUBELET_EXTRA_ARGS=${extraArgs}\n` });
  return root;
}

t.test('report: the demo node, valid against schema/NodeReport.json, hashes of the real payloads', async (t) => {
  const root = nodeRoot('Worker-7');
  const r = runCli(['--root', root, 'report', '--no-journal']);
  t.equal(r.code, 0, r.stderr);
  const rep = json(r);
  t.same(validate(rep, schema), []);
  const store = path.join(root, 'var/lib/kubelet/dynamic-config/store');
  const cp = (rv: string) => path.join(store, 'checkpoints/5808539f-48e3-4e47-8ce6-c261c48fa1d9', rv, 'kubelet');
  t.match(rep, {
    apiVersion: 'kubelet-ckpt/v1',
    kind: 'NodeReport',
    node: { name: 'worker-7', nameFrom: 'hostname' },
    kubelet: { version: null, rules: '1.23', config: path.join(root, 'var/lib/kubelet/config.yaml') },
    store: { path: store, state: 'ok', error: null, checkpoints: 4 },
    assigned: { state: 'source', ref: { uid: '5808539f-48e3-4e47-8ce6-c261c48fa1d9', resourceVersion: '42315' }, sha256: sha(cp('42315')) },
    lastKnownGood: { state: 'source', ref: { resourceVersion: '41877' }, sha256: sha(cp('41877')) },
    nextBoot: { source: 'assigned', sha256: sha(cp('42315')), willStart: true, fellBack: false, statusError: null },
    findings: { scope: 'all', error: 0, warning: 0 },
    crashLoop: { checked: false, crashLoop: null, detail: 'the journal was not read (--no-journal)' },
    migration: { to: '1.24', ready: false, breaks: true, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir', error: null },
  });
  t.equal(rep.running, null);
});

t.test('report: node name from --node-name, then --hostname-override, then /etc/hostname', async (t) => {
  const over = nodeRoot('disk-name', '"--node-ip=10.0.0.12 --hostname-override=Override-Name"');
  t.match(json(runCli(['--root', over, 'report', '--no-journal'])).node, { name: 'override-name', nameFrom: 'hostname-override' });
  t.match(json(runCli(['--root', over, 'report', '--no-journal', '--node-name', 'given'])).node, { name: 'given', nameFrom: 'flag' });
});

t.test('report --root on a disk without /etc/hostname: the name is unknown, never this machine\'s', async (t) => {
  const root = copyFixture('demo');
  const r = runCli(['--root', root, 'report', '--no-journal']);
  t.equal(r.code, 0);
  const rep = json(r);
  t.same(rep.node, { name: null, nameFrom: 'unknown', host: (await import('node:os')).hostname() }, 'host is still the machine that wrote the report');
  t.same(validate(rep, schema), []);
  t.equal(r.stderr, "warning: node name unknown: under --root the node's name comes from its /etc/hostname, which names none here; give --node-name (this machine's host name is not the node's); report merge skips a report without one\n");
  const given = runCli(['--root', root, 'report', '--no-journal', '--node-name', 'n1']);
  t.same(json(given).node, { name: 'n1', nameFrom: 'flag', host: (await import('node:os')).hostname() });
  t.equal(given.stderr, '');
});

t.test('report: a fell-back store; -o yaml', async (t) => {
  const dir = copyFixture('stores/fell-back');
  const rep = json(runCli(['--dir', dir, 'report', '--no-journal', '--node-name', 'fb', '--scope', 'referenced']));
  t.same(validate(rep, schema), []);
  t.match(rep, { nextBoot: { source: 'last-known-good', fellBack: true, willStart: true, statusError: /./ }, findings: { scope: 'referenced' } });
  t.equal(rep.nextBoot.sha256, sha(path.join(dir, 'store/checkpoints/946d785e-998a-11e7-a8dd-42010a800006/119980/kubelet')));
  const y = runCli(['--dir', dir, 'report', '--no-journal', '-o', 'yaml']);
  t.match(y.stdout, /^apiVersion: kubelet-ckpt\/v1\nkind: NodeReport\n/);
});

t.test('report: no store on this node, and a store that cannot be read, are said in the report (exit 0)', async (t) => {
  const empty = tempDir();
  fs.writeFileSync(path.join(empty, 'placeholder'), '');
  const none = runCli(['--root', empty, 'report', '--no-journal', '--node-name', 'plain']);
  t.equal(none.code, 0, none.stderr);
  const n = json(none);
  t.same(validate(n, schema), []);
  t.match(n, { store: { state: 'absent', path: null, error: /no dynamic kubelet config store found/, checkpoints: null }, nextBoot: null, findings: null });
  // A file where the store should be is no absent store (found by review: merged as "no-store").
  const file = path.join(empty, 'placeholder');
  const f = runCli(['--dir', file, 'report', '--no-journal', '--node-name', 'file']);
  t.equal(f.code, 0, f.stderr);
  t.match(json(f), { store: { state: 'unreadable', error: `${file} is not a directory` } });
  t.equal(runCli(['--dir', file, 'status', '--no-journal']).code, 3, 'status says it is no store');
  if (!isRoot) return t.skip('the unreadable-store case drops privileges from root');
  const dir = copyFixture('stores/healthy');
  fs.chmodSync(path.join(dir, 'store'), 0o700);
  const r = asNobody(['--dir', dir, 'report', '--no-journal', '--node-name', 'locked']);
  t.equal(r.code, 0, r.stderr);
  const u = json(r);
  t.same(validate(u, schema), []);
  t.match(u, { store: { state: 'unreadable', error: /permission denied/ }, nextBoot: null });
  // The meta files readable, checkpoints/ not: never "0 checkpoints".
  const cps = copyFixture('stores/healthy');
  fs.chmodSync(path.join(cps, 'store/checkpoints'), 0o700);
  const c = json(asNobody(['--dir', cps, 'report', '--no-journal', '--node-name', 'cps']));
  t.same(validate(c, schema), []);
  t.match(c, { store: { state: 'ok', checkpoints: null, error: /^checkpoints\/ cannot be read: .*permission denied/ } });
});

// ---- merge ------------------------------------------------------------------------------

function reportsDir(): string {
  const d = tempDir('kckpt-merge-');
  writeTree(d, {
    'a/report.json': JSON.stringify(fakeReport({ name: 'a' }), null, 2),
    'b/report.json': JSON.stringify(fakeReport({ name: 'b' })),
    'c.json': JSON.stringify(fakeReport({ name: 'c', sha: SHA_B, rv: '2', uid: 'u2' })),
    'truncated.json': JSON.stringify(fakeReport({ name: 'cut' })).slice(0, 200),
    'corrupt.json': '{"kind": "NodeReport", "node": {"name": "x"}, oops}',
    'notes.md': 'ignored: not a report file name',
  });
  return d;
}

t.test('merge: a directory with a truncated and a corrupt report: both skipped by name, the rest merged', async (t) => {
  const d = reportsDir();
  const r = runCli(['report', 'merge', d, '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  const f = json(r);
  t.equal(f.kind, 'FleetReport');
  t.equal(f.nodes, 3);
  t.same(f.groups.map((g: { nodes: string[] }) => g.nodes), [['a', 'b'], ['c']]);
  t.same(f.warnings, [`${d}/corrupt.json: skipped: corrupt JSON: ${f.warnings[0].split('corrupt JSON: ')[1]}`, `${d}/truncated.json: skipped: truncated JSON (the text ends inside a document)`]);
  const text = runCli(['report', 'merge', d]);
  t.equal(text.code, 0);
  t.match(text.stdout, /^Fleet: 3 nodes, 2 configs, none in trouble\n/);
  t.match(text.stdout, /CONFIG\s+NODES\s+RUNS\naaaaaaaaaaaa\s+2\s+assigned kube-system\/node-config/);
  t.match(text.stderr, /warning: .*truncated\.json: skipped: truncated JSON/);
});

t.test('merge: NDJSON and concatenated pretty documents on stdin; exit 1 when a node is in trouble', async (t) => {
  const nd = [fakeReport({ name: 'a' }), fakeReport({ name: 'fb', source: 'last-known-good', fellBack: true })].map((x) => JSON.stringify(x)).join('\n') + '\n';
  const r = runCli(['report', 'merge', '-', '-o', 'json'], { input: nd });
  t.equal(r.code, 1, r.stderr);
  t.same(json(r).trouble.map((x: { node: string; problems: string[] }) => [x.node, x.problems]), [['fb', ['fell-back']]]);
  const pretty = [fakeReport({ name: 'p1' }), fakeReport({ name: 'p2' })].map((x) => JSON.stringify(x, null, 2)).join('\n');
  const p = runCli(['report', 'merge', '-'], { input: pretty });
  t.equal(p.code, 0, p.stderr);
  t.match(p.stdout, /aaaaaaaaaaaa: p1, p2/);
  const txt = runCli(['report', 'merge', '-'], { input: nd });
  t.match(txt.stdout, /In trouble\nNODE\s+PROBLEM\s+WHY\nfb\s+fell-back\s+made up/);
});

t.test('merge: a Sonobuoy-style results tarball (real tar + gzip), nested results.tar.gz too', async (t) => {
  const d = tempDir('kckpt-sono-');
  writeTree(d, {
    'plugins/kubelet-ckpt/results/node-1/report.json': JSON.stringify(fakeReport({ name: 'node-1' })),
    'plugins/kubelet-ckpt/sonobuoy_results.yaml': 'name: kubelet-ckpt\nstatus: complete\n',
    'resources/cluster/Nodes.json': '{"items": []}',
    'meta/config.json': '{"UUID": "x"}',
    'inner/report.json': JSON.stringify(fakeReport({ name: 'node-2', crashLoop: true })),
  });
  const tar = (args: string[]) => t.equal(spawnSync('tar', args, { cwd: d }).status, 0, `tar ${args.join(' ')}`);
  tar(['-czf', 'plugins/kubelet-ckpt/results/node-2.tar.gz', '-C', 'inner', 'report.json']);
  fs.rmSync(path.join(d, 'inner'), { recursive: true });
  const out = path.join(tempDir(), '202611250100_sonobuoy_0f0e.tar.gz');
  tar(['-czf', out, 'plugins', 'resources', 'meta']);
  const r = runCli(['report', 'merge', out, '-o', 'json']);
  t.equal(r.code, 1, r.stderr);
  const f = json(r);
  t.equal(f.nodes, 2);
  t.same(f.warnings, []);
  t.same(f.trouble.map((x: { node: string }) => x.node), ['node-2']);
  // A cut-short archive: what inflates is read, the damage is named.
  const cut = path.join(tempDir(), 'cut.tar.gz');
  fs.writeFileSync(cut, fs.readFileSync(out).subarray(0, Math.floor(fs.statSync(out).size / 2)));
  const c = runCli(['report', 'merge', cut, '-o', 'json']);
  t.match(c.stderr + JSON.stringify(json(c).warnings), /cut\.tar\.gz/);
});

t.test('merge: a named source that does not exist is an environment error (exit 3)', async (t) => {
  const r = runCli(['report', 'merge', '/nonexistent/reports']);
  t.equal(r.code, 3);
  t.match(r.stderr, /cannot read \/nonexistent\/reports: no such file or directory/);
  const n = runCli(['report', 'merge']);
  t.equal(n.code, 2);
});

t.test('report | report merge: real reports of three fixture nodes', async (t) => {
  const out = tempDir('kckpt-real-');
  const runs: [string, string[]][] = [
    ['h1', ['--dir', copyFixture('stores/healthy')]],
    ['h2', ['--dir', copyFixture('stores/healthy')]],
    ['fb', ['--dir', copyFixture('stores/fell-back')]],
  ];
  for (const [name, args] of runs) fs.writeFileSync(path.join(out, `${name}.json`), runCli([...args, 'report', '--no-journal', '--node-name', name]).stdout);
  const r = runCli(['report', 'merge', out, '-o', 'json']);
  t.equal(r.code, 1, r.stderr);
  const f = json(r);
  t.same(f.trouble.map((x: { node: string; problems: string[] }) => [x.node, x.problems]), [['fb', ['fell-back']]]);
  t.same(f.groups.map((g: { nodes: string[] }) => g.nodes), [['fb', 'h1', 'h2']], 'the healthy assigned and the fell-back LKG are the same bytes (119980)');
  t.same(f.divergence, []);
});

t.test('merge: a report cut short mid-stream costs only itself (file, stdin, NDJSON)', async (t) => {
  const pretty = (k: Parameters<typeof fakeReport>[0]) => JSON.stringify(fakeReport(k), null, 2);
  const cut = pretty({ name: 'cut' }).slice(0, 1500);
  const logs = `${cut}${pretty({ name: 'fb', source: 'last-known-good', fellBack: true })}\n${pretty({ name: 'dead', source: 'none', willStart: false })}\n`;
  const d = tempDir();
  writeTree(d, { 'logs.txt': logs });
  for (const [how, r] of [['file', runCli(['report', 'merge', path.join(d, 'logs.txt'), '-o', 'json'])], ['stdin', runCli(['report', 'merge', '-', '-o', 'json'], { input: logs })]] as const) {
    t.equal(r.code, 1, `${how}: ${r.stderr}`);
    const f = json(r);
    t.equal(f.nodes, 2, how);
    t.same(f.trouble.map((x: { node: string }) => x.node), ['dead', 'fb'], how);
    t.same(f.warnings, [`${how === 'file' ? path.join(d, 'logs.txt') : '-'}:1: skipped: truncated JSON (the next document starts before this one ends)`], how);
  }
  const nd = [JSON.stringify(fakeReport({ name: 'cut' })).slice(0, 300), JSON.stringify(fakeReport({ name: 'a' })), JSON.stringify(fakeReport({ name: 'fb', source: 'last-known-good', fellBack: true }))].join('\n');
  const n = runCli(['report', 'merge', '-', '-o', 'json'], { input: nd });
  t.equal(n.code, 1, n.stderr);
  t.same(json(n).groups.flatMap((g: { nodes: string[] }) => g.nodes), ['a', 'fb']);
});

t.test('merge: a UTF-8 byte-order mark before a report or an NDJSON line is read past', async (t) => {
  const d = tempDir();
  const fb = JSON.stringify(fakeReport({ name: 'fb', source: 'last-known-good', fellBack: true }), null, 2);
  writeTree(d, { 'bom.json': `\ufeff${fb}`, 'lines.ndjson': `\ufeff${JSON.stringify(fakeReport({ name: 'a' }))}\n\ufeff${JSON.stringify(fakeReport({ name: 'b' }))}\n` });
  const r = runCli(['report', 'merge', path.join(d, 'bom.json'), path.join(d, 'lines.ndjson'), '-o', 'json']);
  t.equal(r.code, 1, r.stderr);
  const f = json(r);
  t.equal(f.nodes, 3);
  t.same(f.warnings, []);
});

t.test('merge: fields of the wrong type are read as absent, never an internal error', async (t) => {
  const w1 = fakeReport({ name: 'w1' });
  (w1.nextBoot as Record<string, unknown>).sha256 = 5;
  const w2 = fakeReport({ name: 'w2', running: { uid: 'u', resourceVersion: '1', sha256: 7 as unknown as string } });
  const w3 = { ...fakeReport({ name: 'w3' }), apiVersion: { toString: 1 } };
  const r = runCli(['report', 'merge', '-', '-o', 'json'], { input: [w1, w2, w3].map((x) => JSON.stringify(x)).join('\n') });
  t.equal(r.code, 0, r.stderr);
  t.same(json(r).groups.map((g: { key: string; nodes: string[] }) => [g.key, g.nodes]), [['a'.repeat(64), ['w3']], ['assigned', ['w1']], ['checkpoint:u/1', ['w2']]]);
  t.match(json(r).warnings, ['-:3: report for w3 is of no known apiVersion; read as kubelet-ckpt/v1 (fields it does not know are ignored)']);
});

t.test('merge: warnings quote hostile names as one printable line (no escapes, no fake lines)', async (t) => {
  const evil = 'evil\u001b[2J\u001b]0;pwned\u0007\nok: fleet healthy\u202e';
  const d = tempDir();
  const older = fakeReport({ name: evil, host: evil });
  delete older.findings;
  writeTree(d, {
    'a.json': JSON.stringify(older),
    'b.json': JSON.stringify(fakeReport({ name: evil, host: evil, generatedAt: '2026-11-25T02:00:00.000Z' })),
    [`bad\u001b[31m\nok: name.json`]: '{"kind": "NodeReport", oops}',
  });
  const r = runCli(['report', 'merge', d]);
  t.equal(r.code, 0, r.stderr);
  t.notMatch(r.stderr, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/, 'no control or bidi characters on stderr');
  t.same(r.stderr.split('\n').filter((l) => !l.startsWith('warning: ')), [''], 'every line on stderr is a warning');
  t.match(r.stderr, 'evil\\x1b[2J\\x1b]0;pwned\\x07\\x0aok: fleet healthy\\u202e: reported twice from host');
  t.match(r.stderr, 'bad\\x1b[31m\\x0aok: name.json: skipped: corrupt JSON');
  t.match(r.stderr, 'report for evil\\x1b[2J');
  // JSON keeps the text exact (JSON escapes it).
  const j = json(runCli(['report', 'merge', d, '-o', 'json']));
  t.ok(j.warnings.some((w: string) => w.startsWith(`${evil}: reported twice`)));
});

t.test('merge: no usable report at all is exit 3 naming the inputs, not "none in trouble"', async (t) => {
  const empty = tempDir();
  const r = runCli(['report', 'merge', empty]);
  t.equal(r.code, 3);
  t.equal(r.stdout, '');
  t.equal(r.stderr, `error: no NodeReport was read from ${empty}\nhint: name NodeReport files (kubelet-ckpt report writes them), directories of them (*.json, *.ndjson, *.jsonl, *.log, *.txt), .tar.gz archives, or - for stdin\n`);
  const d = tempDir();
  writeTree(d, { 'cut.json': JSON.stringify(fakeReport({ name: 'a' })).slice(0, 100), 'anon.json': '{"kind": "NodeReport"}' });
  const bad = runCli(['report', 'merge', path.join(d, 'cut.json'), path.join(d, 'anon.json'), '-', '-o', 'json'], { input: 'garbage\n' });
  t.equal(bad.code, 3);
  t.equal(bad.stdout, '', 'stdout stays empty under -o json');
  t.same(JSON.parse(bad.stderr), {
    apiVersion: 'kubelet-ckpt/v1',
    kind: 'Error',
    error: { code: 'NO_REPORTS', message: `no NodeReport was read from ${d}/cut.json, ${d}/anon.json, stdin`, hint: `3 warnings say why; the first: ${d}/cut.json: skipped: truncated JSON (the text ends inside a document)`, exitCode: 3 },
  });
  const text = runCli(['report', 'merge', path.join(d, 'cut.json'), path.join(d, 'anon.json')]);
  t.equal(text.code, 3);
  t.match(text.stderr, /^warning: .*cut\.json: skipped: truncated JSON.*\nwarning: .*anon\.json: skipped: the report names no node.*\nerror: no NodeReport was read from /);
});

t.test('merge: a gzip bomb, or stdin without end, is skipped with a warning; the rest is merged', async (t) => {
  const d = tempDir();
  writeTree(d, { 'fb.json': JSON.stringify(fakeReport({ name: 'fb', source: 'last-known-good', fellBack: true })) });
  t.equal(spawnSync('sh', ['-c', 'head -c 300M /dev/zero | gzip -1 > bomb.gz'], { cwd: d }).status, 0);
  const fb = path.join(d, 'fb.json');
  const bomb = runCli(['report', 'merge', path.join(d, 'bomb.gz'), fb, '-o', 'json']);
  t.equal(bomb.code, 1, bomb.stderr);
  t.same(json(bomb).warnings, [`${d}/bomb.gz: skipped: inflates to more than 256 MiB`]);
  t.equal(json(bomb).nodes, 1);
  const zero = fs.openSync('/dev/zero', 'r');
  t.teardown(() => fs.closeSync(zero));
  const endless = runCli(['report', 'merge', '-', fb, '-o', 'json'], { stdio: [zero, 'pipe', 'pipe'] });
  t.equal(endless.code, 1, endless.stderr);
  t.same(json(endless).warnings, ['-: skipped: holds more than 256 MiB']);
  t.equal(json(endless).nodes, 1);
});

t.test('merge: a file of garbage lines gives one warning, not one a line', async (t) => {
  const d = tempDir();
  writeTree(d, { 'garbage.txt': 'x\n'.repeat(1_000_000), 'cut.ndjson': '{"kind": "NodeReport", "n": 1\n'.repeat(25), 'fb.json': JSON.stringify(fakeReport({ name: 'fb', source: 'last-known-good', fellBack: true })) });
  const r = runCli(['report', 'merge', path.join(d, 'garbage.txt'), path.join(d, 'cut.ndjson'), path.join(d, 'fb.json')]);
  t.equal(r.code, 1, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  t.equal(lines.length, 1 + 20 + 1);
  t.equal(lines[0], `warning: ${d}/garbage.txt: skipped: not JSON: "x" (and the 999999 lines after it)`);
  t.equal(lines[21], `warning: … and 5 more in ${d}/cut.ndjson`);
  t.match(r.stdout, /^Fleet: 1 node, 1 config, 1 in trouble/);
});

t.test('merge: stdin through a pipe, many reads: every report is read', async (t) => {
  const nd = Array.from({ length: 5000 }, (_, i) => JSON.stringify(fakeReport({ name: `n${i}` }))).join('\n');
  const r = runCli(['report', 'merge', '-', '-o', 'json'], { input: nd, maxBuffer: 64 * 1024 * 1024 });
  t.equal(r.code, 0, r.stderr);
  t.equal(json(r).nodes, 5000);
  t.same(json(r).warnings, []);
});

t.test('a store that cannot be read is named by its absolute path, as a readable one is', async (t) => {
  // Found by review: the raw --dir, relative, stood where other reports name an absolute path.
  const dir = t.testdir({});
  const r = runCli(['--dir', 'missing-node', 'report', '--no-journal'], { cwd: dir });
  const store = (JSON.parse(r.stdout) as { store: { path: string; state: string } }).store;
  t.equal(store.path, path.join(dir, 'missing-node'));
});

t.test('found by a fleet review: a named directory that cannot be listed fails the merge (exit 3), as a named file does', { skip: !isRoot && 'setpriv to nobody needs root' }, async (t) => {
  const work = t.testdir({});
  fs.chmodSync(work, 0o755);
  const reports = path.join(work, 'reports');
  fs.mkdirSync(reports);
  fs.writeFileSync(path.join(reports, 'sick.json'), JSON.stringify(fakeReport({ name: 'sick', source: 'last-known-good', fellBack: true })));
  fs.writeFileSync(path.join(work, 'ok.json'), JSON.stringify(fakeReport({ name: 'ok' })));
  fs.chmodSync(path.join(work, 'ok.json'), 0o644);
  fs.chmodSync(reports, 0o700);
  const r = asNobody(['report', 'merge', reports, path.join(work, 'ok.json')]);
  t.equal(r.code, 3, 'not "none in trouble" with the sick node left out');
  t.equal(r.stdout, '');
  t.match(r.stderr, `cannot read ${reports}: permission denied`);
});

t.test('found by a fleet review: two pod runs on one node (--host the node\'s name, as the manifests pass it) merge as one node, the newer kept', async (t) => {
  const dir = t.testdir({ reports: {} });
  const fellBack = copyFixture('stores/fell-back');
  const healthy = copyFixture('stores/healthy');
  const run = (store: string, out: string) => {
    const r = runCli(['--dir', store, 'report', '--node-name', 'node-a', '--host', 'node-a', '--no-journal']);
    t.equal(r.code, 0, r.stderr);
    t.equal((JSON.parse(r.stdout) as { node: { host: string } }).node.host, 'node-a');
    fs.writeFileSync(path.join(dir, 'reports', out), r.stdout);
  };
  run(fellBack, '1.json');
  await new Promise((r) => setTimeout(r, 20)); // a later generatedAt
  run(healthy, '2.json');
  const m = runCli(['report', 'merge', path.join(dir, 'reports'), '-o', 'json']);
  t.equal(m.code, 0, m.stderr);
  const j = JSON.parse(m.stdout) as { nodes: { name: string }[] } & Record<string, unknown>;
  t.match(JSON.stringify(j), /"node-a"/);
  t.notMatch(JSON.stringify(j), /node-a@/, 'no second node named after its host');
  const manifest = runCli(['fleet', 'manifest', 'daemonset']);
  t.match(manifest.stdout, /--host "\$NODE_NAME"/);
  t.match(runCli(['fleet', 'manifest', 'job', '--target-node', 'n1']).stdout, /--host "\$NODE_NAME"/);
});
