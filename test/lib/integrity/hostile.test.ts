// Property-based: random hostile stores (symlinks in and out, `..` refs, binary, huge and
// sparse files, FIFOs, deep nesting, long and non-UTF-8 names, mode-000 entries) must never
// crash, hang, read or write outside the store, and every planted defect must produce the
// finding DESIGN.md's table gives it. Each case runs the library in process (fast: every
// fs open is recorded); a subset also runs the built CLI, as nobody when we are root, where
// canaries outside the store (a FIFO with a blocked writer, atime-stamped files) catch any
// escape. Detection methods: test/fuzz-helpers.ts.
//
//   FC_SEED=n        reproduce a run (the seed is printed)     FC_PATH=... / FC_CLI_PATH=...  replay one counterexample
//   FC_RUNS=n        library cases (default 300)               FC_CLI_RUNS=n  CLI cases (default 24)
//   FC_COUNT=1       count failures instead of stopping at the first (test/bench/hostile.mjs)
//   FC_REPORT=file   write {cases, failures, ...} as JSON there
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { takeSnapshot, fsPayloadReader } from '../../../lib/store/snapshot.js';
import { verifyStore } from '../../../lib/integrity/verify.js';
import { predictNextBoot, type NextBoot } from '../../../lib/integrity/nextboot.js';
import { buildList, type ListReport } from '../../../lib/store/list.js';
import { judgeConfig } from '../../../lib/integrity/pipeline.js';
import { CkptError } from '../../../lib/errors.js';
import { cleanEnv, cliPath, isRoot, metaYaml } from '../../helpers.js';
import {
  BOOT_SOURCES, FifoTripwire, KNOWN_CODES, PAYLOAD, UID_A, Watchdog, atimeWorks, buildStore, checkCliRun, checkFindings,
  digestChanges, makeOutside, outsideOf, readCanaries, recordFs, removeCase, resetAtimes, sleepMs, specJson, storeSpecArb, treeDigest,
  type Built, type CliRun, type Expect, type FindingLike, type StoreSpec,
} from '../../fuzz-helpers.js';

const seed = Number(process.env.FC_SEED ?? 20261123);
const cliSeed = seed ^ 0x5eed;
const runs = Number(process.env.FC_RUNS ?? 300);
const cliRuns = Number(process.env.FC_CLI_RUNS ?? 24);
const countMode = process.env.FC_COUNT === '1';

/** Whether the in-process reader is root (mode 000 does not stop it); the CLI never is. */
const privileged = typeof process.geteuid === 'function' && process.geteuid() === 0;
const CLI_TIMEOUT_MS = 30_000;
const CASE_HANG_MS = 20_000;

const judge = judgeConfig({ version: '1.23', argv: [] });
const local = { path: null, judgement: null };

const outside = makeOutside();
const atimeOk = atimeWorks(outside);
const tripwire = new FifoTripwire(outside.fifo);
tripwire.arm();
const watchdog = new Watchdog(CASE_HANG_MS);
t.teardown(async () => {
  tripwire.close();
  await watchdog.close();
  removeCase(outside.base);
});
t.comment(`seed ${seed} (CLI cases: seed ${cliSeed}); ${runs} library cases, ${cliRuns} CLI cases${isRoot ? ', CLI as nobody' : ''}`);
t.comment(`escape detectors: fs calls recorded in process; FIFO tripwire (${tripwire.confirmed}); atime ${atimeOk ? 'on' : 'OFF (noatime mount: reads of regular canaries are not seen)'}; lstat digest of ${outside.base}`);

let caseNo = 0;
/** How many planted defects of each kind were checked (printed at the end). */
const checked = new Map<string, number>();
function expectFor(built: Built, priv: boolean): Expect[] {
  const e = built.expect(priv);
  for (const x of e) {
    const k = `${x.absent ? 'no ' : ''}${x.codes.join('|')}`;
    checked.set(k, (checked.get(k) ?? 0) + 1);
  }
  return e;
}
function checkedSummary(): string {
  return [...checked].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
}

/** After a case: did anything read the canaries, open the FIFO or change the tree? Resets the detectors. */
function escapes(before: Map<string, string>, problems: string[]): void {
  for (const c of digestChanges(before, treeDigest(outside.base), outside.base)) problems.push(`write: ${c}`);
  if (atimeOk) {
    const read = readCanaries(outside);
    if (read.length) {
      problems.push(`read outside the store: atime of ${read.join(', ')} moved`);
      resetAtimes(outside);
    }
  }
  if (tripwire.fired()) {
    problems.push(`opened outside the store: ${outside.fifo} (the FIFO tripwire fired)`);
    tripwire.rearm();
  }
}

function withCase(spec: StoreSpec, fn: (b: Built, problems: string[]) => void): string[] {
  const caseDir = path.join(outside.base, `case-${caseNo++}`);
  const problems: string[] = [];
  try {
    const built = buildStore(outside, caseDir, spec);
    const before = treeDigest(outside.base);
    fn(built, problems);
    escapes(before, problems);
  } finally {
    removeCase(caseDir);
  }
  return problems;
}

interface LibResult {
  findings: FindingLike[];
  ok: boolean;
  referenced: FindingLike[];
  boot: NextBoot;
  list: ListReport;
}

function bootProblems(b: NextBoot, findings: readonly FindingLike[]): string[] {
  const p: string[] = [];
  if (!BOOT_SOURCES.has(b.source)) p.push(`nextBoot.source ${b.source}`);
  if ((b.source === 'unknown') !== (b.willStart === null)) p.push(`nextBoot: source ${b.source} with willStart ${b.willStart}`);
  if (b.source === 'none' && b.willStart !== false) p.push('nextBoot: none but willStart is not false');
  if ((b.source === 'assigned' || b.source === 'last-known-good') && b.willStart !== true) p.push(`nextBoot: ${b.source} but willStart ${b.willStart}`);
  if (typeof b.reason !== 'string' || !b.reason) p.push('nextBoot: no reason');
  if (b.willStart === false && !findings.some((f) => f.code === 'NEXT_BOOT_FAILS' || f.code === 'STARTUP_FAILS')) p.push('the kubelet will not start, but there is no NEXT_BOOT_FAILS or STARTUP_FAILS');
  return p;
}

function listProblems(l: { checkpoints: { path: string; files: { name: string; size: number; sha256: string | null }[] }[] }): string[] {
  const p: string[] = [];
  for (const c of l.checkpoints) {
    if (c.path.startsWith('/') || c.path.split('/').includes('..')) p.push(`ls: path ${c.path} is not relative to the store`);
    for (const f of c.files) {
      if (f.sha256 !== null && !/^[0-9a-f]{64}$/.test(f.sha256)) p.push(`ls: ${c.path}/${f.name} sha256 ${f.sha256}`);
      if (f.size > 1024 * 1024 && f.sha256 !== null) p.push(`ls: ${c.path}/${f.name} is over 1 MiB but was hashed (read past the cap)`);
    }
  }
  return p;
}

/** One store through takeSnapshot + verifyStore + predictNextBoot + buildList, in this process. */
function libraryCase(spec: StoreSpec): string[] {
  return withCase(spec, (built, problems) => {
    let result: LibResult | null = null;
    let thrown: unknown = null;
    watchdog.start(specJson(spec), built.store);
    const { rec } = recordFs(() => {
      try {
        const snap = takeSnapshot(built.dc);
        const reader = fsPayloadReader(snap);
        const report = verifyStore(snap, { reader, judge, local });
        const referenced = verifyStore(snap, { reader, judge, local, payloads: 'referenced' }).findings;
        result = { findings: report.findings, ok: report.ok, referenced, boot: predictNextBoot(snap, { reader, judge, local }), list: buildList(snap, reader) };
      } catch (err) {
        thrown = err;
      }
    });
    if (watchdog.stop()) problems.push(`hang: the case ran for more than ${CASE_HANG_MS} ms`);
    if (thrown) {
      const expected = built.envError(privileged) && thrown instanceof CkptError && thrown.exitCode === 3;
      if (!expected) problems.push(`crash: ${thrown instanceof Error ? thrown.stack : String(thrown)}`);
    } else if (built.envError(privileged)) {
      problems.push('meta/ is unreadable, but the snapshot did not fail with an environment error (exit 3)');
    }
    if (result) {
      const r = result as LibResult;
      problems.push(...checkFindings(r.findings, expectFor(built, privileged)));
      problems.push(...checkFindings(r.referenced, []));
      if (r.ok !== !r.findings.some((f) => f.severity === 'error')) problems.push(`verify.ok ${r.ok} disagrees with the findings`);
      problems.push(...bootProblems(r.boot, r.findings), ...listProblems(r.list));
    }
    const realStore = fs.realpathSync(built.store);
    for (const p of outsideOf(realStore, rec.opened)) problems.push(`opened outside the store: ${p}`);
    for (const w of rec.wrote) problems.push(`wrote: ${w}`);
  });
}

const COMMANDS = [['status', '--no-journal'], ['ls'], ['verify'], ['show', 'assigned']] as const;
// ls exits 3 only when checkpoints/ itself cannot be listed (unreadable, or a link it will not
// follow): it says the store cannot be read rather than "no checkpoints" (checked below).
const EXITS: Record<string, number[]> = { status: [0, 1], ls: [0, 3], verify: [0, 1], show: [0, 2, 3, 4] };

/** The built CLI as an unprivileged user (helpers.asNobody's way when we are root), timed out, with room for a 1 MiB payload. */
function cli(args: string[]): CliRun {
  const argv = [process.execPath, cliPath, ...args];
  const cmd = isRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'env', '-u', 'NODE_OPTIONS', '-u', 'NODE_EXTRA_CA_CERTS', ...argv] : argv;
  const r = spawnSync(cmd[0]!, cmd.slice(1), {
    encoding: 'utf8',
    timeout: CLI_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...cleanEnv(), NO_COLOR: '1', OPENSSL_CONF: '/dev/null' },
  });
  const stderr = `${String(r.stderr ?? '')}${r.error ? `\n[${(r.error as NodeJS.ErrnoException).code ?? r.error.message}]` : ''}${r.signal ? `\n[killed by ${r.signal}]` : ''}`;
  return { code: r.status, stdout: String(r.stdout ?? ''), stderr };
}

/** One store through the built CLI (status, ls, verify, show assigned; -o json), unprivileged. */
function cliCase(spec: StoreSpec): string[] {
  return withCase(spec, (built, problems) => {
    for (const cmd of COMMANDS) {
      const label = cmd.join(' ');
      const r = cli(['--dir', built.dc, ...cmd, '-o', 'json']);
      const out = checkCliRun(label, r, problems) as Record<string, unknown> | null;
      if (r.code === null) continue;
      if (built.envError(false)) {
        if (r.code !== 3) problems.push(`${label}: meta/ is unreadable, so exit 3 is expected, got ${r.code}`);
        continue;
      }
      if (!EXITS[cmd[0]]!.includes(r.code)) problems.push(`${label}: exit ${r.code}, expected ${EXITS[cmd[0]]!.join(' or ')}; stderr: ${r.stderr.slice(0, 300)}`);
      if (cmd[0] === 'ls' && r.code === 3 && !/the store cannot be read: checkpoints\//.test(r.stderr)) problems.push(`ls: exit 3 without saying checkpoints/ cannot be read: ${r.stderr.slice(0, 300)}`);
      if (!out) continue;
      if (cmd[0] === 'verify') {
        const v = out as { ok: boolean; findings: FindingLike[] };
        if (!Array.isArray(v.findings)) {
          problems.push('verify: no findings array');
          continue;
        }
        problems.push(...checkFindings(v.findings, expectFor(built, false)).map((p) => `verify: ${p}`));
        if (v.ok !== (r.code === 0)) problems.push(`verify: ok ${v.ok} but exit ${r.code}`);
        if (v.ok !== !v.findings.some((f) => f.severity === 'error')) problems.push('verify: ok disagrees with the findings');
      }
      if (cmd[0] === 'status') {
        const s = out as { nextBoot: NextBoot; problems: FindingLike[] };
        problems.push(...checkFindings(s.problems ?? [], []).map((p) => `status: ${p}`));
        if (!s.nextBoot) problems.push('status: no nextBoot');
        else {
          problems.push(...bootProblems(s.nextBoot, [{ code: 'NEXT_BOOT_FAILS', severity: 'error', message: 'x', path: null, ref: null }]).map((p) => `status: ${p}`));
          const degraded = s.nextBoot.willStart !== true || s.nextBoot.statusError !== null;
          if ((r.code === 1) !== degraded) problems.push(`status: exit ${r.code} but next boot is ${degraded ? '' : 'not '}degraded`);
        }
      }
      if (cmd[0] === 'ls') {
        const l = out as { checkpoints: ListReport['checkpoints'] };
        if (!Array.isArray(l.checkpoints)) problems.push('ls: no checkpoints array');
        else problems.push(...listProblems(l));
      }
      if (cmd[0] === 'show' && r.code === 0) {
        const s = out as { ref?: unknown; kind?: unknown; sha256?: unknown };
        if (s.ref !== 'assigned' || typeof s.kind !== 'string' || typeof s.sha256 !== 'string') problems.push(`show: unexpected JSON ${r.stdout.slice(0, 200)}`);
      }
    }
  });
}

// ---- the properties -------------------------------------------------------------------------------

interface Tally {
  cases: number;
  failures: number;
  examples: { spec: string; problems: string[] }[];
}

/** Bench mode: run every sampled case and count failures (no shrinking, no early stop). */
function tally(specs: StoreSpec[], run: (s: StoreSpec) => string[]): Tally {
  const out: Tally = { cases: 0, failures: 0, examples: [] };
  for (const s of specs) {
    out.cases++;
    const p = run(s);
    if (p.length) {
      out.failures++;
      if (out.examples.length < 5) out.examples.push({ spec: specJson(s), problems: p.slice(0, 8) });
    }
  }
  return out;
}

function assertProperty(t: Tap.Test, name: string, n: number, s: number, pathVar: string, run: (spec: StoreSpec) => string[], shrink: boolean): void {
  const out = fc.check(
    fc.property(storeSpecArb, (spec) => {
      const p = run(spec);
      if (p.length) throw new Error(`${p.join('\n')}\nspec: ${specJson(spec)}`);
    }),
    { numRuns: n, seed: s, path: process.env[pathVar], endOnFailure: !shrink },
  );
  if (!out.failed) {
    t.pass(`${name}: ${out.numRuns} random stores: no crash, no hang, nothing read or written outside, every planted defect reported`);
    return;
  }
  const why = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  t.fail(`${name}: failed after ${out.numRuns} cases (shrunk ${out.numShrinks} times); reproduce with FC_SEED=${seed} ${pathVar}=${out.counterexamplePath}\n${why}`);
}

/** Run a command as the CLI runs (nobody when we are root). */
function asReader(argv: string[]): number | null {
  const cmd = isRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...argv] : argv;
  return spawnSync(cmd[0]!, cmd.slice(1), { stdio: 'ignore', timeout: 10_000, env: { ...cleanEnv(), OPENSSL_CONF: '/dev/null' } }).status;
}

t.test('the escape detectors see an escape', async (t) => {
  t.equal(asReader([process.execPath, '-e', `const fs = require('fs'); fs.closeSync(fs.openSync(${JSON.stringify(outside.fifo)}, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK))`]), 0, 'an unprivileged process opens the FIFO (O_NONBLOCK) and closes it');
  sleepMs(50);
  t.ok(tripwire.fired(), 'the tripwire fired');
  tripwire.rearm();
  t.notOk(tripwire.fired(), 'rearmed');
  if (atimeOk) {
    t.equal(asReader(['head', '-c', '1', outside.payloadCanary]), 0, 'an unprivileged process reads one byte of a canary');
    t.same(readCanaries(outside), [outside.payloadCanary], 'its atime moved');
    resetAtimes(outside);
    t.same(readCanaries(outside), [], 'reset');
  }
  const { rec } = recordFs(() => {
    fs.readFileSync(path.join(outside.base, 'outside', 'cp', 'kubelet'));
    fs.closeSync(fs.openSync(outside.metaCanary, 'r'));
  });
  t.same(outsideOf('/nonexistent-store', rec.opened), [outside.payloadCanary.replace('payload-canary', 'cp/kubelet'), outside.metaCanary], 'in process, both reads are recorded by real path');
  resetAtimes(outside);
  const before = treeDigest(outside.base);
  fs.writeFileSync(path.join(outside.base, 'stray'), 'x');
  t.ok(digestChanges(before, treeDigest(outside.base), outside.base).some((c) => /^created .*stray$/.test(c)), 'a new file outside is seen');
  fs.rmSync(path.join(outside.base, 'stray'));
  fs.utimesSync(outside.metaCanary, new Date('2001-01-01T00:00:00Z'), new Date());
  t.ok(digestChanges(before, treeDigest(outside.base), outside.base).some((c) => c.includes('meta-canary')), 'a touched file outside is seen');
  resetAtimes(outside);
});

t.test('hostile stores', async (t) => {
  if (countMode) {
    const lib = tally(fc.sample(storeSpecArb, { numRuns: runs, seed }), libraryCase);
    const viaCli = tally(fc.sample(storeSpecArb, { numRuns: cliRuns, seed: cliSeed }), cliCase);
    if (process.env.FC_REPORT) fs.writeFileSync(process.env.FC_REPORT, JSON.stringify({ seed, cliSeed, library: lib, cli: viaCli, checked: Object.fromEntries(checked) }));
    t.comment(`planted defects checked: ${checkedSummary()}`);
    t.equal(lib.failures + viaCli.failures, 0, `${lib.cases} library and ${viaCli.cases} CLI cases: ${lib.failures} and ${viaCli.failures} failed`);
    return;
  }
  t.test('library, in process', async (t) => {
    assertProperty(t, 'library', runs, seed, 'FC_PATH', libraryCase, true);
  });
  t.test('built CLI (status, ls, verify, show assigned; -o json)', { skip: !fs.existsSync(cliPath) && 'dist/ is not built' }, async (t) => {
    assertProperty(t, 'CLI', cliRuns, cliSeed, 'FC_CLI_PATH', cliCase, false);
  });
  t.test('summary', async (t) => {
    t.comment(`planted defects checked (library as ${privileged ? 'root' : 'non-root'}, CLI unprivileged): ${checkedSummary()}`);
  });
});
