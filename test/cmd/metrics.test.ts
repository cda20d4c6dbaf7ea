// metrics through the built CLI: the textfile written atomically, and (when the Debian
// prometheus package is installed) accepted by promtool's own parser and linter.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, runCli, tempDir } from '../helpers.js';

const promtool = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).stdout.trim();

t.test('metrics --textfile-dir: kubelet_ckpt.prom replaced atomically, nothing else left', async (t) => {
  const dir = tempDir('kckpt-tf-');
  fs.writeFileSync(path.join(dir, 'other.prom'), 'other_metric 1\n');
  const store = copyFixture('stores/fell-back');
  for (let i = 0; i < 2; i++) {
    const r = runCli(['--dir', store, 'metrics', '--no-journal', '--textfile-dir', dir]);
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stderr, `wrote ${path.join(dir, 'kubelet_ckpt.prom')}\n`);
  }
  t.same(fs.readdirSync(dir).sort(), ['kubelet_ckpt.prom', 'other.prom']);
  const text = fs.readFileSync(path.join(dir, 'kubelet_ckpt.prom'), 'utf8');
  t.match(text, /^kubelet_ckpt_fell_back 1$/m);
  t.match(text, /^kubelet_ckpt_next_boot_source\{source="last-known-good",namespace="kube-system",name="node-config",uid="946d785e-998a-11e7-a8dd-42010a800006",resource_version="119980"\} 1$/m);
  t.equal(fs.statSync(path.join(dir, 'kubelet_ckpt.prom')).mode & 0o777, 0o644);
  const bad = runCli(['--dir', store, 'metrics', '--no-journal', '--textfile-dir', path.join(dir, 'missing')]);
  t.equal(bad.code, 3);
  t.match(bad.stderr, /missing/);
  // Found by review: the error code named the store.
  const badJson = runCli(['--dir', store, 'metrics', '--no-journal', '--textfile-dir', path.join(dir, 'missing'), '-o', 'json']);
  t.match(JSON.parse(badJson.stderr), { kind: 'Error', error: { code: 'WRITE_FAILED', exitCode: 3 } });
});

t.test('promtool check metrics accepts every fixture store\'s metrics', { skip: promtool ? false : 'promtool is not installed (Debian package prometheus)' }, async (t) => {
  const cases: [string, string[]][] = [
    ['demo', ['--root', copyFixture('demo')]],
    ...['healthy', 'fell-back', 'bad-meta', 'corrupt', 'hostile', 'empty-meta', 'in-trial'].map((s): [string, string[]] => [s, ['--dir', copyFixture(`stores/${s}`)]]),
    ['absent', ['--root', tempDir()]],
  ];
  for (const [name, args] of cases) {
    const m = runCli([...args, 'metrics', '--no-journal']);
    t.equal(m.code, 0, `${name}: ${m.stderr}`);
    const p = spawnSync(promtool, ['check', 'metrics'], { input: m.stdout, encoding: 'utf8' });
    t.equal(p.status, 0, `${name}: promtool: ${p.stdout}${p.stderr}`);
  }
});

t.test('found by a fleet review: --textfile-dir . or sub/.. names the directory it resolves to', async (t) => {
  const dir = tempDir('kckpt-tf-dot-');
  fs.mkdirSync(path.join(dir, 'sub'));
  const store = copyFixture('stores/healthy');
  for (const spelled of ['.', './', 'sub/..', `${dir}/.`]) {
    fs.rmSync(path.join(dir, 'kubelet_ckpt.prom'), { force: true });
    const r = runCli(['--dir', store, 'metrics', '--no-journal', '--textfile-dir', spelled], { cwd: dir });
    t.equal(r.code, 0, `${spelled}: ${r.stderr}`);
    t.match(fs.readFileSync(path.join(dir, 'kubelet_ckpt.prom'), 'utf8'), /^kubelet_ckpt_fell_back 0$/m, `${spelled}: written in ${dir}`);
  }
});
