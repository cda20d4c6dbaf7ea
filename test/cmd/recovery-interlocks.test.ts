// Interlocks with real processes and sockets: a process named kubelet using the store,
// systemctl (a fake one on PATH) for --restart-kubelet, a loopback listener as the API
// server, and a second kubelet-ckpt holding the store's lock.

import t from 'tap';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { asNobody, cliPath, isRoot, json, runCli } from '../helpers.js';
import { fakeSystemctl, kubeconfig, kubeletBin, listener, makeStore, metaFor, read, startKubelet, treeHash } from '../lib/recovery/fixtures/index.js';

const cli = (dcd: string, args: string[], env: Record<string, string> = {}) => runCli(['--dir', dcd, ...args], { env });
const LKG = metaFor('119980');

/** A store, a fake kubelet binary, and a fake systemctl whose unit runs it with `--dynamic-config-dir` on the store. */
function systemdNode(t: Tap.Test) {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'node'));
  const bin = kubeletBin(path.join(dir, 'bin'));
  const state = path.join(dir, 'state');
  fakeSystemctl(path.join(dir, 'sbin'), state, bin);
  const args = `--dynamic-config-dir=${dcd}`;
  fs.writeFileSync(path.join(state, 'args'), args);
  return { dcd, bin, state, args, env: { PATH: `${path.join(dir, 'sbin')}:${process.env.PATH}` } };
}

/** systemdNode with its unit's kubelet running (its pid where systemctl finds it). */
async function runningUnit(t: Tap.Test) {
  const n = systemdNode(t);
  const k = await startKubelet(t, n.bin, [n.args]);
  fs.writeFileSync(path.join(n.state, 'pid'), String(k.pid));
  return { ...n, k };
}

t.test('a kubelet using this store refuses (exit 4); --force writes with a warning; another store is no matter', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'node'));
  const other = makeStore(path.join(dir, 'other'));
  const bin = kubeletBin(path.join(dir, 'bin'));
  const k = await startKubelet(t, bin, ['--v=2', '--dynamic-config-dir', dcd]);
  await startKubelet(t, bin, [`--dynamic-config-dir=${other}`]);
  fs.mkdirSync(path.join(dcd, 'store/checkpoints/0000aaaa-0000-4000-8000-000000000000/1'), { recursive: true }); // something to prune
  const before = treeHash(dcd);
  for (const args of [['reset', 'all', '--yes'], ['rollback', '--yes'], ['prune', '--yes']]) {
    const r = cli(dcd, args);
    t.equal(r.code, 4, args.join(' '));
    t.match(r.stderr, new RegExp(`a kubelet using this store is running \\(pid ${k.pid}\\)`));
    t.match(r.stderr, /hint: stop it first .* --restart-kubelet .* --force/);
  }
  t.same(treeHash(dcd), before);
  const d = cli(dcd, ['rollback', '--dry-run', '-o', 'json']);
  t.equal(d.code, 4, 'a dry run exits as the real run would: refused');
  t.match(json(d), { dryRun: true, wouldRefuse: [new RegExp(`pid ${k.pid}`)] });
  t.same(treeHash(dcd), before);
  const f = cli(dcd, ['rollback', '--yes', '--force']);
  t.equal(f.code, 0, f.stderr);
  t.match(f.stderr, new RegExp(`warning: a kubelet using this store is running \\(pid ${k.pid}\\); writing anyway \\(--force\\)`));
  t.equal(read(dcd, 'assigned'), LKG);
  // The other store's kubelet does not concern this one.
  const o = cli(other, ['reset', 'assigned', '--yes']);
  t.equal(o.code, 4, 'its own kubelet refuses it');
  k.kill('SIGTERM');
  await new Promise((r) => k.once('exit', r));
  t.equal(cli(dcd, ['reset', 'all', '--yes']).code, 0, 'once the kubelet is gone');
});

t.test('prune and clean with nothing to remove while a kubelet runs: nothing to do, exit 0, as reset (found by review)', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'node')); // both checkpoints referenced, no leftovers
  const bin = kubeletBin(path.join(dir, 'bin'));
  await startKubelet(t, bin, [`--dynamic-config-dir=${dcd}`]);
  const before = treeHash(dcd);
  for (const args of [['prune', '--yes'], ['prune', '--dry-run'], ['clean', '--yes'], ['clean', '--dry-run'], ['reset', 'assigned', '--to', 'assigned', '--yes']]) {
    const r = cli(dcd, [...args, '-o', 'json']);
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    t.match(json(r), { changes: [], wouldRefuse: undefined }, args.join(' '));
  }
  t.same(treeHash(dcd), before);
  // With something to remove, the running kubelet refuses it as before.
  fs.mkdirSync(path.join(dcd, 'store/checkpoints/0000aaaa-0000-4000-8000-000000000000/1'), { recursive: true });
  t.equal(cli(dcd, ['prune', '--dry-run']).code, 4);
});

t.test('--restart-kubelet: systemctl stop, write, start, is-active reported', async (t) => {
  const { dcd, state, k, env } = await runningUnit(t);
  const r = cli(dcd, ['rollback', '--yes', '--restart-kubelet', '-o', 'json'], env);
  t.equal(r.code, 0, r.stderr);
  t.match(json(r), { dryRun: false, kubelet: { stopped: true, started: true, active: 'active' }, warnings: [] });
  t.same(fs.readFileSync(path.join(state, 'calls'), 'utf8').trim().split('\n'), ['is-active kubelet', 'stop kubelet', 'start kubelet', 'is-active kubelet']);
  t.equal(read(dcd, 'assigned'), LKG);
  const newPid = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8'));
  t.teardown(() => {
    try {
      process.kill(newPid, 'SIGTERM');
    } catch {
      /* gone */
    }
  });
  t.not(newPid, k.pid, 'a new kubelet runs');
  t.equal(fs.readFileSync(`/proc/${newPid}/comm`, 'utf8').trim(), 'kubelet');
  if (k.exitCode === null && k.signalCode === null) await new Promise((r) => k.once('exit', r));
  t.equal(k.signalCode, 'SIGTERM', 'the old one was stopped by systemctl stop');
});

t.test('--restart-kubelet whose systemctl start fails: written, reported, exit 3 (found by review: exit 0 left a node without a kubelet unnoticed)', async (t) => {
  const { dcd, state, k, env } = await runningUnit(t);
  fs.writeFileSync(path.join(state, 'fail-start'), '');
  const j = cli(dcd, ['rollback', '--yes', '--restart-kubelet', '-o', 'json'], env);
  t.equal(j.code, 3, j.stderr);
  t.match(json(j), { dryRun: false, kubelet: { stopped: true, started: false, active: 'inactive' }, warnings: [/systemctl start kubelet failed \(exit 1\): Job for kubelet.service failed/, /is-active kubelet says inactive/] });
  t.equal(read(dcd, 'assigned'), LKG, 'the change was made');
  // The text names it as an error, after the result.
  fs.writeFileSync(path.join(state, 'pid'), String(k.pid));
  const txt = cli(dcd, ['undo', '--yes', '--restart-kubelet'], env);
  t.equal(txt.code, 3, txt.stderr);
  t.match(txt.stderr, /error: the change was made, but systemctl start kubelet failed: the kubelet is not running; start it \(systemctl start kubelet\)/);
});

t.test('found by a recovery review: --restart-kubelet that stopped the unit and then refuses starts the unit again (only a unit that was running)', async (t) => {
  const { dcd, bin, state, env } = systemdNode(t);
  // A process on the store that the unit does not own: systemctl stop leaves it running.
  const k = await startKubelet(t, bin, [`--dynamic-config-dir=${dcd}`]);
  const before = treeHash(dcd);
  const calls = () => fs.readFileSync(path.join(state, 'calls'), 'utf8').trim().split('\n');
  // The unit is not running: it is stopped (a no-op) and not started afterwards (found by a later review).
  const off = cli(dcd, ['rollback', '--yes', '--restart-kubelet', '-o', 'json'], env);
  t.equal(off.code, 4, off.stderr);
  t.notMatch(off.stderr, /started again/);
  t.same(calls(), ['is-active kubelet', 'stop kubelet'], 'an inactive unit is left inactive');
  // The unit runs a kubelet too: it is stopped, the other process stays, and the unit is started again.
  fs.rmSync(path.join(state, 'calls'));
  const unit = await startKubelet(t, bin, [`--dynamic-config-dir=${dcd}`, '--v=1']);
  fs.writeFileSync(path.join(state, 'pid'), String(unit.pid));
  const r = cli(dcd, ['rollback', '--yes', '--restart-kubelet', '-o', 'json'], env);
  t.equal(r.code, 4, r.stderr);
  t.match(JSON.parse(r.stderr), { error: { code: 'KUBELET_RUNNING', message: new RegExp(`still running \\(pid ${k.pid}\\); nothing was changed; the kubelet unit was started again \\(systemctl start kubelet done, is-active: active\\)`) } });
  t.same(calls(), ['is-active kubelet', 'stop kubelet', 'start kubelet', 'is-active kubelet'], 'the unit is not left stopped');
  t.same(treeHash(dcd), before);
  const started = Number(fs.readFileSync(path.join(state, 'pid'), 'utf8'));
  t.teardown(() => {
    try {
      process.kill(started, 'SIGTERM');
    } catch {
      /* gone */
    }
  });
});

t.test('found by a recovery review: a dry run where the real run cannot take its lock exits 3 as the real run does', { skip: !isRoot && 'setpriv to nobody needs root' }, async (t) => {
  const dir = t.testdir({});
  fs.chmodSync(dir, 0o755);
  const dcd = makeStore(path.join(dir, 'node'));
  for (const args of [['rollback'], ['reset', 'all'], ['prune'], ['clean']]) {
    const dry = asNobody(['--dir', dcd, ...args, '--dry-run']);
    const real = asNobody(['--dir', dcd, ...args, '--yes']);
    t.equal(real.code, 3, `${args.join(' ')}: the real run: ${real.stderr}`);
    t.equal(dry.code, 3, `${args.join(' ')} --dry-run exits as the real run: ${dry.stdout}${dry.stderr}`);
    t.match(dry.stdout + dry.stderr, /cannot create the lock in .*\.kubelet-ckpt: permission denied/);
  }
  // Nothing to do changes nothing of that: the real run takes the lock first (found by an operator review).
  const same = makeStore(path.join(dir, 'same'), { rvs: ['1'], assigned: '1', lkg: '1' });
  for (const args of [['rollback'], ['reset', 'all']]) {
    if (args[0] === 'reset') fs.writeFileSync(path.join(same, 'store/meta/assigned'), ''), fs.writeFileSync(path.join(same, 'store/meta/last-known-good'), '');
    const dry = asNobody(['--dir', same, ...args, '--dry-run']);
    const real = asNobody(['--dir', same, ...args, '--yes']);
    t.equal(real.code, 3, `${args.join(' ')} with nothing to do: the real run: ${real.stderr}`);
    t.equal(dry.code, 3, `${args.join(' ')} --dry-run with nothing to do: ${dry.stdout}${dry.stderr}`);
    t.match(dry.stdout, /nothing to do/);
  }
});

t.test('--restart-kubelet without systemctl: exit 3 before anything', async (t) => {
  const dir = t.testdir({ empty: {} });
  const dcd = makeStore(path.join(dir, 'node'));
  const before = treeHash(dcd);
  const r = cli(dcd, ['reset', 'all', '--yes', '--restart-kubelet'], { PATH: path.join(dir, 'empty') });
  t.equal(r.code, 3);
  t.match(r.stderr, /--restart-kubelet needs systemctl, which is not on PATH; nothing was changed/);
  t.same(treeHash(dcd), before);
});

t.test('a reachable API server in the kubelet\'s kubeconfig warns; an unreachable one does not', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'node'));
  const l = await listener(t);
  const kc = kubeconfig(path.join(dir, 'kubelet.conf'), `https://127.0.0.1:${l.port}`);
  const bin = kubeletBin(path.join(dir, 'bin'));
  const k = await startKubelet(t, bin, [`--dynamic-config-dir=${dcd}`, `--kubeconfig=${kc}`]);
  const want = new RegExp(`the API server https://127\\.0\\.0\\.1:${l.port} \\(from ${kc.replace(/[.]/g, '\\.')}\\) is reachable: at its next start the kubelet re-syncs Node\\.Spec\\.ConfigSource and may undo this`);
  const r = cli(dcd, ['reset', 'all', '--dry-run', '-o', 'json']);
  t.match(json<{ warnings: string[] }>(r).warnings, [want]);
  const f = cli(dcd, ['reset', 'all', '--yes', '--force']);
  t.equal(f.code, 0);
  t.match(f.stderr, want);
  k.kill('SIGTERM');
  // No kubelet running: --kubeconfig names it (a rescue session).
  const e = cli(dcd, ['rollback', '--dry-run', '--kubeconfig', kc, '-o', 'json']);
  t.equal(json<{ changes: unknown[] }>(e).changes.length, 0, 'nothing to roll back after the reset');
  const u = cli(dcd, ['undo', '--dry-run', '--kubeconfig', kc, '-o', 'json']);
  t.match(json<{ warnings: string[] }>(u).warnings, [want]);
  await l.close();
  const gone = cli(dcd, ['undo', '--dry-run', '--kubeconfig', kc, '-o', 'json']);
  t.same(json<{ warnings: string[] }>(gone).warnings, []);
});

t.test("another kubelet-ckpt holding the store's lock refuses (exit 4); its stale lock is taken over once it is killed", async (t) => {
  const dcd = makeStore(t.testdir({}));
  const holder = spawn(process.execPath, [cliPath, '--dir', dcd, 'reset', 'all', '--yes'], { env: { ...process.env, KUBELET_CKPT_FAULT: 'after-temp-write' }, stdio: ['ignore', 'ignore', 'pipe'] });
  t.teardown(() => holder.kill('SIGKILL'));
  let err = '';
  await new Promise<void>((resolve, reject) => {
    holder.stderr!.on('data', (d) => {
      err += String(d);
      if (err.includes('fault: stopped at after-temp-write')) resolve();
    });
    holder.once('exit', () => reject(new Error(`holder exited early: ${err}`)));
  });
  const r = cli(dcd, ['rollback', '--yes']);
  t.equal(r.code, 4);
  t.match(r.stderr, new RegExp(`another kubelet-ckpt \\(pid ${holder.pid}: reset all --to local, since .*\\) holds the store's lock .*/\\.kubelet-ckpt/lock`));
  holder.kill('SIGKILL');
  await new Promise((r) => holder.once('exit', r));
  const leftovers = fs.readdirSync(path.join(dcd, 'store/meta')).filter((n) => n.startsWith('tmp_'));
  t.match(leftovers, [/^tmp_last-known-good\.kubelet-ckpt\.\d+\.[0-9a-f]{8}$/]);
  t.same([read(dcd, 'assigned'), read(dcd, 'last-known-good')], [metaFor('120200'), LKG], 'killed before its rename: nothing changed');
  const again = cli(dcd, ['reset', 'all', '--yes']);
  t.equal(again.code, 0, again.stderr);
  t.match(again.stderr, new RegExp(`warning: took over a stale lock left by pid ${holder.pid}`));
  t.match(again.stderr, /warning: removed meta\/tmp_last-known-good\.kubelet-ckpt\.\d+\.[0-9a-f]{8}, left by an interrupted kubelet-ckpt/);
  t.same(fs.readdirSync(path.join(dcd, 'store/meta')).sort(), ['assigned', 'last-known-good']);
});

t.test('a kubelet that is a shell script (/bin/sh /path/kubelet FLAGS): its flags are read past the interpreter (found by review)', async (t) => {
  const dir = t.testdir({});
  const dcd = makeStore(path.join(dir, 'node'));
  const bin = path.join(dir, 'bin', 'kubelet');
  fs.mkdirSync(path.dirname(bin));
  fs.writeFileSync(bin, '#!/bin/sh\nsleep 600 & c=$!\ntrap \'kill $c 2>/dev/null; exit 0\' TERM INT\nwait $c\n', { mode: 0o755 });
  const k = await startKubelet(t, bin, [`--dynamic-config-dir=${dcd}`, '--feature-gates=DynamicKubeletConfig=true', '--max-pods=7']);
  t.match(fs.readFileSync(`/proc/${k.pid}/cmdline`, 'latin1').split('\0')[0], /(^|\/)(ba|da)?sh$/, 'the process runs the interpreter');
  const r = cli(dcd, ['status', '--no-journal', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.notMatch(r.stdout, /unknown command/);
  t.match(json(r), { nextBoot: { source: 'assigned', willStart: true } });
  const v = cli(dcd, ['verify', '-o', 'json']);
  t.notMatch(v.stdout, /unknown command|PAYLOAD_INVALID|STARTUP_FAILS/, 'no payload is said to be one the flags cannot be applied to');
});

t.test('found by review: --restart-kubelet whose write fails and whose start fails says the kubelet is down, in the error', async (t) => {
  const { dcd, state, env } = await runningUnit(t);
  fs.writeFileSync(path.join(state, 'fail-start'), '');
  const r = cli(dcd, ['rollback', '--yes', '--restart-kubelet'], { ...env, KUBELET_CKPT_FAULT: 'enospc' });
  t.equal(r.code, 3, r.stderr);
  t.match(r.stderr, /error: cannot write meta\/assigned: no space left on device; meta\/assigned is untouched; the kubelet was stopped for it and systemctl start kubelet failed \(.*\): the kubelet is not running, start it \(systemctl start kubelet\)/);
});
