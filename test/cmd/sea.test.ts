// The single executable (dist/kubelet-ckpt, a Node SEA) on a node with no Node: copied out of
// the repo, run in a mount namespace where every `node` binary and the repo's node_modules are
// hidden. Each command must give exactly what the .cjs bundle gives under Node.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanEnv, copyFixture, repoRoot, runCli, tempDir, writeLargeJournal, type CliResult } from '../helpers.js';
import { Tmux, hasTmux } from '../lib/tui/tmux.js';

const built = path.join(repoRoot, 'dist', 'kubelet-ckpt');
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
const isRoot = process.getuid?.() === 0;
const canUnshare = isRoot && spawnSync('unshare', ['-m', 'true']).status === 0;

if (!linuxX64) {
  t.pass(`no single executable on ${process.platform}-${process.arch}`);
} else {
  t.ok(fs.existsSync(built), 'npm run build made dist/kubelet-ckpt');
  const home = tempDir('kckpt-sea-');
  const sea = path.join(home, 'kubelet-ckpt');
  fs.copyFileSync(built, sea);
  fs.chmodSync(sea, 0o755);

  // Every node this machine could run: the one running the tests and each on PATH.
  const nodes = new Set([fs.realpathSync(process.execPath)]);
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = path.join(dir || '.', 'node');
    if (fs.existsSync(p)) nodes.add(p);
  }
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const hide = [
    ...[...nodes].map((p) => `mount --bind /dev/null ${q(p)}`),
    `mount -t tmpfs none ${q(path.join(repoRoot, 'node_modules'))}`,
    "if node -e 0 >/dev/null 2>&1; then echo 'sea test: node still runs' >&2; exit 97; fi",
    'exec "$@"',
  ].join(' && ');
  /** The argv that runs the copied executable with no Node: in the namespace, else PATH=/nonexistent. */
  const noNode = canUnshare ? ['unshare', '-m', '--', 'sh', '-c', hide, 'sh', sea] : [sea];

  const runSea = (args: string[], input?: Buffer): CliResult => {
    const env = { ...cleanEnv(), NO_COLOR: '1', ...(canUnshare ? {} : { PATH: '/nonexistent' }) };
    const r = spawnSync(noNode[0]!, [...noNode.slice(1), ...args], { encoding: 'utf8', env, input, timeout: 60_000 });
    return { code: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
  };

  t.test('no node_modules above the copy, and no node inside the namespace', async (t) => {
    for (let d = home; d !== path.dirname(d); d = path.dirname(d)) t.notOk(fs.existsSync(path.join(d, 'node_modules')), `no ${d}/node_modules`);
    if (!canUnshare) return t.comment('not root or no unshare: node is only off PATH, not hidden');
    const r = spawnSync('unshare', ['-m', '--', 'sh', '-c', hide, 'sh', 'sh', '-c', 'node -e 0'], { encoding: 'utf8' });
    t.not(r.status, 0, 'node does not run');
    t.not(r.status, 97, 'the namespace hid it');
  });

  t.test('env -i, PATH=/nonexistent: status runs', async (t) => {
    const dcd = copyFixture('stores/healthy');
    const r = spawnSync(sea, ['--dir', dcd, 'status', '--no-journal', '-o', 'json'], { encoding: 'utf8', env: { PATH: '/nonexistent' } });
    t.equal(r.status, 0, r.stderr);
    t.equal(JSON.parse(r.stdout).store, path.join(dcd, 'store'));
  });

  const demoRoot = copyFixture('demo');
  const demo = path.join(demoRoot, 'var/lib/kubelet/dynamic-config');
  const healthy = copyFixture('stores/healthy');
  const fellBack = copyFixture('stores/fell-back');
  const journal = path.join(repoRoot, 'fixtures/journals/structured-1.22.short.log');
  const journalCopy = path.join(home, 'kubelet.log');
  fs.copyFileSync(journal, journalCopy);

  const cases: [string, string[]][] = [
    ['status', ['--dir', healthy, 'status', '--no-journal', '-o', 'json']],
    ['status (text, fell back)', ['--dir', fellBack, 'status', '--no-journal']],
    // A command line naming status starts in the status program; what it cannot run it hands over.
    ['status --help (handed to the whole program)', ['status', '--help']],
    ['status on no store (its error, from the status program)', ['--dir', path.join(home, 'absent'), 'status', '--no-journal', '-o', 'json']],
    ['status, a typo after it (handed over, usage error)', ['--dir', healthy, 'status', '--no-jornal']],
    ['the word status as a ref of show', ['--dir', demo, 'show', 'status']],
    ['ls', ['--dir', demo, 'ls', '-o', 'json']],
    ['verify', ['--dir', demo, 'verify', '-o', 'json']],
    ['verify (findings)', ['--dir', path.join(repoRoot, 'fixtures/stores/corrupt'), 'verify']],
    ['show', ['--dir', demo, 'show', 'lkg', '-o', 'json']],
    ['show --raw', ['--dir', demo, 'show', 'meta/assigned', '--raw']],
    ['diff', ['--root', demoRoot, 'diff', 'lkg', 'assigned']],
    ['reset --dry-run', ['--dir', fellBack, 'reset', 'all', '--dry-run', '-o', 'json']],
    ['journal --file', ['--root', demoRoot, 'journal', '--file', journalCopy, '-o', 'json']],
    ['usage error', ['--dir', demo, 'nosuchcommand']],
    ['--help', ['--help']],
    // --version alone is answered by the status program; with anything else yargs reads it.
    ['--version', ['--version']],
    ['--version --help (yargs)', ['--version', '--help']],
    ['ls --version (yargs)', ['--dir', demo, 'ls', '--version']],
  ];
  for (const [name, args] of cases) {
    t.test(`${name}: the same as the .cjs under node`, async (t) => {
      // Text output says how long ago things happened; on a busy machine the two runs can fall
      // either side of a rounding step, so a pair that differs is run once or twice more.
      let want = runCli(args);
      let got = runSea(args);
      for (let i = 0; i < 2 && (got.stdout !== want.stdout || got.stderr !== want.stderr); i++) {
        want = runCli(args);
        got = runSea(args);
      }
      t.equal(got.code, want.code, `exit ${want.code}`);
      t.equal(got.stdout, want.stdout, 'stdout');
      t.equal(got.stderr, want.stderr, 'stderr');
    });
  }

  t.test('journal on a file large enough for its helper thread (a worker the executable starts)', async (t) => {
    const big = path.join(home, 'big.log');
    writeLargeJournal(big, 66);
    const args = ['journal', '--file', big, '--year', '2022', '--utc', '-o', 'json'];
    const want = runCli(args);
    const got = runSea(args);
    t.equal(got.code, want.code);
    t.ok(want.stdout.length > 1000, 'a report');
    t.equal(got.stdout, want.stdout);
    t.equal(got.stderr, want.stderr);
    fs.rmSync(big);
  });

  t.test('verify on worker threads (the judge pool starts the program from the executable)', async (t) => {
    // Past the in-thread threshold: enough checkpoints that verify hands payloads to workers.
    const dcd = tempDir('kckpt-sea-pool-');
    const payload = fs.readFileSync(path.join(demo, 'store/checkpoints/5808539f-48e3-4e47-8ce6-c261c48fa1d9/42315/kubelet'), 'utf8');
    for (let i = 0; i < 600; i++) {
      const d = path.join(dcd, 'store/checkpoints', `0000${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`, '1');
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'kubelet'), payload.replace('maxPods: 150', `maxPods: ${i % 7 === 0 ? 'many' : 100 + i}`));
    }
    const env = { KUBELET_CKPT_JOBS: '3' };
    const want = runCli(['--dir', dcd, 'verify', '-o', 'json'], { env });
    const got = spawnSync(noNode[0]!, [...noNode.slice(1), '--dir', dcd, 'verify', '-o', 'json'], { encoding: 'utf8', env: { ...cleanEnv(), ...env, ...(canUnshare ? {} : { PATH: '/nonexistent' }) } });
    t.equal(got.status, want.code);
    t.equal(got.stdout, want.stdout);
    t.equal(got.stderr, want.stderr);
  });

  t.test('tui in tmux: first screen, a tab, quit', { skip: !hasTmux && 'tmux is not installed' }, async (t) => {
    const x = new Tmux();
    t.teardown(() => x.kill());
    x.start(['--dir', fellBack, 'tui', '--no-journal'], { argv0: noNode });
    await x.waitFor('Next boot: last-known-good 946d785e/119980 starts, degraded');
    x.send('3');
    await x.waitFor(/Verify|Findings|verify/);
    x.send('q');
    await x.waitFor('[exit 0]');
    t.pass('the TUI drew, switched tab and quit with exit 0');
  });
}
