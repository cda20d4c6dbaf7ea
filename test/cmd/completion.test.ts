// Completion as people use it: the script sourced in a real bash, zsh and fish, completing
// refs, UIDs, files and directories from the demo node's store.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { cleanEnv, cliPath, repoRoot, runCli, tempDir } from '../helpers.js';

const DEMO_ROOT = path.join(repoRoot, 'fixtures/demo');
const UID = '5808539f-48e3-4e47-8ce6-c261c48fa1d9';
const OTHER = '705ab4f5-6393-11e8-b7cc-42010a800002';

/** A bin directory with `kubelet-ckpt` running the built CLI, as an install would put it on PATH. */
function binDir(base: string): string {
  const dir = path.join(base, 'bin');
  fs.mkdirSync(dir, { recursive: true });
  const exe = path.join(dir, 'kubelet-ckpt');
  fs.writeFileSync(exe, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} "$@"\n`, { mode: 0o755 });
  return dir;
}

function has(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

function runShell(t: Tap.Test, shell: string, script: string): string[] {
  const base = tempDir('kckpt-completion-');
  const env = { ...cleanEnv(), PATH: `${binDir(base)}:${process.env.PATH}`, HOME: base, NO_COLOR: '1' };
  const r = spawnSync(shell, shell === 'fish' ? ['--no-config', '-c', script] : ['-c', script], { cwd: repoRoot, env, encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 0, `${shell} exits 0: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

t.test('completion picks the shell: argument, else $SHELL, else bash; --help prints help', async (t) => {
  t.match(runCli(['completion', 'bash']).stdout, /^complete -F _kubelet_ckpt_complete kubelet-ckpt$/m);
  t.match(runCli(['completion', 'zsh']).stdout, /^#compdef kubelet-ckpt/);
  t.match(runCli(['completion', 'fish']).stdout, /^complete -c kubelet-ckpt -f -a/m);
  t.match(runCli(['completion'], { env: { SHELL: '/usr/bin/fish' } }).stdout, /^complete -c kubelet-ckpt/m);
  t.match(runCli(['completion'], { env: { SHELL: '/bin/sh' } }).stdout, /^complete -F /m);
  const help = runCli(['completion', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /kubelet-ckpt completion \[shell\]/);
  t.match(help.stdout, /choices: "bash", "zsh", "fish"/);
  const bad = runCli(['completion', 'tcsh']);
  t.equal(bad.code, 2, 'an unknown shell is a usage error');
  t.match(bad.stderr, /tcsh/);
});

t.test('candidates: refs after show/diff/verify and --to, UIDs after --uid, path directives', async (t) => {
  const words = (...w: string[]) => runCli(['--get-yargs-completions', 'kubelet-ckpt', ...w], { env: { SHELL: '/bin/bash' } }).stdout.trim().split('\n');
  t.ok(words('').includes('completion'));
  t.same(words('--root', DEMO_ROOT, 'show', '5808').slice(0, 4), [UID, `${UID}/41230`, `${UID}/41877`, `${UID}/42315`]);
  t.ok(words('--root', DEMO_ROOT, 'diff', 'l').includes('lkg'));
  t.ok(words('--root', DEMO_ROOT, 'reset', 'all', '--to', '').includes(`${OTHER}/1326`));
  // One option name, a different value per command.
  t.same(words('--root', DEMO_ROOT, 'upgrade-check', '--to', ''), ['1.22', '1.23', '1.24', '1.25', '1.26'], 'upgrade-check --to: releases, not refs');
  t.same(words('--root', DEMO_ROOT, 'upgrade-check', '--to', '1.2'), ['1.22', '1.23', '1.24', '1.25', '1.26']);
  t.same(words('--dir', 'reset', 'upgrade-check', '--to', '1.25'), ['1.25'], "a global option's value is not the command");
  for (const cmd of ['report', 'metrics', 'check']) t.notOk(words(cmd, '--journal', '').includes(':files'), `${cmd} --journal is a switch: no file names`);
  t.same(words('reset', 'all', '--journal', ''), [':files'], 'reset --journal takes a file');
  t.same(words('--root', DEMO_ROOT, 'ls', '--uid', ''), [UID, OTHER]);
  t.same(words('journal', '--file', ''), [':files']);
  t.same(words('--kubelet-config', ''), [':files']);
  t.same(words('--root', ''), [':dirs']);
  t.same(words('--dir', 'x'), [':dirs']);
  t.ok(words('--dir', '/nonexistent', 'show', '').includes('assigned'), 'no store: the fixed refs, no error');
  t.same(words('--dir', '/nonexistent', 'ls', '--uid', ''), [''], 'no store: no UIDs, no error');
});

t.test('bash: the sourced script completes refs, files and directories', { skip: !has('bash') && 'bash is not installed' }, async (t) => {
  const complete = (...w: string[]) =>
    runShell(t, 'bash', `source <(kubelet-ckpt completion bash)\nCOMP_WORDS=(${w.map((x) => `'${x}'`).join(' ')}); COMP_CWORD=${w.length - 1}\n_kubelet_ckpt_complete\nprintf '%s\\n' "\${COMPREPLY[@]}"`);
  t.same(complete('kubelet-ckpt', '--root', DEMO_ROOT, 'show', `${UID}/418`), [`${UID}/41877`]);
  t.same(complete('kubelet-ckpt', '--root', DEMO_ROOT, 'verify', 'last'), ['last-known-good']);
  t.same(complete('kubelet-ckpt', 'rollb'), ['rollback']);
  t.same(complete('kubelet-ckpt', '--root', DEMO_ROOT, 'ls', '--uid', '70'), [OTHER]);
  t.same(complete('kubelet-ckpt', 'journal', '--file', 'fixtures/journals/').sort(), fs.readdirSync(path.join(repoRoot, 'fixtures/journals')).map((f) => `fixtures/journals/${f}`).sort());
  t.same(complete('kubelet-ckpt', '--root', 'fixtures/de'), ['fixtures/demo']);
});

t.test('zsh: the sourced script hands refs to compadd and paths to _files', { skip: !has('zsh') && 'zsh is not installed' }, async (t) => {
  // compadd and _files only work inside zsh's completion system; stand-ins record what the script asked for.
  const complete = (...w: string[]) =>
    runShell(t, 'zsh', [
      'compdef() { :; }',
      'compadd() { [[ $1 == -a ]] && print -l -- ${(P)2} }',
      '_files() { print -- "_files $*" }',
      'source <(kubelet-ckpt completion zsh)',
      `words=(${w.map((x) => `'${x}'`).join(' ')}); CURRENT=${w.length}`,
      '_kubelet_ckpt_complete',
    ].join('\n'));
  t.same(complete('kubelet-ckpt', '--root', DEMO_ROOT, 'show', '705a'), [OTHER, `${OTHER}/1326`]);
  t.ok(complete('kubelet-ckpt', '--root', DEMO_ROOT, 'diff', '').includes('meta/assigned'));
  t.same(complete('kubelet-ckpt', 'journal', '--file', ''), ['_files ']);
  t.same(complete('kubelet-ckpt', '--dir', ''), ['_files -/']);
});

t.test('fish: complete -C through the sourced script', { skip: !has('fish') && 'fish is not installed' }, async (t) => {
  const complete = (line: string) => runShell(t, 'fish', `kubelet-ckpt completion fish | source\ncomplete -C${JSON.stringify(line)}`).map((l) => l.split('\t')[0]);
  t.same(complete(`kubelet-ckpt --root ${DEMO_ROOT} show ${UID}/423`), [`${UID}/42315`]);
  t.ok(complete('kubelet-ckpt ro').includes('rollback'));
  t.same(complete('kubelet-ckpt --root fixtures/de'), ['fixtures/demo/']);
  t.ok(complete('kubelet-ckpt journal --file fixtures/journals/').length > 0, 'files under fixtures/journals');
});

t.test('a hostile store: names a shell would expand are not offered, and bash never expands a candidate (found by review)', { skip: !has('bash') && 'bash is not installed' }, async (t) => {
  const base = tempDir('kckpt-completion-hostile-');
  const store = path.join(base, 'dcd');
  fs.cpSync(path.join(repoRoot, 'fixtures/stores/healthy'), store, { recursive: true });
  const evil = path.join(store, 'store/checkpoints', '$(touch${IFS}PWNED)', '5');
  fs.mkdirSync(evil, { recursive: true });
  fs.writeFileSync(path.join(evil, 'kubelet'), 'x');
  const r = runCli(['--get-yargs-completions', 'kubelet-ckpt', '--dir', store, 'show', ''], { env: { SHELL: '/bin/bash' } });
  t.notMatch(r.stdout, /PWNED/, 'not offered');
  t.match(r.stdout, /946d785e-998a-11e7-a8dd-42010a800006\/119980/, 'the others are');
  // A program that answers with words a shell would expand: bash takes them as they are.
  const fake = path.join(base, 'fake');
  fs.writeFileSync(fake, '#!/bin/sh\nprintf \'%s\\n\' \'$(touch PWNED2)\' \'a*\' \'ab c\'\n', { mode: 0o755 });
  const script = `cd ${JSON.stringify(base)}; touch ab1 ab2\nsource <(${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} completion bash)\nCOMP_WORDS=(${JSON.stringify(fake)} ''); COMP_CWORD=1\n_kubelet_ckpt_complete\nprintf '[%s]\\n' "\${COMPREPLY[@]}"`;
  const out = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: cleanEnv() });
  t.same(out.stdout.split('\n').filter(Boolean), ['[$(touch PWNED2)]', '[a*]', '[ab c]'], 'candidates literally: no command run, no glob, no split');
  t.notOk(fs.existsSync(path.join(base, 'PWNED2')), 'nothing ran');
  t.notOk(fs.existsSync(path.join(base, 'PWNED')) || fs.existsSync(path.join(repoRoot, 'PWNED')), 'nothing ran');
});
