// Property-based: random hostile stores (symlinks in and out, `..` refs, binary and huge
// files, FIFOs, deep nesting, long names, unreadable entries) must never crash, hang,
// read outside the store or write anything, and every planted defect must be reported.
// FC_SEED=n reproduces a run; FC_RUNS=n changes the count (test/bench runs more).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { takeSnapshot, fsPayloadReader } from '../../../lib/store/snapshot.js';
import { verifyStore } from '../../../lib/integrity/verify.js';
import { predictNextBoot } from '../../../lib/integrity/nextboot.js';
import { buildList } from '../../../lib/store/list.js';
import { judgeConfig } from '../../../lib/integrity/pipeline.js';
import { GOOD_PAYLOAD, metaYaml } from '../../helpers.js';

const KNOWN = new Set(['META_NOT_REGULAR', 'META_DECODE', 'META_INCOMPLETE', 'UNSAFE_REF', 'CHECKPOINT_MISSING', 'PAYLOAD_KEY_MISSING', 'PAYLOAD_DECODE', 'PAYLOAD_INVALID', 'PAYLOAD_STRICT', 'PAYLOAD_RELATIVE_PATH', 'FLAG_OVERRIDE', 'CHECKPOINT_ENTRY', 'TMP_LEFTOVER', 'HASH_MISMATCH', 'PERMISSIONS', 'LKG_UNUSABLE', 'PAYLOAD_TOO_LARGE', 'PAYLOAD_NOT_UTF8', 'UNREADABLE', 'NEXT_BOOT_FAILS']);
const UID = 'aaaaaaaa-0000-4000-8000-00000000000a';

type MetaKind = 'good' | 'missing-cp' | 'garbage' | 'empty' | 'absent' | 'link-out' | 'link-rel-out' | 'dir' | 'fifo' | 'unsafe-uid' | 'unsafe-rv' | 'unsafe-key' | 'huge';
type FileKind = 'good' | 'binary' | 'not-utf8' | 'huge' | 'link-out' | 'link-root' | 'subdir' | 'fifo' | 'bad-name' | 'empty';

/** The finding each planted defect must produce (undefined: no particular finding). */
const META_EXPECT: Partial<Record<MetaKind, string>> = {
  'missing-cp': 'CHECKPOINT_MISSING', garbage: 'META_DECODE', 'link-out': 'META_NOT_REGULAR', 'link-rel-out': 'META_NOT_REGULAR', dir: 'META_NOT_REGULAR', fifo: 'META_NOT_REGULAR', 'unsafe-uid': 'UNSAFE_REF', 'unsafe-rv': 'UNSAFE_REF', 'unsafe-key': 'UNSAFE_REF', huge: 'META_DECODE',
};
const FILE_EXPECT: Partial<Record<FileKind, string>> = {
  'not-utf8': 'PAYLOAD_NOT_UTF8', binary: 'PAYLOAD_NOT_UTF8', huge: 'PAYLOAD_TOO_LARGE', 'link-out': 'CHECKPOINT_ENTRY', 'link-root': 'CHECKPOINT_ENTRY', subdir: 'CHECKPOINT_ENTRY', fifo: 'CHECKPOINT_ENTRY', 'bad-name': 'CHECKPOINT_ENTRY',
};

const metaKind = fc.constantFrom<MetaKind>('good', 'missing-cp', 'garbage', 'empty', 'absent', 'link-out', 'link-rel-out', 'dir', 'fifo', 'unsafe-uid', 'unsafe-rv', 'unsafe-key', 'huge');
const fileKind = fc.constantFrom<FileKind>('good', 'binary', 'not-utf8', 'huge', 'link-out', 'link-root', 'subdir', 'fifo', 'bad-name', 'empty');
const storeSpec = fc.record({
  assigned: metaKind,
  lkg: metaKind,
  rvs: fc.array(fc.record({ files: fc.array(fileKind, { minLength: 0, maxLength: 3 }), tmp: fc.boolean() }), { minLength: 0, maxLength: 3 }),
  strayUidLink: fc.boolean(),
  longUid: fc.boolean(),
  depth: fc.integer({ min: 1, max: 40 }),
});
type Spec = typeof storeSpec extends fc.Arbitrary<infer S> ? S : never;

function writeMeta(dir: string, name: string, kind: MetaKind, canary: string) {
  const p = path.join(dir, 'store/meta', name);
  switch (kind) {
    case 'good': return fs.writeFileSync(p, metaYaml({ uid: UID, rv: '1' }));
    case 'missing-cp': return fs.writeFileSync(p, metaYaml({ uid: UID, rv: '999' }));
    case 'garbage': return fs.writeFileSync(p, Buffer.from([0x7b, 0x00, 0xff, 0x3a, 0x5b, 0x0a]));
    case 'empty': return fs.writeFileSync(p, '');
    case 'absent': return;
    case 'link-out': return fs.symlinkSync(canary, p);
    case 'link-rel-out': return fs.symlinkSync('../../canary', p);
    case 'dir': return fs.mkdirSync(p);
    case 'fifo': return execFileSync('mkfifo', [p]);
    case 'unsafe-uid': return fs.writeFileSync(p, metaYaml({ uid: '..', rv: '..' }));
    case 'unsafe-rv': return fs.writeFileSync(p, metaYaml({ uid: UID, rv: '../../../../canary' }));
    case 'unsafe-key': return fs.writeFileSync(p, metaYaml({ uid: UID, rv: '1', key: '../../../../../canary' }));
    case 'huge': return fs.writeFileSync(p, 'x'.repeat(70 * 1024));
  }
}

function writeFile(cpDir: string, i: number, kind: FileKind, canary: string, depth: number) {
  const p = path.join(cpDir, i === 0 && kind !== 'bad-name' ? 'kubelet' : `k${i}`);
  switch (kind) {
    case 'good': return fs.writeFileSync(p, GOOD_PAYLOAD);
    case 'empty': return fs.writeFileSync(p, '');
    case 'binary': return fs.writeFileSync(p, Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80]));
    case 'not-utf8': return fs.writeFileSync(p, Buffer.concat([Buffer.from(GOOD_PAYLOAD), Buffer.from([0xc3, 0x28])]));
    case 'huge': {
      const fd = fs.openSync(p, 'w');
      fs.ftruncateSync(fd, 50 * 1024 * 1024); // sparse: 50 MB on paper, nothing on disk
      return fs.closeSync(fd);
    }
    case 'link-out': return fs.symlinkSync(canary, p);
    case 'link-root': return fs.symlinkSync('/', p);
    case 'subdir': return fs.mkdirSync(path.join(p, ...Array(depth).fill('d')), { recursive: true });
    case 'fifo': return execFileSync('mkfifo', [p]);
    case 'bad-name': return fs.writeFileSync(path.join(cpDir, 'has space'), 'x');
  }
}

function build(root: string, spec: Spec): { dir: string; canary: string } {
  const dir = path.join(root, 'dc');
  const canary = path.join(root, 'canary');
  fs.writeFileSync(canary, 'CANARY: must never be read\n');
  fs.mkdirSync(path.join(dir, 'store/meta'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'store/checkpoints'), { recursive: true });
  writeMeta(dir, 'assigned', spec.assigned, canary);
  writeMeta(dir, 'last-known-good', spec.lkg, canary);
  spec.rvs.forEach((rv, r) => {
    const cp = path.join(dir, 'store/checkpoints', UID, String(r + 1));
    fs.mkdirSync(cp, { recursive: true });
    rv.files.forEach((k, i) => writeFile(cp, i, k, canary, spec.depth));
    if (rv.tmp) fs.mkdirSync(path.join(dir, 'store/checkpoints', UID, `tmp_${r}123`));
  });
  if (spec.strayUidLink) fs.symlinkSync(root, path.join(dir, 'store/checkpoints/escape'));
  if (spec.longUid) fs.mkdirSync(path.join(dir, 'store/checkpoints', 'u'.repeat(255), '1'), { recursive: true });
  return { dir, canary };
}

/** Record every path opened, read or written through node:fs during `fn`. */
function watchFs<T>(fn: () => T): { result: T; opened: string[]; wrote: string[] } {
  const opened: string[] = [];
  const wrote: string[] = [];
  const f = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const saved: Record<string, (...a: unknown[]) => unknown> = {};
  const wrap = (name: string, record: (a: unknown[]) => void) => {
    const original = f[name]!;
    saved[name] ??= original;
    f[name] = (...a: unknown[]) => {
      record(a);
      return original(...a);
    };
  };
  const writeFlags = (a: unknown[]) => typeof a[1] === 'number' ? (a[1] & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0 : typeof a[1] === 'string' && /[wa+]/.test(a[1]);
  const path0 = (a: unknown[]) => (typeof a[0] === 'string' ? a[0] : null);
  wrap('openSync', (a) => {
    const p = path0(a);
    if (p) (writeFlags(a) ? wrote : opened).push(p);
  });
  for (const r of ['readFileSync', 'readdirSync']) wrap(r, (a) => path0(a) && opened.push(path0(a)!));
  for (const w of ['writeFileSync', 'mkdirSync', 'renameSync', 'unlinkSync', 'rmSync', 'rmdirSync', 'symlinkSync', 'chmodSync', 'utimesSync']) wrap(w, (a) => path0(a) && wrote.push(path0(a)!));
  try {
    return { result: fn(), opened, wrote };
  } finally {
    Object.assign(f, saved);
  }
}

const runs = Number(process.env.FC_RUNS ?? 150);
const seed = Number(process.env.FC_SEED ?? 20261122);
const judge = judgeConfig({ version: '1.23', argv: [] });

t.test(`random hostile stores (${runs} cases, seed ${seed})`, async (t) => {
  const base = t.testdir();
  let i = 0;
  fc.assert(
    fc.property(storeSpec, (spec) => {
      const root = path.join(base, String(i++));
      fs.mkdirSync(root);
      const { dir, canary } = build(root, spec);
      const store = path.join(dir, 'store');
      const { result, opened, wrote } = watchFs(() => {
        const snap = takeSnapshot(dir);
        const reader = fsPayloadReader(snap);
        const report = verifyStore(snap, { reader, judge, local: { path: null, judgement: null } });
        const boot = predictNextBoot(snap, { reader, judge, local: { path: null, judgement: null } });
        const list = buildList(snap, reader);
        return { report, boot, list };
      });
      const codes = new Set(result.report.findings.map((x) => x.code));
      const problems: string[] = [];
      for (const c of codes) if (!KNOWN.has(c)) problems.push(`unknown code ${c}`);
      for (const k of [spec.assigned, spec.lkg]) {
        const want = META_EXPECT[k];
        // A missing checkpoint is only reported when the meta file is otherwise fine.
        if (want && !codes.has(want)) problems.push(`meta ${k}: expected ${want}, got ${[...codes].join(',')}`);
      }
      for (const rv of spec.rvs) for (const k of rv.files) {
        const want = FILE_EXPECT[k];
        if (want && !codes.has(want)) problems.push(`file ${k}: expected ${want}, got ${[...codes].join(',')}`);
      }
      if (spec.rvs.some((r) => r.tmp) && !codes.has('TMP_LEFTOVER')) problems.push('tmp_ dir not reported');
      if (spec.strayUidLink && !codes.has('CHECKPOINT_ENTRY')) problems.push('symlink in checkpoints/ not reported');
      const outside = opened.filter((p) => !path.resolve(p).startsWith(store + path.sep) && path.resolve(p) !== store);
      if (outside.length) problems.push(`opened outside the store: ${outside.join(', ')}`);
      if (opened.includes(canary)) problems.push('the canary was opened');
      if (wrote.length) problems.push(`wrote: ${wrote.join(', ')}`);
      if (!['assigned', 'last-known-good', 'local', 'none', 'unknown'].includes(result.boot.source)) problems.push(`bad source ${result.boot.source}`);
      if (problems.length) throw new Error(`${JSON.stringify(spec)}\n  ${problems.join('\n  ')}`);
      fs.rmSync(root, { recursive: true, force: true });
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  t.pass(`${runs} random stores: no crash, no read outside, no write, every defect reported`);
});

t.test('the built CLI on random hostile stores, as an unprivileged user', { skip: process.getuid?.() !== 0 && 'needs root to drop privileges' }, async (t) => {
  const { asNobody } = await import('../../helpers.js');
  const base = t.testdir();
  fs.chmodSync(base, 0o755);
  const cases = fc.sample(storeSpec, { numRuns: Number(process.env.FC_CLI_RUNS ?? 12), seed });
  let i = 0;
  for (const spec of cases) {
    const root = path.join(base, String(i++));
    fs.mkdirSync(root, { mode: 0o755 });
    const { dir } = build(root, { ...spec, rvs: [...spec.rvs, { files: ['good'], tmp: false }] });
    // One unreadable checkpoint: reported, the rest still checked.
    const locked = path.join(dir, 'store/checkpoints', UID, String(spec.rvs.length + 1));
    execFileSync('chmod', ['-R', 'a+rX', root]);
    fs.chmodSync(locked, 0o000);
    for (const cmd of [['status', '--no-journal'], ['ls'], ['verify'], ['show', 'assigned']]) {
      const r = asNobody(['--dir', dir, ...cmd, '-o', 'json'], { timeout: 30_000 });
      t.ok([0, 1, 2, 3, 4].includes(r.code ?? -1), `${cmd[0]}: exit ${r.code} ${r.stderr.slice(0, 200)}`);
      if (r.stdout) t.doesNotThrow(() => JSON.parse(r.stdout), `${cmd[0]}: JSON`);
      else t.doesNotThrow(() => JSON.parse(r.stderr), `${cmd[0]}: JSON error object`);
      if (cmd[0] === 'verify' && r.stdout) t.ok(JSON.parse(r.stdout).findings.some((x: { code: string }) => x.code === 'UNREADABLE'), 'the locked checkpoint is UNREADABLE');
    }
    fs.chmodSync(locked, 0o755);
  }
});
