// reset / rollback / undo / prune through the built CLI: exit codes, exact JSON, the
// bytes on disk after every command, and --dry-run leaving the tree byte-identical.

import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { GOOD_PAYLOAD, copyFixture, json, runCli } from '../helpers.js';
import { UID, UID2, makeStore, metaFor, read, treeHash } from '../lib/recovery/fixtures/index.js';

const cli = (dcd: string, args: string[], env: Record<string, string> = {}) => runCli(['--dir', dcd, ...args], { env });
/** The tree without mtimes: what "restores exactly" compares (undo rewrites the files). */
const contents = (dir: string) => Object.fromEntries(Object.entries(treeHash(dir)).map(([k, v]) => [k, v.replace(/ [0-9.]+$/, '')]));
const JOURNAL = `Aug 24 13:15:58 n1 kubelet[1234]: I0824 13:15:58.230000    1234 configsync.go:171] kubelet config controller: Kubelet restarting to use /api/v1/namespaces/team-b/configmaps/cfg-b, UID: ${UID2}, ResourceVersion: 3, KubeletConfigKey: kubelet.yaml\n`;
const ASSIGNED = metaFor('120200');
const LKG = metaFor('119980');

t.test('rollback --dry-run on the fell-back fixture: exact text, exact JSON, tree untouched', async (t) => {
  const dcd = copyFixture('stores/fell-back', t.testdir({}));
  const before = treeHash(dcd);
  const r = cli(dcd, ['rollback', '--dry-run']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, '');
  t.equal(
    r.stdout.replaceAll(dcd, 'DCD'),
    `rollback: dry run, nothing written
meta/assigned
  before  kube-system/node-config ${UID}/120200 (key kubelet)
  after   kube-system/node-config ${UID}/119980 (key kubelet)

bytes to write, in this order:
--- DCD/store/meta/assigned (251 bytes, sha256 9060ded6dcfcbd73def87d1cbffe02ccfb4e1de98b9c8b73d7b2bda25f51ee5a)
${LKG.trimEnd()}
--- end
`,
  );
  const j = cli(dcd, ['rollback', '--dry-run', '-o', 'json']);
  t.same(json(j), {
    apiVersion: 'kubelet-ckpt/v1', kind: 'RecoveryResult',
    dryRun: true,
    changes: [
      {
        path: 'meta/assigned',
        before: ASSIGNED,
        after: LKG,
        beforeSha256: 'e28a2c110e39a0da5706b760ac4cca9812036bfd67dc83da8ee7c44b660b18a0',
        afterSha256: '9060ded6dcfcbd73def87d1cbffe02ccfb4e1de98b9c8b73d7b2bda25f51ee5a',
        from: `kube-system/node-config ${UID}/120200 (key kubelet)`,
        to: `kube-system/node-config ${UID}/119980 (key kubelet)`,
      },
    ],
    backup: null,
    warnings: [],
    command: 'rollback',
    store: path.join(dcd, 'store'),
  });
  t.same(treeHash(dcd), before, 'byte-identical after both dry runs');
});

t.test('reset all --yes, then undo restores exactly; each step checked on disk', async (t) => {
  const dcd = makeStore(t.testdir({}));
  fs.chmodSync(path.join(dcd, 'store/meta/assigned'), 0o600);
  const orig = contents(path.join(dcd, 'store'));
  const r = cli(dcd, ['reset', 'all', '--yes', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  const out = json<{ dryRun: boolean; backup: string; changes: { path: string; after: string }[]; warnings: string[] }>(r);
  t.equal(out.dryRun, false);
  t.same(out.changes.map((c) => [c.path, c.after]), [['meta/last-known-good', ''], ['meta/assigned', '']]);
  t.match(out.backup, new RegExp(`^${dcd}/\\.kubelet-ckpt/backups/\\d{8}T\\d{6}\\.\\d{3}Z$`));
  t.same(out.warnings, []);
  t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], ['', '']);
  t.equal(fs.statSync(path.join(dcd, 'store/meta/assigned')).mode & 0o777, 0o600, 'mode kept');
  t.same(fs.readdirSync(out.backup).sort(), ['assigned', 'last-known-good', 'manifest.json']);
  t.equal(fs.readFileSync(path.join(out.backup, 'assigned'), 'utf8'), ASSIGNED);
  const audit = fs.readFileSync(path.join(dcd, '.kubelet-ckpt/backups/audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(audit.map((a) => [a.event, a.command, a.changes.length]), [['begin', 'reset all --to local', 2], ['done', 'reset all --to local', 2]]);
  t.equal(audit[0].user.uid, process.getuid?.());

  const list = cli(dcd, ['undo', '--list', '-o', 'json']);
  const id = path.basename(out.backup);
  t.same(json(list), { apiVersion: 'kubelet-ckpt/v1', kind: 'BackupList', backups: [{ id, time: `${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 11)}:${id.slice(11, 13)}:${id.slice(13)}`, command: 'reset all --to local', files: ['meta/last-known-good', 'meta/assigned'] }] });
  const dry = treeHash(dcd);
  t.equal(cli(dcd, ['undo', '--dry-run']).code, 0);
  t.same(treeHash(dcd), dry, 'undo --dry-run changes nothing');
  const u = cli(dcd, ['undo', '--yes', '-o', 'json']);
  t.equal(u.code, 0, u.stderr);
  t.equal(json<{ restored: string }>(u).restored, id);
  t.same(contents(path.join(dcd, 'store')), orig, 'bytes, modes and owners as before the reset');
  t.equal(cli(dcd, ['undo', '--list', '-o', 'json']).stdout.match(/"id"/g)?.length, 2, 'the undo made its own backup');
});

interface Case {
  name: string;
  args: string[];
  code: number;
  /** Expected meta files afterwards ([assigned, last-known-good]); default: unchanged. */
  after?: [string, string];
  stderr?: RegExp;
  stdout?: RegExp;
  store?: Parameters<typeof makeStore>[1];
}

const cases: Case[] = [
  { name: 'no TTY, no --yes, no --dry-run: exit 2', args: ['reset', 'all'], code: 2, stderr: /pass --yes or --dry-run/ },
  { name: 'rollback without a TTY: exit 2', args: ['rollback'], code: 2, stderr: /pass --yes or --dry-run/ },
  { name: 'undo without a TTY: exit 2', args: ['undo'], code: 2, stderr: /pass --yes or --dry-run/ },
  { name: 'reset all --dry-run', args: ['reset', 'all', '--dry-run'], code: 0, stdout: /--- .*last-known-good \(0 bytes: an empty file, the local config\)\n--- .*assigned \(0 bytes/ },
  { name: 'reset assigned (to local)', args: ['reset', 'assigned', '--yes'], code: 0, after: ['', LKG] },
  { name: 'reset lkg --to assigned', args: ['reset', 'lkg', '--to', 'assigned', '--yes'], code: 0, after: [ASSIGNED, ASSIGNED] },
  { name: 'reset all --to UID/RV', args: ['reset', 'all', '--to', `${UID}/119980`, '--yes'], code: 0, after: [LKG, LKG] },
  { name: 'rollback --yes', args: ['rollback', '--yes'], code: 0, after: [LKG, LKG] },
  { name: 'rollback with nothing to do', store: { assigned: '119980' }, args: ['rollback', '--yes'], code: 0, stdout: /nothing to do/ },
  {
    name: 'a UID no meta file names needs --configmap: exit 2 naming the flag',
    store: { extra: { [`store/checkpoints/${UID2}/3/kubelet`]: GOOD_PAYLOAD } },
    args: ['reset', 'assigned', '--to', `${UID2}/3`, '--yes'],
    code: 2,
    stderr: /no meta file names UID 5808539f.*\nhint: give them with --configmap NAMESPACE\/NAME\[:KEY\]/,
  },
  {
    name: '--configmap names it',
    store: { extra: { [`store/checkpoints/${UID2}/3/kubelet`]: GOOD_PAYLOAD } },
    args: ['reset', 'assigned', '--to', '5808/3', '--configmap', 'team-a/kubelet-config', '--yes'],
    code: 0,
    after: [metaFor('3', { uid: UID2, namespace: 'team-a', name: 'kubelet-config' }), LKG],
  },
  {
    name: '--journal names a UID no meta file names (and its key)',
    store: { extra: { [`store/checkpoints/${UID2}/3/kubelet.yaml`]: GOOD_PAYLOAD, 'kubelet.log': JOURNAL } },
    args: ['reset', 'assigned', '--to', `${UID2}/3`, '--journal', 'DCD/kubelet.log', '--yes'],
    code: 0,
    after: [metaFor('3', { uid: UID2, namespace: 'team-b', name: 'cfg-b', key: 'kubelet.yaml' }), LKG],
  },
  {
    name: '--configmap contradicting the journal: exit 2',
    store: { extra: { [`store/checkpoints/${UID2}/3/kubelet`]: GOOD_PAYLOAD, 'kubelet.log': JOURNAL } },
    args: ['reset', 'assigned', '--to', `${UID2}/3`, '--journal', 'DCD/kubelet.log', '--configmap', 'x/y', '--yes'],
    code: 2,
    stderr: /--configmap x\/y contradicts the journal: UID 5808539f.* is ConfigMap team-b\/cfg-b/,
  },
  {
    name: 'a journal that does not name the UID: exit 2',
    store: { extra: { [`store/checkpoints/${UID2}/3/kubelet`]: GOOD_PAYLOAD, 'kubelet.log': 'nothing here\n' } },
    args: ['reset', 'assigned', '--to', `${UID2}/3`, '--journal', 'DCD/kubelet.log', '--yes'],
    code: 2,
    stderr: /no meta file and no journal line names UID 5808539f/,
  },
  { name: 'an unknown ref: exit 2', args: ['reset', 'all', '--to', 'ffff0000/1', '--yes'], code: 2, stderr: /unknown ref/ },
  { name: 'an unsafe ref: exit 2', args: ['reset', 'all', '--to', `${UID}/..`, '--yes'], code: 2, stderr: /bad ref/ },
  { name: 'a target failing verify: exit 4', store: { payloads: { '119980': 'kind: [' } }, args: ['rollback', '--yes'], code: 4, stderr: /fails verify: PAYLOAD_DECODE/ },
  { name: 'a target failing verify with --force', store: { payloads: { '119980': 'kind: [' } }, args: ['rollback', '--yes', '--force'], code: 0, after: [LKG, LKG], stderr: /warning: the target .* fails verify; writing anyway/ },
  // Found by review: a last-known-good the kubelet dies on once adopted was written without --force.
  { name: 'a target that stops the kubelet once adopted: exit 4', store: { payloads: { '119980': `${GOOD_PAYLOAD}tlsMinVersion: VersionTLS99\n` } }, args: ['rollback', '--yes'], code: 4, stderr: /is valid, but its tlsCipherSuites or tlsMinVersion name something the kubelet does not know \(InitializeTLS\): the kubelet exits once it adopts it \(unknown tls version "VersionTLS99"\)/ },
  { name: 'a missing target: exit 4', store: { lkg: '1' }, args: ['rollback', '--yes'], code: 4, stderr: /checkpoint 946d.*\/1 is not on disk/ },
  // Found by a conformance review: a whole UID/RV not on disk was an "unknown ref" (exit 2), --force or not.
  { name: '--to UID/RV not on disk: exit 4', args: ['reset', 'assigned', '--to', `${UID}/999999`, '--yes'], code: 4, stderr: /fails verify: checkpoint 946d785e-998a-11e7-a8dd-42010a800006\/999999 is not on disk\nhint: .*--force/ },
  { name: '--to UIDPREFIX/RV not on disk, --force: written for that UID', args: ['reset', 'assigned', '--to', `${UID.slice(0, 8)}/999999`, '--yes', '--force'], code: 0, after: [metaFor('999999'), LKG] },
  { name: '--to UID/RV not on disk, --force: written', args: ['reset', 'assigned', '--to', `${UID}/999999`, '--yes', '--force'], code: 0, after: [metaFor('999999'), LKG], stderr: /warning: the target .*999999 fails verify; writing anyway \(--force\): checkpoint .* is not on disk/ },
  { name: 'undo with no backup: exit 4', args: ['undo', '--yes'], code: 4, stderr: /there is no backup/ },
  { name: 'undo of an unknown id: exit 2', args: ['undo', '20990101T000000.000Z', '--yes'], code: 2, stderr: /no backup "20990101T000000.000Z"/ },
  { name: 'undo of a malformed id: exit 2', args: ['undo', '../x', '--yes'], code: 2, stderr: /bad backup id/ },
  { name: 'prune without --yes off a TTY is a dry run', store: { rvs: ['1', '2', '3'], assigned: '3', lkg: '2' }, args: ['prune'], code: 0, stdout: /would remove checkpoints\/946d.*\/1 +\(1 file, .*\)\nwould free/ },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const dcd = makeStore(t.testdir({}), c.store);
    const before = treeHash(dcd);
    const metaBefore: [string, string] = [read(dcd, 'assigned'), read(dcd, 'last-known-good')];
    const r = cli(dcd, c.args.map((a) => a.replace('DCD', dcd)));
    t.equal(r.code, c.code, `exit code (stderr: ${r.stderr})`);
    if (c.stderr) t.match(r.stderr, c.stderr);
    if (c.stdout) t.match(r.stdout, c.stdout);
    if (c.code !== 0) t.equal(r.stdout, '', 'nothing on stdout for an error');
    t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], c.after ?? metaBefore, 'meta files on disk');
    if (!c.after) t.same(treeHash(dcd), before, 'tree byte-identical');
  });
}

t.test('-o json errors: stdout empty, the error object on stderr', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const table: [string[], string, number][] = [
    [['reset', 'all'], 'NEEDS_CONFIRMATION', 2],
    [['rollback', '--yes', '--to', 'x'], 'UNKNOWN_OPTION', 2],
    [['undo', '--yes'], 'NO_BACKUP', 4],
  ];
  for (const [args, code, exitCode] of table) {
    const r = cli(dcd, ['-o', 'json', ...args]);
    t.equal(r.code, exitCode, args.join(' '));
    t.equal(r.stdout, '');
    t.match(JSON.parse(r.stderr), { error: { code, exitCode } });
  }
});

t.test('undo refuses (exit 4) when the kubelet wrote since the reset, unless --force', async (t) => {
  const dcd = makeStore(t.testdir({}));
  t.equal(cli(dcd, ['reset', 'all', '--yes']).code, 0);
  fs.writeFileSync(path.join(dcd, 'store/meta/assigned'), metaFor('119980'));
  const before = treeHash(dcd);
  const r = cli(dcd, ['undo', '--yes']);
  t.equal(r.code, 4);
  t.match(r.stderr, /the meta files changed since backup \d{8}T\d{6}\.\d{3}Z \(reset all --to local\): meta\/assigned/);
  t.same(treeHash(dcd), before);
  const f = cli(dcd, ['undo', '--yes', '--force']);
  t.equal(f.code, 0, f.stderr);
  t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], [ASSIGNED, LKG]);
});

t.test('reset last-known-good while assigned is past its trial warns', async (t) => {
  const dcd = makeStore(t.testdir({}));
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(path.join(dcd, 'store/meta/assigned'), old, old);
  const r = cli(dcd, ['reset', 'last-known-good', '--yes']);
  t.equal(r.code, 0);
  t.match(r.stderr, /warning: meta\/assigned .* is past its 10-minute trial: a running kubelet promotes it back/);
});

t.test('prune: dry run, then --yes; JSON with freedBytes; referenced checkpoints byte-identical', async (t) => {
  const dcd = makeStore(t.testdir({}), { rvs: ['1', '2', '3', '4'], assigned: '4', lkg: '2' });
  const before = treeHash(dcd);
  const d = cli(dcd, ['prune', '-o', 'json']);
  t.same(json(d), {
    apiVersion: 'kubelet-ckpt/v1', kind: 'RecoveryResult',
    dryRun: true,
    changes: ['1', '3'].map((rv) => ({ path: `checkpoints/${UID}/${rv}`, before: `${UID}/${rv}`, after: null, kind: 'checkpoint', files: ['kubelet'], bytes: GOOD_PAYLOAD.length })),
    backup: null,
    warnings: [],
    freedBytes: 2 * GOOD_PAYLOAD.length,
    command: 'prune',
    store: path.join(dcd, 'store'),
  });
  t.same(treeHash(dcd), before, 'dry run: byte-identical');
  const keep = cli(dcd, ['prune', '--keep', '1', '-o', 'json', '--dry-run']);
  t.same(json<{ changes: { before: string }[] }>(keep).changes.map((c) => c.before), [`${UID}/1`]);
  const y = cli(dcd, ['prune', '--yes', '-o', 'json']);
  t.equal(y.code, 0, y.stderr);
  t.equal(json<{ freedBytes: number; dryRun: boolean }>(y).freedBytes, 2 * GOOD_PAYLOAD.length);
  t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)).sort(), ['2', '4']);
  const after = treeHash(dcd);
  for (const k of Object.keys(before).filter((k) => /\/(2|4)(\/|$)|^store\/meta/.test(k))) t.equal(after[k], before[k], k);
  const again = cli(dcd, ['prune', '--yes']);
  t.match(again.stdout, /nothing to prune/);
});

t.test('prune never touches a referenced checkpoint, even with --force; unclear references refuse', async (t) => {
  const dcd = makeStore(t.testdir({}), { rvs: ['1', '2'], assigned: '2', lkg: '1' });
  const before = treeHash(dcd);
  const r = cli(dcd, ['prune', '--yes', '--force']);
  t.equal(r.code, 0);
  t.match(r.stdout, /nothing to prune/);
  t.same(treeHash(dcd), before);
  const unsafe = makeStore(t.testdir({}), { rvs: ['1', '2'], assigned: '2', lkg: `raw:${metaFor('1', { uid: `x/../${UID}` })}` });
  const u = cli(unsafe, ['prune', '--yes', '--force']);
  t.equal(u.code, 4);
  t.match(u.stderr, /meta\/last-known-good names uid "x\/\.\.\/946d.*what it references is unclear; nothing is pruned/);
  t.ok(fs.existsSync(path.join(unsafe, 'store/checkpoints', UID, '1', 'kubelet')));
});

t.test('fixtures: hostile and corrupt stores', async (t) => {
  const hostile = copyFixture('stores/hostile', t.testdir({}));
  const h = cli(hostile, ['reset', 'all', '--yes', '-o', 'json']);
  t.equal(h.code, 0, h.stderr);
  t.same([read(hostile, 'assigned'), read(hostile, 'last-known-good')], ['', ''], 'a missing last-known-good is created empty');
  t.ok(fs.lstatSync(path.join(hostile, 'store/checkpoints/escape')).isSymbolicLink());
  const p = cli(hostile, ['prune', '--dry-run']);
  t.equal(p.code, 0);
  t.match(p.stderr, /not pruned: checkpoints\/946d.*\/119982 is a symbolic link to \/etc/);
  const corrupt = copyFixture('stores/corrupt', t.testdir({}));
  const before = fs.readdirSync(path.join(corrupt, 'store/meta')).sort();
  t.equal(cli(corrupt, ['reset', 'all', '--yes']).code, 0);
  t.same(fs.readdirSync(path.join(corrupt, 'store/meta')).sort(), before, "the kubelet's own tmp_ file is left alone");
});

t.test('a symlinked meta file: exit 4, the link and its target untouched', async (t) => {
  const dir = t.testdir({ elsewhere: LKG });
  const dcd = makeStore(path.join(dir, 'node'), { assigned: null });
  fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(dcd, 'store/meta/assigned'));
  const before = [treeHash(dcd), fs.readFileSync(path.join(dir, 'elsewhere'), 'utf8')];
  for (const args of [['reset', 'all', '--yes'], ['rollback', '--yes', '--force'], ['reset', 'all', '--dry-run']]) {
    const r = cli(dcd, args);
    t.equal(r.code, 4, args.join(' '));
    t.match(r.stderr, /meta\/assigned is a symbolic link; kubelet-ckpt never writes through a link/);
  }
  t.same([treeHash(dcd), fs.readFileSync(path.join(dir, 'elsewhere'), 'utf8')], before);
});

t.test('prune with nothing removable but a link left alone: the summary says so', async (t) => {
  const dir = t.testdir({ elsewhere: { kubelet: 'x' } });
  const dcd = makeStore(path.join(dir, 'node'), { rvs: ['1', '2', '3'], assigned: '3', lkg: '2' });
  fs.rmSync(path.join(dcd, 'store/checkpoints', UID, '1'), { recursive: true });
  fs.symlinkSync(path.join(dir, 'elsewhere'), path.join(dcd, 'store/checkpoints', UID, '1'));
  const p = cli(dcd, ['prune', '--dry-run']);
  t.equal(p.code, 0, p.stderr);
  t.equal(p.stdout, 'prune: dry run, nothing removed\nnothing to prune: every checkpoint is referenced, kept, or left alone (see the warnings)\n');
  t.match(p.stderr, /not pruned: checkpoints\/946d.*\/1 is a symbolic link to /);
});
