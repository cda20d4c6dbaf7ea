// The fast path (cmd/support/fastargs.ts) must hand the status handler exactly what yargs
// would, or stand aside. Each command line here goes through both parsers: yargs' arguments
// are caught by a middleware just before the handler would run.
import t from 'tap';
import { fastParse } from '../../cmd/support/fastargs.js';
import { FAST_COMMANDS } from '../../cmd/support/fast-commands.js';
import { buildCli } from '../../cmd/support/cli.js';

class Caught extends Error {
  constructor(readonly args: Record<string, unknown>) {
    super('caught');
  }
}

/** What yargs hands the handler, or the usage error it raises instead. */
async function yargsArgs(argv: string[]): Promise<Record<string, unknown> | string> {
  const cli = buildCli(argv).middleware((a) => {
    throw new Caught({ ...a });
  });
  try {
    await cli.parseAsync();
  } catch (err) {
    if (err instanceof Caught) return err.args;
    return `error: ${(err as Error).message}`;
  }
  return 'ran without reaching the handler';
}

const FAST: string[][] = [
  ['status'],
  ['status', '--no-journal'],
  ['--dir', '/x', 'status', '--no-journal'],
  ['--dir=/x', 'status'],
  ['--root', '/mnt/node', 'status', '-o', 'json'],
  ['status', '-o', 'yaml', '--no-journal', '-q'],
  ['status', '--output', 'json', '--journal'],
  ['status', '--output=text', '--no-color'],
  ['-v', '--kubelet-version', '1.22', 'status'],
  ['--kubelet-config', '/etc/k/c.yaml', '--kubelet-flags', 'x=1', 'status'],
  ['status', '--watch'],
  ['status', '-w', '--color'],
  ['status', '--dir', 'd', '--quiet', '--verbose'],
  ['--kubelet-flags=--config=/c --fail-swap-on=false', 'status'],
];

const SLOW: string[][] = [
  [],
  ['diff', 'lkg'],
  ['status', '--help'],
  ['status', '-h'],
  ['--version'],
  ['status', 'extra'],
  ['status', '--no-jornal'],
  ['status', '-o', 'jsno'],
  ['status', '-ojson'],
  ['status', '-qv'],
  ['status', '--dir'],
  ['status', '--dir', '--no-journal'],
  ['status', '--dir', ''],
  ['status', '--dir', 'a', '--dir', 'b'],
  ['status', '--journal=false'],
  ['status', '--no-dir'],
  ['--no-journal', 'status'],
  ['status', '--', 'x'],
  ['status', '-'],
  ['status', '--no-output'],
  ['status', '--get-yargs-completions'],
  ['status', '--d', 'x'],
  ['--kubelet-flags', '--x=1', 'status'],
];

/** Each command line takes the fast path, with exactly the arguments yargs builds. */
async function sameAsYargs(t: Tap.Test, lines: readonly string[][]): Promise<void> {
  for (const argv of lines) {
    const fast = await fastParse(argv, FAST_COMMANDS);
    t.ok(fast, `fast: ${JSON.stringify(argv)}`);
    t.strictSame(fast?.args, await yargsArgs(argv), JSON.stringify(argv));
  }
}

/** Each command line is left to yargs. */
async function leftToYargs(t: Tap.Test, lines: readonly string[][]): Promise<void> {
  for (const argv of lines) t.equal(await fastParse(argv, FAST_COMMANDS), null, JSON.stringify(argv));
}

t.test('status: the fast path builds the arguments yargs builds', (t) => sameAsYargs(t, FAST));

t.test('everything else is left to yargs', (t) => leftToYargs(t, SLOW));

t.test('ls and verify (the whole store) take the fast path too', async (t) => {
  await sameAsYargs(t, [['ls'], ['--dir', '/x', 'ls', '--uid', '5808'], ['ls', '--uid=5808', '-o', 'json'], ['verify'], ['--dir', '/x', 'verify', '-o', 'yaml', '-q']]);
  await leftToYargs(t, [['verify', 'assigned'], ['verify', '-'], ['verify', './x.yaml'], ['ls', 'extra'], ['ls', '--uid'], ['verify', '--uid', 'x'], ['ls', '--no-journal']]);
});

t.test('journal: numbers in their plainest form, conflicts left to yargs', async (t) => {
  await sameAsYargs(t, [['journal'], ['journal', '--file', '/var/log/syslog', '--utc', '--year', '2021'], ['--root', '/mnt', 'journal', '-n', '5', '--uid', '5808', '--since', 'yesterday'], ['journal', '--boot', '3', '-o', 'json'], ['journal', '-f', '--source', 'auto'], ['journal', '--journal-dir', '/j', '--lines=20']]);
  await leftToYargs(t, [['journal', '--year', '20x1'], ['journal', '-n', '1e3'], ['journal', '--file', '-'], ['journal', '--file', 'a', '--journal-dir', 'b'], ['journal', '-f', '--until', 'now'], ['journal', '--boot'], ['journal', '--source', 'nope'], ['journal', '--lines', '-3'], ['journal', '--boot', '-1x']]);
});

t.test('tui takes the fast path too (the first screen of a large store, issue 16)', async (t) => {
  await sameAsYargs(t, [['tui'], ['tui', '--no-journal'], ['--dir', '/x', 'tui', '--read-only'], ['--root', '/mnt', 'tui', '--file', '/var/log/syslog.1.gz', '--utc', '--year', '2021'], ['tui', '--journal-dir', '/j', '--since', 'yesterday', '--no-color']]);
  await leftToYargs(t, [['tui', 'extra'], ['tui', '--file', 'a', '--journal-dir', 'b'], ['tui', '--read-only=false'], ['tui', '-h'], ['tui', '--source', 'nope'], ['tui', '--no-read-only', '--read-only']]);
});
