// The snapshot's checkpoint entries: a directory the UID listing records as one is examined
// when first asked (lib/store/snapshot.ts, lazyEntry). What it then says must be what is on
// disk at that moment, never what a link points at.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { allCheckpoints, createsThroughLink, fsPayloadReader, locateStore, takeSnapshot } from '../../../lib/store/snapshot.js';
import { GOOD_PAYLOAD, asNobody, isRoot, metaYaml, tempDir, writeTree } from '../../helpers.js';

const UID = '5808539f-48e3-4e47-8ce6-c261c48fa1d9';

function store(): string {
  const d = tempDir('kckpt-snap-');
  writeTree(d, {
    'store/meta/assigned': metaYaml({ uid: UID, rv: '2' }),
    [`store/checkpoints/${UID}/1/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${UID}/2/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${UID}/tmp_3/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${UID}/stray`]: 'x',
  });
  fs.symlinkSync('/etc', path.join(d, `store/checkpoints/${UID}/4`));
  return d;
}

t.test('directories, links and strays of a UID directory', async (t) => {
  const d = store();
  const mtime = new Date('2026-01-02T03:04:05Z');
  fs.utimesSync(path.join(d, `store/checkpoints/${UID}/1`), mtime, mtime);
  const snap = takeSnapshot(d);
  const u = snap.uids[0]!;
  t.same(u.checkpoints.map((c) => c.rv), ['1', '2', '4'], 'tmp_ leftovers and files are not checkpoints');
  t.same(u.others.map((e) => [e.name, e.kind]), [['stray', 'file'], ['tmp_3', 'dir']]);
  const [one, , link] = u.checkpoints;
  t.equal(one!.entry.kind, 'dir');
  t.equal(one!.entry.mtimeMs, mtime.getTime(), 'the directory itself, by its descriptor');
  t.equal(one!.entry.rel, `checkpoints/${UID}/1`);
  t.equal(one!.entry.name, '1');
  t.same(one!.files.map((f) => f.name), ['kubelet']);
  t.equal(link!.entry.kind, 'symlink', 'a link is examined at once, never followed');
  t.equal(link!.entry.linkTarget, '/etc');
});

t.test('a checkpoint directory swapped for a link after the listing: the entry says link, nothing is followed', async (t) => {
  const d = store();
  const outside = tempDir('kckpt-outside-');
  writeTree(outside, { kubelet: 'kind: NotOurs\n', secret: 's' });
  const snap = takeSnapshot(d);
  // '2': the first directory of a UID directory ('1') is examined at once (the search probe).
  const cp = allCheckpoints(snap).find((c) => c.rv === '2')!;
  const dir = path.join(d, `store/checkpoints/${UID}/2`);
  fs.rmSync(dir, { recursive: true });
  fs.symlinkSync(outside, dir);
  t.equal(cp.entry.kind, 'symlink');
  t.equal(cp.entry.linkTarget, outside);
  t.same(cp.files, [], 'no listing through the link');
  t.match(cp.listError, /ELOOP|ENOTDIR|symbolic link|not a directory/);
  const read = fsPayloadReader(snap).read(cp, 'kubelet');
  t.equal(read.ok, false, 'the payload is not read through the link');
});

t.test('a checkpoint directory removed after the listing: missing', async (t) => {
  const d = store();
  const snap = takeSnapshot(d);
  const cp = allCheckpoints(snap).find((c) => c.rv === '2')!;
  fs.rmSync(path.join(d, `store/checkpoints/${UID}/2`), { recursive: true });
  t.equal(cp.entry.kind, 'missing');
});

t.test('the entry is made once: later changes on disk do not alter it', async (t) => {
  const d = store();
  const snap = takeSnapshot(d);
  const cp = allCheckpoints(snap).find((c) => c.rv === '2')!;
  const first = cp.entry;
  fs.chmodSync(path.join(d, `store/checkpoints/${UID}/2`), 0o711);
  t.equal(cp.entry, first);
});

t.test('a UID directory that can be listed but not searched: its names are unreadable entries, not checkpoints', { skip: !isRoot && 'needs root to run the CLI as nobody' }, async (t) => {
  const d = store();
  for (const p of [d, path.join(d, 'store'), path.join(d, 'store/meta'), path.join(d, 'store/checkpoints')]) fs.chmodSync(p, 0o755);
  for (const f of fs.readdirSync(path.join(d, 'store/meta'))) fs.chmodSync(path.join(d, 'store/meta', f), 0o644);
  fs.chmodSync(path.join(d, `store/checkpoints/${UID}`), 0o444);
  const ls = asNobody(['--dir', d, 'ls', '-o', 'json']);
  t.same(JSON.parse(ls.stdout).checkpoints, [], `no checkpoint is made of a name that cannot be examined (${ls.stderr.trim()})`);
  const v = asNobody(['--dir', d, 'verify', '-o', 'json']);
  const unreadable = JSON.parse(v.stdout).findings.filter((f: { code: string }) => f.code === 'UNREADABLE').map((f: { path: string }) => f.path);
  t.same(unreadable.sort(), ['1', '2', '4', 'stray'].map((n) => `checkpoints/${UID}/${n}`), 'each name is an entry that cannot be read');
});

t.test('a failure while checkpoints/ is listed: a file-system error marks it unreadable; a fault of ours is thrown', async (t) => {
  const dir = tempDir();
  writeTree(dir, { 'store/checkpoints/00000000-0000-4000-8000-000000000000/1/kubelet': GOOD_PAYLOAD });
  const fsError = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
  const snap = takeSnapshot(dir, { onCheckpoints: () => { throw fsError; } });
  t.equal(snap.checkpointsDir.kind, 'unreadable');
  t.match(snap.checkpointsDir.error, /too many open files/);
  t.throws(() => takeSnapshot(dir, { onCheckpoints: () => { throw new TypeError('x is not a function'); } }), TypeError, 'not "checkpoints/ cannot be read"');
});

t.test('createsThroughLink: where open(O_CREAT) through a dangling link makes a file', async (t) => {
  const d = tempDir('kckpt-dangle-');
  fs.mkdirSync(path.join(d, 'meta'));
  fs.mkdirSync(path.join(d, 'var/lib/x'), { recursive: true });
  const link = (name: string, target: string) => {
    fs.symlinkSync(target, path.join(d, 'meta', name));
    return path.join(d, 'meta', name);
  };
  t.ok(createsThroughLink(link('a', 'new')), 'a name beside it');
  t.ok(createsThroughLink(link('b', path.join(d, 'var/lib/x/new'))), 'an absolute path in a directory that exists');
  t.notOk(createsThroughLink(link('c', 'missing-dir/new')), 'its directory does not exist');
  t.notOk(createsThroughLink(link('d', 'd')), 'a loop');
  t.notOk(createsThroughLink(link('e', 'new/')), 'a trailing slash');
  t.notOk(createsThroughLink(link('f', '..')), 'a directory');
  fs.writeFileSync(path.join(d, 'file'), 'x');
  t.notOk(createsThroughLink(link('g', '../file/new')), 'a file where a directory belongs');
  // On a mounted node, an absolute target is the node's path: /var/lib/x is inside the root, not on this host.
  const abs = link('h', '/var/lib/x/new');
  t.ok(createsThroughLink(abs, d), 'inside the root');
  t.notOk(createsThroughLink(link('i', '/nonexistent-kckpt/new'), d), 'its directory is not in the root');
  t.notOk(createsThroughLink(abs), 'without the root, the host has no /var/lib/x');
});

t.test('--dir naming the store through a link: the dynamic-config-dir is the store\'s own parent', async (t) => {
  // Found by review: dirname of the link put the lock and backups beside the link, where a
  // kubelet using the real directory was not seen and another lock could be taken.
  const d = tempDir('kckpt-link-');
  writeTree(d, { 'dcd/store/meta/assigned': '' });
  fs.mkdirSync(path.join(d, 'links'));
  fs.symlinkSync(path.join(d, 'dcd/store'), path.join(d, 'links/kstore'));
  const s = locateStore(path.join(d, 'links/kstore'));
  t.equal(s.dynamicConfigDir, fs.realpathSync(path.join(d, 'dcd')));
  t.equal(s.storeDir, path.join(d, 'links/kstore'));
});
