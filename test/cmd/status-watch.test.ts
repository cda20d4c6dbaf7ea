// status --watch: a new report each time the store changes (JSON lines when piped), and on a
// terminal a screen redrawn every second under a header that counts down the trial.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { cleanEnv, cliPath, copyFixture } from '../helpers.js';
import { Tmux, hasTmux } from '../lib/tui/tmux.js';

const STORE = 'var/lib/kubelet/dynamic-config/store';

/** Wait until `cond` holds, polling; fail with `what` after 20 s. */
async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('piped -o json: one JSON document per line, a new one when meta/assigned changes; SIGINT exits 0', async (t) => {
  const root = copyFixture('demo');
  const child = spawn(process.execPath, [cliPath, '--root', root, 'status', '--no-journal', '--watch', '-o', 'json'], { env: { ...cleanEnv(), NO_COLOR: '1' } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const docs = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { nextBoot: { source: string } });
  await until(() => docs().length === 1, 'the first report');
  t.equal(docs()[0]!.nextBoot.source, 'assigned');
  fs.writeFileSync(path.join(root, STORE, 'meta/assigned'), '');
  await until(() => docs().length === 2, 'a report after the change');
  t.equal(docs()[1]!.nextBoot.source, 'local', 'the new report reads the store again');
  child.kill('SIGINT');
  t.equal(await exited, 0);
  t.equal(docs().length, 2, 'no report without a change');
});

t.test('on a terminal: the header counts down the trial and the screen follows the store', { skip: !hasTmux && 'tmux is not installed' }, async (t) => {
  const root = copyFixture('demo');
  const assigned = path.join(root, STORE, 'meta/assigned');
  const now = Date.now() / 1000;
  fs.utimesSync(assigned, now - 60, now - 60); // nine minutes of trial left
  const term = new Tmux().start(['--root', root, 'status', '--no-journal', '--watch'], { cols: 120 });
  t.teardown(() => term.kill());
  // The header and the body: a capture can catch the screen half drawn.
  const first = await term.waitFor((s) => /trial ends in 8m\d\ds/.test(s) && /Next boot +assigned .*: starts/.test(s));
  t.match(first, /^Watching the store — trial ends in 8m\d\ds — \d\d:\d\d:\d\dZ — Ctrl-C to stop/m);
  t.match(first, /Next boot +assigned 5808539f-48e3-4e47-8ce6-c261c48fa1d9\/42315: starts/);
  const secs = (s: string) => Number(/trial ends in 8m(\d\d)s/.exec(s)?.[1]);
  const before = secs(first);
  await term.waitFor((s) => /trial ends in 8m\d\ds/.test(s) && secs(s) !== before);
  t.pass('the countdown moves without a change on disk');
  fs.writeFileSync(assigned, '');
  const after = await term.waitFor((s) => /Next boot +local/.test(s) && /no trial/.test(s));
  t.match(after, /no trial/);
  term.send('C-c');
  await term.waitFor('[exit 0]');
});

t.test('the store removed while watched: said on stderr, no crash, still watching; SIGINT exits 0', async (t) => {
  const dir = copyFixture('stores/healthy');
  const child = spawn(process.execPath, [cliPath, '--dir', dir, 'status', '--no-journal', '--watch', '-o', 'json'], { env: { ...cleanEnv(), NO_COLOR: '1' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  await until(() => out.split('\n').filter(Boolean).length === 1, 'the first report');
  fs.rmSync(path.join(dir, 'store'), { recursive: true });
  await until(() => /no checkpoint store in/.test(err), 'the store is said to be gone');
  await new Promise((r) => setTimeout(r, 300));
  t.equal(child.exitCode, null, 'still running');
  child.kill('SIGINT');
  t.equal(await exited, 0);
  t.notMatch(err, /\n\s+at |Node\.js v/, 'no stack trace');
});
