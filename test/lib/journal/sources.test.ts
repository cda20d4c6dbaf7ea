// journalctl sources, with a stand-in journalctl that records its argv and prints a fixture.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { readJournal, readJournalDetailed } from '../../../lib/journal/index.js';
import { journalctlArgs, journalFilesIn, LIVE_JOURNAL_DIRS } from '../../../lib/journal/sources.js';
import { findOnPath } from '../../../lib/onpath.js';

const FIX = path.resolve(import.meta.dirname, '../../../fixtures/journals');
const JSON_FIXTURE = path.join(FIX, 'structured-1.22.json');

/** A fake journalctl: writes its argv (one per line) to `args`, prints `out`, fails as told. */
function fakeJournalctl(dir: string, body: string): { bin: string; args: string } {
  const bin = path.join(dir, 'journalctl');
  const args = path.join(dir, 'argv');
  fs.writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$@" > '${args}'\n${body}\n`, { mode: 0o755 });
  return { bin, args };
}
const argvOf = (f: string) => fs.readFileSync(f, 'utf8').trimEnd().split('\n');

t.test('auto: journalctl -u kubelet -o json -a, options passed as --opt=value', async (t) => {
  const dir = t.testdir({});
  const { bin, args } = fakeJournalctl(dir, `cat '${JSON_FIXTURE}'`);
  const r = await readJournal({ source: 'auto', journalctl: bin, since: '-1h', until: 'now', boot: '-1' });
  t.same(argvOf(args), ['-u', 'kubelet.service', '-u', '*[-.]kubelet.service', '-u', 'kubelet@*.service', '-u', '*[-.]kubelet@*.service', '-o', 'json', '-a', '--no-pager', '--output-fields=MESSAGE,_PID,SYSLOG_PID,SYSLOG_IDENTIFIER,_COMM,UNIT,_SYSTEMD_UNIT,_SOURCE_REALTIME_TIMESTAMP', '--since=-1h', '--until=now', '--boot=-1']);
  t.equal(r.events.length, (await readJournal({ file: JSON_FIXTURE })).events.length);
  t.equal(r.events[0]?.source, 'journalctl');
  await readJournal({ source: 'auto', journalctl: bin, boot: true });
  t.equal(argvOf(args).at(-1), '--boot');
});

t.test('--journal-dir and --root read through journalctl -D', async (t) => {
  const dir = t.testdir({ jd: {}, root: { var: { log: { journal: {} } } } });
  const { bin, args } = fakeJournalctl(dir, `cat '${JSON_FIXTURE}'`);
  const r = await readJournal({ dir: path.join(dir, 'jd'), journalctl: bin });
  t.same(argvOf(args).slice(0, 3), ['-D', path.join(dir, 'jd'), '-u']);
  t.equal(r.events[0]?.source, path.join(dir, 'jd'));
  await readJournal({ source: 'auto', root: path.join(dir, 'root'), journalctl: bin });
  t.same(argvOf(args).slice(0, 2), ['-D', path.join(dir, 'root/var/log/journal')]);
  await t.rejects(readJournal({ source: 'auto', root: path.join(dir, 'jd'), journalctl: bin }), { exitCode: 3, code: 'JOURNAL_NOT_FOUND', hint: /--file/ });
});

t.test('systemd older than v236: retried without --output-fields', async (t) => {
  const dir = t.testdir({});
  const { bin, args } = fakeJournalctl(dir, `case "$*" in *--output-fields*) echo "journalctl: unrecognized option '--output-fields=x'" >&2; exit 1;; esac\ncat '${JSON_FIXTURE}'`);
  const r = await readJournal({ source: 'auto', journalctl: bin });
  t.ok(r.events.length > 50);
  t.notOk(argvOf(args).some((a) => a.startsWith('--output-fields')));
});

t.test('journalctl failures', async (t) => {
  const dir = t.testdir({});
  const failing = fakeJournalctl(dir, `echo 'Hint: You are currently not seeing messages from other users.' >&2\necho 'Failed to open journal directory: Permission denied' >&2\nexit 1`);
  await t.rejects(readJournal({ source: 'auto', journalctl: failing.bin }), { exitCode: 3, code: 'JOURNALCTL_FAILED', message: 'journalctl failed: Failed to open journal directory: Permission denied' });
  const badTime = fakeJournalctl(path.join(dir), `echo 'Failed to parse timestamp: yesterdayish' >&2\nexit 1`);
  await t.rejects(readJournal({ source: 'auto', journalctl: badTime.bin, since: 'yesterdayish' }), { code: 'USAGE', exitCode: 2 });
  // A journal with no kubelet entries: nothing printed; --header lists the files it can read.
  const empty = fakeJournalctl(dir, 'case "$*" in *--header*) echo "File path: /x/system.journal";; esac\nexit 0');
  fs.mkdirSync(path.join(dir, 'jd/0123456789abcdef0123456789abcdef'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'jd/0123456789abcdef0123456789abcdef/system.journal'), '');
  t.same((await readJournal({ dir: path.join(dir, 'jd'), journalctl: empty.bin })).events, [], 'a journal without kubelet entries');
  fs.mkdirSync(path.join(dir, 'jd2'));
  await t.rejects(readJournal({ dir: path.join(dir, 'jd2'), journalctl: empty.bin }), { code: 'JOURNAL_EMPTY' }, 'no journal file, and journalctl -o json says nothing');
  // Links to a journal file, or to a machine-id directory, are followed as journalctl follows them (found by review).
  fs.mkdirSync(path.join(dir, 'jd3'));
  fs.symlinkSync(path.join(dir, 'jd/0123456789abcdef0123456789abcdef/system.journal'), path.join(dir, 'jd3/system.journal'));
  fs.mkdirSync(path.join(dir, 'jd4'));
  fs.symlinkSync(path.join(dir, 'jd/0123456789abcdef0123456789abcdef'), path.join(dir, 'jd4/0123456789abcdef0123456789abcdef'));
  for (const d of ['jd3', 'jd4']) t.same((await readJournal({ dir: path.join(dir, d), journalctl: empty.bin })).events, [], `${d}: read`);
  // Files journalctl cannot read (damaged, truncated): it passes them over in silence under -o json (found by review).
  const damaged = fakeJournalctl(dir, "echo 'Journal file /x/system.journal is truncated, ignoring file.' >&2\ncase \"$*\" in *--header*) echo 'No journal files were found.' >&2;; esac\nexit 0");
  await t.rejects(readJournal({ dir: path.join(dir, 'jd'), journalctl: damaged.bin }), { exitCode: 3, code: 'JOURNAL_DAMAGED', message: /could read none of the journal files in .*jd \(Journal file \/x\/system.journal is truncated, ignoring file.\): they are damaged, nothing was read/ });
  // Found by review: no journal file at all was read as a journal without events.
  const noFiles = fakeJournalctl(dir, "echo 'No journal files were found.' >&2\nexit 0");
  await t.rejects(readJournal({ dir: path.join(dir, 'jd'), journalctl: noFiles.bin }), { exitCode: 3, code: 'JOURNAL_EMPTY', message: `journalctl found no journal files in ${path.join(dir, 'jd')}: nothing was read`, hint: /--journal-dir/ });
  // The machine's own journal: journalctl says nothing when there is no file; what this machine has decides.
  const live = readJournal({ source: 'auto', journalctl: empty.bin });
  if (journalFilesIn(LIVE_JOURNAL_DIRS) === 'none') await t.rejects(live, { exitCode: 3, code: 'JOURNAL_EMPTY', message: /no journal files on this machine/ });
  else t.same((await live).events, []);
  const hint = fakeJournalctl(dir, `echo 'Hint: You are currently not seeing messages from other users and the system.' >&2\ncat '${JSON_FIXTURE}'`);
  const d = await readJournalDetailed({ source: 'auto', journalctl: hint.bin });
  t.ok(d.result.events.length > 50);
  t.same(d.stats.warnings, ['Hint: You are currently not seeing messages from other users and the system.'], 'journalctl\'s remarks are kept for the command to show');
});

t.test('argv and PATH helpers', async (t) => {
  t.same(journalctlArgs(['-D', '/x'], { kind: 'journal-dir', lines: 10, since: '--evil' }, false), ['-D', '/x', '-u', 'kubelet.service', '-u', '*[-.]kubelet.service', '-u', 'kubelet@*.service', '-u', '*[-.]kubelet@*.service', '-o', 'json', '-a', '--no-pager', '--since=--evil', '--lines=10']);
  const dir = t.testdir({ bin: {} });
  fs.writeFileSync(path.join(dir, 'bin/tool'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'bin/noexec'), '', { mode: 0o644 });
  t.equal(findOnPath('tool', `/nonexistent:${path.join(dir, 'bin')}`), path.join(dir, 'bin/tool'));
  t.equal(findOnPath('noexec', path.join(dir, 'bin')), null, 'not executable');
  t.equal(findOnPath('missing', path.join(dir, 'bin')), null);
});
