// Discovery on the distributions' layouts (reference/migration.md §6): the flag files of
// fixtures/migrate/*, and each distribution's store directory once the flag is gone.
import t from 'tap';
import path from 'node:path';
import { discover, DISTRIBUTION_DIRS } from '../../../lib/store/discover.js';
import { repoRoot, writeTree } from '../../helpers.js';

const fixture = (n: string) => path.join(repoRoot, 'fixtures/migrate', n);

t.test('the flag files of each layout name its store and --config', async (t) => {
  const cases = [
    { name: 'kubeadm', dir: '/var/lib/kubelet/dynamic-config', config: '/var/lib/kubelet/config.yaml', step: /EnvironmentFile \/var\/lib\/kubelet\/kubeadm-flags.env/ },
    { name: 'aks', dir: '/etc/default/dynamickubelet', config: '/etc/default/kubeletconfig.json', step: /EnvironmentFile \/etc\/default\/kubelet/ },
    { name: 'kubespray', dir: '/etc/kubernetes/dynamic_kubelet_dir', config: '/etc/kubernetes/kubelet-config.yaml', step: /EnvironmentFile \/etc\/kubernetes\/kubelet.env/ },
    { name: 'by-hand', dir: '/etc/kubernetes/dynamic-kubelet-config', config: null, step: /systemd: read \/etc\/systemd\/system\/kubelet.service/ },
  ];
  for (const c of cases) {
    const root = fixture(c.name);
    const d = discover({ root });
    t.equal(d.dir, path.join(root, c.dir), `${c.name}: store`);
    t.equal(d.configFile, c.config ? path.join(root, c.config) : null, `${c.name}: --config`);
    t.match(d.steps.join('\n'), c.step, `${c.name}: the step is reported`);
    t.match(d.via, /--dynamic-config-dir in the kubelet's systemd unit/);
  }
});

t.test('without the flag: each distribution directory holding a store is found, and each probe reported', async (t) => {
  for (const d of DISTRIBUTION_DIRS) {
    const root = t.testdir();
    writeTree(root, { [`${d.dir.slice(1)}/store/meta`]: null });
    const found = discover({ root });
    t.equal(found.dir, path.join(root, d.dir), d.who);
    t.match(found.via, d.who);
  }
  const root = t.testdir();
  writeTree(root, { 'etc/kubernetes/kubelet/pki': null });
  const none = discover({ root });
  t.equal(none.dir, null, 'a Talos-named directory without store/ is not a store');
  for (const d of DISTRIBUTION_DIRS) t.match(none.steps.join('\n'), `${d.dir}/store does not exist`);
});
