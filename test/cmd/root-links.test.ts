// --root: a node's disk mounted on this host. A `store` that is a symbolic link is followed
// as the node follows it, inside the root; an absolute link never reaches this host's files.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, json, runCli } from '../helpers.js';

const DCD = 'var/lib/kubelet/dynamic-config';

function rootWithStoreLink(t: Tap.Test, target: (dir: string) => string): { dir: string; root: string; host: string } {
  const dir = t.testdir({});
  const root = copyFixture('demo', fs.mkdirSync(path.join(dir, 'root')) ?? path.join(dir, 'root'));
  const host = copyFixture('stores/healthy', fs.mkdirSync(path.join(dir, 'host')) ?? path.join(dir, 'host'));
  const store = path.join(root, DCD, 'store');
  fs.renameSync(store, path.join(root, 'data-store'));
  fs.symlinkSync(target(dir), store);
  return { dir, root, host };
}

t.test('an absolute link to a path that exists on this host but not on the node: nothing of the host is read or written', async (t) => {
  const { root, host } = rootWithStoreLink(t, (dir) => path.join(dir, 'host/store'));
  const before = fs.readFileSync(path.join(host, 'store/meta/assigned'));
  const ls = runCli(['--root', root, 'ls']);
  t.equal(ls.code, 3, 'the store is not on the node');
  t.match(ls.stderr, new RegExp(`no checkpoint store in .*neither ${root}/.*host/store`));
  const reset = runCli(['--root', root, 'reset', 'all', '--yes']);
  t.equal(reset.code, 3);
  t.same(fs.readFileSync(path.join(host, 'store/meta/assigned')), before, "the host's store is untouched");
});

t.test('an absolute link to a place on the node: followed inside the root', async (t) => {
  const { root } = rootWithStoreLink(t, () => '/data-store');
  const r = runCli(['--root', root, 'status', '--no-journal', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.equal(json<{ store: string }>(r).store, path.join(root, 'data-store'));
});

t.test('a relative link: followed inside the root too', async (t) => {
  const { root } = rootWithStoreLink(t, () => '../../../../data-store');
  const r = runCli(['--root', root, 'ls', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.ok(json<{ checkpoints: unknown[] }>(r).checkpoints.length > 0);
});
