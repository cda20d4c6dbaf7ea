// Torn-state tests: the real CLI is stopped at each named step of an apply
// (KUBELET_CKPT_FAULT=<step>) and SIGKILLed there, then in a randomized loop killed at
// random moments. After every kill each meta file holds exactly its old or exactly its
// new bytes, last-known-good is never behind assigned's new value (the kubelet's order),
// checkpoints are whole or gone, anything else left over is a tmp_ entry that verify
// reports, and the next command (or undo) finishes the job.

import t from 'tap';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openSession } from '../../lib/session.js';
import { verifyStore } from '../../lib/integrity/verify.js';
import { cliPath, GOOD_PAYLOAD, runCli } from '../helpers.js';
import { UID, makeStore, metaFor, read, treeHash } from '../lib/recovery/fixtures/index.js';

t.setTimeout(15 * 60 * 1000);

const A = metaFor('120200');
const L = metaFor('119980');
const RUNS = Number(process.env.KUBELET_CKPT_SIGKILL_RUNS ?? 200);

interface Killed {
  /** The step reached (null: the process finished or was killed before any marker). */
  reached: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Run the CLI with a fault spec; SIGKILL it `afterMs` after `marker` shows on stderr (never, when null). */
function runAndKill(dcd: string, args: string[], fault: string, marker: string | null, afterMs = 0, hardLimitMs = 30_000): Promise<Killed> {
  return new Promise((resolve) => {
    // env -u: without tap's process-info hook (NODE_OPTIONS) the CLI starts as it would for a user, faster.
    const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, cliPath, '--dir', dcd, ...args], { env: { ...process.env, NO_COLOR: '1', KUBELET_CKPT_FAULT: fault }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let reached = false;
    const limit = setTimeout(() => child.kill('SIGKILL'), hardLimitMs);
    child.stderr!.on('data', (d) => {
      stderr += String(d);
      if (!reached && marker !== null && stderr.includes(marker)) {
        reached = true;
        setTimeout(() => child.kill('SIGKILL'), afterMs);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      resolve({ reached, code, signal, stderr });
    });
  });
}

function metaLeftovers(dcd: string): string[] {
  return fs.readdirSync(path.join(dcd, 'store/meta')).filter((n) => n !== 'assigned' && n !== 'last-known-good');
}

/** Check the store after a kill; returns 'old' | 'half' | 'new' for the meta pair. */
function checkMeta(t: Checks, dcd: string, label: string): 'old' | 'half' | 'new' {
  const a = read(dcd, 'assigned');
  const l = read(dcd, 'last-known-good');
  t.ok(a === A || a === '', `${label}: assigned is exactly old or new`);
  t.ok(l === L || l === '', `${label}: last-known-good is exactly old or new`);
  t.notOk(a === '' && l === L, `${label}: assigned never ahead of last-known-good`);
  const left = metaLeftovers(dcd);
  for (const n of left) t.match(n, /^tmp_(assigned|last-known-good)\.kubelet-ckpt\.\d+\.[0-9a-f]{8}$/, `${label}: only our temp files are left in meta/`);
  reported(t, dcd, left.map((n) => `meta/${n}`), label);
  return a === A && l === L ? 'old' : a === '' && l === '' ? 'new' : 'half';
}

/** verify reports every leftover (TMP_LEFTOVER) and no error that was not there before. */
function reported(t: Checks, dcd: string, leftovers: string[], label: string): void {
  const s = openSession({ dir: dcd, kubeletVersion: '1.23' });
  const v = verifyStore(s.snap, { reader: s.reader, judge: s.judge, local: s.local });
  const tmp = v.findings.filter((f) => f.code === 'TMP_LEFTOVER').map((f) => f.path);
  t.same(tmp.sort(), [...leftovers].sort(), `${label}: verify reports exactly the leftovers`);
  t.same(v.findings.filter((f) => f.severity === 'error').map((f) => f.code), [], `${label}: no errors`);
}

/** The assertions the checks use: `t` itself, or a sink that only reports failures. */
interface Checks {
  ok(v: unknown, m: string): unknown;
  notOk(v: unknown, m: string): unknown;
  equal(a: unknown, b: unknown, m: string): unknown;
  same(a: unknown, b: unknown, m: string): unknown;
  match(a: unknown, re: RegExp, m: string): unknown;
}

const RESET_POINTS: [string, 'old' | 'half' | 'new', boolean][] = [
  // fault, expected meta state, whether a whole backup exists
  ['begin', 'old', false],
  ['locked', 'old', false],
  ['backup-written', 'old', false],
  ['backup-renamed', 'old', true],
  ['audit-begin', 'old', true],
  ['temp-created', 'old', true],
  ['after-temp-write', 'old', true],
  ['after-rename', 'half', true],
  ['dir-synced', 'half', true],
  ['between-files', 'half', true],
  ['temp-created#2', 'half', true],
  ['after-temp-write#2', 'half', true],
  ['after-rename#2', 'new', true],
  ['dir-synced#2', 'new', true],
  ['audit-done', 'new', true],
];

t.test('reset all: SIGKILL at every step', async (t) => {
  for (const [fault, want, backup] of RESET_POINTS) {
    await t.test(fault, async (t) => {
      const dcd = makeStore(t.testdir({}));
      const k = await runAndKill(dcd, ['reset', 'all', '--yes'], fault, `fault: stopped at ${fault.includes('#') ? fault : `${fault}#1`}`);
      t.ok(k.reached, `stopped at ${fault}`);
      t.equal(k.signal, 'SIGKILL');
      t.equal(checkMeta(t, dcd, fault), want);
      const backups = fs.existsSync(path.join(dcd, '.kubelet-ckpt/backups')) ? fs.readdirSync(path.join(dcd, '.kubelet-ckpt/backups')).filter((n) => /^\d{8}T/.test(n)) : [];
      t.equal(backups.length, backup ? 1 : 0, 'a backup is whole or absent');
      if (backup) {
        // undo with the crashed command's backup restores the original exactly
        const u = runCli(['--dir', dcd, 'undo', '--yes']);
        t.equal(u.code, 0, u.stderr);
        // undo only takes the lock (and so only then finds the stale one) when it has something to write
        if (want !== 'old') t.match(u.stderr, /took over a stale lock left by pid/);
        t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], [A, L], 'undo restored the old bytes');
      }
      const again = runCli(['--dir', dcd, 'reset', 'all', '--yes']);
      t.equal(again.code, 0, again.stderr);
      t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good'), metaLeftovers(dcd)], ['', '', []], 'the next run completes and cleans up');
      t.same(fs.readdirSync(path.join(dcd, '.kubelet-ckpt/backups')).filter((n) => n.startsWith('tmp_')), [], 'no partial backup left');
    });
  }
});

t.test('rollback and undo: SIGKILL between temp write and rename, and after the rename', async (t) => {
  for (const fault of ['after-temp-write', 'after-rename']) {
    await t.test(`rollback at ${fault}`, async (t) => {
      const dcd = makeStore(t.testdir({}));
      await runAndKill(dcd, ['rollback', '--yes'], fault, `stopped at ${fault}#1`);
      const a = read(dcd, 'assigned');
      t.equal(a, fault === 'after-rename' ? L : A);
      t.equal(read(dcd, 'last-known-good'), L);
      reported(t, dcd, metaLeftovers(dcd).map((n) => `meta/${n}`), fault);
    });
    await t.test(`undo at ${fault}#2`, async (t) => {
      const dcd = makeStore(t.testdir({}));
      t.equal(runCli(['--dir', dcd, 'reset', 'all', '--yes']).code, 0);
      const k = await runAndKill(dcd, ['undo', '--yes'], `${fault}#2`, `stopped at ${fault}#2`);
      t.ok(k.reached, k.stderr);
      t.equal(read(dcd, 'last-known-good'), L, 'last-known-good restored first');
      t.equal(read(dcd, 'assigned'), fault === 'after-rename' ? A : '');
      reported(t, dcd, metaLeftovers(dcd).map((n) => `meta/${n}`), fault);
    });
  }
});

function checkPrune(t: Checks, dcd: string, label: string): number {
  const dir = path.join(dcd, 'store/checkpoints', UID);
  const names = fs.readdirSync(dir);
  let gone = 0;
  for (const rv of ['1', '2', '3']) {
    if (!names.includes(rv)) {
      gone++;
      continue;
    }
    t.same(fs.readdirSync(path.join(dir, rv)), ['kubelet'], `${label}: ${rv} is whole`);
    t.equal(fs.readFileSync(path.join(dir, rv, 'kubelet'), 'utf8'), GOOD_PAYLOAD, `${label}: ${rv} has its bytes`);
  }
  for (const rv of ['4', '5']) t.equal(fs.readFileSync(path.join(dir, rv, 'kubelet'), 'utf8'), GOOD_PAYLOAD, `${label}: referenced ${rv} untouched`);
  const aside = names.filter((n) => !/^[0-9]$/.test(n));
  for (const n of aside) {
    t.match(n, /^tmp_[123]\.kubelet-ckpt-prune\.[0-9a-f]{8}$/, `${label}: only our moved-aside directories are left`);
    for (const f of fs.readdirSync(path.join(dir, n))) t.equal(`${f}:${fs.readFileSync(path.join(dir, n, f), 'utf8') === GOOD_PAYLOAD}`, 'kubelet:true', `${label}: a moved-aside directory holds whole files`);
  }
  reported(t, dcd, aside.map((n) => `checkpoints/${UID}/${n}`), label);
  return gone;
}

t.test('prune: SIGKILL after moving aside and after removing', async (t) => {
  // `gone`: resourceVersions no longer under their own name (moved aside or removed)
  for (const [fault, gone] of [['moved-aside', 1], ['removed', 1], ['moved-aside#3', 3]] as const) {
    await t.test(fault, async (t) => {
      const dcd = makeStore(t.testdir({}), { rvs: ['1', '2', '3', '4', '5'], assigned: '5', lkg: '4' });
      const k = await runAndKill(dcd, ['prune', '--yes'], fault, `stopped at ${fault.includes('#') ? fault : `${fault}#1`}`);
      t.ok(k.reached);
      t.equal(checkPrune(t, dcd, fault), gone);
      const again = runCli(['--dir', dcd, 'prune', '--yes']);
      t.equal(again.code, 0, again.stderr);
      t.same(fs.readdirSync(path.join(dcd, 'store/checkpoints', UID)).sort(), ['4', '5'], 'the next prune finishes and removes the leftover');
    });
  }
});

t.test(`randomized SIGKILL loop: ${RUNS} runs`, async (t) => {
  const base = t.testdir({});
  const seen = { old: 0, half: 0, new: 0, pruned: 0, prunesKilled: 0 };
  let failures = 0;
  const one = async (i: number) => {
    const prune = i % 4 === 3;
    const dcd = prune ? makeStore(path.join(base, `r${i}`), { rvs: ['1', '2', '3', '4', '5'], assigned: '5', lkg: '4' }) : makeStore(path.join(base, `r${i}`));
    const before = prune ? null : treeHash(path.join(dcd, 'store/checkpoints'));
    const args = prune ? ['prune', '--yes'] : ['reset', 'all', '--yes'];
    // Kill at a random moment of the apply (steps slowed to 2 ms each), now and then before it.
    const early = Math.random() < 0.1;
    const k = await runAndKill(dcd, args, 'delay:2', early ? 'kubelet-ckpt' : 'apply begins', Math.floor(Math.random() * (early ? 5 : 45)));
    const label = `run ${i} (${prune ? 'prune' : 'reset'}, ${k.signal ?? `exit ${k.code}`})`;
    const before2 = failures;
    const check = {
      ok: (v: unknown, m: string) => (v ? undefined : (failures++, t.fail(`${label}: ${m}`))),
    };
    try {
      if (prune) {
        const gone = checkPrune(quiet(check), dcd, label);
        seen.pruned += gone;
        if (k.signal) seen.prunesKilled++;
      } else {
        seen[checkMeta(quiet(check), dcd, label)]++;
        quiet(check).same(treeHash(path.join(dcd, 'store/checkpoints')), before, 'checkpoints untouched');
      }
      if (i % 10 === 0) {
        const again = runCli(['--dir', dcd, ...args]);
        check.ok(again.code === 0, `re-run exits 0 (${again.stderr})`);
        if (!prune) check.ok(read(dcd, 'assigned') === '' && read(dcd, 'last-known-good') === '' && metaLeftovers(dcd).length === 0, 're-run completes and cleans up');
      }
    } catch (err) {
      failures++;
      t.fail(`${label}: ${(err as Error).message}`);
    }
    if (failures === before2) fs.rmSync(dcd, { recursive: true, force: true });
  };
  let next = 0;
  const worker = async () => {
    while (next < RUNS) await one(next++);
  };
  await Promise.all([worker(), worker()]);
  t.comment(`meta states after kill: ${JSON.stringify(seen)}`);
  t.equal(failures, 0, `no torn state in ${RUNS} runs`);
  t.ok(seen.old > 0 && seen.new > 0, 'kills landed before and after the writes');
});

/** An assertion sink that only reports failures (the loop makes thousands of checks). */
function quiet(check: { ok: (v: unknown, m: string) => void }): Checks {
  return {
    ok: (v: unknown, m: string) => check.ok(v, m),
    notOk: (v: unknown, m: string) => check.ok(!v, m),
    equal: (a: unknown, b: unknown, m: string) => check.ok(a === b, `${m}: ${JSON.stringify(a)} !== ${JSON.stringify(b)}`),
    same: (a: unknown, b: unknown, m: string) => check.ok(JSON.stringify(a) === JSON.stringify(b), `${m}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`),
    match: (a: unknown, re: RegExp, m: string) => check.ok(re.test(String(a)), `${m}: ${String(a)}`),
  };
}
