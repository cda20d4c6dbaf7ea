// journal's progress line: on a terminal stderr for a journal of 100 MiB or more, never into a
// pipe. The terminal is a real pty (script(1)); stdout goes to a file, as when saving a report.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { shellWord } from '../../lib/integrity/next-steps.js';
import { cleanEnv, cliPath, copyFixture, hasScript, runCli, tempDir } from '../helpers.js';

t.test('a 120 MiB journal: progress on a terminal, none in a pipe', { skip: !hasScript && 'script(1) is not installed' }, async (t) => {
  const dir = tempDir();
  const big = path.join(dir, 'big.log');
  // Sparse: 120 MiB that cost nothing on disk (NUL bytes: no line the kubelet wrote).
  fs.closeSync(fs.openSync(big, 'w'));
  fs.truncateSync(big, 120 * 1024 * 1024);
  const store = copyFixture('stores/healthy');
  const out = path.join(dir, 'out.json');
  const inner = [process.execPath, cliPath, '--dir', store, 'journal', '--file', big, '--year', '2024', '-o', 'json'].map(shellWord).join(' ');
  const r = spawnSync('script', ['-qefc', `${inner} > ${shellWord(out)}`, '/dev/null'], { encoding: 'latin1', env: { ...cleanEnv(), TERM: 'xterm' }, timeout: 120_000 });
  t.equal(r.status, 0, 'exit 0');
  t.match(r.stdout, /\r\x1b\[2Kreading .*big\.log: \d+ MiB of 120 MiB \(\d+%\)/, 'the progress line, on the terminal');
  t.match(r.stdout, /\r\x1b\[2K$/, 'and wiped at the end');
  t.match(JSON.parse(fs.readFileSync(out, 'utf8')), { events: [] }, 'stdout (the file) has the report alone');
  const piped = runCli(['--dir', store, 'journal', '--file', big, '--year', '2024', '-o', 'json']);
  t.equal(piped.code, 0);
  t.equal(piped.stderr, '', 'stderr a pipe: no progress');
});
