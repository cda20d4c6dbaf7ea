// StoreWatch: meta/, checkpoints/ and one watcher per UID directory, so a resourceVersion added
// or removed under a UID is noticed; symbolic links are never watched through.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { StoreWatch, watchDir } from '../../../lib/tui/watch.js';
import { tempDir } from '../../helpers.js';

/** A store with two UID directories, a UID entry that is a link to a directory outside it, and a file. */
function store() {
  const dir = tempDir('kckpt-watch-');
  const s = path.join(dir, 'store');
  const outside = path.join(dir, 'outside');
  for (const d of ['meta', 'checkpoints/uid-a/1', 'checkpoints/uid-b/2', 'outside/9']) fs.mkdirSync(path.join(dir, d === 'outside/9' ? d : `store/${d}`), { recursive: true });
  fs.symlinkSync(outside, path.join(s, 'checkpoints/uid-link'));
  fs.writeFileSync(path.join(s, 'checkpoints/stray-file'), '');
  return { s, outside };
}

/** Wait until `n()` is above `from` (an event came), or for `ms` (then it is not). */
async function settle(n: () => number, from: number, ms = 1500): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (n() > from) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

t.test('a resourceVersion directory added or removed under a UID is noticed, also under a UID made later', async (t) => {
  const { s } = store();
  let events = 0;
  const w = new StoreWatch(s, () => events++);
  t.teardown(() => w.close());
  w.start();
  t.equal(w.watched, 6, 'meta, checkpoints, the store and its parent, and the two real UID directories: not the link, not the file');
  let from = events;
  fs.mkdirSync(path.join(s, 'checkpoints/uid-a/3'));
  t.ok(await settle(() => events, from), 'a new RV directory');
  from = events;
  fs.rmSync(path.join(s, 'checkpoints/uid-b/2'), { recursive: true });
  t.ok(await settle(() => events, from), 'a removed RV directory');
  from = events;
  fs.mkdirSync(path.join(s, 'checkpoints/uid-c'));
  t.ok(await settle(() => events, from), 'a new UID directory');
  t.equal(w.watched, 7, 'and it is watched');
  from = events;
  fs.mkdirSync(path.join(s, 'checkpoints/uid-c/7'));
  t.ok(await settle(() => events, from), 'a new RV directory under the new UID');
  fs.rmSync(path.join(s, 'checkpoints/uid-c'), { recursive: true });
  fs.mkdirSync(path.join(s, 'checkpoints/uid-c'));
  await settle(() => w.watched, 99, 300);
  from = events;
  fs.mkdirSync(path.join(s, 'checkpoints/uid-c/8'));
  t.ok(await settle(() => events, from), 'a UID directory removed and made again is watched anew');
  from = events;
  fs.writeFileSync(path.join(s, 'meta/assigned'), 'x');
  t.ok(await settle(() => events, from), 'a meta file written');
});

t.test('never through a symbolic link: a UID entry that links out of the store is not watched', async (t) => {
  const { s, outside } = store();
  let events = 0;
  const w = new StoreWatch(s, () => events++);
  t.teardown(() => w.close());
  w.start();
  fs.mkdirSync(path.join(outside, '10'));
  fs.writeFileSync(path.join(outside, '9/kubelet'), 'x');
  t.notOk(await settle(() => events, 0, 600), 'changes behind the link are not seen');
  // A link that appears later is not followed either.
  const other = path.join(path.dirname(s), 'other');
  fs.mkdirSync(other);
  fs.symlinkSync(other, path.join(s, 'checkpoints/uid-link2'));
  await settle(() => events, 0);
  t.equal(w.watched, 6, 'the new link is not watched');
  const from = events;
  fs.mkdirSync(path.join(other, '11'));
  t.notOk(await settle(() => events, from, 600), 'nothing seen behind the new link');
  t.equal(watchDir(path.join(s, 'checkpoints/uid-link'), () => undefined), null, 'watchDir refuses a link');
});

t.test('a store whose checkpoints/ is a link: only meta/ is watched', async (t) => {
  const { s, outside } = store();
  fs.rmSync(path.join(s, 'checkpoints'), { recursive: true });
  fs.symlinkSync(outside, path.join(s, 'checkpoints'));
  const w = new StoreWatch(s, () => undefined);
  t.teardown(() => w.close());
  w.start();
  t.equal(w.watched, 3, 'meta/, the store and its parent');
});

t.test('found by a TUI review: meta/ replaced, or the whole store replaced, is noticed', async (t) => {
  const { s } = store();
  let events = 0;
  const w = new StoreWatch(s, () => events++);
  t.teardown(() => w.close());
  w.start();
  let from = events;
  fs.mkdirSync(path.join(s, 'meta.new'));
  await new Promise((r) => setTimeout(r, 100));
  t.equal(events, from, 'another entry of the store is no change');
  fs.renameSync(path.join(s, 'meta'), path.join(s, 'meta.old'));
  fs.renameSync(path.join(s, 'meta.new'), path.join(s, 'meta'));
  t.ok(await settle(() => events, from), 'meta/ swapped for another directory');
  from = events;
  fs.mkdirSync(`${s}.new`);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(events, from, 'a sibling of the store is no change');
  fs.renameSync(s, `${s}.old`);
  fs.renameSync(`${s}.new`, s);
  t.ok(await settle(() => events, from), 'the store swapped for another directory');
});
