import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { countFindings } from '../../../lib/fleet/report.js';
import { nodeName } from '../../../lib/fleet/nodename.js';
import { TOOL_VERSION } from '../../../lib/fleet/version.js';
import { migrationReadiness } from '../../../lib/fleet/migration.js';
import { copyFixture, repoRoot, runCli, tempDir, writeTree } from '../../helpers.js';
import { openSession } from '../../../lib/session.js';

t.test('the version in reports is the package version', async (t) => {
  t.equal(TOOL_VERSION, JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
});

t.test('findings counted by severity and by code', async (t) => {
  const f = (severity: 'error' | 'warning' | 'info', code: string) => ({ severity, code, message: '', path: null, ref: null });
  t.same(countFindings([f('error', 'PAYLOAD_INVALID'), f('info', 'FLAG_OVERRIDE'), f('error', 'PAYLOAD_INVALID'), f('warning', 'TMP_LEFTOVER')], 'all'), {
    scope: 'all',
    error: 2,
    warning: 1,
    info: 1,
    byCode: [
      { code: 'FLAG_OVERRIDE', severity: 'info', count: 1 },
      { code: 'PAYLOAD_INVALID', severity: 'error', count: 2 },
      { code: 'TMP_LEFTOVER', severity: 'warning', count: 1 },
    ],
  });
  t.same(countFindings([], 'referenced'), { scope: 'referenced', error: 0, warning: 0, info: 0, byCode: [] });
});

t.test('node name: flag, then --hostname-override, then /etc/hostname under --root (else unknown), then the host name', async (t) => {
  const root = writeTree(tempDir(), { 'etc/hostname': '# comment\n\n  Disk-Node \n' });
  const argv = ['kubelet', '--hostname-override', 'Over'];
  t.same(nodeName({ given: 'x', kubeletArgv: argv, root, hostname: 'h' }), { name: 'x', nameFrom: 'flag' });
  t.same(nodeName({ given: '  ', kubeletArgv: argv, root, hostname: 'h' }), { name: 'over', nameFrom: 'hostname-override' });
  t.same(nodeName({ kubeletArgv: ['kubelet', '--hostname-override='], root, hostname: 'h' }), { name: 'disk-node', nameFrom: 'hostname' });
  t.same(nodeName({ kubeletArgv: [], root: tempDir(), hostname: 'Host-A' }), { name: null, nameFrom: 'unknown' }, 'under --root, never the rescue machine\'s name');
  t.same(nodeName({ kubeletArgv: [], root: writeTree(tempDir(), { 'etc/hostname': '# only a comment\n\n' }), hostname: 'Host-A' }), { name: null, nameFrom: 'unknown' });
  t.same(nodeName({ kubeletArgv: [], root: '/', hostname: 'live' }), { name: 'live', nameFrom: 'hostname' });
});

t.test('migration readiness: upgrade-check\'s verdict for 1.24 before and after migrate', async (t) => {
  t.equal(migrationReadiness(null, '/'), null, 'no store, nothing to judge');
  const root = copyFixture('migrate/kubeadm');
  const open = () => openSession({ root, kubeletVersion: '1.23' });
  const before = migrationReadiness(open(), root)!;
  t.match(before, { to: '1.24', ready: false, breaks: true, exitMessage: /unknown flag: --dynamic-config-dir/, error: null, assumedFlags: null });
  t.ok(before.revertedFields.length > 0, `dropping the flag alone would revert ${before.revertedFields.join(', ')}`);
  const m = runCli(['--root', root, 'migrate', '--yes', '--force']); // the old local file differs: replaced as a whole
  t.equal(m.code, 0, m.stderr);
  t.same(migrationReadiness(open(), root), { to: '1.24', ready: true, breaks: false, exitMessage: null, revertedFields: [], error: null, assumedFlags: null }, 'after migrate: ready');
});

t.test('migration readiness: no command line found is not "ready" (the store means --dynamic-config-dir)', async (t) => {
  const dir = writeTree(tempDir(), { 'store/meta/assigned': '', 'store/meta/last-known-good': '', 'store/checkpoints': null });
  t.same(migrationReadiness(openSession({ dir, kubeletVersion: '1.23' }), '/'), {
    to: '1.24', ready: false, breaks: true, exitMessage: 'Error: failed to parse kubelet flag: unknown flag: --dynamic-config-dir', revertedFields: [], error: null,
    assumedFlags: [`--dynamic-config-dir=${dir}`, '--feature-gates=DynamicKubeletConfig=true'],
  });
  const on121 = migrationReadiness(openSession({ dir, kubeletVersion: '1.21' }), '/')!;
  t.same(on121.assumedFlags, [`--dynamic-config-dir=${dir}`], '1.21 runs the store without the gate on its command line: only the flag is assumed');
});
