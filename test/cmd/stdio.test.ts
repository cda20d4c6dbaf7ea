// cmd/stdio.ts: terminal detection without process.stdout, and the write(2) sink.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fdSink, isTerminal } from '../../cmd/support/stdio.js';
import { cliPath, cleanEnv, tempDir } from '../helpers.js';

t.test('pipes, files and /dev/null are not terminals', async (t) => {
  const dir = tempDir('kckpt-stdio-');
  const file = fs.openSync(path.join(dir, 'f'), 'w');
  const devnull = fs.openSync('/dev/null', 'w');
  t.teardown(() => [file, devnull].forEach((fd) => fs.closeSync(fd)));
  t.equal(isTerminal(file), false, 'a file');
  t.equal(isTerminal(devnull), false, '/dev/null');
  t.equal(isTerminal(9999), false, 'a closed descriptor');
});

t.test('fdSink writes strings and bytes whole and in order', async (t) => {
  const f = path.join(tempDir('kckpt-stdio-'), 'out');
  const fd = fs.openSync(f, 'w');
  const s = fdSink(fd);
  s.write('héllo ');
  s.write(Buffer.from([0, 1, 2]));
  s.write('x'.repeat(1 << 20));
  fs.closeSync(fd);
  t.same(fs.readFileSync(f), Buffer.concat([Buffer.from('héllo '), Buffer.from([0, 1, 2]), Buffer.from('x'.repeat(1 << 20))]));
});

t.test('a reader that goes away ends the output quietly (EPIPE), exit as usual', async (t) => {
  // 900 KB of payload: far more than the pipe holds when `head -c 1` has read its byte and gone.
  const dir = tempDir('kckpt-stdio-');
  const cp = path.join(dir, 'store/checkpoints/0000aaaa-0000-4000-8000-000000000000/1');
  fs.mkdirSync(cp, { recursive: true });
  fs.writeFileSync(path.join(cp, 'kubelet'), `# ${'x'.repeat(900 * 1024)}\n`);
  const q = (s: string) => `'${s}'`;
  const r = spawnSync('sh', ['-c', `${q(process.execPath)} ${q(cliPath)} --dir ${q(dir)} show 0000aaaa/1 --raw | head -c 1 >/dev/null`], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1' } });
  t.equal(r.stderr, '', 'no EPIPE error on stderr');
  t.equal(r.status, 0);
});

t.test('stdout and stderr of a command that is not on a terminal: the exact bytes', async (t) => {
  const demo = path.resolve('fixtures/demo/var/lib/kubelet/dynamic-config');
  const r = spawnSync(process.execPath, [cliPath, '--dir', demo, 'show', 'meta/assigned', '--raw'], { env: { ...cleanEnv(), NO_COLOR: '1' } });
  t.equal(r.status, 0);
  t.same(r.stdout, fs.readFileSync(path.join(demo, 'store/meta/assigned')));
  const bad = spawnSync(process.execPath, [cliPath, '--dir', demo, 'show', 'zzzz'], { encoding: 'utf8', env: { ...cleanEnv(), NO_COLOR: '1' } });
  t.equal(bad.status, 2);
  t.match(bad.stderr, /^error: unknown ref "zzzz"/);
});

t.test('stderr read by a reader that leaves early: the exit code is still the error\'s', async (t) => {
  // Found by review: `status 2>&1 | head -1` on a missing store exited 1 (an EPIPE on the hint line), not 3.
  for (const fmt of [[], ['-o', 'json']]) {
    const args = ['--dir', '/nonexistent-kckpt', 'status', '--no-journal', ...fmt].map((a) => `'${a}'`).join(' ');
    const r = spawnSync('bash', ['-c', `'${process.execPath}' '${cliPath}' ${args} 2>&1 | head -c 1 >/dev/null; echo "\${PIPESTATUS[0]}"`], { encoding: 'utf8', env: cleanEnv() });
    t.equal(r.stdout.trim(), '3', `exit 3 ${fmt.join(' ')}`);
  }
});
