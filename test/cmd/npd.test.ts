// node-problem-detector, through its plugin contract (test/npd/harness.ts: NPD itself is not
// packaged in Debian): the shipped config passes NPD's validation, its rules run the built
// CLI as NPD execs them, and the condition follows the node's store.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { asNobody, cliPath, copyFixture, isRoot, runCli, tempDir, writeTree } from '../helpers.js';
import { applyResult, initialConditions, loadAndValidate, parseGoDuration, runRule, type Rule } from '../npd/harness.js';
import { generateStore } from '../bench/lib/store.mjs';

const env = (() => {
  const e = { ...process.env, NO_COLOR: '1' };
  delete e.NODE_OPTIONS;
  return e;
})();

/** The shipped config for a node whose / is `root` (the store discovered under it). */
function shipped(root: string, extra: string[] = []) {
  const r = runCli(['fleet', 'manifest', 'npd', '--bundle', cliPath, '--node', process.execPath, '--host-root', root, ...extra]);
  if (r.code !== 0) throw new Error(r.stderr);
  return { text: r.stdout, l: loadAndValidate(r.stdout) };
}

/** A node root whose store is a copy of fixtures/stores/NAME. */
function nodeWith(store: string): string {
  const root = tempDir('kckpt-npd-');
  fs.mkdirSync(path.join(root, 'var/lib/kubelet/dynamic-config'), { recursive: true });
  copyFixture(`stores/${store}`, path.join(root, 'var/lib/kubelet/dynamic-config'));
  return root;
}

t.test('harness: Go durations and NPD validation messages', async (t) => {
  t.equal(parseGoDuration('5s'), 5000);
  t.equal(parseGoDuration('1m30s'), 90000);
  t.equal(parseGoDuration('300ms'), 300);
  t.equal(parseGoDuration('0'), 0);
  t.throws(() => parseGoDuration('5'), /missing unit/);
  t.throws(() => parseGoDuration('five'), /invalid duration/);
  const ok = { plugin: 'custom', source: 's', conditions: [{ type: 'C', reason: 'R', message: 'm' }], rules: [{ type: 'permanent', condition: 'C', reason: 'X', path: cliPath, timeout: '3s' }] };
  t.ok(loadAndValidate(JSON.stringify(ok)));
  const bad = (patch: object) => () => loadAndValidate(JSON.stringify({ ...ok, ...patch }));
  t.throws(bad({ plugin: 'other' }), { message: 'NPD does not support "other" plugin for now. Only support "custom"' });
  t.throws(bad({ pluginConfig: { timeout: '2s' } }), /^plugin timeout is greater than global timeout\. Rule: .*Global timeout: 2s$/);
  t.throws(bad({ rules: [{ ...ok.rules[0], path: '/nonexistent/kubelet-ckpt' }] }), /^rule path "\/nonexistent\/kubelet-ckpt" does not exist/);
  t.throws(bad({ conditions: [] }), { message: 'permanent problem C does not have preset default condition' });
  t.throws(bad({ pluginConfig: { timeout: 'soon' } }), /error in parsing global timeout "soon"/);
  t.throws(bad({ pluginConfig: { invoke_interval: '0s' } }), /global invoke interval must be greater than zero/);
});

t.test('harness: the plugin contract (process group SIGKILL on timeout, 4 KiB, TrimSpace, 80 bytes, exit mapping)', async (t) => {
  const d = tempDir('kckpt-npd-contract-');
  const script = (name: string, body: string) => {
    const p = path.join(d, name);
    fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return p;
  };
  const cfg = (rules: Rule[], timeout = '1s') => loadAndValidate(JSON.stringify({ plugin: 'custom', pluginConfig: { timeout }, source: 's', conditions: [{ type: 'C', reason: 'R', message: 'm' }], rules }));
  const rule = (p: string): Rule => ({ type: 'permanent', condition: 'C', reason: 'X', path: p });
  const big = script('big', 'i=0; while [ $i -lt 300 ]; do printf "%s" "0123456789012345678901234567890123456789"; i=$((i+1)); done; exit 1');
  let l = cfg([rule(big)]);
  let r = await runRule(l, l.cfg.rules[0]!);
  t.match(r, { status: 'NonOK', message: '01234567890123456789012345678901234567890123456789012345678901234567890123456789' });
  const spaced = script('spaced', 'printf "\\n\\t  hello  \\n\\n"; exit 0');
  l = cfg([rule(spaced)]);
  t.match(await runRule(l, l.cfg.rules[0]!), { status: 'OK', message: 'hello' });
  for (const code of [2, 3, 5]) {
    const p = script(`exit${code}`, `echo code ${code}; exit ${code}`);
    l = cfg([rule(p)]);
    t.match(await runRule(l, l.cfg.rules[0]!), { status: 'Unknown', message: `code ${code}` });
  }
  // A grandchild keeps stdout open: only the group SIGKILL at the timeout ends the run.
  const hang = script('hang', 'echo partial; sleep 30 & sleep 30');
  l = cfg([rule(hang)], '500ms');
  r = await runRule(l, l.cfg.rules[0]!);
  t.equal(r.status, 'Unknown');
  t.equal(r.timedOut, true);
  t.equal(r.message, `Timeout when running plugin ${JSON.stringify(hang)}: state - signal: killed. output - "partial"`.slice(0, 80));
  t.ok(r.ms < 5000, `killed at the timeout (${r.ms} ms)`);
  const gone = cfg([rule(cliPath)]);
  t.match(await runRule(gone, { ...gone.cfg.rules[0]!, path: path.join(d, 'missing') }), { status: 'Unknown', message: 'Error in starting plugin. Please check the error log' });
});

t.test('fleet manifest npd: NPD validation accepts it; one permanent rule, a temporary rule per reason', async (t) => {
  const { l } = shipped('/host-not-needed-for-validation');
  t.same(
    l.cfg.rules.map((r) => [r.type, r.condition ?? null, r.reason, r.args!.slice(-3)]),
    [
      ['permanent', 'KubeletDynamicConfigProblem', 'KubeletDynamicConfigProblem', ['/host-not-needed-for-validation', 'check', '--npd']],
      ['temporary', null, 'KubeletConfigFellBack', ['--npd', '--problem', 'fell-back']],
      ['temporary', null, 'KubeletConfigWillNotStart', ['--npd', '--problem', 'will-not-start']],
      ['temporary', null, 'KubeletCrashLoop', ['--npd', '--problem', 'crash-loop']],
    ],
  );
  t.same(l.cfg.conditions, [{ type: 'KubeletDynamicConfigProblem', reason: 'KubeletDynamicConfigOK', message: 'the kubelet starts on the config it was given' }]);
  t.equal(l.timeoutMs, 5000);
  // Without --node the bundle itself is the path (its #! line finds node); it must exist.
  const self = runCli(['fleet', 'manifest', 'npd', '--bundle', cliPath]);
  t.equal(JSON.parse(self.stdout).rules[0].path, cliPath);
  t.ok(loadAndValidate(self.stdout));
  t.match(runCli(['fleet', 'manifest', 'npd', '--bundle', 'relative/kubelet-ckpt']), { code: 2, stderr: /must be an absolute path/ });
  // Found by review: NPD stats a rule's path as given, from its own directory.
  t.match(runCli(['fleet', 'manifest', 'npd', '--bundle', cliPath, '--node', 'node']), { code: 2, stderr: /--node "node" must be an absolute path for npd/ });
  t.match(runCli(['fleet', 'manifest', 'npd', '--timeout', '5']), { code: 2, stderr: /is not a Go duration/ });
});

t.test('fleet manifest npd: an interval or timeout of 0 or less is a usage error (NPD: invoke_interval must be > 0)', async (t) => {
  for (const arg of ['--interval=0s', '--interval=-5s', '--interval=-0s', '--interval=0', '--timeout=0ms', '--timeout=0.5ns', '--timeout=-1h30m']) {
    const [flag, v] = arg.split('=') as [string, string];
    const r = runCli(['fleet', 'manifest', 'npd', arg]);
    t.equal(r.code, 2, arg);
    t.equal(r.stdout, '', `${arg}: nothing on stdout`);
    t.equal(r.stderr, `error: ${flag} "${v}" must be more than 0\nhint: write it as NPD does: 30s, 1m, 1m30s\n`, arg);
  }
  const j = runCli(['fleet', 'manifest', 'npd', '--interval=0s', '-o', 'json']);
  t.match(JSON.parse(j.stderr), { error: { code: 'INVALID_VALUE', exitCode: 2 } });
  const ok = runCli(['fleet', 'manifest', 'npd', '--interval', '1ns', '--timeout', '+1.5s']);
  t.equal(ok.code, 0, ok.stderr);
  t.match(JSON.parse(ok.stdout).pluginConfig, { invoke_interval: '1ns', timeout: '+1.5s' });
});

t.test('the shipped rules on real stores: condition and events follow the node', async (t) => {
  const cases: [string, string, string | null, RegExp][] = [
    ['healthy', 'False', null, /^ok: kubelet starts on assigned 946d785e\/119980$/],
    ['fell-back', 'True', 'KubeletConfigFellBack', /^fell back to lkg 946d785e\/119980: assigned failed to validate config$/],
    ['bad-meta', 'True', 'KubeletConfigWillNotStart', /^kubelet will not start: meta\/assigned cannot be decoded/],
    ['hostile', 'Unknown', null, /^unknown: /],
  ];
  for (const [store, status, eventReason, line] of cases) {
    const { l } = shipped(nodeWith(store));
    let conds = initialConditions(l);
    const events: string[] = [];
    for (const r of l.cfg.rules) {
      const res = await runRule(l, r, env);
      t.ok(Buffer.byteLength(res.message) <= 80 && /^[\x20-\x7e]*$/.test(res.message), `${store}: one ASCII line <= 80 bytes: ${res.message}`);
      t.notOk(res.timedOut, `${store}: ${r.reason} inside the timeout (${res.ms} ms)`);
      const a = applyResult(l, conds, r, res);
      conds = a.conditions;
      if (a.event) events.push(a.event.reason);
    }
    t.equal(conds[0]!.status, status, `${store}: condition ${status}`);
    if (status !== 'False') t.match(conds[0]!.message, line);
    t.same(events, eventReason ? [eventReason] : [], `${store}: events`);
    // A second round changes nothing (no flapping between rules).
    let changed = false;
    for (const r of l.cfg.rules) {
      const a = applyResult(l, conds, r, await runRule(l, r, env));
      changed ||= a.changed;
      conds = a.conditions;
    }
    t.notOk(changed, `${store}: stable on the next round`);
  }
});

t.test('no store, and a store that cannot be read: Unknown (exit 2), never a problem', async (t) => {
  const bare = tempDir('kckpt-npd-bare-');
  writeTree(bare, { 'etc/hostname': 'x\n' });
  const { l } = shipped(bare);
  const res = await runRule(l, l.cfg.rules[0]!, env);
  t.match(res, { status: 'Unknown', exitCode: 2, message: /^unknown: no dynamic kubelet config store found/ });
  if (!isRoot) return t.skip('the unreadable-store case drops privileges from root');
  const dir = copyFixture('stores/healthy');
  fs.chmodSync(path.join(dir, 'store'), 0o700);
  const r = asNobody(['--dir', dir, 'check', '--npd', '--no-journal']);
  t.equal(r.code, 2, r.stderr);
  t.match(r.stdout, /^unknown: cannot read .*: permission denied\n$/);
  t.ok(r.stdout.length <= 81);
});

t.test('a 10,000-checkpoint store: the rules finish well inside the 5 s timeout', async (t) => {
  const store = generateStore(1000, 10, 'kckpt-npd-big-');
  t.teardown(() => fs.rmSync(store, { recursive: true, force: true }));
  const root = tempDir('kckpt-npd-bigroot-');
  fs.mkdirSync(path.join(root, 'var/lib/kubelet'), { recursive: true });
  fs.renameSync(store, path.join(root, 'var/lib/kubelet/dynamic-config'));
  const { l } = shipped(root);
  const res = await runRule(l, l.cfg.rules[0]!, env);
  t.match(res, { status: 'OK', timedOut: false, message: /^ok: kubelet starts on assigned / });
  t.comment(`check --npd on 10,000 checkpoints: ${res.ms} ms`);
});

t.test('check without --npd is a usage error', async (t) => {
  t.match(runCli(['check']), { code: 2, stderr: /pass --npd/ });
});

t.test('a kubelet that exits at every start: a problem, and the line says the kubelet\'s own error', async (t) => {
  const store = copyFixture('stores/healthy');
  fs.appendFileSync(path.join(store, 'store/checkpoints/946d785e-998a-11e7-a8dd-42010a800006/119980/kubelet'), 'cpuManagerPolicy: Static\n');
  const r = runCli(['--dir', store, 'check', '--npd', '--no-journal']);
  t.equal(r.code, 1);
  t.equal(r.stdout, 'kubelet exits at every start: unknown policy: "Static"\n');
});

t.test('found by a fleet review: check --npd under --root (a live node at /host) holds no condition for a crash loop that ended long ago; on a dead node\'s disk it does, as report and status', async (t) => {
  const dir = t.testdir({ bin: {} });
  const root = path.join(dir, 'host');
  const journal = path.join(root, 'var/log/journal/0123456789abcdef0123456789abcdef/system.journal');
  fs.mkdirSync(path.dirname(journal), { recursive: true });
  // A live node's journald writes its files all the time: their mtime is now.
  fs.writeFileSync(journal, '');
  fs.cpSync(path.resolve('fixtures/stores/healthy'), path.join(root, 'var/lib/kubelet/dynamic-config'), { recursive: true });
  // The journal's kubelet lines end in a crash loop on 2021-01-01: years before now.
  fs.writeFileSync(path.join(dir, 'bin/journalctl'), `#!/bin/sh\ncat '${path.resolve('fixtures/journals/legacy-1.13.json')}'\n`, { mode: 0o755 });
  const run = (cmd: string[]) => runCli(['--root', root, ...cmd], { env: { PATH: `${path.join(dir, 'bin')}:${process.env.PATH}` } });
  const r = run(['check', '--npd']);
  t.equal(r.code, 0, r.stdout);
  t.match(r.stdout, /^ok: /);
  t.equal(run(['check', '--npd', '--problem', 'crash-loop']).code, 0, 'the temporary rule raises no event either');
  t.match(JSON.parse(run(['report', '--node-name', 'n1']).stdout).crashLoop, { checked: true, crashLoop: false });
  t.notMatch(run(['status']).stdout, /crash loop/i, 'status judges the same --root alike');
  // A dead node's disk: the journal was last written when the node stopped, in the loop.
  const lastLine = JSON.parse(fs.readFileSync(path.resolve('fixtures/journals/legacy-1.13.json'), 'utf8').trim().split('\n').at(-1)!) as { __REALTIME_TIMESTAMP: string };
  const stopped = new Date(Number(BigInt(lastLine.__REALTIME_TIMESTAMP) / 1000n) + 60_000);
  fs.utimesSync(journal, stopped, stopped);
  const dead = run(['check', '--npd']);
  t.equal(dead.code, 1, dead.stdout);
  t.match(dead.stdout, /^kubelet crash loop/);
  t.match(JSON.parse(run(['report', '--node-name', 'n1']).stdout).crashLoop, { checked: true, crashLoop: true });
  t.match(run(['status']).stdout, /crash loop/i, 'status agrees (found by review: it alone said so)');
});
