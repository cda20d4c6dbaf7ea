// Reading node files under --root: links resolved inside the root, and the read itself made
// from the root down following no link, so a path swapped for a link since it was resolved
// leads nowhere (found by a hostile-store review, where races printed a host file).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { hostPathUnder, readResolved, resolveInRoot, rootedRead } from '../../../lib/store/rooted.js';

t.test('readResolved under a root follows no link on the way; on a live node it reads the path as given', async (t) => {
  const dir = t.testdir({ root: { etc: { hostname: 'node-a\n' } }, decoy: { hostname: 'HOST-SECRET\n' } });
  const root = path.join(dir, 'root');
  t.equal(readResolved(root, path.join(root, 'etc/hostname'), 1024).bytes.toString(), 'node-a\n');
  // etc/ swapped for a link to the decoy after it was resolved: the read is refused, not followed.
  fs.renameSync(path.join(root, 'etc'), path.join(root, 'etc.old'));
  fs.symlinkSync(path.join(dir, 'decoy'), path.join(root, 'etc'));
  t.throws(() => readResolved(root, path.join(root, 'etc/hostname'), 1024), { code: 'ELOOP' });
  // The file itself a link: refused too.
  fs.rmSync(path.join(root, 'etc'));
  fs.renameSync(path.join(root, 'etc.old'), path.join(root, 'etc'));
  fs.rmSync(path.join(root, 'etc/hostname'));
  fs.symlinkSync(path.join(dir, 'decoy/hostname'), path.join(root, 'etc/hostname'));
  t.throws(() => readResolved(root, path.join(root, 'etc/hostname'), 1024), { code: 'ELOOP' });
  // rootedRead resolves the link inside the root first: an absolute target is the node's own path.
  t.equal(resolveInRoot(root, '/etc/hostname'), path.join(root, dir, 'decoy/hostname'));
  t.equal(rootedRead(root, '/etc/hostname'), null, 'the node has no such file: nothing from the host');
  t.equal(readResolved('/', path.join(dir, 'decoy/hostname'), 1024).bytes.toString(), 'HOST-SECRET\n', 'a live node reads what the path names');
});

t.test('found by a hostile-store review: a link through a name the node lacks, then .., stays in the root and is not there', async (t) => {
  const dir = t.testdir({ root: { var: {} }, outside: { 'secret.yaml': 'host' } });
  const root = path.join(dir, 'root');
  fs.symlinkSync(`/nope/${'../'.repeat(30)}${path.join(dir, 'outside/secret.yaml').slice(1)}`, path.join(root, 'var/config.yaml'));
  const r = resolveInRoot(root, '/var/config.yaml')!;
  t.ok(r.startsWith(`${root}/`), r);
  t.notOk(fs.existsSync(r), 'nothing there, as on the node (ENOENT at /nope)');
  t.equal(rootedRead(root, '/var/config.yaml', 1024), null, 'nothing of the host is read');
});

t.test('found by review: a link loop, then .., is never joined past the root (hostPathUnder)', async (t) => {
  const dir = t.testdir({ root: {}, outside: { 'secret.yaml': 'host' } });
  const root = path.join(dir, 'root');
  fs.symlinkSync('loop', path.join(root, 'loop'));
  const p = hostPathUnder(root, `/loop/${'../'.repeat(30)}${path.join(dir, 'outside/secret.yaml').slice(1)}`);
  t.ok(p.startsWith(`${root}/`), p);
  t.notOk(p.split('/').includes('..'), 'no .. left in it');
  t.throws(() => readResolved(root, p.slice(root.length), 1024), 'nothing read through it: the loop stops the read as on the node');
});
