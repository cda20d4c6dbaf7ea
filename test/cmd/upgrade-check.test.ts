// upgrade-check on stores whose kubelet command line was not found (--dir alone) or whose
// next start runs nothing / something unknown: no "the same config", no exit 0 on a guess.
import t from 'tap';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { copyFixture, json, runCli } from '../helpers.js';

const M4 = 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir';
const GATE = '--feature-gates=DynamicKubeletConfig=true';
const assumedNote = (dir: string) =>
  `note: the kubelet's command line was not found: assumed --dynamic-config-dir=${dir} ${GATE} (the store exists, so the kubelet was run with the flag); give --kubelet-flags, or --root for a node disk, to judge the real one`;

function exitsAt124(dir: string, now: string, withoutFlag: string): string {
  return [
    `Assumed:     --dynamic-config-dir=${dir} ${GATE} (the kubelet's command line was not found)`,
    `Now (1.23):  runs ${now}`,
    'After 1.24:  the kubelet EXITS at start-up',
    `  ${M4}`,
    '  the 1.24 kubelet exits at start-up (exit status 1) with the assumed command line and local config',
    '',
    'Without --dynamic-config-dir (as provisioners drop it for 1.24): starts, runs local (defaults and flags)',
    `  ${withoutFlag}`,
    assumedNote(dir),
    '',
  ].join('\n');
}

t.test('command line not found: the store means --dynamic-config-dir, so a 1.24 kubelet exits (text, JSON, exit 1)', async (t) => {
  const rows: [string, string, string][] = [
    ['empty-meta', 'local (defaults and flags)', 'with the same config'],
    ['corrupt', 'none', 'nothing runs now to compare with'],
    ['bad-meta', 'none', 'nothing runs now to compare with'],
    ['hostile', 'unknown', 'what runs now is unknown'],
  ];
  for (const [store, now, withoutFlag] of rows) {
    const dir = copyFixture(`stores/${store}`);
    const r = runCli(['--dir', dir, 'upgrade-check']);
    t.equal(r.stdout, exitsAt124(dir, now, withoutFlag), `${store}: text`);
    t.equal(r.code, 1, `${store}: exit 1`);
    const j = json(runCli(['--dir', dir, 'upgrade-check', '-o', 'json']));
    t.match(j, { assumedFlags: [`--dynamic-config-dir=${dir}`, GATE], breaks: true, after: { starts: false, exitMessage: M4 }, withoutFlag: { starts: true, changes: [] } }, `${store}: JSON`);
  }
});

t.test('the same store with the flags given: no assumption, the same verdict', async (t) => {
  const dir = copyFixture('stores/empty-meta');
  const flags = `--kubelet-flags=--dynamic-config-dir=${dir} ${GATE}`;
  const r = runCli(['--dir', dir, flags, 'upgrade-check', '-o', 'json']);
  t.equal(r.code, 1);
  t.match(json(r), { assumedFlags: null, breaks: true, after: { exitMessage: M4 } });
  t.notMatch(runCli(['--dir', dir, flags, 'upgrade-check']).stdout, /Assumed|not found/);
});

t.test('a release that still reads the store: an unknown next start is neither "starts" nor "exits"', async (t) => {
  const dir = copyFixture('stores/hostile');
  const r = runCli(['--dir', dir, 'upgrade-check', '--to', '1.23']);
  t.equal(r.code, 1, 'not exit 0: nothing says it starts with the config it runs now');
  t.match(r.stdout, /^After 1\.23: {2}whether the kubelet starts is unknown$/m);
  t.notMatch(r.stdout, /the same config/);
  t.match(json(runCli(['--dir', dir, 'upgrade-check', '--to', '1.23', '-o', 'json'])), { now: { source: 'unknown' }, after: { starts: null, exitMessage: null }, breaks: false, changesConfig: true, changes: [] });
});

t.test('both payloads broken, --to a release that still reads the store: the exit message is the reason, not null', async (t) => {
  const root = copyFixture('demo');
  const ckpts = path.join(root, 'var/lib/kubelet/dynamic-config/store/checkpoints');
  for (const uid of fs.readdirSync(ckpts)) for (const rv of fs.readdirSync(path.join(ckpts, uid))) fs.writeFileSync(path.join(ckpts, uid, rv, 'kubelet'), 'garbage: [');
  const r = runCli(['--root', root, '--kubelet-version', '1.21', 'upgrade-check', '--to', '1.23']);
  t.equal(r.code, 1);
  const lines = r.stdout.split('\n');
  t.equal(lines[0], 'Now (1.21):  runs none');
  t.equal(lines[1], 'After 1.23:  the kubelet EXITS at start-up');
  t.match(lines[2], /^ {2}assigned checkpoint \S+ fails to load \(failed to decode: yaml: line 1: did not find expected node content\), and last-known-good \S+ fails too .*: the kubelet will not start$/);
  t.equal(lines[3], '  a 1.23 kubelet still reads the store and fails there');
  t.notMatch(r.stdout, /^ {2}null$/m);
  const j = json(runCli(['--root', root, '--kubelet-version', '1.21', 'upgrade-check', '--to', '1.23', '-o', 'json']));
  t.match(j, { breaks: true, after: { starts: false, exitMessage: /the kubelet will not start$/ } });
});

t.test('report: migration is not ready on an assumed command line or with nothing to compare', async (t) => {
  for (const store of ['empty-meta', 'corrupt', 'bad-meta', 'hostile']) {
    const dir = copyFixture(`stores/${store}`);
    const r = runCli(['--dir', dir, 'report', '--no-journal']);
    t.equal(r.code, 0);
    t.same(json(r).migration, { to: '1.24', ready: false, breaks: true, exitMessage: M4, revertedFields: [], error: null, assumedFlags: [`--dynamic-config-dir=${dir}`, GATE] }, store);
  }
});

t.test('a --config file that is a FIFO: upgrade-check says so and exits, as status does (found by review: it hung)', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const cfg = path.join(root, 'etc/kubernetes/kubelet-config.yaml');
  fs.rmSync(cfg);
  spawnSync('mkfifo', [cfg]);
  // Without the dockershim flags, which a 1.24 kubelet stops on before it reads the file.
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  fs.writeFileSync(env, fs.readFileSync(env, 'utf8').replace(/^KUBELET_NETWORK_PLUGIN=.*$/m, 'KUBELET_NETWORK_PLUGIN=""'));
  const r = runCli(['--root', root, '--dir', path.join(root, 'etc/kubernetes/dynamic_kubelet_dir'), 'upgrade-check', '--to', '1.24'], { timeout: 20_000 });
  t.equal(r.code, 1, `exits (not killed by the timeout): ${r.stderr}`);
  t.match(r.stdout, /it is not a regular file \(a FIFO\); kubelet-ckpt did not read it/);
});

t.test('kubespray\'s dockershim flags: 1.24 exits on --network-plugin even after the migration', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const r = runCli(['--root', root, '--dir', path.join(root, 'etc/kubernetes/dynamic_kubelet_dir'), 'upgrade-check', '--to', '1.24', '-o', 'json']);
  t.equal(r.code, 1, r.stderr);
  t.match(JSON.parse(r.stdout), { breaks: true, withoutFlag: { starts: false, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --network-plugin' } });
});

t.test('to a release that still reads the store: the store judged with that release rules, not the current one (found by review)', async (t) => {
  const dir = copyFixture('stores/healthy');
  const cps = path.join(dir, 'store/checkpoints');
  const payload = path.join(cps, fs.readdirSync(cps)[0]!, '119980', 'kubelet');
  // 1.21 drops the unknown field; 1.22 knows it and refuses it without the NodeSwap gate.
  fs.appendFileSync(payload, 'memorySwap:\n  swapBehavior: LimitedSwap\n');
  const flags = '--kubelet-flags=--dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true';
  const r = runCli(['--dir', dir, '--kubelet-version', '1.21', flags, 'upgrade-check', '--to', '1.22', '-o', 'json']);
  t.equal(r.code, 1, r.stderr);
  const j = JSON.parse(r.stdout);
  t.match(j, { from: '1.21', to: '1.22', now: { source: 'assigned' }, after: { starts: false, source: 'none', reason: 'a 1.22 kubelet still reads the store and fails there' }, breaks: true });
  t.match(j.after.exitMessage, /MemorySwap\.SwapBehavior cannot be set when NodeSwap feature flag is disabled/);
  const same = runCli(['--dir', dir, '--kubelet-version', '1.21', flags, 'upgrade-check', '--to', '1.21', '-o', 'json']);
  t.match(JSON.parse(same.stdout), { after: { starts: true, source: 'assigned' }, breaks: false }, 'to its own release: as now');
});

t.test('to a release that still reads the store: its new defaults are no change; a field it reads that the current one drops is (found by review)', async (t) => {
  const flags = '--kubelet-flags=--dynamic-config-dir=/var/lib/kubelet/dynamic-config --feature-gates=DynamicKubeletConfig=true';
  for (const [from, to] of [['1.20', '1.21'], ['1.21', '1.22'], ['1.21', '1.23'], ['1.22', '1.23']]) {
    const r = runCli(['--dir', copyFixture('stores/healthy'), '--kubelet-version', from!, flags, 'upgrade-check', '--to', to!, '-o', 'json']);
    t.equal(r.code, 0, `${from} -> ${to}: ${r.stdout.slice(0, 400)}`);
    t.match(JSON.parse(r.stdout), { after: { starts: true }, changesConfig: false, changes: [], notes: [] }, `${from} -> ${to}: the same config`);
  }
  const dir = copyFixture('stores/healthy');
  const cps = path.join(dir, 'store/checkpoints');
  fs.appendFileSync(path.join(cps, fs.readdirSync(cps)[0]!, '119980', 'kubelet'), 'memoryThrottlingFactor: 0.5\n');
  const r = runCli(['--dir', dir, '--kubelet-version', '1.21', flags, 'upgrade-check', '--to', '1.22', '-o', 'json']);
  t.equal(r.code, 1);
  t.match(JSON.parse(r.stdout), { changesConfig: true, changes: [{ path: 'memoryThrottlingFactor', op: 'added' }], notes: ['the 1.22 kubelet reads fields the 1.21 kubelet drops: the fields above take effect'] });
});
