// Usage errors that help (issue 13 item 3): every parser failure is exit 2 with the exact
// words, a suggestion when one is close, and the command's own --help; -o json/yaml errors
// are documents of kind Error.
import t from 'tap';
import path from 'node:path';
import yaml from 'js-yaml';
import { repoRoot, runCli } from '../helpers.js';

const DEMO = path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config');
const ALL = 'status, ls, show, verify, diff, journal, reset, rollback, undo, prune, clean, tui, export, migrate, upgrade-check, completion, report, check, metrics, fleet';

const table: [string[], string][] = [
  [['ls', '--uid'], 'error: option --uid needs a value\nhint: see kubelet-ckpt ls --help\n'],
  [['reset', 'all', '--to'], 'error: option --to needs a value\nhint: see kubelet-ckpt reset --help\n'],
  [['prune', '--keep'], 'error: option --keep needs a value\nhint: see kubelet-ckpt prune --help\n'],
  [['status', '--dir'], 'error: option --dir needs a value\nhint: see kubelet-ckpt status --help\n'],
  [['--dir'], 'error: option --dir needs a value\nhint: see kubelet-ckpt --help\n'],
  [['diff', 'lkg', '-U'], 'error: option -U needs a value\nhint: see kubelet-ckpt diff --help\n'],
  [['reset', 'all', '--configmap', '-x/name', '--to', '5808'], 'error: option --configmap needs a value; a value that starts with "-" is given as --configmap=-x/name\nhint: see kubelet-ckpt reset --help\n'],
  [['foo'], `error: unknown command "foo"\nhint: the commands are: ${ALL}; see kubelet-ckpt --help\n`],
  [['stauts'], `error: unknown command "stauts"; did you mean status?\nhint: the commands are: ${ALL}; see kubelet-ckpt --help\n`],
  [['ls', '--uidd', 'x'], 'error: unknown option --uidd for ls; did you mean --uid?\nhint: see kubelet-ckpt ls --help\n'],
  [['--dri', 'x', 'ls'], 'error: unknown option --dri for ls; did you mean --dir?\nhint: see kubelet-ckpt ls --help\n'],
  [['ls', '-x'], 'error: unknown option -x for ls\nhint: see kubelet-ckpt ls --help\n'],
  [['ls', 'extra'], 'error: too many arguments: "extra" (ls takes no arguments)\nhint: see kubelet-ckpt ls --help\n'],
  [['prune', '--keep', 'abc'], 'error: --keep "abc": not a number\nhint: see kubelet-ckpt prune --help\n'],
  [['prune', '--keep', '-1'], 'error: --keep "-1": not a whole number ≥ 0\nhint: see kubelet-ckpt prune --help\n'],
  [['reset', 'al'], 'error: invalid value "al" for <which>; it is one of assigned, last-known-good, lkg, all; did you mean all?\nhint: see kubelet-ckpt reset --help\n'],
  [['-o', 'jsno', 'ls'], 'error: invalid value "jsno" for --output; it is one of text, json, yaml; did you mean json?\nhint: see kubelet-ckpt ls --help\n'],
  [['diff'], 'error: diff needs <from>\nhint: see kubelet-ckpt diff --help\n'],
  // The suggested command names the store as it was given (found by review: pasted, it failed).
  [['show', 'lkgg'], `error: unknown ref "lkgg"; did you mean lkg?\nhint: run \`kubelet-ckpt --dir ${DEMO} ls\` to see the checkpoints\n`],
  [['show', 'meta/asigned'], 'error: unknown ref "meta/asigned"; did you mean meta/assigned?\nhint: the meta files are meta/assigned and meta/last-known-good\n'],
];

t.test('usage errors: exact words, exit 2, nothing on stdout', async (t) => {
  for (const [args, stderr] of table) {
    const r = runCli(['--dir', DEMO, ...args].filter((a, i) => !(i < 2 && args[0] === '--dir')));
    t.equal(r.stderr, stderr, args.join(' '));
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.stdout, '', args.join(' '));
  }
});

t.test('-o json and -o yaml errors are documents of kind Error', async (t) => {
  const j = runCli(['--dir', DEMO, '-o', 'json', 'ls', '--uid']);
  t.equal(j.code, 2);
  t.equal(j.stdout, '');
  t.strictSame(JSON.parse(j.stderr), { apiVersion: 'kubelet-ckpt/v1', kind: 'Error', error: { code: 'MISSING_VALUE', message: 'option --uid needs a value', hint: 'see kubelet-ckpt ls --help', exitCode: 2 } });
  const y = runCli(['--dir', DEMO, '-o', 'yaml', 'show', 'lkgg']);
  t.equal(y.code, 2);
  t.equal(y.stdout, '');
  t.equal(y.stderr, 'apiVersion: kubelet-ckpt/v1\nkind: Error\nerror:\n  code: UNKNOWN_REF\n  message: unknown ref "lkgg"; did you mean lkg?\n  hint: run `kubelet-ckpt ls` to see the checkpoints\n  exitCode: 2\n');
  t.strictSame(yaml.load(y.stderr), { apiVersion: 'kubelet-ckpt/v1', kind: 'Error', error: { code: 'UNKNOWN_REF', message: 'unknown ref "lkgg"; did you mean lkg?', hint: 'run `kubelet-ckpt ls` to see the checkpoints', exitCode: 2 } });
});

t.test('an option given twice: one value when they agree, exit 2 naming both when they differ; -ojson is -o json', async (t) => {
  // Found by a conformance review: a repeated option reached the handler as an array (exit 5,
  // "internal error"), and `-o json -o json` printed text.
  for (const args of [
    ['--dir', DEMO, '--dir', DEMO, 'status', '--no-journal', '-o', 'json'],
    ['--dir', DEMO, '-o', 'json', '-o', 'json', 'ls'],
    ['--dir', DEMO, 'ls', '-ojson'],
    ['--dir', DEMO, 'ls', '-o=json'],
    ['--dir', DEMO, '-ojson', 'status', '--no-journal'],
  ]) {
    const r = runCli(args);
    t.equal(r.code, 0, `${args.join(' ')}\n${r.stderr}`);
    t.match(r.stdout, /^\{\n {2}"apiVersion": "kubelet-ckpt\/v1"/, `${args.join(' ')}: one JSON document`);
  }
  for (const [args, name] of [
    [['--dir', DEMO, '--kubelet-version', '1.22', '--kubelet-version', '1.23', 'status', '--no-journal'], '--kubelet-version'],
    [['--dir', DEMO, 'reset', 'assigned', '--to', 'local', '--to', 'lkg', '--dry-run'], '--to'],
    [['--dir', DEMO, '--root', '/', '--root', '/tmp', 'ls'], '--root'],
  ] as const) {
    const r = runCli([...args]);
    t.equal(r.code, 2, `${args.join(' ')}\n${r.stderr}`);
    t.match(r.stderr, new RegExp(`^error: ${name} was given 2 times with different values \\(.*\\): give it once`), name);
  }
  const formats = runCli(['--dir', DEMO, '-o', 'json', '--output', 'yaml', 'ls']);
  t.equal(formats.code, 2);
  t.match(formats.stderr, /message: '--output was given 2 times with different values \(json, yaml\): give it once'/, 'an Error document (in the last format named)');
  const bare = runCli(['--dir', DEMO, 'ls', '-o']);
  t.equal(bare.code, 2, '-o without a value');
  t.match(bare.stderr, /^error: option -o needs a value/);
});

t.test('a subcommand\'s argument: named as typed, a positional never as an option', async (t) => {
  const none = runCli(['fleet', 'manifest']);
  t.equal(none.code, 2);
  t.match(none.stderr, /^error: fleet manifest needs an argument\n/);
  const bogus = runCli(['fleet', 'manifest', 'bogus']);
  t.equal(bogus.code, 2);
  t.match(bogus.stderr, /^error: invalid value "bogus" for <kind>; it is one of npd, job, daemonset, sonobuoy, ansible\n/);
});
