// verifyParallel: however the pool behaves (answers in batches, fails, is not there), the
// report is the one-thread report, and the reader it returns gives the bytes on disk.
import t from 'tap';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { memoJudge, openSession } from '../../../lib/session.js';
import { judgeConfig } from '../../../lib/integrity/pipeline.js';
import { verifyParallel, verifySession } from '../../../lib/integrity/run.js';
import type { JudgePool, JudgeTask } from '../../../lib/integrity/prejudge.js';
import type { Judgement } from '../../../lib/integrity/judge.js';
import { findCheckpoint } from '../../../lib/store/snapshot.js';
import { GOOD_PAYLOAD, metaYaml, tempDir, writeTree } from '../../helpers.js';

const uidOf = (u: number) => `${u.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

/** 450 checkpoints (over PARALLEL_MIN_TASKS): valid, invalid and undecodable payloads. */
function store(): string {
  const dir = tempDir();
  const files: Record<string, string> = { 'store/meta/assigned': metaYaml({ uid: uidOf(0), rv: '7' }) };
  for (let u = 0; u < 45; u++) {
    for (let r = 1; r <= 10; r++) {
      const n = u * 10 + r;
      files[`store/checkpoints/${uidOf(u)}/${r}/kubelet`] = n % 11 === 0 ? 'apiVersion: v1\n' : n % 7 === 0 ? `${GOOD_PAYLOAD}healthzPort: 70000\n` : `${GOOD_PAYLOAD}maxPods: ${100 + n}\n`;
    }
  }
  writeTree(dir, files);
  return dir;
}

/** A pool that judges in this thread, a tick later, and counts what it was given. */
function fakePool(judge: (b: Buffer, f: string) => Judgement, opts: { failAt?: number } = {}): { pool: JudgePool; batches: number[] } {
  const batches: number[] = [];
  const pool: JudgePool = {
    workers: 1,
    judge(tasks: JudgeTask[]) {
      batches.push(tasks.length);
      if (opts.failAt !== undefined && batches.length > opts.failAt) return Promise.reject(new Error('worker died'));
      return new Promise((resolve) => setImmediate(() => resolve(tasks.map((x) => judge(Buffer.from(x.bytes), x.file)))));
    },
    close: () => undefined,
  };
  return { pool, batches };
}

t.test('a pool answering in batches: the one-thread report, the pool judged each distinct payload', async (t) => {
  const dir = store();
  const s = openSession({ dir, kubeletVersion: '1.23' });
  const want = verifySession(s);
  const { pool, batches } = fakePool(s.judge);
  const got = await verifyParallel(s, () => pool);
  t.same(got.report, want);
  t.ok(batches.length >= 2 && batches.every((n) => n > 0 && n <= 128), `batches of 1 to 128: ${batches.join(', ')}`);
  const share = batches.reduce((a, b) => a + b, 0);
  const distinct = new Set(fs.readdirSync(path.join(dir, 'store/checkpoints')).flatMap((u) => fs.readdirSync(path.join(dir, 'store/checkpoints', u)).map((r) => fs.readFileSync(path.join(dir, 'store/checkpoints', u, r, 'kubelet'), 'latin1')))).size;
  t.equal(share, distinct, `the pool judged ${share} of 450: every distinct payload (this thread judges none; repeats take the first's verdict)`);
  t.ok(want.findings.some((f) => f.code === 'PAYLOAD_INVALID') && want.findings.some((f) => f.code === 'PAYLOAD_DECODE'));
});

t.test('a pool that fails, or no pool: the one-thread report', async (t) => {
  const s = openSession({ dir: store(), kubeletVersion: '1.23' });
  const want = verifySession(s);
  t.same((await verifyParallel(s, () => fakePool(s.judge, { failAt: 1 }).pool)).report, want, 'a batch rejected');
  t.same((await verifyParallel(s, () => null)).report, want, 'the factory has no pool');
  t.same((await verifyParallel(s, null)).report, want, 'no factory');
  t.same((await verifyParallel(s, () => { throw new Error('ERR_WORKER_INIT_FAILED'); })).report, want, 'the factory throws (no thread could be made)');
});

t.test('a judge pool that cannot start while the store is read: the store reads as usual', async (t) => {
  const dir = store();
  const want = openSession({ dir, kubeletVersion: '1.23' });
  let tried = 0;
  const s = openSession({ dir, kubeletVersion: '1.23' }, { at: 100, start: () => { tried++; throw new Error('ERR_WORKER_PATH'); } });
  t.equal(tried, 1, 'started once the listing passed 100 checkpoints');
  t.equal(s.snap.checkpointsDir.kind, 'dir', 'not "checkpoints/ cannot be read"');
  t.same(verifySession(s), verifySession(want), 'the same report as a session without one');
});

t.test('the returned reader answers with the bytes on disk, from memory after a parallel run', async (t) => {
  const dir = store();
  const s = openSession({ dir, kubeletVersion: '1.23' });
  const { reader } = await verifyParallel(s, () => fakePool(s.judge).pool);
  const cp = findCheckpoint(s.snap, uidOf(3), '4')!;
  const file = path.join(dir, 'store', cp.rel, 'kubelet');
  const onDisk = fs.readFileSync(file);
  fs.writeFileSync(file, 'changed after the read\n');
  const r = reader.read(cp, 'kubelet');
  t.ok(r.ok && r.bytes.equals(onDisk) && r.size === onDisk.length && !r.truncated, 'the bytes verify judged, not a second read');
  t.equal(r.ok && r.sha256, crypto.createHash('sha256').update(onDisk).digest('hex'), 'with their SHA-256, computed once');
  const capped = reader.read(cp, 'kubelet', 10);
  t.ok(capped.ok && capped.truncated && capped.bytes.length === 10, 'a smaller cap reads the file again, capped');
});

t.test('past the byte budget the pool is dropped and verify runs one payload at a time', async (t) => {
  const s = openSession({ dir: store(), kubeletVersion: '1.23' });
  const want = verifySession(s);
  const { pool, batches } = fakePool(s.judge);
  let closed = false;
  let calls = 0;
  let atClose = -1;
  pool.close = () => {
    closed = true;
    if (atClose < 0) atClose = calls;
  };
  const counted = { ...s, judge: (b: Buffer, f: string) => (calls++, s.judge(b, f)) };
  const got = await verifyParallel(counted, () => pool, { maxHeldBytes: 20_000 });
  t.same(got.report, want);
  t.equal(got.reader, s.reader, 'the plain reader: nothing held');
  t.ok(closed, 'the pool was closed');
  // Before, not after: workers still holding batches would hold their payloads beside it.
  t.ok(atClose >= 0 && calls - atClose >= 400, `closed before the one-thread verify (${atClose} of ${calls} judgements before)`);
  t.ok(batches.reduce((a, b) => a + b, 0) < 100, `only the first payloads reached the pool (${batches.join(', ') || 'none'})`);
});

t.test('large payloads go to the pool in batches of at most 4 MiB', async (t) => {
  const dir = tempDir();
  const files: Record<string, string> = { 'store/meta/assigned': metaYaml({ uid: uidOf(0), rv: '7' }) };
  for (let u = 0; u < 45; u++) for (let r = 1; r <= 10; r++) files[`store/checkpoints/${uidOf(u)}/${r}/kubelet`] = `${GOOD_PAYLOAD}maxPods: ${u * 10 + r}\n# ${'x'.repeat(100_000)}\n`;
  writeTree(dir, files);
  const s = openSession({ dir, kubeletVersion: '1.23' });
  const want = verifySession(s);
  const { pool, batches } = fakePool(s.judge);
  t.same((await verifyParallel(s, () => pool)).report, want);
  t.ok(batches.length > 0 && batches.every((n) => n >= 1 && n <= 41), `batches of ~100 KB payloads: ${batches.join(', ')}`);
});

/**
 * A store where payloads repeat: a few contents (valid, invalid, undecodable, with a relative
 * path field, empty) spread over 450 checkpoints, under the name `kubelet` or as the only
 * file `config`, some files group-writable. Returns the number of distinct non-empty contents.
 */
function repeatingStore(): { dir: string; distinct: number } {
  const dir = tempDir();
  const contents = [
    GOOD_PAYLOAD,
    `${GOOD_PAYLOAD}maxPods: 30\n`,
    `${GOOD_PAYLOAD}healthzPort: 70000\n`,
    'apiVersion: v1\n',
    `${GOOD_PAYLOAD}resolvConf: resolv.conf\n`,
    '',
  ];
  const files: Record<string, string> = { 'store/meta/assigned': metaYaml({ uid: uidOf(0), rv: '7' }) };
  for (let u = 0; u < 45; u++) {
    for (let r = 1; r <= 10; r++) {
      const n = u * 10 + r;
      files[`store/checkpoints/${uidOf(u)}/${r}/${n % 4 === 0 && u !== 0 ? 'config' : 'kubelet'}`] = contents[n % contents.length]!;
    }
  }
  writeTree(dir, files);
  for (let u = 1; u < 45; u += 3) fs.chmodSync(path.join(dir, 'store/checkpoints', uidOf(u), '2', (u * 10 + 2) % 4 === 0 ? 'config' : 'kubelet'), 0o664);
  return { dir, distinct: contents.length - 1 };
}

t.test('repeated bytes under other names and modes: judged once each, the one-thread report', async (t) => {
  const { dir, distinct } = repeatingStore();
  const s = openSession({ dir, kubeletVersion: '1.23' });
  const want = verifySession(s);
  let calls = 0;
  const counted = { ...s, judge: (b: Buffer, f: string) => (calls++, s.judge(b, f)) };
  const got = await verifyParallel(counted, () => fakePool(counted.judge).pool);
  t.same(got.report, want, 'the same findings as judging every payload');
  const codes = new Set(want.findings.map((f) => f.code));
  for (const c of ['PAYLOAD_INVALID', 'PAYLOAD_DECODE', 'PAYLOAD_RELATIVE_PATH', 'PERMISSIONS']) t.ok(codes.has(c), `${c} found`);
  // 75 empty payloads and 75 with a relative path are judged each; the rest once per content.
  t.ok(calls <= distinct + 75 + 75 + 2, `${calls} judgements for 450 payloads`);
  t.ok(calls >= 75 + 75, 'empty payloads and relative paths were judged one by one');
});

t.test('one thread: the session memo shares verdicts only where judging afresh agrees', async (t) => {
  const { dir, distinct } = repeatingStore();
  const s = openSession({ dir, kubeletVersion: '1.23' });
  let calls = 0;
  const fresh = judgeConfig(s.judgeOptions);
  const want = verifySession({ ...s, judge: (b: Buffer, f: string) => (calls++, fresh(b, f)) });
  t.ok(calls >= 450, 'the reference judged every payload (the assigned one twice: next boot)');
  calls = 0;
  const inner = s.judge;
  const got = verifySession({ ...s, judge: memoJudge((b, f) => (calls++, inner(b, f))) });
  t.same(got, want, 'the same findings as judging every payload afresh');
  t.ok(calls < 450 && calls >= 75 + 75, `${calls} judgements (at least the 75 empty and 75 relative-path payloads, ${distinct} contents)`);
});

t.test('bytes that changed between the snapshot and the read: judged as read', async (t) => {
  const { dir } = repeatingStore();
  const s = openSession({ dir, kubeletVersion: '1.23' });
  // One checkpoint's payload reads differently from the others with its former bytes.
  const changed = findCheckpoint(s.snap, uidOf(3), '1')!;
  const reader = { read: (cp: typeof changed, name: string, cap?: number) => (cp === changed ? { ok: true as const, bytes: Buffer.from('apiVersion: v1\nkind: Other\n'), size: 27, truncated: false } : s.reader.read(cp, name, cap)) };
  const hostile = { ...s, reader };
  const want = verifySession(hostile);
  const got = await verifyParallel(hostile, () => fakePool(s.judge).pool);
  t.same(got.report, want);
  t.ok(want.findings.some((f) => f.ref === `${uidOf(3)}/1` && f.code === 'PAYLOAD_DECODE'), 'the changed bytes are what was judged');
});

t.test('ls --uid judges only that UID: each checkpoint as in the whole-store list', async (t) => {
  const { listSession } = await import('../../../lib/integrity/run.js');
  const A = 'aaaa0000-0000-4000-8000-00000000000a';
  const B = 'bbbb0000-0000-4000-8000-00000000000b';
  const dir = tempDir();
  writeTree(dir, {
    // assigned names a key its checkpoint lacks; last-known-good does not validate.
    'store/meta/assigned': metaYaml({ uid: A, rv: '3', key: 'config' }),
    'store/meta/last-known-good': metaYaml({ uid: A, rv: '2' }),
    [`store/checkpoints/${A}/1/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${A}/2/kubelet`]: `${GOOD_PAYLOAD}healthzPort: 70000\n`,
    [`store/checkpoints/${A}/3/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${B}/1/kubelet`]: 'apiVersion: v1\n',
    [`store/checkpoints/${B}/2/kubelet`]: `${GOOD_PAYLOAD}resolvConf: resolv.conf\n`,
    [`store/checkpoints/${B}/3/kubelet`]: GOOD_PAYLOAD,
    [`store/checkpoints/${B}/3/bad name`]: 'x',
  });
  fs.chmodSync(path.join(dir, 'store/checkpoints', B, '3', 'kubelet'), 0o666);
  fs.symlinkSync(path.join(dir, 'store/checkpoints', A, '1'), path.join(dir, 'store/checkpoints', B, '4'));
  const s = openSession({ dir, kubeletVersion: '1.23' });
  const whole = await listSession(s, null);
  t.same(new Set(whole.checkpoints.map((c) => c.verify)), new Set(['ok', 'warning', 'error']), 'every state occurs');
  for (const [uid, prefix] of [[A, 'aaaa'], [B, B]] as const) {
    const judged = new Set<string>();
    const counted = { ...s, judge: (b: Buffer, f: string) => (judged.add(f), s.judge(b, f)) };
    const one = await listSession(counted, null, prefix);
    t.same(one.checkpoints, whole.checkpoints.filter((c) => c.uid === uid), `${prefix}: the same items, states and markers`);
    t.ok(judged.size < 6, `${prefix}: ${judged.size} payloads judged, fewer than the store's 6 (outside the UID, only what the next boot reads: last-known-good)`);
  }
  await t.rejects(listSession(s, null, 'cccc'), { code: 'UNKNOWN_REF' }, 'an unknown UID is still refused');
});
