// Property-based hostile stores (test/lib/integrity/hostile.test.ts, test/bench/hostile.mjs):
// fast-check arbitraries for random store trees, a builder that puts one on disk beside a
// set of canaries, the finding each planted defect must produce (DESIGN.md "Integrity
// checks"), and detectors for anything read or written outside the store.
//
// How a read outside the store is detected, without strace (not on CI):
// - in process: every node:fs call that opens, reads or lists something is recorded, and
//   the *real* path of what was opened comes from /proc/self/fd/N (or realpath after a
//   successful readFileSync/readdirSync), so a symlinked directory on the way cannot hide
//   an escape; every call that writes is recorded too.
// - for the CLI (another process, run as nobody): the canaries are world-readable, so an
//   escaping open succeeds and leaves kernel-side evidence the tool cannot suppress:
//   * a FIFO canary with a writer blocked in open(O_WRONLY) on it (a "tripwire"): the open
//     of the FIFO for reading by anyone, even O_NONBLOCK and closed at once, releases that
//     writer (Linux fifo_open wakes writers on every reader open, r_counter), which we see
//     in /proc/PID/wchan and in a flag file the writer then creates;
//   * regular canaries whose atime is set to 2001 (older than their mtime and ctime): under
//     relatime (and strictatime) the first read() after that updates the atime; whether
//     the mount updates atime at all is checked once (`atimeWorks`) and reported.
// - no write anywhere: an lstat digest (type, mode, owner, size, inode, link count, mtime
//   and ctime in ns, link target) of the whole temp tree (store, its parent, the canaries)
//   before and after; atime is left out (reading is allowed inside the store).

import fc from 'fast-check';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { metaYaml, repoRoot } from './helpers.js';

// ---- constants -------------------------------------------------------------------------------

export const KNOWN_CODES = new Set([
  'META_NOT_REGULAR', 'META_DECODE', 'META_INCOMPLETE', 'UNSAFE_REF', 'CHECKPOINT_MISSING', 'PAYLOAD_KEY_MISSING',
  'PAYLOAD_DECODE', 'PAYLOAD_INVALID', 'PAYLOAD_STRICT', 'PAYLOAD_RELATIVE_PATH', 'FLAG_OVERRIDE', 'CHECKPOINT_ENTRY',
  'TMP_LEFTOVER', 'HASH_MISMATCH', 'PERMISSIONS', 'LKG_UNUSABLE', 'PAYLOAD_TOO_LARGE', 'PAYLOAD_NOT_UTF8', 'UNREADABLE',
  'NEXT_BOOT_FAILS', 'STARTUP_FAILS',
]);
/** DESIGN.md: 0 ok, 1 findings, 2 usage, 3 environment, 4 refused; 5 (internal error) is a bug. */
export const DOCUMENTED_EXITS = new Set([0, 1, 2, 3, 4]);
export const BOOT_SOURCES = new Set(['assigned', 'last-known-good', 'local', 'none', 'unknown']);

export const PAYLOAD_CAP = 1024 * 1024;
/** lib/store/snapshot.ts META_CAP: a meta file is decoded whole up to this, and past it not read (next boot unknown). */
export const META_CAP = 1024 * 1024;
/** The UID every meta file names (unless it names something stranger). */
export const UID_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
/** The UID truncated meta files name: never on disk, and no on-disk name starts with `t`. */
export const UID_T = 'tttttttt-0000-4000-8000-00000000000t';

/** A full KubeletConfiguration as a real node holds it (valid for 1.23, no findings). */
export const PAYLOAD = fs.readFileSync(path.join(repoRoot, 'fixtures/stores/healthy/store/checkpoints/946d785e-998a-11e7-a8dd-42010a800006/119980/kubelet'), 'utf8');
const INVALID_PAYLOAD = PAYLOAD.replace('port: 10250', 'port: 70000');
const UNDECODABLE_PAYLOAD = PAYLOAD.replace('kind: KubeletConfiguration', 'kind: ConfigMap');
const YAML_BOMB = (() => {
  let s = 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i <= 9; i++) s += `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]\n`;
  return s;
})();

// ---- the spec ----------------------------------------------------------------------------------

export const META_KINDS = [
  'good', 'json', 'padded-cap', 'over-cap', 'huge-sparse', 'garbage', 'truncated', 'empty', 'absent', 'missing-cp',
  'unsafe', 'long-name', 'hash-name', 'bomb', 'deep', 'link-canary', 'link-canary-rel', 'link-fifo', 'link-inside',
  'link-loop', 'link-dangling', 'dir', 'fifo', 'world-writable', 'locked',
] as const;
export type MetaKind = (typeof META_KINDS)[number];

export const FILE_KINDS = [
  'good', 'invalid', 'undecodable', 'binary', 'not-utf8', 'empty', 'cap', 'cap+1', 'huge-sparse', 'bomb', 'deep',
  'link-canary', 'link-canary-rel', 'link-fifo', 'link-root', 'link-sibling', 'link-loop', 'subdir', 'fifo', 'locked',
  'world-writable',
] as const;
export type FileKind = (typeof FILE_KINDS)[number];
export type NameKind = 'kubelet' | 'plain' | 'dot' | 'tmp' | 'space' | 'newline' | 'too-long' | 'non-utf8';

export type RvKind = 'dir' | 'dir-world' | 'locked' | 'link-outside' | 'link-root' | 'link-fifo' | 'link-sibling' | 'link-loop' | 'file' | 'fifo' | 'tmp-dir' | 'tmp-file';
export type UidKind = 'dir' | 'dir-world' | 'locked' | 'link-outside' | 'link-root' | 'link-fifo' | 'file' | 'fifo';

export interface MetaSpec {
  kind: MetaKind;
  field: 'uid' | 'resourceVersion' | 'kubeletConfigKey';
  unsafe: string;
  longName: string;
  cut: number;
  garbage: Uint8Array;
  hugeSize: number;
  hashSuffix: string;
}
export interface FileSpec {
  name: NameKind;
  kind: FileKind;
  depth: number;
  bytes: Uint8Array;
  sparseSize: number;
}
export interface RvSpec {
  name: 'numeric' | 'long' | 'word';
  kind: RvKind;
  files: FileSpec[];
}
export interface UidSpec {
  name: 'uuid' | 'long' | 'non-utf8';
  kind: UidKind;
  rvs: RvSpec[];
  tmp: boolean;
}
export interface StoreSpec {
  assigned: MetaSpec;
  lkg: MetaSpec;
  uidA: { kind: 'dir' | 'dir-world' | 'locked'; rv1: RvSpec; rvs: RvSpec[]; tmp: boolean };
  uids: UidSpec[];
  metaTmp: boolean;
  metaStray: 'none' | 'link-canary' | 'fifo' | 'dir' | 'locked-file';
  metaDir: 'dir' | 'link-outside' | 'locked';
  checkpointsDir: 'dir' | 'world' | 'locked' | 'absent' | 'link-outside';
  storeWorld: boolean;
}

function weighted<T>(table: [T, number][]): fc.Arbitrary<T> {
  return fc.oneof(...table.map(([v, weight]) => ({ arbitrary: fc.constant(v), weight })));
}

const HASH_ALPHABET = '2456789bcdfghkmt';
const unsafeValue = fc.oneof(
  fc.constantFrom('.', '..', '../..', '../../x', '../../../../outside/meta-canary', '/etc/passwd', '/', 'a/b', 'x\0y', '\0', '..\0'),
  fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([a, b]) => `${a}/${b}`),
  fc.tuple(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 })).map(([a, b]) => `${a}\0${b}`),
  fc.integer({ min: 256, max: 400 }).map((n) => 'u'.repeat(n)),
  // 128+ two-byte characters: at most 255 characters but over 255 bytes.
  fc.integer({ min: 128, max: 200 }).map((n) => 'é'.repeat(n)),
);
/** A name of 245-255 bytes (safe), partly multi-byte, never on disk. */
const longSafeName = fc.integer({ min: 0, max: 5 }).map((k) => `${'é'.repeat(127 - k)}x`);

export const metaSpecArb: fc.Arbitrary<MetaSpec> = fc.record({
  kind: weighted<MetaKind>(META_KINDS.map((k) => [k, k === 'good' ? 12 : k === 'empty' || k === 'absent' ? 3 : 2])),
  field: fc.constantFrom('uid' as const, 'resourceVersion' as const, 'kubeletConfigKey' as const),
  unsafe: unsafeValue,
  longName: longSafeName,
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  garbage: fc.uint8Array({ maxLength: 48 }),
  hugeSize: fc.integer({ min: META_CAP + 1, max: 2 ** 30 }),
  hashSuffix: fc.array(fc.constantFrom(...HASH_ALPHABET), { minLength: 10, maxLength: 10 }).map((a) => a.join('')),
});

const fileSpecArb: fc.Arbitrary<FileSpec> = fc.record({
  name: weighted<NameKind>([['kubelet', 6], ['plain', 4], ['dot', 1], ['tmp', 1], ['space', 1], ['newline', 1], ['too-long', 1], ['non-utf8', 1]]),
  kind: weighted<FileKind>(FILE_KINDS.map((k) => [k, k === 'good' ? 10 : 1])),
  depth: fc.integer({ min: 1, max: 40 }),
  bytes: fc.uint8Array({ minLength: 0, maxLength: 64 }),
  sparseSize: fc.integer({ min: PAYLOAD_CAP + 1, max: 2 ** 31 }),
});
const rvKind = weighted<RvKind>([['dir', 14], ['dir-world', 1], ['locked', 2], ['link-outside', 1], ['link-root', 1], ['link-fifo', 1], ['link-sibling', 1], ['link-loop', 1], ['file', 1], ['fifo', 1], ['tmp-dir', 1], ['tmp-file', 1]]);
const rvSpecArb = (kind: fc.Arbitrary<RvKind>): fc.Arbitrary<RvSpec> =>
  fc.record({
    name: weighted<RvSpec['name']>([['numeric', 6], ['long', 1], ['word', 1]]),
    kind,
    files: fc.array(fileSpecArb, { minLength: 0, maxLength: 4 }),
  });
const uidSpecArb: fc.Arbitrary<UidSpec> = fc.record({
  name: weighted<UidSpec['name']>([['uuid', 6], ['long', 1], ['non-utf8', 1]]),
  kind: weighted<UidKind>([['dir', 10], ['dir-world', 1], ['locked', 2], ['link-outside', 1], ['link-root', 1], ['link-fifo', 1], ['file', 1], ['fifo', 1]]),
  rvs: fc.array(rvSpecArb(rvKind), { minLength: 0, maxLength: 3 }),
  tmp: fc.boolean(),
});

export const storeSpecArb: fc.Arbitrary<StoreSpec> = fc.record({
  assigned: metaSpecArb,
  lkg: metaSpecArb,
  uidA: fc.record({
    kind: weighted<'dir' | 'dir-world' | 'locked'>([['dir', 12], ['dir-world', 1], ['locked', 1]]),
    rv1: rvSpecArb(weighted<RvKind>([['dir', 12], ['dir-world', 1], ['locked', 2], ['link-outside', 1], ['link-root', 1], ['link-sibling', 1], ['link-loop', 1], ['file', 1], ['fifo', 1]])),
    rvs: fc.array(rvSpecArb(rvKind), { minLength: 0, maxLength: 2 }),
    tmp: weighted([[false, 5], [true, 1]]),
  }),
  uids: fc.array(uidSpecArb, { minLength: 0, maxLength: 2 }),
  metaTmp: weighted([[false, 5], [true, 1]]),
  metaStray: weighted<StoreSpec['metaStray']>([['none', 10], ['link-canary', 1], ['fifo', 1], ['dir', 1], ['locked-file', 1]]),
  metaDir: weighted<StoreSpec['metaDir']>([['dir', 40], ['link-outside', 1], ['locked', 1]]),
  checkpointsDir: weighted<StoreSpec['checkpointsDir']>([['dir', 40], ['world', 1], ['locked', 1], ['absent', 1], ['link-outside', 1]]),
  storeWorld: weighted([[false, 20], [true, 1]]),
});

/** The spec as one line of JSON (byte arrays as hex), to paste into a reproducer. */
export function specJson(spec: unknown): string {
  return JSON.stringify(spec, (_k, v) => (v instanceof Uint8Array ? `hex:${Buffer.from(v).toString('hex')}` : v));
}

// ---- the shared "outside" tree: canaries next to every store ---------------------------------

export interface Outside {
  /** The temp root: outside/ and one directory per case. World-traversable. */
  base: string;
  dir: string;
  /** Regular files (valid meta, valid payload) that must never be read. */
  canaries: string[];
  metaCanary: string;
  payloadCanary: string;
  /** A FIFO that must never be opened. */
  fifo: string;
  /** Directories the store's symlinks point at (all contents are canaries). */
  cpDir: string;
  uidDir: string;
  metaDir: string;
  cpsDir: string;
}

const OLD_ATIME = new Date('2001-01-01T00:00:00Z');

export function makeOutside(): Outside {
  const base = fs.mkdtempSync(path.join(process.env.TMPDIR ?? os.tmpdir(), 'kckpt-hostile-'));
  fs.chmodSync(base, 0o755);
  const dir = path.join(base, 'outside');
  const meta = metaYaml({ uid: UID_A, rv: '1' });
  const o: Outside = {
    base,
    dir,
    canaries: [],
    metaCanary: path.join(dir, 'meta-canary'),
    payloadCanary: path.join(dir, 'payload-canary'),
    fifo: path.join(dir, 'canary.fifo'),
    cpDir: path.join(dir, 'cp'),
    uidDir: path.join(dir, 'uid'),
    metaDir: path.join(dir, 'meta'),
    cpsDir: path.join(dir, 'checkpoints'),
  };
  const put = (p: string, content: string) => {
    fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o755 });
    fs.writeFileSync(p, content, { mode: 0o644 });
    o.canaries.push(p);
  };
  put(o.metaCanary, meta);
  put(o.payloadCanary, PAYLOAD);
  put(path.join(o.cpDir, 'kubelet'), PAYLOAD);
  put(path.join(o.uidDir, '1', 'kubelet'), PAYLOAD);
  put(path.join(o.metaDir, 'assigned'), meta);
  put(path.join(o.metaDir, 'last-known-good'), meta);
  put(path.join(o.cpsDir, UID_A, '1', 'kubelet'), PAYLOAD);
  execFileSync('mkfifo', ['-m', '0644', o.fifo]);
  execFileSync('chmod', ['-R', 'a+rX', dir]);
  resetAtimes(o);
  return o;
}

/** Set every canary's atime to 2001 (before its mtime/ctime: the next read() must update it). */
export function resetAtimes(o: Outside): void {
  for (const c of o.canaries) {
    const st = fs.statSync(c);
    fs.utimesSync(c, OLD_ATIME, st.mtime);
  }
}

/** Canaries whose atime moved since resetAtimes: they were read. */
export function readCanaries(o: Outside): string[] {
  return o.canaries.filter((c) => fs.statSync(c).atimeMs !== OLD_ATIME.getTime());
}

/** Does this mount record reads in atime at all (noatime would hide them)? */
export function atimeWorks(o: Outside): boolean {
  const probe = path.join(o.base, 'atime-probe');
  fs.writeFileSync(probe, 'probe\n');
  fs.utimesSync(probe, OLD_ATIME, new Date());
  fs.readFileSync(probe);
  const works = fs.statSync(probe).atimeMs !== OLD_ATIME.getTime();
  fs.rmSync(probe);
  return works;
}

// ---- the FIFO tripwire -------------------------------------------------------------------------

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
export function sleepMs(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

/** The kernel function each thread of `pid` sleeps in. */
function wchans(pid: number): string[] | null {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).map((t) => {
      try {
        return fs.readFileSync(`/proc/${pid}/task/${t}/wchan`, 'utf8').trim();
      } catch {
        return '';
      }
    });
  } catch {
    return null;
  }
}

// The writer: open(O_WRONLY) on the FIFO in libuv's thread pool (blocks until a reader
// opens it), then create the flag file. It exits when orphaned (the test process died).
const TRIPWIRE = `
const fs = require('node:fs');
const [fifo, flag] = process.argv.slice(1);
const parent = process.ppid;
fs.open(fifo, fs.constants.O_WRONLY, (err) => { if (!err) fs.writeFileSync(flag, ''); });
setInterval(() => { if (process.ppid !== parent) process.exit(0); }, 500);
`;

/**
 * A writer blocked in open(O_WRONLY) on the canary FIFO. Any open of the FIFO for reading
 * releases it: `fired()` is then true until `rearm()`.
 */
export class FifoTripwire {
  private child: ChildProcess | null = null;
  private readonly flag: string;
  /** 'wchan' when the blocked open was seen in /proc, else 'assumed' (waited 2 s). */
  confirmed: 'wchan' | 'assumed' = 'assumed';
  constructor(readonly fifo: string) {
    // Kept outside the tree the digest covers.
    this.flag = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? os.tmpdir(), 'kckpt-tripwire-')), 'opened');
  }
  private blocked(): boolean | null {
    const w = this.child?.pid ? wchans(this.child.pid) : null;
    return w === null ? null : w.includes('wait_for_partner');
  }
  arm(): void {
    fs.rmSync(this.flag, { force: true });
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['-e', TRIPWIRE, this.fifo, this.flag], { stdio: 'ignore', env });
    child.unref();
    child.on('error', () => undefined);
    this.child = child;
    for (let i = 0; i < 400; i++) {
      if (this.blocked()) {
        this.confirmed = 'wchan';
        return;
      }
      sleepMs(5);
    }
    this.confirmed = 'assumed';
  }
  fired(): boolean {
    if (!this.child) return false;
    if (fs.existsSync(this.flag)) return true;
    if (this.confirmed !== 'wchan') return false;
    return this.blocked() !== true;
  }
  disarm(): void {
    if (this.child?.pid) {
      try {
        process.kill(this.child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    this.child = null;
    fs.rmSync(this.flag, { force: true });
  }
  /** Disarm and remove the flag's directory. */
  close(): void {
    this.disarm();
    fs.rmSync(path.dirname(this.flag), { recursive: true, force: true });
  }
  rearm(): void {
    this.disarm();
    this.arm();
  }
}

// ---- digest: nothing changed -------------------------------------------------------------------

/** lstat digest of a tree (never follows links, never reads file contents). */
export function treeDigest(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (p: Buffer, rel: string) => {
    const st = fs.lstatSync(p, { bigint: true });
    const link = st.isSymbolicLink() ? fs.readlinkSync(p, { encoding: 'buffer' }).toString('hex') : '';
    out.set(rel, [st.mode, st.uid, st.gid, st.size, st.ino, st.nlink, st.mtimeNs, st.ctimeNs, link].join(' '));
    if (st.isDirectory()) {
      let names: Buffer[];
      try {
        names = fs.readdirSync(p, { encoding: 'buffer' });
      } catch {
        return;
      }
      for (const n of names) walk(Buffer.concat([p, Buffer.from('/'), n]), `${rel}/${n.toString('hex')}`);
    }
  };
  walk(Buffer.from(root), '');
  return out;
}

export function digestChanges(before: Map<string, string>, after: Map<string, string>, root: string): string[] {
  const show = (rel: string) => path.join(root, ...rel.split('/').filter(Boolean).map((h) => Buffer.from(h, 'hex').toString()));
  const out: string[] = [];
  for (const [k, v] of before) {
    if (!after.has(k)) out.push(`removed ${show(k)}`);
    else if (after.get(k) !== v) out.push(`changed ${show(k)}: ${v} -> ${after.get(k)}`);
  }
  for (const k of after.keys()) if (!before.has(k)) out.push(`created ${show(k)}`);
  return out;
}

// ---- building a store --------------------------------------------------------------------------

/** One thing the finding list must (or must not) contain. */
export interface Expect {
  /** What was planted, for the failure message. */
  what: string;
  /** Any of these codes satisfies the expectation. */
  codes: string[];
  path?: string;
  ref?: string;
  /** true: no such finding may appear. */
  absent?: boolean;
}

export interface Built {
  dc: string;
  store: string;
  /** Entries made mode 000 (unreadable unless root). */
  locked: string[];
  /** The expectations for a reader that is root (privileged) or not. */
  expect(privileged: boolean): Expect[];
  /** Whether the tool should stop with exit 3 (meta directory unreadable) for this reader. */
  envError(privileged: boolean): boolean;
  /** True when the store holds something a known lib defect misjudges (see KNOWN_DEFECTS). */
  knownDefects: string[];
}

interface MetaOutcome {
  /** The source it decodes to (uid, rv, key, ConfigMap name), when it does. */
  source: { uid: string; rv: string; key: string; name: string } | null;
  /** The source only decodes for a privileged reader (the file is mode 000). */
  needsPrivilege: boolean;
}

function uidName(u: UidSpec, i: number): string | Buffer {
  if (u.name === 'long') return `${'ü'.repeat(127)}${i}`; // 255 bytes: the longest legal name
  if (u.name === 'non-utf8') return Buffer.from([0x62, 0xff, 0xfe, 0x30 + i]);
  return `b${i}bbbbbbb-0000-4000-8000-00000000000${i}`;
}

function rvName(r: RvSpec, i: number): string {
  if (r.kind === 'tmp-dir' || r.kind === 'tmp-file') return `tmp_${i}${1000 + i}`;
  if (r.name === 'long') return `${'r'.repeat(254)}${i}`;
  if (r.name === 'word') return `rv-${i}`;
  return String(2 + i);
}

function fileName(f: FileSpec, i: number): string | Buffer {
  switch (f.name) {
    case 'kubelet': return i === 0 ? 'kubelet' : `k${i}`;
    case 'plain': return `k${i}`;
    case 'dot': return `.k${i}`;
    case 'tmp': return `tmp_k${i}`;
    case 'space': return `has space ${i}`;
    case 'newline': return `nl\n${i}`;
    case 'too-long': return `${'k'.repeat(253)}${i}`; // 254 characters: a legal file name, not a ConfigMap key
    case 'non-utf8': return Buffer.from([0x6b, 0xff, 0x30 + i]);
  }
}

/** A file name as the tool sees it (readdir decodes names as UTF-8). */
const asSeen = (n: string | Buffer) => (typeof n === 'string' ? n : n.toString('utf8'));
const join = (p: string, n: string | Buffer): string | Buffer => (typeof n === 'string' ? path.join(p, n) : Buffer.concat([Buffer.from(`${p}/`), n]));
const BAD_NAMES: NameKind[] = ['space', 'newline', 'too-long', 'non-utf8'];

const isRegularKind = (k: FileKind) => !['link-canary', 'link-canary-rel', 'link-fifo', 'link-root', 'link-sibling', 'link-loop', 'subdir', 'fifo'].includes(k);
const UTF8_KINDS: FileKind[] = ['good', 'invalid', 'undecodable', 'empty', 'cap', 'bomb', 'deep', 'locked', 'world-writable'];
const DECODE_FAILS: FileKind[] = ['undecodable', 'empty', 'binary', 'not-utf8', 'bomb', 'deep'];

function sparse(p: string | Buffer, size: number): void {
  const fd = fs.openSync(p, 'w', 0o644);
  fs.ftruncateSync(fd, size);
  fs.closeSync(fd);
}

function padTo(text: string, size: number): string {
  const pad = size - Buffer.byteLength(text) - 2;
  return `${text}#${'x'.repeat(pad)}\n`;
}

/** Build `spec` under `caseDir` (the --dynamic-config-dir is caseDir/dc). */
export function buildStore(o: Outside, caseDir: string, spec: StoreSpec): Built {
  const dc = path.join(caseDir, 'dc');
  const store = path.join(dc, 'store');
  const fifos: (string | Buffer)[] = [];
  const locked: (string | Buffer)[] = [];
  const world: (string | Buffer)[] = [];
  /** Expectations: each with a condition on the reader's privilege. */
  const planned: { e: Expect; when: (priv: boolean) => boolean }[] = [];
  const knownDefects: string[] = [];
  const must = (when: (priv: boolean) => boolean, e: Expect) => planned.push({ e, when });
  const always = () => true;
  const rel = (abs: string | Buffer) => asSeen(typeof abs === 'string' ? abs : abs).slice(store.length + 1);
  const mkdir = (p: string) => fs.mkdirSync(p, { recursive: true, mode: 0o755 });
  const relLink = (from: string | Buffer, to: string) => path.relative(path.dirname(asSeen(from)), to);

  fs.mkdirSync(caseDir, { mode: 0o755 });
  mkdir(store);
  if (spec.storeWorld) {
    world.push(store);
    must(always, { what: 'store directory mode 0777', codes: ['PERMISSIONS'], path: '.' });
  }

  // ---- meta/
  const metaDir = path.join(store, 'meta');
  const metaVisible = (priv: boolean) => spec.metaDir === 'dir' || (spec.metaDir === 'locked' && priv);
  if (spec.metaDir === 'link-outside') {
    // The store's meta/ is a symlink to a directory outside it: nothing there may be read.
    fs.symlinkSync(relLink(metaDir, o.metaDir), metaDir);
    knownDefects.push('meta-dir-symlink');
  } else {
    mkdir(metaDir);
    if (spec.metaDir === 'locked') locked.push(metaDir);
  }
  const outcomes: Record<'assigned' | 'last-known-good', MetaOutcome> = {
    assigned: { source: null, needsPrivilege: false },
    'last-known-good': { source: null, needsPrivilege: false },
  };
  if (spec.metaDir !== 'link-outside') {
    for (const [name, ms] of [['assigned', spec.assigned], ['last-known-good', spec.lkg]] as const) {
      outcomes[name] = writeMeta(o, metaDir, name, ms, { fifos, locked, world }, (when, e) => must((p) => metaVisible(p) && when(p), e));
    }
    if (spec.metaTmp) {
      fs.writeFileSync(path.join(metaDir, 'tmp_assigned123456'), 'partial');
      must(metaVisible, { what: 'meta/tmp_assigned123456 leftover', codes: ['TMP_LEFTOVER'], path: 'meta/tmp_assigned123456' });
    }
    const stray = path.join(metaDir, 'stray');
    if (spec.metaStray === 'link-canary') fs.symlinkSync(o.metaCanary, stray);
    if (spec.metaStray === 'fifo') fifos.push(stray);
    if (spec.metaStray === 'dir') mkdir(path.join(stray, 'x'));
    if (spec.metaStray === 'locked-file') {
      fs.writeFileSync(stray, metaYaml({ uid: UID_A, rv: '1' }));
      locked.push(stray);
    }
  }

  // ---- checkpoints/
  const cps = path.join(store, 'checkpoints');
  const cpsListable = (priv: boolean) => spec.checkpointsDir === 'dir' || spec.checkpointsDir === 'world' || (spec.checkpointsDir === 'locked' && priv);
  if (spec.checkpointsDir === 'link-outside') {
    fs.symlinkSync(relLink(cps, o.cpsDir), cps);
    knownDefects.push('checkpoints-dir-symlink');
  } else if (spec.checkpointsDir !== 'absent') {
    mkdir(cps);
    if (spec.checkpointsDir === 'locked') {
      locked.push(cps);
      must((p) => !p, { what: 'checkpoints/ mode 000', codes: ['UNREADABLE'], path: 'checkpoints' });
    }
    if (spec.checkpointsDir === 'world') {
      world.push(cps);
      must(always, { what: 'checkpoints/ mode 0777', codes: ['PERMISSIONS'], path: 'checkpoints' });
    }
  }

  /** What a visible checkpoint directory holds, for the meta expectations. */
  const cpFacts = new Map<string, { files: FileSpec[]; names: (string | Buffer)[] }>();

  const buildRv = (uidAbs: string, uidVisible: (p: boolean) => boolean, r: RvSpec, rvn: string, hashName: (p: boolean) => string | null) => {
    const abs = path.join(uidAbs, rvn);
    const rrel = rel(abs);
    const where = `${rrel} (${r.kind})`;
    switch (r.kind) {
      case 'tmp-dir':
        mkdir(path.join(abs, 'half'));
        must(uidVisible, { what: where, codes: ['TMP_LEFTOVER'], path: rrel });
        return;
      case 'tmp-file':
        fs.writeFileSync(abs, 'x');
        must(uidVisible, { what: where, codes: ['TMP_LEFTOVER'], path: rrel });
        return;
      case 'link-outside':
      case 'link-root':
      case 'link-fifo':
      case 'link-sibling':
      case 'link-loop':
        fs.symlinkSync({ 'link-outside': relLink(abs, o.cpDir), 'link-root': '/', 'link-fifo': o.fifo, 'link-sibling': '1', 'link-loop': rvn }[r.kind], abs);
        must(uidVisible, { what: where, codes: ['CHECKPOINT_ENTRY'], path: rrel });
        return;
      case 'file':
        fs.writeFileSync(abs, PAYLOAD);
        must(uidVisible, { what: where, codes: ['CHECKPOINT_ENTRY'], path: rrel });
        return;
      case 'fifo':
        fifos.push(abs);
        must(uidVisible, { what: where, codes: ['CHECKPOINT_ENTRY'], path: rrel });
        return;
      default:
        break;
    }
    mkdir(abs);
    if (r.kind === 'dir-world') {
      world.push(abs);
      must(uidVisible, { what: where, codes: ['PERMISSIONS'], path: rrel });
    }
    if (r.kind === 'locked') {
      locked.push(abs);
      must((p) => uidVisible(p) && !p, { what: where, codes: ['UNREADABLE'], path: rrel });
    }
    const visible = (p: boolean) => uidVisible(p) && (r.kind !== 'locked' || p);
    const names = r.files.map((f, i) => fileName(f, i));
    cpFacts.set(rrel, { files: r.files, names });
    r.files.forEach((f, i) => buildFile(abs, f, names[i]!, visible));
    // kubectl's --append-hash suffix in the ConfigMap name that the meta file gives this UID.
    must((p) => {
      if (!visible(p) || !hashName(p)) return false;
      return r.files.every((f, i) => f.name === 'non-utf8' || !isRegularKind(f.kind) || (UTF8_KINDS.includes(f.kind) && (f.kind !== 'locked' || p) && typeof names[i] === 'string'));
    }, { what: `${where}: ConfigMap name with a hash suffix the files do not match`, codes: ['HASH_MISMATCH'], path: rrel });
  };

  const buildFile = (cpAbs: string, f: FileSpec, name: string | Buffer, visible: (p: boolean) => boolean) => {
    const p = join(cpAbs, name);
    const frel = `${rel(cpAbs)}/${asSeen(name)}`;
    const where = `${frel} (${f.kind}, name ${f.name})`;
    if (BAD_NAMES.includes(f.name)) must(visible, { what: `${where}: a name no ConfigMap key can have`, codes: ['CHECKPOINT_ENTRY'], path: frel });
    if (f.name === 'non-utf8') {
      // Node reads this name as U+FFFD and cannot open it by that name: only the entry is judged.
      fs.writeFileSync(p, PAYLOAD);
      return;
    }
    const judged = asSeen(name) === 'kubelet';
    switch (f.kind) {
      case 'good': fs.writeFileSync(p, PAYLOAD); break;
      case 'invalid': fs.writeFileSync(p, INVALID_PAYLOAD); break;
      case 'undecodable': fs.writeFileSync(p, UNDECODABLE_PAYLOAD); break;
      case 'binary': fs.writeFileSync(p, Buffer.concat([Buffer.from([0xff, 0x00]), f.bytes])); break;
      case 'not-utf8': fs.writeFileSync(p, Buffer.concat([Buffer.from(PAYLOAD), Buffer.from([0x23, 0xc3, 0x28, 0x0a])])); break;
      case 'empty': fs.writeFileSync(p, ''); break;
      case 'cap': fs.writeFileSync(p, padTo(PAYLOAD, PAYLOAD_CAP)); break;
      case 'cap+1': sparse(p, PAYLOAD_CAP + 1); break;
      case 'huge-sparse': sparse(p, f.sparseSize); break;
      case 'bomb': fs.writeFileSync(p, PAYLOAD + YAML_BOMB); break;
      case 'deep': fs.writeFileSync(p, `${PAYLOAD}x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`); break;
      case 'link-canary': fs.symlinkSync(o.payloadCanary, p); break;
      case 'link-canary-rel': fs.symlinkSync(relLink(p, o.payloadCanary), p); break;
      case 'link-fifo': fs.symlinkSync(o.fifo, p); break;
      case 'link-root': fs.symlinkSync('/', p); break;
      case 'link-sibling': fs.symlinkSync('kubelet', p); break;
      case 'link-loop': fs.symlinkSync(asSeen(name), p); break;
      case 'subdir': {
        const deepest = path.join(asSeen(p), ...Array(f.depth).fill('d'));
        mkdir(deepest);
        fs.symlinkSync(o.payloadCanary, path.join(deepest, 'kubelet'));
        break;
      }
      case 'fifo': fifos.push(p); break;
      case 'locked': fs.writeFileSync(p, PAYLOAD); locked.push(p); break;
      case 'world-writable': fs.writeFileSync(p, PAYLOAD); world.push(p); break;
    }
    const readable = (priv: boolean) => visible(priv) && (f.kind !== 'locked' || priv);
    if (!isRegularKind(f.kind)) must(visible, { what: where, codes: ['CHECKPOINT_ENTRY'], path: frel });
    if (f.kind === 'binary' || f.kind === 'not-utf8') must(readable, { what: where, codes: ['PAYLOAD_NOT_UTF8'], path: frel });
    if (f.kind === 'cap+1' || f.kind === 'huge-sparse') must(visible, { what: where, codes: ['PAYLOAD_TOO_LARGE'], path: frel });
    if (f.kind === 'cap') must(visible, { what: `${where}: exactly 1 MiB is allowed`, codes: ['PAYLOAD_TOO_LARGE'], path: frel, absent: true });
    if (f.kind === 'locked') must((priv) => visible(priv) && !priv, { what: where, codes: ['UNREADABLE'], path: frel });
    if (f.kind === 'world-writable') must(visible, { what: where, codes: ['PERMISSIONS'], path: frel });
    if (judged && DECODE_FAILS.includes(f.kind)) must(readable, { what: `${where}: the payload`, codes: ['PAYLOAD_DECODE'], path: frel });
    if (judged && f.kind === 'invalid') must(readable, { what: `${where}: the payload`, codes: ['PAYLOAD_INVALID'], path: frel });
  };

  // Which meta file's ConfigMap name applies to UID_A (verify: assigned wins over last-known-good).
  const sourceFor = (name: 'assigned' | 'last-known-good', priv: boolean) => {
    const oc = outcomes[name];
    return metaVisible(priv) && oc.source && (!oc.needsPrivilege || priv) ? oc.source : null;
  };
  const hashNameForA = (priv: boolean) => {
    const s = [sourceFor('assigned', priv), sourceFor('last-known-good', priv)].find((x) => x?.uid === UID_A);
    return s && /-[2456789bcdfghkmt]{10}$/.test(s.name) ? s.name : null;
  };

  if (spec.checkpointsDir !== 'absent' && spec.checkpointsDir !== 'link-outside') {
    const root = cps;
    const cpsVisible = cpsListable;
    // UID_A: the UID the meta files name.
    const aAbs = path.join(root, UID_A);
    mkdir(aAbs);
    if (spec.uidA.kind === 'locked') {
      locked.push(aAbs);
      must((p) => cpsVisible(p) && !p, { what: `checkpoints/${UID_A} mode 000`, codes: ['UNREADABLE'], path: `checkpoints/${UID_A}` });
    }
    if (spec.uidA.kind === 'dir-world') {
      world.push(aAbs);
      must(cpsVisible, { what: `checkpoints/${UID_A} mode 0777`, codes: ['PERMISSIONS'], path: `checkpoints/${UID_A}` });
    }
    const aVisible = (p: boolean) => cpsVisible(p) && (spec.uidA.kind !== 'locked' || p);
    buildRv(aAbs, aVisible, spec.uidA.rv1, '1', hashNameForA);
    spec.uidA.rvs.forEach((r, i) => buildRv(aAbs, aVisible, r, rvName(r, i), hashNameForA));
    if (spec.uidA.tmp) {
      mkdir(path.join(aAbs, 'tmp_7123456'));
      must(aVisible, { what: 'tmp_ directory in UID_A', codes: ['TMP_LEFTOVER'], path: `checkpoints/${UID_A}/tmp_7123456` });
    }
    // Other UIDs.
    spec.uids.forEach((u, i) => {
      const name = uidName(u, i);
      const abs = join(root, name);
      const urel = `checkpoints/${asSeen(name)}`;
      const where = `${urel} (${u.kind}, name ${u.name})`;
      if (u.name === 'non-utf8') {
        fs.mkdirSync(abs, { mode: 0o755 });
        must(cpsVisible, { what: `${where}: a UID directory whose name is not UTF-8`, codes: ['CHECKPOINT_ENTRY'], path: urel });
        return;
      }
      const s = abs as string;
      switch (u.kind) {
        case 'link-outside': fs.symlinkSync(relLink(s, o.uidDir), s); break;
        case 'link-root': fs.symlinkSync('/', s); break;
        case 'link-fifo': fs.symlinkSync(o.fifo, s); break;
        case 'file': fs.writeFileSync(s, PAYLOAD); break;
        case 'fifo': fifos.push(s); break;
        default: mkdir(s);
      }
      if (!['dir', 'dir-world', 'locked'].includes(u.kind)) {
        must(cpsVisible, { what: where, codes: ['CHECKPOINT_ENTRY'], path: urel });
        return;
      }
      if (u.kind === 'locked') {
        locked.push(s);
        must((p) => cpsVisible(p) && !p, { what: where, codes: ['UNREADABLE'], path: urel });
      }
      if (u.kind === 'dir-world') {
        world.push(s);
        must(cpsVisible, { what: where, codes: ['PERMISSIONS'], path: urel });
      }
      const visible = (p: boolean) => cpsVisible(p) && (u.kind !== 'locked' || p);
      u.rvs.forEach((r, j) => buildRv(s, visible, r, rvName(r, j), () => null));
      if (u.tmp) {
        fs.writeFileSync(path.join(s, 'tmp_9123456'), 'x');
        must(visible, { what: `${where}: tmp_ file`, codes: ['TMP_LEFTOVER'], path: `${urel}/tmp_9123456` });
      }
    });
  }

  // Expectations that follow from what the meta files name.
  for (const name of ['assigned', 'last-known-good'] as const) {
    const ms = name === 'assigned' ? spec.assigned : spec.lkg;
    const oc = outcomes[name];
    const srcVisible = (p: boolean) => metaVisible(p) && (!oc.needsPrivilege || p);
    const cpsOk = (p: boolean) => spec.checkpointsDir === 'absent' || cpsListable(p);
    const aListable = (p: boolean) => spec.checkpointsDir === 'absent' || (cpsListable(p) && (spec.uidA.kind !== 'locked' || p));
    if (!oc.source || spec.checkpointsDir === 'link-outside') continue;
    const s = oc.source;
    if (s.uid === UID_T) {
      must((p) => srcVisible(p) && cpsOk(p), { what: `meta/${name} truncated`, codes: ['META_DECODE', 'META_INCOMPLETE', 'CHECKPOINT_MISSING'], ref: name });
      continue;
    }
    if (s.uid !== UID_A) {
      must((p) => srcVisible(p) && cpsOk(p), { what: `meta/${name} names ${s.uid.slice(0, 12)}…/${s.rv} (not on disk)`, codes: ['CHECKPOINT_MISSING'], ref: name });
      continue;
    }
    if (s.rv !== '1') {
      must((p) => srcVisible(p) && aListable(p), { what: `meta/${name} names ${UID_A}/${s.rv.slice(0, 12)} (not on disk)`, codes: ['CHECKPOINT_MISSING'], ref: name });
      if (name === 'last-known-good') must((p) => srcVisible(p) && aListable(p), { what: 'last-known-good not on disk', codes: ['LKG_UNUSABLE'], ref: 'last-known-good' });
      continue;
    }
    // Names UID_A/1 with key `kubelet`.
    if (spec.checkpointsDir === 'absent') {
      must(srcVisible, { what: `meta/${name} names ${UID_A}/1, no checkpoints/`, codes: ['CHECKPOINT_MISSING'], ref: name });
      continue;
    }
    const rv1 = spec.uidA.rv1;
    const facts = cpFacts.get(`checkpoints/${UID_A}/1`);
    if (!facts) continue; // not a directory: CHECKPOINT_ENTRY above says what it is
    const rv1Visible = (p: boolean) => srcVisible(p) && aListable(p) && (rv1.kind !== 'locked' || p);
    const i = facts.names.findIndex((n) => asSeen(n) === s.key);
    const kubelet = i >= 0 ? rv1.files[i]! : null;
    if (!kubelet || !isRegularKind(kubelet.kind)) {
      must(rv1Visible, { what: `meta/${name} names ${UID_A}/1, which has no regular file "${s.key}"`, codes: ['PAYLOAD_KEY_MISSING'], ref: name });
    }
    if (rv1.kind === 'locked') knownDefects.push('locked-checkpoint-key-missing');
    if (name === 'last-known-good' && kubelet && (DECODE_FAILS.includes(kubelet.kind) || kubelet.kind === 'invalid')) {
      must((p) => rv1Visible(p), { what: `last-known-good ${UID_A}/1 holds a ${kubelet.kind} payload`, codes: ['LKG_UNUSABLE'], ref: 'last-known-good' });
    }
  }

  // Special files last (mkfifo in one call), then modes (locked last: children first).
  if (fifos.length) execFileSync('mkfifo', ['-m', '0644', ...fifos.map(asSeen)]);
  for (const p of world) fs.chmodSync(p, 0o777);
  for (const p of [...locked].reverse()) fs.chmodSync(p, 0);

  return {
    dc,
    store,
    locked: locked.map(asSeen),
    knownDefects,
    expect(priv) {
      return planned.filter((x) => x.when(priv)).map((x) => x.e);
    },
    envError: (priv) => spec.metaDir === 'locked' && !priv,
  };
}

interface Sinks {
  fifos: (string | Buffer)[];
  locked: (string | Buffer)[];
  world: (string | Buffer)[];
}

function writeMeta(o: Outside, metaDir: string, name: 'assigned' | 'last-known-good', ms: MetaSpec, sinks: Sinks, must: (when: (p: boolean) => boolean, e: Expect) => void): MetaOutcome {
  const p = path.join(metaDir, name);
  const rel = `meta/${name}`;
  const always = () => true;
  const good = { uid: UID_A, rv: '1', key: 'kubelet', name: 'cfg' };
  const src = (s: Partial<typeof good>): MetaOutcome => ({ source: { ...good, ...s }, needsPrivilege: false });
  const none: MetaOutcome = { source: null, needsPrivilege: false };
  const notRegular = (what: string) => must(always, { what: `${rel}: ${what}`, codes: ['META_NOT_REGULAR'], path: rel });
  const decodeError = (what: string) => must(always, { what: `${rel}: ${what}`, codes: ['META_DECODE'], path: rel });
  // Past the cap a meta file is not read: reported, and it makes the next boot unknown (never a decode error).
  const notRead = (what: string) => must(always, { what: `${rel}: ${what}`, codes: ['UNREADABLE'], path: rel });
  switch (ms.kind) {
    case 'good':
      fs.writeFileSync(p, metaYaml({ uid: UID_A, rv: '1' }));
      return src({});
    case 'json':
      fs.writeFileSync(p, JSON.stringify({ kind: 'SerializedNodeConfigSource', apiVersion: 'kubelet.config.k8s.io/v1beta1', source: { configMap: { kubeletConfigKey: 'kubelet', name: 'cfg', namespace: 'kube-system', resourceVersion: '1', uid: UID_A } } }));
      return src({});
    case 'padded-cap':
      fs.writeFileSync(p, padTo(metaYaml({ uid: UID_A, rv: '1' }), META_CAP));
      must(always, { what: `${rel}: exactly 1 MiB (a long comment) decodes`, codes: ['META_DECODE'], path: rel, absent: true });
      return src({});
    case 'over-cap':
      fs.writeFileSync(p, padTo(metaYaml({ uid: UID_A, rv: '1' }), META_CAP + 1));
      notRead('1 MiB + 1 byte');
      return none;
    case 'huge-sparse':
      sparse(p, ms.hugeSize);
      notRead(`${ms.hugeSize} bytes (sparse)`);
      return none;
    case 'garbage':
      fs.writeFileSync(p, Buffer.concat([Buffer.from([0x00, 0xff]), ms.garbage]));
      decodeError('garbage bytes');
      return none;
    case 'truncated': {
      const full = metaYaml({ uid: UID_T, rv: '7' });
      const cut = 1 + Math.floor(ms.cut * (full.length - 3)); // 1 .. length-2: never only the final newline
      fs.writeFileSync(p, full.slice(0, cut));
      return src({ uid: UID_T });
    }
    case 'empty':
      fs.writeFileSync(p, '');
      return none;
    case 'absent':
      return none;
    case 'missing-cp':
      fs.writeFileSync(p, metaYaml({ uid: UID_A, rv: '999' }));
      return src({ rv: '999' });
    case 'unsafe':
    case 'long-name': {
      const v = ms.kind === 'unsafe' ? ms.unsafe : ms.longName;
      const field = ms.kind === 'long-name' && ms.field === 'kubeletConfigKey' ? 'uid' : ms.field;
      const s = { kubeletConfigKey: 'kubelet', name: 'cfg', namespace: 'kube-system', resourceVersion: '1', uid: UID_A, [field]: v };
      fs.writeFileSync(p, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n${Object.entries(s).map(([k, x]) => `    ${k}: ${JSON.stringify(x)}\n`).join('')}`);
      if (ms.kind === 'unsafe') {
        must(always, { what: `${rel}: ${field} ${JSON.stringify(v).slice(0, 40)}`, codes: ['UNSAFE_REF'], path: rel });
        return none;
      }
      return src(field === 'uid' ? { uid: v } : { rv: v });
    }
    case 'hash-name':
      fs.writeFileSync(p, metaYaml({ uid: UID_A, rv: '1', name: `node-config-${ms.hashSuffix}` }));
      return src({ name: `node-config-${ms.hashSuffix}` });
    case 'bomb':
      fs.writeFileSync(p, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\n${YAML_BOMB}source: *a9\n`);
      decodeError('a YAML alias bomb');
      return none;
    case 'deep':
      fs.writeFileSync(p, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource: ${'['.repeat(30000)}${']'.repeat(30000)}\n`);
      decodeError('30,000 nested sequences');
      return none;
    case 'link-canary':
      fs.symlinkSync(o.metaCanary, p);
      notRegular('symlink to a file outside the store');
      return none;
    case 'link-canary-rel':
      fs.symlinkSync(path.relative(metaDir, o.metaCanary), p);
      notRegular('relative symlink to a file outside the store');
      return none;
    case 'link-fifo':
      fs.symlinkSync(o.fifo, p);
      notRegular('symlink to a FIFO outside the store');
      return none;
    case 'link-inside':
      fs.writeFileSync(`${p}.real`, metaYaml({ uid: UID_A, rv: '1' }));
      fs.symlinkSync(`${name}.real`, p);
      notRegular('symlink to a meta file inside the store');
      return src({});
    case 'link-loop':
      fs.symlinkSync(name, p);
      notRegular('symlink to itself');
      return none;
    case 'link-dangling':
      fs.symlinkSync('nowhere', p);
      notRegular('dangling symlink');
      return none;
    case 'dir':
      fs.mkdirSync(path.join(p, 'x'), { recursive: true });
      notRegular('a directory');
      return none;
    case 'fifo':
      sinks.fifos.push(p);
      notRegular('a FIFO');
      return none;
    case 'world-writable':
      fs.writeFileSync(p, metaYaml({ uid: UID_A, rv: '1' }));
      sinks.world.push(p);
      must(always, { what: `${rel}: mode 0777`, codes: ['PERMISSIONS'], path: rel });
      return src({});
    case 'locked':
      fs.writeFileSync(p, metaYaml({ uid: UID_A, rv: '1' }));
      sinks.locked.push(p);
      must((priv) => !priv, { what: `${rel}: mode 000`, codes: ['UNREADABLE'], path: rel });
      return { ...src({}), needsPrivilege: true };
  }
}

/** Make a case tree removable again (mode 000 entries) and remove it. */
export function removeCase(caseDir: string): void {
  try {
    execFileSync('chmod', ['-R', 'u+rwX', caseDir], { stdio: 'ignore' });
  } catch {
    // best effort; rm as root works anyway
  }
  fs.rmSync(caseDir, { recursive: true, force: true });
}

// ---- checking findings -------------------------------------------------------------------------

export interface FindingLike {
  severity: string;
  code: string;
  message: string;
  path: string | null;
  ref: string | null;
}

/** Problems with a finding list: unknown codes, bad shapes, unmet expectations. */
export function checkFindings(findings: readonly FindingLike[], expects: readonly Expect[]): string[] {
  const problems: string[] = [];
  for (const f of findings) {
    if (!KNOWN_CODES.has(f.code)) problems.push(`unknown finding code ${f.code}`);
    if (!['error', 'warning', 'info'].includes(f.severity)) problems.push(`bad severity ${f.severity}`);
    if (typeof f.message !== 'string' || !f.message) problems.push(`${f.code}: no message`);
    if (f.path !== null && (typeof f.path !== 'string' || f.path.startsWith('/') || f.path.split('/').includes('..'))) problems.push(`${f.code}: path ${JSON.stringify(f.path)} is not relative to the store`);
    if (f.ref !== null && typeof f.ref !== 'string') problems.push(`${f.code}: bad ref`);
  }
  for (const e of expects) {
    const hit = findings.some((f) => e.codes.includes(f.code) && (e.path === undefined || f.path === e.path) && (e.ref === undefined || f.ref === e.ref));
    if (e.absent && hit) problems.push(`${e.what}: unexpected ${e.codes.join('|')}${e.path ? ` at ${e.path}` : ''}`);
    if (!e.absent && !hit) {
      const near = findings.filter((f) => (e.path !== undefined && f.path === e.path) || (e.ref !== undefined && f.ref === e.ref)).map((f) => f.code);
      problems.push(`${e.what}: expected ${e.codes.join('|')}${e.path ? ` at ${JSON.stringify(e.path)}` : ''}${e.ref ? ` (ref ${e.ref})` : ''}; found ${near.length ? near.join(',') : 'nothing there'}`);
    }
  }
  return problems;
}

// ---- in-process: record every open, read, list and write ---------------------------------------

export interface FsRecord {
  /** Real paths of everything opened, read or listed. */
  opened: string[];
  /** Every call that could write (path or fd). */
  wrote: string[];
}

const WRITE_CALLS = [
  'writeFileSync', 'appendFileSync', 'writeSync', 'writevSync', 'mkdirSync', 'mkdtempSync', 'renameSync', 'unlinkSync', 'rmSync', 'rmdirSync',
  'symlinkSync', 'linkSync', 'chmodSync', 'fchmodSync', 'lchmodSync', 'chownSync', 'fchownSync', 'lchownSync', 'utimesSync', 'futimesSync',
  'lutimesSync', 'truncateSync', 'ftruncateSync', 'copyFileSync', 'cpSync',
  'writeFile', 'appendFile', 'write', 'mkdir', 'rename', 'unlink', 'rm', 'rmdir', 'symlink', 'link', 'chmod', 'chown', 'utimes', 'truncate', 'copyFile', 'cp',
];
const READ_CALLS = ['readFileSync', 'readdirSync', 'opendirSync', 'readFile', 'readdir', 'opendir', 'createReadStream', 'open'];

/** Run `fn` with node:fs instrumented (the default export the library uses). */
export function recordFs<T>(fn: () => T): { result: T; rec: FsRecord } {
  const rec: FsRecord = { opened: [], wrote: [] };
  const f = fs as unknown as Record<string, (...a: unknown[]) => unknown>;
  const saved = new Map<string, (...a: unknown[]) => unknown>();
  const realpath = fs.realpathSync.bind(fs);
  const readlink = fs.readlinkSync.bind(fs);
  const real = (p: unknown): string => {
    const s = Buffer.isBuffer(p) ? p.toString() : p instanceof URL ? p.pathname : String(p);
    try {
      return realpath(s);
    } catch {
      return path.resolve(s);
    }
  };
  const wrap = (name: string, after: (args: unknown[], ret: unknown) => void) => {
    const original = f[name];
    if (typeof original !== 'function') return;
    saved.set(name, original);
    f[name] = function (this: unknown, ...a: unknown[]) {
      const ret = original.apply(this, a);
      after(a, ret);
      return ret;
    };
  };
  const writeFlags = (flags: unknown) =>
    typeof flags === 'number' ? (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND)) !== 0 : typeof flags === 'string' && /[wa+]/.test(flags);
  wrap('openSync', (a, fd) => {
    let target = String(a[0]);
    try {
      target = readlink(`/proc/self/fd/${fd as number}`);
    } catch {
      target = real(a[0]);
    }
    (writeFlags(a[1]) ? rec.wrote : rec.opened).push(target);
  });
  for (const name of READ_CALLS) wrap(name, (a) => typeof a[0] !== 'number' && rec.opened.push(real(a[0])));
  for (const name of WRITE_CALLS) {
    wrap(name, (a) => rec.wrote.push(`${name}(${typeof a[0] === 'number' ? `fd ${a[0]}` : String(a[0])})`));
  }
  try {
    return { result: fn(), rec };
  } finally {
    for (const [name, original] of saved) f[name] = original;
  }
}

/** Everything in `opened` whose real path is not inside `realStore`. */
export function outsideOf(realStore: string, opened: readonly string[]): string[] {
  // The dynamic-config dir itself is opened (as a directory) to look at kubelet-ckpt's own state
  // directory beside the store, and that directory's entries are lstat'ed and listed: both are
  // ours to read. Nothing else above or beside the store is.
  const dcd = path.dirname(realStore);
  const state = path.join(dcd, '.kubelet-ckpt');
  const inside = (p: string) => p === realStore || p.startsWith(realStore + path.sep) || p === dcd || p === state || p.startsWith(state + path.sep);
  return [...new Set(opened.filter((p) => !inside(p)))];
}

// ---- hang watchdog for in-process runs ---------------------------------------------------------

const WATCHDOG = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
let timer = null;
parentPort.on('message', (m) => {
  if (m.type === 'start') {
    clearTimeout(timer);
    timer = setTimeout(() => {
      Atomics.store(m.flag, 0, 1);
      fs.writeSync(2, '\\nhostile: a case has run for ' + m.ms + ' ms (hang?). Spec: ' + m.spec + '\\n');
      // A read blocked on a FIFO is released by a writer that opens and closes it.
      for (const f of m.fifos) {
        try { fs.closeSync(fs.openSync(f, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); } catch {}
      }
    }, m.ms);
  } else if (m.type === 'stop') {
    clearTimeout(timer);
  }
});
`;

/** A worker that notices a synchronous case running too long, says so on fd 2, and unblocks FIFOs. */
export class Watchdog {
  private readonly worker = new Worker(WATCHDOG, { eval: true });
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  constructor(readonly ms: number) {
    this.worker.unref();
  }
  start(spec: string, store: string): void {
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ type: 'start', ms: this.ms, spec, fifos: listFifos(store), flag: this.flag });
  }
  /** Stop the timer; true when it fired (the case hung for `ms`). */
  stop(): boolean {
    this.worker.postMessage({ type: 'stop' });
    return Atomics.load(this.flag, 0) === 1;
  }
  close(): Promise<number> {
    return this.worker.terminate();
  }
}

function listFifos(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string, depth: number) => {
    let names: string[];
    try {
      names = fs.readdirSync(p);
    } catch {
      return;
    }
    for (const n of names) {
      const c = path.join(p, n);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(c);
      } catch {
        continue;
      }
      if (st.isFIFO()) out.push(c);
      else if (st.isDirectory() && depth < 6) walk(c, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

// ---- CLI output checks -------------------------------------------------------------------------

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const STACK = /\n\s+at .+:\d+:\d+/;

/** Generic contract of one CLI run under -o json; returns the parsed stdout (or null). */
export function checkCliRun(label: string, r: CliRun, problems: string[]): unknown {
  if (r.code === null) {
    problems.push(`${label}: killed or timed out (hang?); stderr: ${r.stderr.slice(0, 300)}`);
    return null;
  }
  if (!DOCUMENTED_EXITS.has(r.code)) problems.push(`${label}: exit ${r.code} (not 0-4); stderr: ${r.stderr.slice(0, 400)}`);
  if (STACK.test(r.stderr)) problems.push(`${label}: a stack trace on stderr: ${r.stderr.slice(0, 400)}`);
  if (r.stdout.trim() === '') {
    try {
      const e = JSON.parse(r.stderr) as { error?: { code?: unknown; message?: unknown; exitCode?: unknown } };
      if (!e.error || typeof e.error.code !== 'string' || typeof e.error.message !== 'string') problems.push(`${label}: stderr JSON is not {"error": {...}}`);
      else if (e.error.exitCode !== r.code) problems.push(`${label}: error.exitCode ${String(e.error.exitCode)} but exit ${r.code}`);
      if (r.code === 0 || r.code === 1) problems.push(`${label}: exit ${r.code} with empty stdout`);
    } catch {
      problems.push(`${label}: exit ${r.code}, empty stdout and stderr is not JSON: ${r.stderr.slice(0, 300)}`);
    }
    return null;
  }
  try {
    const out = JSON.parse(r.stdout) as unknown;
    if (r.code !== 0 && r.code !== 1) problems.push(`${label}: exit ${r.code} but stdout is not empty`);
    return out;
  } catch {
    problems.push(`${label}: stdout is not JSON (exit ${r.code}): ${r.stdout.slice(0, 200)}`);
    return null;
  }
}
