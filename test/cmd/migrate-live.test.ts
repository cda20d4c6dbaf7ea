// migrate and undo on a live node (no --root): the by-hand layout laid over / inside a private
// mount namespace (tmpfs on /etc and /var/lib there, nothing of the host's touched). The node's
// own links are followed where they lead (a unit file linked from elsewhere is edited where it
// lives), a missing directory is made and removed again, and undo puts every byte back.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanEnv, cliPath, isRoot, repoRoot, tempDir } from '../helpers.js';

const canUnshare = isRoot && spawnSync('unshare', ['-m', '--propagation', 'private', 'true']).status === 0;
const DCD = '/etc/kubernetes/dynamic-kubelet-config';

t.test('live node: migrate writes through the node paths, undo restores them', { skip: !canUnshare && 'needs root and unshare -m' }, async (t) => {
  const out = tempDir();
  const fix = path.join(repoRoot, 'fixtures/migrate/by-hand');
  const cli = (args: string, file: string) => `env -u NODE_OPTIONS -u NODE_EXTRA_CA_CERTS OPENSSL_CONF=/dev/null NO_COLOR=1 '${process.execPath}' '${cliPath}' --dir ${DCD} ${args} > '${out}/${file}.out' 2> '${out}/${file}.err'; echo $? > '${out}/${file}.code'`;
  const script = [
    'set -e',
    `mkdir '${out}/etc-keep'`,
    `cp -a /etc/passwd /etc/group /etc/nsswitch.conf '${out}/etc-keep/' 2>/dev/null || true`,
    'mount -t tmpfs tmpfs /etc',
    'mount -t tmpfs tmpfs /var/lib',
    `cp -a '${out}/etc-keep/.' /etc/`,
    `cp -a '${fix}/etc/.' /etc/`,
    // The unit lives elsewhere and is linked into /etc/systemd/system, as package units are.
    'mkdir -p /etc/systemd/vendor',
    'mv /etc/systemd/system/kubelet.service /etc/systemd/vendor/kubelet.service',
    'ln -s /etc/systemd/vendor/kubelet.service /etc/systemd/system/kubelet.service',
    'chmod 640 /etc/systemd/vendor/kubelet.service && chown 65534:65534 /etc/systemd/vendor/kubelet.service && touch -d 2021-08-01T00:00:00Z /etc/systemd/vendor/kubelet.service',
    `cp /etc/systemd/vendor/kubelet.service '${out}/unit.before'`,
    `stat -c '%a %u:%g %Y' /etc/systemd/vendor/kubelet.service > '${out}/attrs.before'`,
    'set +e',
    cli('migrate --yes --force -o json', 'migrate'),
    `cp /etc/systemd/vendor/kubelet.service '${out}/unit.after'`,
    `readlink /etc/systemd/system/kubelet.service > '${out}/link.after'`,
    `cp /var/lib/kubelet/config.yaml '${out}/config.after'`,
    `stat -c %a /var/lib/kubelet > '${out}/dir.mode'`,
    cli('undo --yes -o json', 'undo'),
    `cp /etc/systemd/vendor/kubelet.service '${out}/unit.undone'`,
    `stat -c '%a %u:%g %Y' /etc/systemd/vendor/kubelet.service > '${out}/attrs.undone'`,
    `readlink /etc/systemd/system/kubelet.service > '${out}/link.undone'`,
    `ls -A /var/lib > '${out}/varlib.undone'`,
  ].join('\n');
  const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], { encoding: 'utf8', env: cleanEnv(), timeout: 120_000 });
  t.equal(r.status, 0, r.stderr);
  const read = (f: string) => fs.readFileSync(path.join(out, f), 'utf8');
  t.equal(read('migrate.code').trim(), '0', read('migrate.err'));
  const m = JSON.parse(read('migrate.out')) as { kind: string; changes: { path: string }[] };
  t.equal(m.kind, 'MigrateResult');
  t.same(m.changes.map((c) => c.path).sort(), ['/etc/systemd/system/kubelet.service', '/var/lib/kubelet/config.yaml'], 'reported by the path the kubelet knows');
  t.not(read('unit.after'), read('unit.before'), 'the unit was edited where it lives, through the link');
  t.equal(read('link.after').trim(), '/etc/systemd/vendor/kubelet.service');
  t.notMatch(read('unit.after'), /dynamic-config-dir|DynamicKubeletConfig/, 'flag and gate gone');
  t.match(read('unit.after'), /--config=\/var\/lib\/kubelet\/config.yaml/);
  t.match(read('config.after'), /^kind: KubeletConfiguration$/m);
  t.equal(read('dir.mode').trim(), '755', 'the missing /var/lib/kubelet made 0755');
  t.equal(read('undo.code').trim(), '0', read('undo.err'));
  t.equal(read('unit.undone'), read('unit.before'), 'undo: the unit byte for byte');
  t.equal(read('attrs.undone'), read('attrs.before'), 'and its mode, owner and mtime');
  t.equal(read('attrs.before').trim(), '640 65534:65534 1627776000');
  t.equal(read('link.undone').trim(), '/etc/systemd/vendor/kubelet.service', 'and still linked');
  t.equal(read('varlib.undone').trim(), '', 'the directory migrate made is gone again');
});
