// export / migrate / undo from the built CLI on each distribution's layout (fixtures/migrate):
// the exact bytes on disk after migrate, every file byte-, mode-, owner- and mtime-identical
// after undo, a dry run that leaves the tree identical, and hostile or unparseable input.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { asNobody, copyFixture, isRoot, json, repoRoot, runCli, tempDir } from '../helpers.js';
import { validate } from '../json-schema.js';
import { kubeletBin, startKubelet } from '../lib/recovery/fixtures/index.js';
import { decodeKubeletConfig } from '../../lib/config/decode.js';

const UID = '8f1c2a77-5d0e-4b1a-9c3e-1f2e3d4c5b6a';

/** Every entry under `dir` (outside the backups kubelet-ckpt keeps): bytes, mode, owner, mtime (µs). */
function tree(dir: string, withTimes = true): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name);
      const rel = path.relative(dir, p);
      if (name === '.kubelet-ckpt') continue;
      const st = fs.lstatSync(p, { bigint: true });
      // mtimes to the microsecond (utimes takes a double: nanoseconds do not survive).
      const meta = `${st.mode.toString(8)} ${st.uid}:${st.gid}${withTimes && st.isFile() ? ` ${st.mtimeNs / 1000n}` : ''}`;
      if (st.isDirectory()) {
        out[rel + '/'] = meta;
        walk(p);
      } else out[rel] = `${meta} ${fs.readFileSync(p).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

const read = (root: string, p: string) => fs.readFileSync(path.join(root, p), 'utf8');

interface Layout {
  name: string;
  config: string;
  /** The files migrate edits, and each one's exact content afterwards. */
  edited: Record<string, (before: string) => string>;
  /** The config file exists and differs: migrate needs --force. */
  needsForce: boolean;
}

const LAYOUTS: Layout[] = [
  {
    name: 'kubeadm',
    config: '/var/lib/kubelet/config.yaml',
    needsForce: true,
    edited: { '/var/lib/kubelet/kubeadm-flags.env': (b) => b.replace(' --dynamic-config-dir=/var/lib/kubelet/dynamic-config', '').replace('DynamicKubeletConfig=true,', '') },
  },
  {
    name: 'aks',
    config: '/etc/default/kubeletconfig.json',
    needsForce: true,
    edited: { '/etc/default/kubelet': (b) => b.replace(' --dynamic-config-dir=/etc/default/dynamickubelet', '').replace('DynamicKubeletConfig=true,', '') },
  },
  {
    name: 'kubespray',
    config: '/etc/kubernetes/kubelet-config.yaml',
    needsForce: true,
    edited: { '/etc/kubernetes/kubelet.env': (b) => b.replace('--dynamic-config-dir=/etc/kubernetes/dynamic_kubelet_dir \\\n--feature-gates=DynamicKubeletConfig=true \\\n', '') },
  },
  {
    name: 'by-hand',
    config: '/var/lib/kubelet/config.yaml',
    needsForce: false,
    edited: {
      '/etc/systemd/system/kubelet.service': (b) =>
        b
          .replace('KUBELET_DYNAMIC=--dynamic-config-dir=/etc/kubernetes/dynamic-kubelet-config', 'KUBELET_DYNAMIC=--config=/var/lib/kubelet/config.yaml')
          .replace('"KUBELET_GATES=--feature-gates=DynamicKubeletConfig=true"', '"KUBELET_GATES="')
          .replace('  --dynamic-config-dir /etc/kubernetes/dynamic-kubelet-config \\\n', ''),
    },
  },
];

/**
 * kubespray's fixture as a node on containerd whose dockershim flags (--network-plugin, --cni-*)
 * were already dropped, as kubespray does for 1.24: with them a 1.24 kubelet exits whatever
 * migrate does (upgrade-check.test.ts says so), and these tests are about the migration.
 */
function copyLayout(name: string): string {
  const root = copyFixture(`migrate/${name}`);
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  if (name === 'kubespray') fs.writeFileSync(env, fs.readFileSync(env, 'utf8').replace(/^KUBELET_NETWORK_PLUGIN=.*$/m, 'KUBELET_NETWORK_PLUGIN=""'));
  return root;
}

for (const l of LAYOUTS) {
  t.test(`${l.name}: export, dry run, migrate, undo`, async (t) => {
    const root = copyLayout(l.name);
    const before = tree(root);
    const texts = Object.fromEntries(Object.keys(l.edited).map((p) => [p, read(root, p)]));

    const exp = runCli(['--root', root, 'export']);
    t.equal(exp.code, 0, exp.stderr);
    t.match(exp.stdout, new RegExp(`# Source: Dynamic Kubelet Config checkpoint UID ${UID}, resourceVersion 4210`));
    t.notMatch(exp.stdout.replace(/^#.*$/gm, ''), /DynamicKubeletConfig/);
    const ej = json(runCli(['--root', root, 'export', '-o', 'json']));
    t.match(ej, { apiVersion: 'kubelet-ckpt/v1', kind: 'ExportResult', removedGates: ['DynamicKubeletConfig'], source: { uid: UID, resourceVersion: '4210' } });

    const uc = runCli(['--root', root, 'upgrade-check', '-o', 'json']);
    t.equal(uc.code, 1, 'before: a 1.24 kubelet would not start');
    t.match(json(uc), { apiVersion: 'kubelet-ckpt/v1', kind: 'UpgradeCheck', to: '1.24', breaks: true, after: { exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir' }, now: { source: 'assigned' } });
    t.ok((json<{ withoutFlag: { changes: unknown[] } }>(uc).withoutFlag.changes.length) > 0, 'before: dropping the flag alone reverts the config silently');
    t.match(runCli(['--root', root, 'status', '--no-journal']).stdout, /Upgrade +1\.24\+ exits on --dynamic-config-dir; without the flag it silently drops the checkpoint/);

    const dry = runCli(['--root', root, 'migrate', '--dry-run']);
    t.equal(dry.code, l.needsForce ? 4 : 0, `dry run exits as the real run would\n${dry.stderr}`);
    for (const p of [l.config, ...Object.keys(l.edited)]) t.ok(dry.stdout.split('\n').includes(`+++ ${p}`), `the dry run shows ${p}'s diff, a line of its own`);
    t.notMatch(dry.stdout, /\\x0a/, 'no newline escaped inside a diff');
    t.same(tree(root), before, 'the dry run leaves the tree identical');

    if (l.needsForce) {
      const refused = runCli(['--root', root, 'migrate', '--yes']);
      t.equal(refused.code, 4);
      t.match(refused.stderr, new RegExp(`${l.config} exists and differs from the export:\\n {2}--- ${l.config}`));
      t.same(tree(root), before, 'refused: nothing changed');
    }

    const m = runCli(['--root', root, 'migrate', '--yes', '-o', 'json', ...(l.needsForce ? ['--force'] : [])]);
    t.equal(m.code, 0, m.stderr);
    const mj = json<{ kind: string; changes: { path: string; after: string }[]; backup: string; nextSteps: string[] }>(m);
    t.equal(mj.kind, 'MigrateResult');
    t.same(mj.changes.map((c) => c.path).sort(), [l.config, ...Object.keys(l.edited)].sort());
    t.match(mj.nextSteps.join('\n'), /kubectl patch node \S+ --type merge -p '\{"spec":\{"configSource":null\}\}'/);
    const body = (s: string) => s.replace(/^#.*\n/gm, '');
    t.equal(read(root, l.config), mj.changes.find((c) => c.path === l.config)!.after, 'the --config file holds the export');
    t.equal(body(read(root, l.config)), body(exp.stdout), 'the same fields as `export` (comments name the flags left after the migration)');
    for (const [p, f] of Object.entries(l.edited)) t.equal(read(root, p), f(texts[p]!), `${p}: only the flag and the gate removed`);
    const after = tree(root, false);
    const unchanged = Object.keys(before).filter((k) => ![l.config, ...Object.keys(l.edited)].some((p) => k === p.slice(1)));
    for (const k of unchanged) if (!k.endsWith('/')) t.equal(after[k], before[k]!.replace(/ [0-9.]+ /, ' '), `${k} untouched`);

    // The flag is gone, yet discovery still finds the store (the distribution's directory),
    // left as it was (above); the kubelet no longer reads it: its next boot is the --config file.
    const st = runCli(['--root', root, 'status', '--no-journal', '-o', 'json']);
    t.match(json(st), { nextBoot: { source: 'local', willStart: true, reason: /has no --dynamic-config-dir, so the kubelet does not read this store/ } }, 'the store is there, and not read');

    for (const to of ['1.24', '1.26']) {
      const ok = runCli(['--root', root, 'upgrade-check', '--to', to, '-o', 'json']);
      // kubespray's unit still passes --logtostderr, a klog flag 1.26 removed (found by a migrate review).
      if (l.name === 'kubespray' && to === '1.26') {
        t.equal(ok.code, 1, 'kubespray at 1.26: --logtostderr stops it');
        t.match(json(ok), { breaks: true, after: { starts: false, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --logtostderr' } });
        continue;
      }
      t.equal(ok.code, 0, `after: a ${to} kubelet starts with the same config\n${ok.stdout}`);
      t.match(json(ok), { breaks: false, changesConfig: false, changes: [], now: { source: 'local', path: l.config }, after: { starts: true, source: 'local' } });
    }
    t.notMatch(runCli(['--root', root, 'status', '--no-journal']).stdout, /Upgrade/, 'no hint once migrated');

    // The flag is gone: the kubelet no longer reads the store, so there is nothing to migrate.
    const again = runCli(['--root', root, 'migrate', '--dry-run', ...(l.needsForce ? ['--force'] : [])]);
    t.equal(again.code, 0, 'a second run is no failure');
    t.match(again.stdout, /^nothing to do: the kubelet does not use Dynamic Kubelet Configuration: .*has no --dynamic-config-dir/);

    const u = runCli(['--root', root, 'undo', '--yes']);
    t.equal(u.code, 0, u.stderr);
    t.same(tree(root), before, 'after undo every file is back: bytes, mode, owner, mtime');
  });
}

t.test('kubeadm: --kubeadm-config lists the fields kubeadm would change', async (t) => {
  const root = copyFixture('migrate/kubeadm');
  const r = runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json', '--kubeadm-config', path.join(root, 'kubelet-config-configmap.yaml')]);
  t.equal(r.code, 0, r.stderr);
  const j = json<{ kubeadm: { differences: { path: string; op: string }[] } }>(r);
  t.match(j.kubeadm.differences, [{ path: 'evictionHard["imagefs.available"]', op: 'removed' }]);
  t.ok(j.kubeadm.differences.some((d) => d.path === 'maxPods' && d.op === 'changed'));
});

t.test('--kubeconfig: the kubectl commands of the next steps name it (quoted); one that cannot be read is a warning', async (t) => {
  const root = copyFixture('migrate/kubeadm');
  const before = tree(root);
  const dir = t.testdir({ "admin's dir": { 'admin.conf': 'apiVersion: v1\nkind: Config\n' } });
  const conf = path.join(dir, "admin's dir", 'admin.conf');
  const r = runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json', '--kubeconfig', conf]);
  t.equal(r.code, 0, r.stderr);
  const j = json<{ nextSteps: string[]; warnings: string[] }>(r);
  const quoted = `'${conf.replace(/'/g, `'\\''`)}'`;
  t.match(j.nextSteps.join('\n'), `: kubectl --kubeconfig ${quoted} get --raw /api/v1/nodes/`);
  t.match(j.nextSteps.join('\n'), `(one-way): kubectl --kubeconfig ${quoted} patch node `);
  t.notOk(j.warnings.some((w) => w.includes('--kubeconfig')), 'a readable file: no warning');
  const plain = json<{ nextSteps: string[] }>(runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json']));
  t.match(plain.nextSteps.join('\n'), /\(one-way\): kubectl patch node /, 'without it: kubectl as configured');
  const missing = json<{ nextSteps: string[]; warnings: string[] }>(runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json', '--kubeconfig', path.join(dir, 'nope.conf')]));
  t.ok(missing.warnings.some((w) => w === `--kubeconfig ${path.join(dir, 'nope.conf')} cannot be read here: the kubectl commands of the next steps name it`), missing.warnings.join('\n'));
  t.same(tree(root), before, 'dry runs change nothing');
});

t.test('bad input: unparseable flags, a bad ref, a running kubelet, links out of --root', async (t) => {
  const root = copyFixture('migrate/aks');
  const env = path.join(root, 'etc/default/kubelet');
  const good = fs.readFileSync(env, 'utf8');
  fs.writeFileSync(env, good.replace('KUBELET_FLAGS=--address', 'KUBELET_FLAGS="--address'));
  const before = tree(root);
  let r = runCli(['--root', root, 'migrate', '--yes', '--force']);
  t.equal(r.code, 4);
  // systemd reads a quote never closed to the end of the file: the rest of it becomes arguments,
  // and that kubelet stops at start-up (the flag editor would say where the quote opened).
  t.match(r.stderr, /the kubelet exits at start-up with this node's flags/);
  t.same(tree(root), before);
  fs.writeFileSync(env, good);

  r = runCli(['--root', root, 'migrate', `${UID}/9999`, '--yes', '--force']);
  t.equal(r.code, 2, 'an unknown ref is a usage error');
  const cp = path.join(root, `etc/default/dynamickubelet/store/checkpoints/${UID}/4210/kubelet`);
  const payload = fs.readFileSync(cp, 'utf8');
  fs.writeFileSync(cp, payload.replace('maxPods: 150', 'maxPods: 150\nimageGCHighThresholdPercent: 150'));
  r = runCli(['--root', root, 'migrate', 'assigned', '--dry-run']);
  t.equal(r.code, 4, 'a checkpoint that fails validation is refused');
  t.match(r.stderr, /fails the kubelet's validation/);
  fs.writeFileSync(cp, payload);

  // The unit is a link out of the root: resolved inside it, never on the host.
  const unit = path.join(root, 'etc/systemd/system/kubelet.service');
  const unitText = fs.readFileSync(unit);
  fs.mkdirSync(path.join(root, 'lib/systemd/system'), { recursive: true });
  fs.writeFileSync(path.join(root, 'lib/systemd/system/kubelet.service'), unitText);
  fs.rmSync(unit);
  fs.symlinkSync('/lib/systemd/system/kubelet.service', unit);
  r = runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);

  const bin = kubeletBin(path.join(t.testdir(), 'bin'));
  await startKubelet(t, bin, [`--dynamic-config-dir=${path.join(root, 'etc/default/dynamickubelet')}`]);
  r = runCli(['--root', root, 'migrate', '--dry-run']);
  t.equal(r.code, 4, 'a running kubelet refuses');
  t.match(r.stdout, /a kubelet using this store is running/);
});

t.test('export --out: atomic, refuses to replace a different file', async (t) => {
  const root = copyFixture('migrate/by-hand');
  const out = path.join(root, 'export.yaml');
  let r = runCli(['--root', root, 'export', '--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, `${out}: written`);
  fs.appendFileSync(out, 'maxPods: 3\n');
  r = runCli(['--root', root, 'export', '--out', out]);
  t.equal(r.code, 4);
  t.match(r.stderr, /exists and differs from the export/);
  r = runCli(['--root', root, 'export', '--out', out, '--force', '-o', 'json']);
  t.equal(r.code, 0);
  t.match(json(r), { kind: 'ExportResult', out });
});

t.test('export --out inside the --dynamic-config-dir: refused (4) even with --force, the meta file untouched', async (t) => {
  const dir = copyFixture('stores/healthy');
  const meta = path.join(dir, 'store/meta/assigned');
  const before = fs.readFileSync(meta);
  for (const out of [meta, path.join(dir, 'store/checkpoints/new.yaml'), path.join(dir, 'exported.yaml')]) {
    const r = runCli(['--dir', dir, 'export', 'assigned', '--out', out, '--force']);
    t.equal(r.code, 4, out);
    t.match(r.stderr, /inside the kubelet's --dynamic-config-dir .*: export never writes there/);
  }
  t.same(fs.readFileSync(meta), before, 'meta/assigned untouched');
  t.notOk(fs.existsSync(path.join(dir, 'exported.yaml')));
  const elsewhere = path.join(tempDir(), 'config.yaml');
  t.equal(runCli(['--dir', dir, 'export', 'assigned', '--out', elsewhere]).code, 0, 'outside it: written');
});

t.test('export --out: directories made as mkdir -p makes them (search permission is enough on the way); links', { skip: !isRoot && 'setpriv to nobody needs root' }, async (t) => {
  const root = copyFixture('migrate/by-hand');
  for (const p of fs.readdirSync(root, { recursive: true, encoding: 'utf8' })) fs.chmodSync(path.join(root, p), fs.lstatSync(path.join(root, p)).isDirectory() ? 0o755 : 0o644);
  const top = tempDir();
  fs.chmodSync(top, 0o755);
  const share = path.join(top, 'share');
  fs.mkdirSync(path.join(share, 'bob'), { recursive: true });
  fs.chownSync(path.join(share, 'bob'), 65534, 65534);
  fs.chmodSync(share, 0o711); // others may pass through, not list
  const out = path.join(share, 'bob/new/deeper/x.yaml');
  const r = asNobody(['--root', root, 'export', '--out', out]);
  t.equal(r.code, 0, r.stderr);
  t.equal(fs.statSync(out).uid, 65534, 'written by nobody, through a directory it may only search');
  t.equal(fs.statSync(path.join(share, 'bob/new')).mode & 0o777, 0o755, 'mkdir -p modes (0777 less the umask)');
  // A link already on the path is the operator's and is followed; one that leads nowhere is refused.
  fs.mkdirSync(path.join(share, 'real'));
  fs.symlinkSync(path.join(share, 'real'), path.join(share, 'via'));
  t.equal(runCli(['--root', root, 'export', '--out', path.join(share, 'via/sub/y.yaml')]).code, 0);
  t.ok(fs.existsSync(path.join(share, 'real/sub/y.yaml')));
  const nowhere = path.join(top, 'nowhere');
  fs.symlinkSync(nowhere, path.join(share, 'dangling'));
  const d = runCli(['--root', root, 'export', '--out', path.join(share, 'dangling/z/y.yaml'), '-o', 'json']);
  t.equal(d.code, 4, d.stderr);
  t.match(JSON.parse(d.stderr), { error: { code: 'META_SYMLINK', message: /not followed/ } });
  t.notOk(fs.existsSync(nowhere), 'nothing made where the link points');
});

t.test('--dynamic_config_dir (the kubelet normalises _ to -): migrate puts --config in its place; status and upgrade-check agree', async (t) => {
  const root = copyLayout('kubespray');
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  const under = fs.readFileSync(env, 'utf8').replace('--dynamic-config-dir=', '--dynamic_config_dir=').replace(/^.*--config=.*\n/m, '');
  fs.writeFileSync(env, under);
  fs.rmSync(path.join(root, 'etc/kubernetes/kubelet-config.yaml'));

  const st = json(runCli(['--root', root, 'status', '--no-journal', '-o', 'json']));
  t.match(st, { nextBoot: { source: 'assigned' } });
  const uc = runCli(['--root', root, 'upgrade-check', '-o', 'json']);
  t.equal(uc.code, 1);
  t.match(json(uc), { now: { source: 'assigned', ref: `${UID}/4210` }, after: { starts: false, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic_config_dir' } });
  t.ok(json<{ withoutFlag: { changes: unknown[] } | null }>(uc).withoutFlag, 'the flag-dropped case is shown for the underscore spelling too');

  const m = runCli(['--root', root, 'migrate', '--yes', '-o', 'json']);
  t.equal(m.code, 0, m.stderr);
  const mj = json<{ warnings: string[]; configPath: string }>(m);
  t.equal(mj.configPath, '/var/lib/kubelet/config.yaml');
  t.notOk(mj.warnings.some((w) => /no --dynamic-config-dir/.test(w)), mj.warnings.join('\n'));
  t.equal(fs.readFileSync(env, 'utf8'), under.replace('--dynamic_config_dir=/etc/kubernetes/dynamic_kubelet_dir', '--config=/var/lib/kubelet/config.yaml').replace('--feature-gates=DynamicKubeletConfig=true \\\n', ''));
  t.ok(fs.existsSync(path.join(root, 'var/lib/kubelet/config.yaml')));
  t.match(json(runCli(['--root', root, 'upgrade-check', '-o', 'json'])), { breaks: false, now: { source: 'local', path: '/var/lib/kubelet/config.yaml' } });
});

t.test('an env file\'s quoted value across lines (systemd.exec(5)): migrate edits it in place, status reads the result as systemd does', async (t) => {
  const root = copyLayout('aks');
  const env = path.join(root, 'etc/default/kubelet');
  const one = fs.readFileSync(env, 'utf8');
  const multi = one.replace(/^KUBELET_FLAGS=(.*) (--dynamic-config-dir=\S+) (--feature-gates=\S+) (.*)$/m, 'KUBELET_FLAGS="$1\n  $2\n  $3\n  $4"');
  t.not(multi, one, 'the fixture has the flags this test moves');
  fs.writeFileSync(env, multi);
  t.match(json(runCli(['--root', root, 'status', '--no-journal', '-o', 'json'])), { nextBoot: { source: 'assigned' } }, 'the store is in use');
  const m = runCli(['--root', root, 'migrate', '--yes', '--force']);
  t.equal(m.code, 0, m.stderr);
  t.equal(fs.readFileSync(env, 'utf8'), multi.replace('\n  --dynamic-config-dir=/etc/default/dynamickubelet', '').replace('DynamicKubeletConfig=true,', ''), 'the emptied line gone, every other byte kept');
  t.match(json(runCli(['--root', root, 'upgrade-check', '-o', 'json'])), { breaks: false, now: { source: 'local' } });
  const u = runCli(['--root', root, 'undo', '--yes']);
  t.equal(u.code, 0, u.stderr);
  t.equal(fs.readFileSync(env, 'utf8'), multi, 'undo gives the file back');
});

t.test('an EnvironmentFile over 1 MiB is read as systemd reads it; migrate refuses to edit it (found by a migrate review: "nothing to do", exit 0)', async (t) => {
  const root = copyLayout('aks');
  const env = path.join(root, 'etc/default/kubelet');
  fs.appendFileSync(env, '# padding\n'.repeat(130_000));
  const before = tree(root);
  t.match(json(runCli(['--root', root, 'status', '--no-journal', '-o', 'json'])), { nextBoot: { source: 'assigned' } }, 'its --dynamic-config-dir is seen');
  const uc = runCli(['--root', root, 'upgrade-check', '-o', 'json']);
  t.equal(uc.code, 1, '1.24 exits on the flag');
  const m = runCli(['--root', root, 'migrate', '--dry-run', '--force']);
  t.equal(m.code, 4, m.stderr);
  t.match(m.stderr, /\/etc\/default\/kubelet is larger than 1 MiB: too large to edit and back up/);
  t.match(m.stderr, /hint: edit the kubelet's flags in it by hand/);
  t.same(tree(root), before);
});

t.test('a line break in a relative path stays inside its header comment: the written file decodes to the exported config', async (t) => {
  const root = copyFixture('migrate/kubeadm');
  const cp = path.join(root, `var/lib/kubelet/dynamic-config/store/checkpoints/${UID}/4210/kubelet`);
  fs.appendFileSync(cp, 'staticPodPath: "manifests\\nreadOnlyPort: 10255\\r\\n#\\etlsCertFile: /x"\n');
  const exp = json<{ config: Record<string, unknown> }>(runCli(['--root', root, 'export', '-o', 'json']));
  const m = runCli(['--root', root, 'migrate', '--yes', '--force']);
  t.equal(m.code, 0, m.stderr);
  const written = fs.readFileSync(path.join(root, 'var/lib/kubelet/config.yaml'));
  t.notMatch(written.toString(), /^(readOnlyPort|tlsCertFile):/m, 'no key injected');
  t.match(written.toString(), /^# staticPodPath: relative "manifests\\x0areadOnlyPort: 10255\\x0d\\x0a#\\x1btlsCertFile: \/x" resolved as the kubelet did, to \/var\/lib\/kubelet\/dynamic-config\/store\/checkpoints\/\S+\/4210\/manifests\\x0a/m);
  const d = decodeKubeletConfig(written, '/var/lib/kubelet/config.yaml');
  t.ok(d.ok);
  if (d.ok) t.same(d.config, exp.config, 'the file holds exactly what export reported');
});

t.test('no --dynamic-config-dir on the command line: the kubelet runs its local config; migrate has nothing to do unless a ref is named', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  fs.writeFileSync(env, fs.readFileSync(env, 'utf8').replace(/^.*(--dynamic-config-dir=|DynamicKubeletConfig).*\n/gm, ''));
  const D = ['--root', root, '--dir', path.join(root, 'etc/kubernetes/dynamic_kubelet_dir')];
  const local = '/etc/kubernetes/kubelet-config.yaml';
  const before = tree(root);

  const uc = runCli([...D, 'upgrade-check', '--to', '1.24', '-o', 'json']);
  t.match(json(uc), { now: { source: 'local', path: local, reason: /no --dynamic-config-dir/ } });

  for (const args of [['--dry-run'], ['--yes', '--force']]) {
    const r = runCli([...D, 'migrate', ...args, '-o', 'json']);
    t.equal(r.code, 0, `${args.join(' ')}: nothing to do is no failure`);
    t.same(validate(JSON.parse(r.stdout), JSON.parse(fs.readFileSync(path.join(repoRoot, 'schema/MigrateResult.json'), 'utf8'))), []);
    t.match(JSON.parse(r.stdout), {
      kind: 'MigrateResult', dryRun: args[0] === '--dry-run', changes: [], backup: null, source: null, configPath: local,
      nothing: `the kubelet does not use Dynamic Kubelet Configuration: its command line (from the systemd unit) has no --dynamic-config-dir, so it never reads the store and runs its --config file ${local} (to make a checkpoint the --config file anyway, name it: migrate assigned | lkg | UID/RV)`,
    });
  }
  const text = runCli([...D, 'migrate', '--yes']);
  t.equal(text.code, 0);
  t.match(text.stdout, /^nothing to do: the kubelet does not use Dynamic Kubelet Configuration/);
  t.same(tree(root), before, 'nothing written');

  const exp = runCli([...D, 'export', '-o', 'json']);
  t.equal(exp.code, 0, exp.stderr);
  const ej = json<{ source: Record<string, unknown>; text: string }>(exp);
  t.match(ej.source, { ref: 'next-boot', kind: 'local', uid: null, path: local, why: /no --dynamic-config-dir/ }, 'export agrees: the local config, not the checkpoint');

  const named = json<{ text: string; source: Record<string, unknown> }>(runCli([...D, 'export', 'assigned', '-o', 'json']));
  t.match(named.source, { kind: 'checkpoint', resourceVersion: '4210', why: /^named on the command line \(assigned\); this node's kubelet does not run it/ });
  t.match(named.text, /^# Exported by kubelet-ckpt: a local --config file made from the config named below, which this node's kubelet does not run\n/);
  t.notMatch(named.text, /equal to the config the kubelet runs/);
  const loc = json<{ text: string; source: { why: string } }>(runCli([...D, 'export', 'local', '-o', 'json']));
  t.equal(loc.source.why, 'named on the command line (local)', 'the local config is what it runs');
  t.match(loc.text, /^# Exported by kubelet-ckpt: a local --config file equal to the config the kubelet runs\n/);

  const m = runCli([...D, 'migrate', 'assigned', '--dry-run', '--force', '-o', 'json']);
  t.equal(m.code, 0, m.stderr);
  const mj = json<{ changes: { path: string; after: string }[]; source: { why: string } }>(m);
  t.same(mj.changes.map((c) => c.path), [local], 'a named ref: only the --config file is written');
  t.notMatch(mj.changes[0]!.after, /equal to the config the kubelet runs/);
  t.match(mj.source.why, /does not run it/);
  t.same(tree(root), before, 'dry runs change nothing');
});

t.test('no --dynamic-config-dir but the gate still set: the gate alone leaves the command line (a 1.24+ kubelet refuses it); in the --config file it is refused', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  const original = fs.readFileSync(env, 'utf8');
  fs.writeFileSync(env, original.replace(/^.*--dynamic-config-dir=.*\n/m, ''));
  const D = ['--root', root, '--dir', path.join(root, 'etc/kubernetes/dynamic_kubelet_dir')];
  const before = tree(root);
  const dry = runCli([...D, 'migrate', '--dry-run', '-o', 'json']);
  t.equal(dry.code, 0, dry.stderr);
  const dj = JSON.parse(dry.stdout);
  t.same(validate(dj, JSON.parse(fs.readFileSync(path.join(repoRoot, 'schema/MigrateResult.json'), 'utf8'))), []);
  t.notOk('nothing' in dj, 'not "nothing to do": found by review, a 1.24 kubelet would not start');
  t.match(dj, { dryRun: true, source: null, configPath: '/etc/kubernetes/kubelet-config.yaml', changes: [{ path: '/etc/kubernetes/kubelet.env', role: 'env' }] });
  t.equal(dj.changes.length, 1, 'no --config file is written');
  t.match(dj.warnings.join('\n'), /no --dynamic-config-dir, so it does not read the store, but it still sets the DynamicKubeletConfig gate/);
  t.same(tree(root), before, 'a dry run changes nothing');

  const m = runCli([...D, 'migrate', '--yes']);
  t.equal(m.code, 0, m.stderr);
  t.equal(fs.readFileSync(env, 'utf8'), original.replace(/^.*(--dynamic-config-dir=|DynamicKubeletConfig).*\n/gm, ''), 'exactly the gate line is gone');
  const again = runCli([...D, 'migrate', '--yes']);
  t.match(again.stdout, /^nothing to do:/, 'a second run has nothing left to do');
  const undo = runCli([...D, 'undo', '--yes']);
  t.equal(undo.code, 0, undo.stderr);
  t.same(tree(root), before, 'undo restores the env file');

  // The gate in the kubelet's --config file: not edited in place, refused.
  const cfg = path.join(root, 'etc/kubernetes/kubelet-config.yaml');
  fs.writeFileSync(env, original.replace(/^.*(--dynamic-config-dir=|DynamicKubeletConfig).*\n/gm, ''));
  fs.writeFileSync(cfg, fs.readFileSync(cfg, 'utf8').replace('featureGates:\n', 'featureGates:\n  DynamicKubeletConfig: true\n'));
  const r = runCli([...D, 'migrate', '--yes']);
  t.equal(r.code, 4, r.stdout);
  t.match(r.stderr, /kubelet-config\.yaml sets featureGates\.DynamicKubeletConfig, which a 1\.26\+ kubelet refuses whatever its value/);
});

t.test('a flag file that is not valid UTF-8 is refused, never rewritten with its other bytes replaced (found by review)', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  const latin1 = Buffer.concat([Buffer.from('# maintained by J\xfcrgen\n', 'latin1'), fs.readFileSync(env)]);
  fs.writeFileSync(env, latin1);
  const before = tree(root);
  const r = runCli(['--root', root, '--dir', path.join(root, 'etc/kubernetes/dynamic_kubelet_dir'), 'migrate', '--yes', '--force']);
  t.equal(r.code, 4, r.stdout);
  t.match(r.stderr, /kubelet\.env is not valid UTF-8, and kubelet-ckpt does not rewrite a file it cannot keep byte for byte/);
  t.same(tree(root), before, 'nothing written');
  t.ok(fs.readFileSync(env).equals(latin1), 'the Latin-1 byte is still there');
});

t.test('the printed undo names the store: once migrated, the command line no longer does (found by review)', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const dir = path.join(root, 'etc/kubernetes/dynamic_kubelet_dir');
  const before = tree(root);
  const m = runCli(['--root', root, '--dir', dir, 'migrate', '--yes', '--force']);
  t.equal(m.code, 0, m.stderr);
  const undo = /\(kubelet-ckpt (.*) undo restores it\)/.exec(m.stdout);
  t.ok(undo, m.stdout);
  t.equal(undo![1], `--root ${root} --dir ${dir}`);
  const u = runCli([...undo![1]!.split(' '), 'undo', '--yes']);
  t.equal(u.code, 0, u.stderr);
  t.same(tree(root), before, 'the printed command restores every file');
});

t.test('a commented-out line inside a continued ExecStart= is no argument (systemd.syntax(7))', async (t) => {
  const root = copyFixture('migrate/by-hand');
  const unit = path.join(root, 'etc/systemd/system/kubelet.service');
  const DCD = '/etc/kubernetes/dynamic-kubelet-config';
  const text = (flags: string) => `[Service]\nExecStart=/usr/local/bin/kubelet \\\n  --v=2 \\\n#  --config=/old.yaml \\\n; --bogus\n${flags}Restart=on-failure\n`;
  fs.writeFileSync(unit, text(`  --dynamic-config-dir=${DCD} \\\n  --feature-gates=DynamicKubeletConfig=true \\\n  --register-node=true\n`));
  t.match(json(runCli(['--root', root, 'status', '--no-journal', '-o', 'json'])), { nextBoot: { source: 'assigned' } }, 'status: the kubelet starts');
  const dry = runCli(['--root', root, 'migrate', '--dry-run']);
  t.equal(dry.code, 0, dry.stderr);
  const m = runCli(['--root', root, 'migrate', '--yes']);
  t.equal(m.code, 0, m.stderr);
  t.equal(fs.readFileSync(unit, 'utf8'), text('  --config=/var/lib/kubelet/config.yaml \\\n  --register-node=true\n'), 'the flag replaced, the comments kept');
});

t.test('NEL, LS and PS in a string are written as \\N \\L \\P: the written file reads back the same string', async (t) => {
  const root = copyFixture('migrate/by-hand');
  fs.appendFileSync(path.join(root, `etc/kubernetes/dynamic-kubelet-config/store/checkpoints/${UID}/4210/kubelet`), 'podCIDR: "p\\u0085q\\u2028r\\u2029s\\x7ft"\n');
  const exp = json<{ config: Record<string, unknown> }>(runCli(['--root', root, 'export', '-o', 'json']));
  t.equal(exp.config.podCIDR, 'p\u0085q\u2028r\u2029s\u007ft');
  const m = runCli(['--root', root, 'migrate', '--yes']);
  t.equal(m.code, 0, m.stderr);
  const written = fs.readFileSync(path.join(root, 'var/lib/kubelet/config.yaml'));
  t.ok(written.toString().split('\n').includes('podCIDR: "p\\Nq\\Lr\\Ps\\x7ft"'), 'escaped on its line');
  const d = decodeKubeletConfig(written, '/var/lib/kubelet/config.yaml');
  t.ok(d.ok, d.ok ? '' : d.error);
  if (d.ok) t.same(d.config, exp.config, 'the file holds exactly what export reported');
});

t.test('next steps name the Node as the kubelet registers it: --hostname-override trimmed and lower-cased (nodeutil.GetHostname)', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const env = path.join(root, 'etc/kubernetes/kubelet.env');
  const base = fs.readFileSync(env, 'utf8');
  const stepsOf = (r: ReturnType<typeof runCli>) => {
    t.equal(r.code, 0, r.stderr);
    return json<{ nextSteps: string[] }>(r).nextSteps.join('\n');
  };
  for (const [flag, name] of [['--hostname-override=Worker-1.Example.COM', 'worker-1.example.com'], ['--hostname-override=', 'NODE']]) {
    fs.writeFileSync(env, base.replace('KUBELET_HOSTNAME="--hostname-override=node1"', `KUBELET_HOSTNAME=${flag}`));
    const steps = stepsOf(runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json']));
    t.match(steps, `/api/v1/nodes/${name}/proxy/configz`, flag);
    t.match(steps, `kubectl patch node ${name} --type merge`, flag);
  }
  // No override: the host name, which under --root is the node disk's /etc/hostname (never this machine's).
  fs.writeFileSync(env, base.replace('KUBELET_HOSTNAME="--hostname-override=node1"', 'KUBELET_HOSTNAME='));
  fs.writeFileSync(path.join(root, 'etc/hostname'), '# the node\n Node-7.Example.COM \n');
  t.match(stepsOf(runCli(['--root', root, 'migrate', '--dry-run', '--force', '-o', 'json'])), 'kubectl patch node node-7.example.com --type merge', "the disk's /etc/hostname");
  // Blanks around it: only a quoted word in ExecStart= carries them.
  const hand = copyFixture('migrate/by-hand');
  const unit = path.join(hand, 'etc/systemd/system/kubelet.service');
  fs.writeFileSync(unit, fs.readFileSync(unit, 'utf8').replace('  --v=2', '  "--hostname-override= Worker-2.EXAMPLE.com " \\\n  --v=2'));
  t.match(stepsOf(runCli(['--root', hand, 'migrate', '--dry-run', '-o', 'json'])), 'kubectl patch node worker-2.example.com --type merge');
});

t.test('a drop-in that resets ExecStart= and sets its own: --config goes into the ExecStart in effect', async (t) => {
  const root = copyFixture('migrate/by-hand');
  const DCD = '/etc/kubernetes/dynamic-kubelet-config';
  const unit = path.join(root, 'etc/systemd/system/kubelet.service');
  const dropin = path.join(root, 'etc/systemd/system/kubelet.service.d/20-override.conf');
  fs.writeFileSync(unit, `[Service]\nExecStart=/usr/local/bin/kubelet --v=2 --dynamic-config-dir=${DCD}\nRestart=on-failure\n`);
  fs.mkdirSync(path.dirname(dropin));
  fs.writeFileSync(dropin, `[Service]\nExecStart=\nExecStart=/usr/local/bin/kubelet --v=3 --dynamic-config-dir=${DCD} --feature-gates=DynamicKubeletConfig=true\n`);
  const dry = runCli(['--root', root, 'migrate', '--dry-run', '-o', 'json']);
  t.equal(dry.code, 0, dry.stdout);
  t.notOk(json(dry).wouldRefuse);
  const m = runCli(['--root', root, 'migrate', '--yes']);
  t.equal(m.code, 0, m.stderr);
  t.equal(fs.readFileSync(dropin, 'utf8'), '[Service]\nExecStart=\nExecStart=/usr/local/bin/kubelet --v=3 --config=/var/lib/kubelet/config.yaml\n', 'the drop-in\'s ExecStart gets --config');
  t.equal(fs.readFileSync(unit, 'utf8'), '[Service]\nExecStart=/usr/local/bin/kubelet --v=2\nRestart=on-failure\n', 'the overridden one only loses the flag');
  t.match(json(runCli(['--root', root, 'upgrade-check', '-o', 'json'])), { breaks: false, changesConfig: false, now: { source: 'local', path: '/var/lib/kubelet/config.yaml' } });
});

t.test('migrate FILE: its relative paths resolve against the --config file it becomes, not the rescue host', async (t) => {
  const root = copyFixture('migrate/kubespray');
  const x = path.join(tempDir(), 'x.yaml');
  fs.writeFileSync(x, 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nstaticPodPath: manifests\n');
  const r = runCli(['--root', root, 'migrate', x, '--dry-run', '--force', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  const after = json<{ changes: { path: string; after: string }[] }>(r).changes.find((c) => c.path === '/etc/kubernetes/kubelet-config.yaml')!.after;
  t.ok(after.split('\n').includes('staticPodPath: /etc/kubernetes/manifests'), after);
  t.match(after, '# Relative paths resolved against /etc/kubernetes, the directory of /etc/kubernetes/kubelet-config.yaml where this file is to be installed (not where it was read)\n');
  t.notMatch(after, `${path.dirname(x)}/manifests`);
  const exp = json<{ config: { staticPodPath: string } }>(runCli(['--root', root, 'export', x, '-o', 'json']));
  t.equal(exp.config.staticPodPath, '/etc/kubernetes/manifests', 'export: against the kubelet\'s --config file too');
});

t.test('flags quoted one by one in ExecStart=: edited without leaving empty "" arguments', async (t) => {
  const root = copyFixture('migrate/by-hand');
  const unit = path.join(root, 'etc/systemd/system/kubelet.service');
  fs.writeFileSync(unit, `[Service]\nExecStart=/usr/local/bin/kubelet "--dynamic-config-dir=/etc/kubernetes/dynamic-kubelet-config" \\\n  '--feature-gates=DynamicKubeletConfig=true' \\\n  "--v=2"\n`);
  const m = runCli(['--root', root, 'migrate', '--yes']);
  t.equal(m.code, 0, m.stderr);
  t.equal(fs.readFileSync(unit, 'utf8'), `[Service]\nExecStart=/usr/local/bin/kubelet "--config=/var/lib/kubelet/config.yaml" \\\n  "--v=2"\n`);
});

t.test('undo of a migrate backup: names in its manifest are plain, and the backup is one only root could write', async (t) => {
  // Found by review: a manifest whose copy was `../../…/secret` wrote a host file's bytes to a
  // node path; the state directory was trusted whoever owned it.
  const root = copyFixture('migrate/by-hand');
  const m = runCli(['--root', root, 'migrate', '--yes', '-o', 'json']);
  t.equal(m.code, 0, m.stderr);
  const backup = json<{ backup: string }>(m).backup;
  const manifestFile = path.join(backup, 'manifest.json');
  const good = fs.readFileSync(manifestFile, 'utf8');
  const migrated = tree(root);
  const secret = path.join(t.testdir({ secret: 'host-only\n' }), 'secret');
  type File = { copy: string | null; path: string };
  for (const [what, edit] of [
    ['a copy name with ..', (f: File) => (f.copy = path.relative(backup, secret))],
    ['a node path with ..', (f: File) => (f.path = '/etc/../etc/leaked')],
  ] as const) {
    const manifest = JSON.parse(good) as { files: File[] };
    edit(manifest.files.find((x) => x.copy !== null)!);
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    const u = runCli(['--root', root, 'undo', '--yes']);
    t.equal(u.code, 4, `${what}: refused\n${u.stderr}`);
    t.match(u.stderr, /is damaged: .*not a plain/, what);
    t.same(tree(root), migrated, `${what}: nothing written`);
  }
  fs.writeFileSync(manifestFile, good);
  fs.chmodSync(backup, 0o777);
  const u = runCli(['--root', root, 'undo', '--yes']);
  t.equal(u.code, 4, u.stderr);
  t.match(u.stderr, /can be written by others \(mode 0777\): its manifest names files undo would write/);
  t.same(tree(root), migrated, 'nothing written');
});

t.test('found by review: the kubelet already runs its own --config file (empty meta files): only the flags change, the file stays as written', async (t) => {
  const root = copyLayout('kubeadm');
  const store = path.join(root, 'var/lib/kubelet/dynamic-config/store');
  for (const m of ['assigned', 'last-known-good']) fs.writeFileSync(path.join(store, 'meta', m), '');
  const cfg = path.join(root, 'var/lib/kubelet/config.yaml');
  const original = fs.readFileSync(cfg, 'utf8');
  const dry = runCli(['--root', root, 'migrate', '--dry-run', '-o', 'json']);
  t.equal(dry.code, 0, dry.stderr);
  const dj = JSON.parse(dry.stdout);
  t.same(dj.changes.map((c: { path: string }) => c.path), ['/var/lib/kubelet/kubeadm-flags.env'], 'no CONFIG_DIFFERS, no rewrite of config.yaml');
  t.match(dj.source, { kind: 'local', path: '/var/lib/kubelet/config.yaml' });
  const m = runCli(['--root', root, 'migrate', '--yes']);
  t.equal(m.code, 0, m.stderr);
  t.equal(fs.readFileSync(cfg, 'utf8'), original, 'its comments and layout kept');
  t.notMatch(fs.readFileSync(path.join(root, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8'), /dynamic-config-dir|DynamicKubeletConfig/);
  const s = json<{ nextBoot: { source: string; willStart: boolean } }>(runCli(['--root', root, 'status', '--no-journal', '-o', 'json']));
  t.match(s.nextBoot, { source: 'local', willStart: true });
  // With the gate in that file: refused, as for a gate-only migration (kubelet-ckpt does not edit it).
  t.equal(runCli(['--root', root, 'undo', '--yes']).code, 0);
  fs.writeFileSync(cfg, `${original}featureGates:\n  DynamicKubeletConfig: true\n`);
  const r = runCli(['--root', root, 'migrate', '--dry-run']);
  t.equal(r.code, 4, r.stdout);
  t.match(r.stdout + r.stderr, /config\.yaml sets featureGates\.DynamicKubeletConfig, which a 1\.26\+ kubelet refuses whatever its value/);
});

t.test('found by an operator review: a dry run keeps the refusal\'s remedy; under --root the next steps boot the node; undo of a migration names the store', async (t) => {
  const root = copyLayout('kubeadm');
  const dry = runCli(['--root', root, 'migrate', '--dry-run']);
  t.equal(dry.code, 4);
  t.match(dry.stdout, /The real run would refuse:\n {2}\/var\/lib\/kubelet\/config\.yaml exists and differs from the export \(the old local config is replaced as a whole[^\n]*pass --force to write it\):\n/);
  t.match(dry.stdout, /Still to do:\n {2}1\. put the disk back and boot the node: its kubelet starts, on its old version, with these files\n/);
  t.notMatch(dry.stdout, /systemctl restart kubelet/, 'never this machine\'s kubelet');
  t.equal(runCli(['--root', root, 'migrate', '--yes', '--force']).code, 0);
  const undo = runCli(['--root', root, '--dir', path.join(root, 'var/lib/kubelet/dynamic-config'), 'undo', '--yes']);
  t.equal(undo.code, 0, undo.stderr);
  t.match(undo.stdout, new RegExp(`kubelet-ckpt --root ${root.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --dir \\S+ undo`), 'the printed undo names --root and the store');
  t.match(undo.stdout, /put the disk back and boot the node: its kubelet runs with its restored flags and files again/);
});
