import t from 'tap';
import { pathFieldsFor, PATH_FIELDS, relativePathFields, resolveRelativePaths } from '../../../lib/config/paths.js';
import { lookupField } from '../../../lib/config/schema.js';

const FILE = '/var/lib/kubelet/dynamic-config/store/checkpoints/u1/7/kubelet';
const DIR = '/var/lib/kubelet/dynamic-config/store/checkpoints/u1/7';

t.test('path fields exist and are strings in every release', async (t) => {
  for (const v of ['1.20', '1.21', '1.22', '1.23'] as const) {
    t.same(pathFieldsFor(v), ['staticPodPath', 'authentication.x509.clientCAFile', 'tlsCertFile', 'tlsPrivateKeyFile', 'resolvConf', 'volumePluginDir'], v);
  }
  for (const f of PATH_FIELDS) t.equal(lookupField(f.path)?.kind, 'string', f.path);
});

t.test('relative values are listed with what the kubelet makes of them', async (t) => {
  const config = {
    staticPodPath: 'manifests', authentication: { x509: { clientCAFile: '../../ca.crt' } }, tlsCertFile: '/etc/tls.crt',
    tlsPrivateKeyFile: '', resolvConf: './resolv.conf', volumePluginDir: 'plugins//exec/', cgroupRoot: 'kubepods',
  };
  t.same(relativePathFields(config, FILE, '1.23'), [
    { field: 'staticPodPath', value: 'manifests', resolved: `${DIR}/manifests` },
    { field: 'authentication.x509.clientCAFile', value: '../../ca.crt', resolved: '/var/lib/kubelet/dynamic-config/store/checkpoints/ca.crt' },
    { field: 'resolvConf', value: './resolv.conf', resolved: `${DIR}/resolv.conf` },
    { field: 'volumePluginDir', value: 'plugins//exec/', resolved: `${DIR}/plugins/exec` },
  ]);
  const out = resolveRelativePaths(config, FILE, '1.23');
  t.equal(out.staticPodPath, `${DIR}/manifests`);
  t.equal(out.tlsCertFile, '/etc/tls.crt', 'absolute paths untouched');
  t.equal(out.tlsPrivateKeyFile, '', 'empty means no path');
  t.equal(out.cgroupRoot, 'kubepods', 'cgroup names are not paths');
  t.equal(config.staticPodPath, 'manifests', 'input untouched');
});
