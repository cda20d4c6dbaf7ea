import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import {
  appendAudit,
  auditLogOf,
  backupId,
  backupTime,
  backupsDirOf,
  cleanBackupLeftovers,
  currentActor,
  ensureBackupsDir,
  listBackups,
  loadBackup,
  readAudit,
  writeBackup,
} from '../../../lib/recovery/backup.js';
import { sha256Hex } from '../../../lib/builtins.js';
import type { FileState } from '../../../lib/recovery/atomic.js';

const file = (s: string, mode = 0o644): FileState => ({ kind: 'file', bytes: Buffer.from(s), mode, uid: 0, gid: 0 });

t.test('backup ids are compact UTC times', async (t) => {
  const table: [string, string][] = [
    ['2026-11-22T08:00:00.123Z', '20261122T080000.123Z'],
    ['1999-01-02T03:04:05.000Z', '19990102T030405.000Z'],
  ];
  for (const [iso, id] of table) {
    t.equal(backupId(new Date(iso)), id);
    t.equal(backupTime(id), iso);
  }
});

t.test('write, list and load a backup; two in the same millisecond get distinct ids', async (t) => {
  const dcd = t.testdir({});
  ensureBackupsDir(dcd);
  const now = new Date('2026-11-22T08:00:00.123Z');
  const steps: string[] = [];
  const states = { assigned: file('A\n', 0o600), 'last-known-good': { kind: 'missing' } as FileState };
  const b1 = writeBackup(dcd, states, { command: 'reset all --to local', store: '/s', user: currentActor(), after: { assigned: sha256Hex(Buffer.alloc(0)) } }, now, (s) => steps.push(s));
  const b2 = writeBackup(dcd, { assigned: file(''), 'last-known-good': file('L\n') }, { command: 'rollback', store: '/s', user: currentActor(), after: {} }, now);
  t.same([b1.id, b2.id], ['20261122T080000.123Z', '20261122T080000.124Z']);
  t.same(steps, ['backup-written', 'backup-renamed']);
  t.same(fs.readdirSync(b1.path).sort(), ['assigned', 'manifest.json'], 'a missing file is recorded, not copied');
  t.equal(fs.statSync(b1.path).mode & 0o777, 0o700);
  t.same(
    listBackups(dcd).map(({ id, command, files }) => ({ id, command, files })),
    [
      { id: '20261122T080000.123Z', command: 'reset all --to local', files: ['meta/last-known-good', 'meta/assigned'] },
      { id: '20261122T080000.124Z', command: 'rollback', files: ['meta/last-known-good', 'meta/assigned'] },
    ],
  );
  const latest = loadBackup(dcd, null);
  t.equal(latest.manifest.id, b2.id);
  const first = loadBackup(dcd, b1.id);
  t.same(first.states['last-known-good'], { kind: 'missing' });
  t.same((first.states.assigned as { bytes: Buffer }).bytes, Buffer.from('A\n'));
  t.equal((first.states.assigned as { mode: number }).mode, 0o600);
});

t.test('load refuses bad ids, unknown ids, no backups, and damaged backups', async (t) => {
  const dcd = t.testdir({});
  t.throws(() => loadBackup(dcd, null), { code: 'NO_BACKUP', exitCode: 4 });
  t.throws(() => loadBackup(dcd, '../../etc'), { code: 'UNKNOWN_BACKUP', exitCode: 2 });
  ensureBackupsDir(dcd);
  const b = writeBackup(dcd, { assigned: file('A\n'), 'last-known-good': file('L\n') }, { command: 'x', store: '/s', user: currentActor(), after: {} }, new Date('2026-01-01T00:00:00.000Z'));
  t.throws(() => loadBackup(dcd, '20990101T000000.000Z'), { code: 'UNKNOWN_BACKUP', message: /there are: 20260101T000000\.000Z/ });
  fs.writeFileSync(path.join(b.path, 'assigned'), 'tampered\n');
  t.throws(() => loadBackup(dcd, b.id), { code: 'BACKUP_DAMAGED', exitCode: 4 });
});

t.test('interrupted backups are invisible and cleaned up; other entries ignored', async (t) => {
  const dcd = t.testdir({});
  const dir = ensureBackupsDir(dcd);
  fs.mkdirSync(path.join(dir, 'tmp_20260101T000000.000Z.kubelet-ckpt.123'));
  fs.mkdirSync(path.join(dir, 'not-a-backup'));
  fs.mkdirSync(path.join(dir, '20260101T000000.000Z')); // no manifest: not whole
  t.same(listBackups(dcd), []);
  t.same(cleanBackupLeftovers(dcd), [`${path.join(dir, 'not-a-backup')} is not kubelet-ckpt's: left alone`, `removed ${path.join(dir, 'tmp_20260101T000000.000Z.kubelet-ckpt.123')}, left by an interrupted kubelet-ckpt`]);
  t.same(fs.readdirSync(dir).sort(), ['20260101T000000.000Z', 'not-a-backup']);
});

t.test('the audit log is JSON lines; a torn last line is skipped', async (t) => {
  const dcd = t.testdir({});
  ensureBackupsDir(dcd);
  const e = { time: '2026-11-22T08:00:00.000Z', event: 'begin' as const, command: 'rollback', backup: 'id', store: '/s', user: currentActor(), changes: [{ path: 'meta/assigned', before: 'a', after: 'b' }] };
  appendAudit(dcd, e);
  appendAudit(dcd, { ...e, event: 'done' });
  fs.appendFileSync(auditLogOf(dcd), '{"time":"2026-11-');
  t.same(readAudit(dcd).map((x) => x.event), ['begin', 'done']);
  t.equal(fs.statSync(auditLogOf(dcd)).mode & 0o777, 0o600);
});

t.test('a backup directory that cannot be written is exit 3, nothing made', async (t) => {
  // A file where the directory should be is unwritable even for root (the permission
  // case, as an unprivileged user, is in test/cmd/recovery-fs.test.ts).
  const dcd = t.testdir({ '.kubelet-ckpt': { backups: 'a file' } });
  t.throws(() => ensureBackupsDir(dcd), { code: 'STATE_UNSAFE', exitCode: 3, message: /backups is a regular file: .*nothing was changed/ });
  t.equal(fs.readFileSync(backupsDirOf(dcd), 'utf8'), 'a file');
});

t.test('a probe or backup left under this very pid (a container runs every time as pid 1) blocks nothing and is cleaned', async (t) => {
  // Found by review: tmp_probe.kubelet-ckpt.<pid> left by a kill made every later run fail with
  // "cannot be written", and its own pid kept it from being cleaned.
  const dcd = t.testdir({});
  const dir = ensureBackupsDir(dcd);
  const stale = [`tmp_probe.kubelet-ckpt.${process.pid}`, `tmp_20260101T000000.000Z.kubelet-ckpt.${process.pid}`];
  fs.writeFileSync(path.join(dir, stale[0]!), '');
  fs.mkdirSync(path.join(dir, stale[1]!));
  fs.writeFileSync(path.join(dir, stale[1]!, 'assigned'), 'x');
  t.equal(ensureBackupsDir(dcd), dir, 'the probe has a name of its own');
  // Fresh, they may be another container's run in progress (its pid 1 is not ours to ask); old, they are leftovers.
  t.same(cleanBackupLeftovers(dcd), [], 'fresh: left alone');
  const old = new Date(Date.now() - 60 * 60 * 1000);
  for (const n of stale) fs.utimesSync(path.join(dir, n), old, old);
  const notes = cleanBackupLeftovers(dcd);
  t.equal(notes.filter((n) => n.startsWith('removed')).length, 2, notes.join('\n'));
  t.same(fs.readdirSync(dir), []);
});
