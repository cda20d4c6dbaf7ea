import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { discover, requireStoreDir } from '../../../lib/store/discover.js';
import { expandExecStart, parseEnvFile, splitWords } from '../../../lib/store/systemd.js';
import { resolveInRoot } from '../../../lib/store/rooted.js';
import { flagValue, listKubeletProcesses } from '../../../lib/store/proc.js';
import { writeTree } from '../../helpers.js';

/** A kernel thread's flag in /proc/PID/stat. */
const PF_KTHREAD = 0x00200000;
/** /proc/PID/stat as the kernel writes it, for a process named `comm` (a comm file's newline dropped). */
const procStat = (comm: string, flags = 0x00400100): string => `1 (${comm.replace(/\n$/, '')}) S 1 1 1 0 -1 ${flags} 120 0 0 0 5 3 0 0 20 0 1 0 100 1000000 200 18446744073709551615\n`;

const KUBEADM_DROPIN = '[Service]\nEnvironment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"\nEnvironment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"\nEnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env\nEnvironmentFile=-/etc/default/kubelet\nExecStart=\nExecStart=/usr/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS\n';

t.test('word splitting and env files', async (t) => {
  t.same(splitWords(`a "b c" 'd e' f\\ g`), ['a', 'b c', 'd e', 'f g']);
  // `export Y=…` is no assignment to systemd ("invalid variable name", ignored; found by review).
  t.same([...parseEnvFile('# comment\nKUBELET_KUBEADM_ARGS="--a=b --c=d"\nX=1\nexport Y=\'two words\'\nZ=\'two words\'\n')], [['KUBELET_KUBEADM_ARGS', '--a=b --c=d'], ['X', '1'], ['Z', 'two words']]);
  t.same([...parseEnvFile('KUBELET_KUBEADM_ARGS=--a=b --c=d\n')], [['KUBELET_KUBEADM_ARGS', '--a=b --c=d']], 'kubeadm 1.11-1.13 wrote it unquoted');
  const env = new Map([['A', '--x=1 --y=2'], ['B', 'v']]);
  t.same(expandExecStart('-/usr/bin/kubelet $A --z=${B}w $UNSET', env), ['/usr/bin/kubelet', '--x=1', '--y=2', '--z=vw']);
});

t.test('a unit: comment lines are skipped, also inside a continuation, which goes on (systemd.syntax(7))', async (t) => {
  const root = t.testdir();
  writeTree(root, {
    'etc/systemd/system/kubelet.service': [
      '[Service]',
      '# a comment ending in a backslash does not continue \\',
      'ExecStart=/usr/bin/kubelet \\',
      '  --config=/etc/k.yaml \\',
      '#  --config=/old.yaml \\',
      '  ; a comment without a backslash: the continuation goes on',
      '  --dynamic-config-dir=/var/lib/kubelet/dyn \\',
      '# last',
      '  --v=2',
      'Restart=always',
      '',
    ].join('\n'),
    'var/lib/kubelet/dyn/store/meta': null,
  });
  const d = discover({ root });
  t.same(d.commandLine?.argv, ['/usr/bin/kubelet', '--config=/etc/k.yaml', '--dynamic-config-dir=/var/lib/kubelet/dyn', '--v=2']);
  t.equal(d.via, "--dynamic-config-dir in the kubelet's systemd unit");
});

t.test('flagValue: pflag forms, last wins', async (t) => {
  t.equal(flagValue(['kubelet', '--dynamic-config-dir=/a', '--dynamic-config-dir', '/b'], 'dynamic-config-dir'), '/b');
  t.equal(flagValue(['kubelet', '-dynamic-config-dir=/c'], 'dynamic-config-dir'), '/c');
  t.equal(flagValue(['kubelet', '--config=/x'], 'dynamic-config-dir'), null);
});

t.test('--root: kubeadm drop-in + kubeadm-flags.env (quoted and unquoted)', async (t) => {
  for (const flags of ['KUBELET_KUBEADM_ARGS="--dynamic-config-dir=/var/lib/kubelet/dyn --cgroup-driver=systemd"\n', 'KUBELET_KUBEADM_ARGS=--dynamic-config-dir=/var/lib/kubelet/dyn --cgroup-driver=systemd\n']) {
    const root = t.testdir();
    writeTree(root, {
      'lib/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet\n',
      'etc/systemd/system/kubelet.service.d/10-kubeadm.conf': KUBEADM_DROPIN,
      'var/lib/kubelet/kubeadm-flags.env': flags,
      'var/lib/kubelet/dyn/store/meta': null,
    });
    const d = discover({ root });
    t.equal(d.dir, path.join(root, 'var/lib/kubelet/dyn'));
    t.equal(d.configFile, path.join(root, 'var/lib/kubelet/config.yaml'));
    t.match(d.commandLine?.argv, ['/usr/bin/kubelet', '--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf', '--kubeconfig=/etc/kubernetes/kubelet.conf', '--config=/var/lib/kubelet/config.yaml', '--dynamic-config-dir=/var/lib/kubelet/dyn', '--cgroup-driver=systemd']);
    t.match(d.steps.join('\n'), /EnvironmentFile \/var\/lib\/kubelet\/kubeadm-flags.env/);
  }
});

t.test('--root: absolute symlinks on the node disk resolve inside it', async (t) => {
  const root = t.testdir();
  writeTree(root, { 'real/kubelet.service.d/10.conf': '[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir=/data/dc\n', 'data/dc/store/meta': null });
  fs.mkdirSync(path.join(root, 'etc/systemd/system'), { recursive: true });
  fs.symlinkSync('/real/kubelet.service.d', path.join(root, 'etc/systemd/system/kubelet.service.d'));
  t.equal(resolveInRoot(root, '/etc/systemd/system/kubelet.service.d/10.conf'), path.join(root, 'real/kubelet.service.d/10.conf'));
  t.equal(discover({ root }).dir, path.join(root, 'data/dc'));
  fs.symlinkSync('/../../../../etc', path.join(root, 'up'));
  t.equal(resolveInRoot(root, '/up/passwd'), path.join(root, 'etc/passwd'), '.. cannot climb above the root');
});

t.test('--root: env files without a unit; the default dir; nothing found', async (t) => {
  const r1 = t.testdir();
  writeTree(r1, { 'etc/sysconfig/kubelet': 'KUBELET_EXTRA_ARGS=--dynamic-config-dir=/srv/dc\n' });
  t.equal(discover({ root: r1 }).dir, path.join(r1, 'srv/dc'));
  const r2 = t.testdir();
  writeTree(r2, { 'var/lib/kubelet/dynamic-config/store/meta': null });
  t.match(discover({ root: r2 }), { dir: path.join(r2, 'var/lib/kubelet/dynamic-config'), via: /default/ });
  const r3 = t.testdir({ etc: {} });
  const d = discover({ root: r3 });
  t.equal(d.dir, null);
  t.throws(() => requireStoreDir(d), { exitCode: 3, message: /tried:[\s\S]*running kubelet: skipped[\s\S]*systemd[\s\S]*default/ });
});

t.test('a store at the default directory and a kubelet command line without the flag: the kubelet does not read it', async (t) => {
  // Found by review: status named the assigned checkpoint as the next boot; server.go starts the
  // controller only for a non-empty --dynamic-config-dir (the node had left Dynamic Kubelet Config).
  const root = t.testdir();
  writeTree(root, {
    'etc/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --config=/var/lib/kubelet/config.yaml\n',
    'var/lib/kubelet/dynamic-config/store/meta': null,
  });
  const d = discover({ root });
  t.equal(d.dir, path.join(root, 'var/lib/kubelet/dynamic-config'), 'the store is still found (to look at it)');
  t.match(d.storeUnused, /the kubelet's command line \(systemd unit\) has no --dynamic-config-dir, so the kubelet does not read this store/);
  t.match(discover({ root: t.testdir({ 'etc': { systemd: { system: { 'kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir=\n' } } }, var: { lib: { kubelet: { 'dynamic-config': { store: { meta: {} } } } } } }) }).storeUnused, /has no --dynamic-config-dir/, 'an empty one is none');
  t.match(discover({ root, dir: path.join(root, 'var/lib/kubelet/dynamic-config') }).storeUnused, /has no --dynamic-config-dir/, '--dir naming that store: the same kubelet, the same answer');
  t.notOk(discover({ root, dir: t.testdir() }).storeUnused, '--dir elsewhere: no command line applies');
  t.equal(discover({ root, flags: '--max-pods=10' }).storeUnused, null, '--kubelet-flags: flags given by hand may leave the flag out');
  const withFlag = t.testdir();
  writeTree(withFlag, { 'etc/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir=/var/lib/kubelet/dynamic-config\n', 'var/lib/kubelet/dynamic-config/store/meta': null });
  t.equal(discover({ root: withFlag }).storeUnused, null, 'the flag names it');
});

t.test('the flag names a directory with no store/ in it: the kubelet does not read what is there', async (t) => {
  // Found by review: meta/ and checkpoints/ right under the flag's directory were read as the
  // store and its assigned checkpoint named as the next boot; the kubelet uses <dir>/store.
  for (const flagDir of ['/var/lib/kubelet/dynamic-config', '/var/lib/kubelet/dynamic-config/store']) {
    const root = t.testdir();
    writeTree(root, { 'etc/systemd/system/kubelet.service': `[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir=${flagDir}\n`, [`${flagDir.slice(1)}/meta`]: null });
    t.match(discover({ root }).storeUnused, new RegExp(`--dynamic-config-dir ${flagDir} holds no store/ directory`), flagDir);
    t.equal(discover({ root, dir: path.join(root, flagDir.slice(1)), flags: `--dynamic-config-dir=${flagDir}` }).storeUnused, null, `${flagDir}: --dir with flags given by hand names the store`);
    writeTree(root, { [`${flagDir.slice(1)}/store/meta`]: null });
    t.equal(discover({ root }).storeUnused, null, `${flagDir} with store/ in it`);
  }
  // Not claimed when it cannot be looked at: a user who cannot search the flag's directory.
  if (process.getuid?.() === 0) {
    const root = t.testdir();
    writeTree(root, { 'etc/systemd/system/kubelet.service': '[Service]\nExecStart=/usr/bin/kubelet --dynamic-config-dir=/var/lib/kubelet/dynamic-config\n', 'var/lib/kubelet/dynamic-config/store/meta': null });
    fs.chmodSync(path.join(root, 'var/lib/kubelet/dynamic-config'), 0o700);
    const out = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...process.execArgv, '-e', `
      const { discover } = await import(${JSON.stringify(new URL('../../../lib/store/discover.ts', import.meta.url).href)});
      console.log(JSON.stringify(discover({ root: ${JSON.stringify(root)} }).storeUnused ?? null));`], { encoding: 'utf8', env: { ...process.env, OPENSSL_CONF: '/dev/null' } });
    t.equal(JSON.parse(out), null, 'as nobody, where store/ cannot be looked at');
  }
});

t.test('a running kubelet: /proc cmdline with a relative --dynamic-config-dir', async (t) => {
  const proc = t.testdir({ '4242': { stat: procStat('kubelet\n'), cmdline: 'kubelet\0--dynamic-config-dir=dc\0--config=/etc/k.yaml\0' }, '77': { stat: procStat('bash\n'), cmdline: 'bash\0' }, self: {} });
  fs.symlinkSync('/srv/node', path.join(proc, '4242', 'cwd'));
  const d = discover({ procRoot: proc });
  t.equal(d.dir, '/srv/node/dc');
  t.match(d.via, /running kubelet \(pid 4242\)/);
  t.equal(d.configFile, '/etc/k.yaml');
});

t.test('a running kubelet under another name: its exe is kubelet; unreadable exe links are skipped', async (t) => {
  const proc = t.testdir({
    bin: { kubelet: '', bash: '' },
    '31': { stat: procStat('k8s-node\n'), cmdline: 'k8s-node\0--dynamic-config-dir=/var/dc\0' },
    '32': { stat: procStat('bash\n'), cmdline: 'bash\0--dynamic-config-dir=/nope\0' },
    '33': { stat: procStat('kworker/0:1\n'), cmdline: '' },
  });
  fs.symlinkSync(path.join(proc, 'bin/kubelet'), path.join(proc, '31', 'exe'));
  fs.symlinkSync(path.join(proc, 'bin/bash'), path.join(proc, '32', 'exe'));
  fs.symlinkSync(path.join(proc, 'missing'), path.join(proc, '33', 'exe'));
  const procs = listKubeletProcesses(proc);
  t.same(procs.map((p) => p.pid), [31]);
  t.equal(discover({ procRoot: proc }).dir, '/var/dc');
});

t.test('--dir: only a kubelet running on that store supplies flags and --config', async (t) => {
  const base = t.testdir({
    proc: {
      '100': { stat: procStat('kubelet\n'), cmdline: 'kubelet\0--dynamic-config-dir=/other/dc\0--config=/etc/other.yaml\0--max-pods=10\0' },
      '200': { stat: procStat('kubelet\n'), cmdline: 'kubelet\0--dynamic-config-dir=DC\0--config=/etc/mine.yaml\0' },
    },
    dc: { store: { meta: {} } },
  });
  const dc = path.join(base, 'dc');
  fs.writeFileSync(path.join(base, 'proc/200/cmdline'), `kubelet\0--dynamic-config-dir=${dc}\0--config=/etc/mine.yaml\0`);
  const mine = discover({ procRoot: path.join(base, 'proc'), dir: dc });
  t.match(mine, { dir: dc, via: '--dir', commandLine: { pid: 200 }, configFile: '/etc/mine.yaml' });
  const viaStore = discover({ procRoot: path.join(base, 'proc'), dir: path.join(dc, 'store') });
  t.match(viaStore.commandLine, { pid: 200 }, 'the store directory itself names the same store');
  fs.rmSync(path.join(base, 'proc/200'), { recursive: true });
  const other = discover({ procRoot: path.join(base, 'proc'), dir: dc });
  t.match(other, { dir: dc, commandLine: null, configFile: null });
  t.match(other.steps.join('\n'), /no kubelet command line found names this store.*flags and its --config file are not applied/);
});

t.test('the comm name (from /proc/PID/stat): blanks around it ignored, anything else, or a kernel thread, is not a kubelet', async (t) => {
  const kubeletArgs = (name: string) => `${name}\0--dynamic-config-dir=/var/dc\0`;
  const proc = t.testdir({
    '40': { stat: procStat('kubelet\n'), cmdline: kubeletArgs('kubelet') },
    '41': { stat: procStat('kubelet'), cmdline: kubeletArgs('kubelet') },
    '42': { stat: procStat(' kubelet \r\n'), cmdline: kubeletArgs('kubelet') },
    '43': { stat: procStat('kubelet-1.22\n'), cmdline: kubeletArgs('kubelet-1.22') },
    '44': { stat: procStat('kubele\n'), cmdline: kubeletArgs('kubele') },
    '45': { stat: procStat('\n'), cmdline: kubeletArgs('x') },
    '46': { stat: procStat(`kubelet${' '.repeat(70)}\n`), cmdline: kubeletArgs('kubelet') },
    '47': { stat: { nested: 'a directory, not a file' }, cmdline: kubeletArgs('kubelet') },
    '48': { cmdline: kubeletArgs('kubelet') },
    '49': { stat: procStat('KUBELET\n'), cmdline: kubeletArgs('KUBELET') },
    '50': { stat: procStat('kubelet', PF_KTHREAD), cmdline: kubeletArgs('kubelet') },
    '51': { stat: procStat('kube) S 1 (let'), cmdline: kubeletArgs('kubelet') },
    '52': { stat: '52 (kubelet', cmdline: kubeletArgs('kubelet') },
    '53': { stat: procStat('kubelet').replace('kubelet', 'kubelet) S 1 1 1 0 -1 4194560 1 2 3'), cmdline: kubeletArgs('kubelet') },
  });
  // 46 is longer than any process name can be: not read as a kubelet even if its blanks were trimmed.
  t.same(listKubeletProcesses(proc).map((p) => p.pid), [40, 41, 42]);
  t.same(listKubeletProcesses(path.join(proc, 'missing')), [], 'no /proc at all: no processes');
});

t.test('found by a migrate review: an environment file\'s quoted value may span lines (systemd.exec(5)), its flags all read', async (t) => {
  const env = parseEnvFile('KUBELET_EXTRA_ARGS="--node-ip=10.0.0.12\n  --dynamic-config-dir=/var/lib/kubelet/dynamic-config\n# not a comment here\n  --feature-gates=DynamicKubeletConfig=true"\nNEXT=1\nS=\'a\nb\'\n');
  t.same(expandExecStart('/usr/bin/kubelet $KUBELET_EXTRA_ARGS', env), ['/usr/bin/kubelet', '--node-ip=10.0.0.12', '--dynamic-config-dir=/var/lib/kubelet/dynamic-config', '#', 'not', 'a', 'comment', 'here', '--feature-gates=DynamicKubeletConfig=true']);
  t.equal(env.get('NEXT'), '1', 'the next assignment is its own');
  t.equal(env.get('S'), 'a\nb', 'single quotes keep the newline too');
  t.same([...parseEnvFile('A="one \\" two\nthree"\nB=2\n')], [['A', 'one " two\nthree'], ['B', '2']], 'an escaped quote does not close it');
  t.same([...parseEnvFile('A=plain "not a quote start\nB=2\n')].map(([k]) => k), ['A', 'B'], 'only a value that starts with a quote goes on');
});

t.test('a quote no later line closes runs to the end of the file, as systemd reads it (the flag editor says where it opened)', async (t) => {
  t.same([...parseEnvFile('A="--x\nB=2\n')], [['A', '--x\nB=2\n']]);
});

t.test('found by review: a backslash continuation joins with nothing between, as env-file.c joins it; CRLF; comment lines', async (t) => {
  const env = parseEnvFile('A=--feature-gates=X=true,\\\nDynamicKubeletConfig=true --v=2\nB=one\\\n  two\nC=crlf\r\nD=4\r\n; semi\n  # indented\nE=5\n');
  t.equal(env.get('A'), '--feature-gates=X=true,DynamicKubeletConfig=true --v=2');
  t.equal(env.get('B'), 'one  two', 'the next line\'s blanks are kept');
  t.equal(env.get('C'), 'crlf');
  t.equal(env.get('D'), '4');
  t.equal(env.get('E'), '5');
  t.same([...env.keys()], ['A', 'B', 'C', 'D', 'E']);
  // Linear: a value that opens a quote on every line never closes it once.
  t.same([...parseEnvFile(`A="${'x\n'.repeat(400_000)}`).keys()], ['A'], 'one pass over 800 KB of a quote never closed');
});

t.test('found by a migrate review: EnvironmentFile values as systemd reads them (env-file.c), then split by $VAR', async (t) => {
  const env = parseEnvFile('A=--eviction-hard="memory.available<300Mi, nodefs.available<5%" --v=2\nB=x\\ y  \nC="q"r\nD=\'s\'"t \\$ \\x"\nE=  lead\n');
  t.equal(env.get('A'), '--eviction-hard="memory.available<300Mi, nodefs.available<5%" --v=2', 'quotes inside an unquoted value are its characters');
  t.same(expandExecStart('/k $A', env), ['/k', '--eviction-hard=memory.available<300Mi, nodefs.available<5%', '--v=2'], '$A honours them: one argument');
  t.equal(env.get('B'), 'x y', 'a backslash escapes; trailing blanks go');
  t.equal(env.get('C'), 'qr', 'after a closing quote the value goes on');
  t.equal(env.get('D'), 's' + 't $ \\x', 'in double quotes \\$ is $, \\x stays \\x');
  t.equal(env.get('E'), 'lead', 'leading blanks go');
});

t.test('found by a migrate review: WorkingDirectory= places a relative --config; a bare Environment= resets the list', async (t) => {
  const root = t.testdir();
  writeTree(root, {
    'etc/systemd/system/kubelet.service': '[Service]\nWorkingDirectory=/var/lib/kubelet\nEnvironment="FLAGS=--dynamic-config-dir=/var/lib/kubelet/dyn"\nExecStart=/usr/bin/kubelet --config=config.yaml $FLAGS\n',
    'var/lib/kubelet/dyn/store/meta': null,
  });
  const d = discover({ root });
  t.equal(d.commandLine?.cwd, '/var/lib/kubelet');
  t.equal(d.configFile, path.join(root, 'var/lib/kubelet/config.yaml'));
  t.equal(d.dir, path.join(root, 'var/lib/kubelet/dyn'));
  writeTree(root, { 'etc/systemd/system/kubelet.service.d/50-reset.conf': '[Service]\nEnvironment=\n' });
  const r = discover({ root });
  t.same(r.commandLine?.argv, ['/usr/bin/kubelet', '--config=config.yaml'], 'FLAGS is unset: no --dynamic-config-dir');
  writeTree(root, { 'etc/systemd/system/kubelet.service.d/60-wd.conf': '[Service]\nWorkingDirectory=-~\n' });
  t.equal(discover({ root }).commandLine?.cwd, '/root', '-~: the service user\'s home, root\'s');
});
