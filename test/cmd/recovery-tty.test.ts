// Interactive confirmation on a real terminal: script(1) gives the CLI a pty for stdin
// and stdout; the test answers the question once it appears.

import t from 'tap';
import { spawn } from 'node:child_process';
import { shellWord } from '../../lib/integrity/next-steps.js';
import { cliPath, hasScript } from '../helpers.js';
import { makeStore, metaFor, read, treeHash } from '../lib/recovery/fixtures/index.js';


/** Run the CLI on a pty; answer `answer` when `prompt` shows. */
function onTty(args: string[], answer: string | null, prompt = '[y/N]'): Promise<{ code: number | null; out: string }> {
  const cmd = ['env', '-u', 'NODE_OPTIONS', 'NO_COLOR=1', process.execPath, cliPath, ...args].map(shellWord).join(' ');
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let answered = false;
  child.stdout.on('data', (d) => {
    out += String(d);
    if (!answered && answer !== null && out.includes(prompt)) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out: out.replace(/\r/g, '') });
    }),
  );
}

t.test('on a terminal the command shows before → after and asks', { skip: !hasScript && 'script(1) not available' }, async (t) => {
  await t.test('yes writes', async (t) => {
    const dcd = makeStore(t.testdir({}));
    const r = await onTty(['--dir', dcd, 'reset', 'all'], 'y');
    t.equal(r.code, 0, r.out);
    t.match(r.out, /reset all --to local will change .*\/store:\nmeta\/last-known-good\n  before  kube-system\/node-config 946d.*\/119980 \(key kubelet\)\n  after   empty: the local config\nmeta\/assigned\n/);
    t.match(r.out, /Write these files\? \[y\/N\]/);
    t.match(r.out, /reset all --to local: done/);
    t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], ['', '']);
  });
  await t.test('no (or anything else) changes nothing: exit 4', async (t) => {
    for (const answer of ['n', '', 'maybe']) {
      const dcd = makeStore(t.testdir({}));
      const before = treeHash(dcd);
      const r = await onTty(['--dir', dcd, 'rollback'], answer);
      t.equal(r.code, 4, JSON.stringify(answer));
      t.match(r.out, /error: not confirmed: nothing was changed/);
      t.same(treeHash(dcd), before, 'byte-identical');
      t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], [metaFor('120200'), metaFor('119980')]);
    }
  });
  await t.test('prune on a terminal shows the dry run, then asks', async (t) => {
    const dcd = makeStore(t.testdir({}), { rvs: ['1', '2', '3'], assigned: '3', lkg: '2' });
    const r = await onTty(['--dir', dcd, 'prune'], 'y', 'Remove these now?');
    t.equal(r.code, 0, r.out);
    t.match(r.out, /prune: dry run, nothing removed\nwould remove checkpoints\/946d.*\/1 /);
    t.match(r.out, /prune: done\nremoved checkpoints\/946d.*\/1 /);
  });
  await t.test('a refusal comes before the question', async (t) => {
    const dcd = makeStore(t.testdir({}), { payloads: { '119980': 'kind: [' } });
    const r = await onTty(['--dir', dcd, 'rollback'], null);
    t.equal(r.code, 4);
    t.notMatch(r.out, /\[y\/N\]/);
    t.match(r.out, /fails verify/);
  });
  await t.test('--dry-run never asks', async (t) => {
    const dcd = makeStore(t.testdir({}));
    const before = treeHash(dcd);
    const r = await onTty(['--dir', dcd, 'reset', 'all', '--dry-run'], null);
    t.equal(r.code, 0);
    t.notMatch(r.out, /\[y\/N\]/);
    t.same(treeHash(dcd), before);
  });
});
