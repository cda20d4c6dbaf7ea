// The next step, always (issue 13 item 2): status and verify end with the commands that
// investigate or fix what is wrong; reasons are never cut; the trial line agrees with itself.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { copyFixture, json, repoRoot, runCli, writeTree } from '../helpers.js';
import { foldWords } from '../../lib/output/wrap.js';
import { renderVerify } from '../../lib/output/verify.js';
import { palette } from '../../lib/output/streams.js';
import { nextSteps } from '../../lib/integrity/next-steps.js';

const STORES = path.join(repoRoot, 'fixtures/stores');
const X = '946d785e-998a-11e7-a8dd-42010a800006';

t.test('status: fell back → diff lkg, rollback --dry-run, verify', async (t) => {
  const dir = path.join(STORES, 'fell-back');
  const r = runCli(['--dir', dir, 'status', '--no-journal']);
  t.equal(r.code, 1);
  const tail = r.stdout.slice(r.stdout.indexOf('Flags'));
  t.equal(
    tail,
    [
      'Flags            not applied',
      "                 the kubelet's command line was not found (no running kubelet, no unit naming this store), so no flag overrides were checked; run on the node, give --root for its mounted disk, or give them with --kubelet-flags='--max-pods=110 …'",
      'Checkpoints      2',
      `Problems         1 error (see \`kubelet-ckpt --dir ${dir} verify\`)`,
      '',
      'Next steps:',
      `  kubelet-ckpt --dir ${dir} diff lkg`,
      '      the assigned config fails: what changed from last-known-good to it',
      `  kubelet-ckpt --dir ${dir} rollback --dry-run`,
      '      what making last-known-good the assigned config again would write',
      `  kubelet-ckpt --dir ${dir} verify`,
      '      every problem in detail',
      '',
    ].join('\n'),
  );
  t.match(r.stdout, `Next boot        last-known-good ${X}/119980: starts, degraded\n                 assigned checkpoint ${X}/120200 fails validation (invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive); the kubelet falls back to last-known-good ${X}/119980\n`, 'the reason is whole when piped');
  const j = json<{ nextSteps: { command: string }[]; kubeletCommandLine: string | null }>(runCli(['--dir', dir, 'status', '--no-journal', '-o', 'json']));
  t.strictSame(j.nextSteps.map((s) => s.command), [`kubelet-ckpt --dir ${dir} diff lkg`, `kubelet-ckpt --dir ${dir} rollback --dry-run`, `kubelet-ckpt --dir ${dir} verify`]);
  t.equal(j.kubeletCommandLine, null);
});

t.test('status and verify: will not start → reset all --dry-run; leftovers → clean; all well → no steps', async (t) => {
  const dir = path.join(STORES, 'corrupt');
  const s = runCli(['--dir', dir, 'status', '--no-journal']);
  t.match(s.stdout, `\nNext steps:\n  kubelet-ckpt --dir ${dir} reset all --dry-run\n      the kubelet will not start: what resetting both meta files to the local config would write\n  kubelet-ckpt --dir ${dir} verify\n      every problem in detail\n  kubelet-ckpt --dir ${dir} clean\n`);
  const v = runCli(['--dir', dir, 'verify']);
  t.equal(v.code, 1);
  t.match(v.stdout, `FAILED: 4 errors, 2 warnings, 0 info\n\nNext steps:\n  kubelet-ckpt --dir ${dir} reset all --dry-run\n`);
  t.notMatch(v.stdout, / verify\n/, 'verify does not suggest itself');
  const ok = runCli(['--dir', path.join(STORES, 'healthy'), 'verify']);
  t.equal(ok.stdout, 'ok: no problems found\n');
  t.strictSame(json(runCli(['--dir', path.join(STORES, 'healthy'), 'verify', '-o', 'json'])).nextSteps, []);
  const quoted = nextSteps("kubelet-ckpt --dir '/a b'", { nextBoot: { source: 'none', willStart: false, statusError: null }, findings: [], crashLoop: true, from: 'status' });
  t.strictSame(quoted.map((x) => x.command), ["kubelet-ckpt --dir '/a b' reset all --dry-run", "kubelet-ckpt --dir '/a b' journal"], 'a crash loop points at journal');
});

t.test('the trial line: assigned == last-known-good is not called in trial; an ended trial is not "once its trial is over"', async (t) => {
  const healthy = copyFixture('stores/healthy');
  const now = new Date();
  fs.utimesSync(path.join(healthy, 'store/meta/assigned'), now, now);
  const h = runCli(['--dir', healthy, 'status', '--no-journal']);
  t.match(h.stdout, /; already last-known-good\n/);
  t.notMatch(h.stdout, /in trial/);
  // JSON keeps the kubelet's own clock (boot-random.json's inTrial); nothing is promoted.
  const hj = json<{ trial: { inTrial: boolean }; nextBoot: { promotesToLastKnownGood: boolean } }>(runCli(['--dir', healthy, 'status', '--no-journal', '-o', 'json']));
  t.equal(hj.trial.inTrial, true, 'the kubelet\'s trial clock runs');
  t.equal(hj.nextBoot.promotesToLastKnownGood, false, 'but nothing is promoted');
  const trial = copyFixture('stores/in-trial');
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(path.join(trial, 'store/meta/assigned'), old, old);
  const ended = runCli(['--dir', trial, 'status', '--no-journal']);
  t.match(ended.stdout, /; trial ended .*\n/);
  t.match(ended.stdout, /its trial is over: a running kubelet makes it last-known-good\n/);
  t.notMatch(ended.stdout, /once its 10-minute trial is over/);
  fs.utimesSync(path.join(trial, 'store/meta/assigned'), now, now);
  const running = runCli(['--dir', trial, 'status', '--no-journal']);
  t.match(running.stdout, /; in trial until .*\n/);
  t.match(running.stdout, /becomes last-known-good once its 10-minute trial is over \(/);
});

t.test('on a terminal, long reasons fold at spaces, never inside a UID', async (t) => {
  const uid = `${X}/120200`;
  t.strictSame(foldWords(`checkpoint ${uid} fails validation: healthzPort 70000 must be between 1 and 65535`, 40), [`checkpoint`, uid, 'fails validation: healthzPort 70000 must', 'be between 1 and 65535']);
  const text = renderVerify({ ok: false, findings: [{ severity: 'error', code: 'PAYLOAD_INVALID', message: `the kubelet rejects ${uid}: maxPods -1 must not be a negative number`, path: null, ref: uid }] }, { p: palette(false), width: 50, verbose: false, quiet: false, tty: true });
  t.equal(text, `${uid}\n  error   PAYLOAD_INVALID\n          the kubelet rejects\n          ${uid}:\n          maxPods -1 must not be a negative number\nFAILED: 1 error, 0 warnings, 0 info`);
  t.notMatch(text, /…/);
});

t.test('FLAG_OVERRIDE only when the flag changes what the payload says; file names quoted', async (t) => {
  const root = copyFixture('demo');
  const env = path.join(root, 'var/lib/kubelet/kubeadm-flags.env');
  fs.writeFileSync(env, fs.readFileSync(env, 'utf8').replace('--resolv-conf', '--max-pods=110 --resolv-conf'));
  const v = json<{ findings: { code: string; ref: string; message: string }[] }>(runCli(['--root', root, 'verify', '-o', 'json']));
  const overrides = v.findings.filter((f) => f.code === 'FLAG_OVERRIDE');
  t.strictSame(overrides.map((f) => [f.ref, f.message]), [['5808539f-48e3-4e47-8ce6-c261c48fa1d9/42315', 'maxPods is 150 here, but the kubelet\'s --max-pods flag sets 110: the flag wins']], 'lkg and 41230 set maxPods: 110 too: no finding for them');
  const corrupt = runCli(['--dir', path.join(STORES, 'corrupt'), 'verify']);
  t.match(corrupt.stdout, `checkpoint ${X}/120250 has no file "kubelet" (meta/last-known-good's kubeletConfigKey); it has "other"`);
});

t.test('--kubelet-flags: the flags given apply when none can be discovered', async (t) => {
  const dir = path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config');
  const v = runCli(['--dir', dir, '--kubelet-flags=--max-pods=110 --feature-gates=DynamicKubeletConfig=true', 'verify']);
  t.equal(v.stdout, "5808539f-48e3-4e47-8ce6-c261c48fa1d9/42315\n  info    FLAG_OVERRIDE\n          maxPods is 150 here, but the kubelet's --max-pods flag sets 110: the flag wins\nok: 0 errors, 0 warnings, 1 info\n");
  t.equal(v.code, 0);
  const s = runCli(['--dir', dir, '--kubelet-flags=--max-pods=110', 'status', '--no-journal']);
  t.notMatch(s.stdout, /Flags/);
  t.equal(json<{ kubeletCommandLine: string }>(runCli(['--dir', dir, '--kubelet-flags=--max-pods=110', 'status', '--no-journal', '-o', 'json'])).kubeletCommandLine, '--kubelet-flags');
});

t.test('a prediction of "starts" says what it does not cover', async (t) => {
  const r = runCli(['--dir', path.join(STORES, 'healthy'), 'status', '--no-journal']);
  t.match(r.stdout, '\n                 (from the files: errors at run time, e.g. a cgroupDriver the runtime rejects, are not predicted)\n');
  t.notMatch(runCli(['--dir', path.join(STORES, 'corrupt'), 'status', '--no-journal']).stdout, /not predicted/);
});

t.test('the kubelet exits on its flags before it reads the store: no reset is suggested', async (t) => {
  const dir = path.join(STORES, 'healthy');
  const flags = '--kubelet-flags=--max-pods=-3 --feature-gates=DynamicKubeletConfig=true';
  const s = json<{ nextSteps: { command: string; why: string }[] }>(runCli(['--dir', dir, flags, 'status', '--no-journal', '-o', 'json']));
  t.strictSame(s.nextSteps.map((x) => x.command.split(' ').slice(-1)[0]), ['verify']);
  t.match(s.nextSteps[0]!.why, 'the kubelet exits before it reads the store');
  const v = runCli(['--dir', dir, flags, 'verify']);
  t.equal(v.code, 1);
  t.match(v.stdout, /STARTUP_FAILS|the kubelet will not start/);
  t.notMatch(v.stdout, /reset (all|last-known-good)/, 'verify suggests no reset either');
  const pure = nextSteps('k', { nextBoot: { source: 'none', willStart: false, statusError: null }, findings: [{ code: 'STARTUP_FAILS', severity: 'error' }, { code: 'LKG_UNUSABLE', severity: 'error' }], crashLoop: true, from: 'status' });
  t.strictSame(pure.map((x) => x.command), ['k verify', 'k journal']);
});

t.test('a --kubelet-flags value goes into the suggested commands as --kubelet-flags=…, which can be pasted back', async (t) => {
  // Found by review: `--kubelet-flags '--dynamic-config-dir=…'` is read back as an option of its own.
  const dir = copyFixture('stores/fell-back');
  const flags = '--dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true';
  const j = json<{ nextSteps: { command: string }[] }>(runCli(['--dir', dir, `--kubelet-flags=${flags}`, 'status', '--no-journal', '-o', 'json']));
  const cmd = j.nextSteps.find((s) => s.command.endsWith(' verify'))!.command;
  t.equal(cmd, `kubelet-ckpt --dir ${dir} '--kubelet-flags=${flags}' verify`);
  const again = runCli(['--dir', dir, `--kubelet-flags=${flags}`, 'verify', '-o', 'json']);
  t.not(again.code, 2, 'the same words run');
});

t.test('found by a fidelity review: a misspelt flag, or --version, in the unit: the kubelet exits before the store (not "starts")', async (t) => {
  for (const [extra, error] of [['--max-podz=50', 'unknown flag: --max-podz'], ['--version', '--version given: the kubelet prints its version and exits 0']]) {
    const root = copyFixture('demo');
    writeTree(root, { 'etc/default/kubelet': `KUBELET_EXTRA_ARGS=${extra}\n` });
    const s = json<{ nextBoot: { source: string; willStart: boolean; statusError: null; reason: string } }>(runCli(['--root', root, 'status', '--no-journal', '-o', 'json']));
    t.match(s.nextBoot, { source: 'none', willStart: false, statusError: null, reason: `the kubelet command line: ${error}: the kubelet exits before it reads the store` });
    const v = runCli(['--root', root, 'verify', '-o', 'json']);
    t.equal(v.code, 1, `${extra}: verify is not ok`);
    t.match(json<{ ok: boolean; findings: { code: string }[] }>(v), { ok: false, findings: [{ code: 'STARTUP_FAILS' }] });
  }
});

t.test('found by an operator review: meta/assigned undecodable, last-known-good good: rollback first, then reset all', async (t) => {
  const root = copyFixture('demo');
  const meta = path.join(root, 'var/lib/kubelet/dynamic-config/store/meta/assigned');
  fs.writeFileSync(meta, 'apiVersion: [\n');
  const r = runCli(['--root', root, 'status', '--no-journal']);
  t.equal(r.code, 1);
  const steps = r.stdout.slice(r.stdout.indexOf('Next steps:')).split('\n').filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().replace(/^kubelet-ckpt --root \S+ /, ''));
  t.same(steps.slice(0, 2), ['rollback --dry-run', 'reset all --dry-run']);
  const dry = runCli(['--root', root, 'rollback', '--dry-run']);
  t.equal(dry.code, 0, 'and the rollback it suggests would be done');
  // With last-known-good unusable as well, rollback is not offered.
  fs.writeFileSync(path.join(root, 'var/lib/kubelet/dynamic-config/store/meta/last-known-good'), 'apiVersion: [\n');
  t.notMatch(runCli(['--root', root, 'status', '--no-journal']).stdout, /rollback/);
});

t.test('found by a review: rollback is not offered when last-known-good names no checkpoint it can copy', async (t) => {
  for (const [what, edit] of [['unsafe uid', (m: string) => m.replace(/uid: .*/, 'uid: "../../x"')], ['empty uid', (m: string) => m.replace(/uid: .*/, 'uid: ""')]] as const) {
    const root = copyFixture('demo');
    const meta = path.join(root, 'var/lib/kubelet/dynamic-config/store/meta');
    fs.writeFileSync(path.join(meta, 'assigned'), 'apiVersion: [\n');
    fs.writeFileSync(path.join(meta, 'last-known-good'), edit(fs.readFileSync(path.join(meta, 'last-known-good'), 'utf8')));
    const out = runCli(['--root', root, 'status', '--no-journal']).stdout;
    t.notMatch(out, /rollback/, what);
    t.match(out, /reset all --dry-run/, what);
  }
});

t.test('found by a review of the mends: last-known-good\'s UID directory a link: no rollback offered', async (t) => {
  const U = '946d785e-998a-11e7-a8dd-42010a800006';
  const dcd = copyFixture('stores/bad-meta');
  const away = fs.mkdtempSync(path.join(path.dirname(dcd), 'away-'));
  fs.renameSync(path.join(dcd, 'store/checkpoints', U), path.join(away, U));
  fs.symlinkSync(path.join(away, U), path.join(dcd, 'store/checkpoints', U));
  const out = runCli(['--dir', dcd, 'status', '--no-journal']).stdout;
  t.notMatch(out, /rollback/);
});
