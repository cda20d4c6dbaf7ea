// fleet manifest ansible with the real ansible-playbook: an inventory of local hosts, each
// pointed at a different fixture node root, then `report merge` on the fetched reports.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanEnv, cliPath, copyFixture, json, runCli, tempDir, writeTree } from '../helpers.js';

const playbookBin = spawnSync('sh', ['-c', 'command -v ansible-playbook'], { encoding: 'utf8' }).stdout.trim();
const python = ['/usr/bin/python3', '/usr/bin/python'].find((p) => fs.existsSync(p)) ?? 'python3';

t.test('ansible-playbook: copy, report, fetch on two local hosts; report merge of the fetched files', { skip: playbookBin ? false : 'ansible-playbook is not installed (apt-get install ansible)', timeout: 180_000 }, async (t) => {
  const work = tempDir('kckpt-ansible-');
  const rootA = copyFixture('demo');
  writeTree(rootA, { 'etc/hostname': 'ansible-a\n' });
  const rootB = tempDir('kckpt-ansible-b-');
  fs.mkdirSync(path.join(rootB, 'var/lib/kubelet/dynamic-config'), { recursive: true });
  copyFixture('stores/fell-back', path.join(rootB, 'var/lib/kubelet/dynamic-config'));
  writeTree(rootB, { 'etc/hostname': 'ansible-b\n' });
  const host = (name: string, root: string) =>
    `${name} ansible_connection=local ansible_python_interpreter=${python} kubelet_ckpt_root=${root} kubelet_ckpt_dest=${work}/bin-${name}/kubelet-ckpt kubelet_ckpt_tmp=${work}/remote-${name}`;
  fs.mkdirSync(path.join(work, 'remote-node-a'));
  fs.mkdirSync(path.join(work, 'remote-node-b'));
  fs.mkdirSync(path.join(work, 'bin-node-a'));
  fs.mkdirSync(path.join(work, 'bin-node-b'));
  writeTree(work, { 'inventory.ini': `[nodes]\n${host('node-a', rootA)}\n${host('node-b', rootB)}\n` });
  // The defaults (dist/kubelet-ckpt.cjs, reports/) as an operator in a checkout gets them, and the
  // playbook saved elsewhere: found by a fleet review, Ansible read both from the playbook's directory.
  fs.mkdirSync(path.join(work, 'dist'));
  fs.copyFileSync(cliPath, path.join(work, 'dist/kubelet-ckpt.cjs'));
  const pb = runCli(['fleet', 'manifest', 'ansible', '--node', process.execPath], { cwd: work });
  t.equal(pb.code, 0, pb.stderr);
  t.match(pb.stdout, `#   kubelet-ckpt report merge ${work}/reports/\n`, 'the guide names the reports directory the playbook fills');
  fs.mkdirSync(path.join(work, 'playbooks'));
  fs.writeFileSync(path.join(work, 'playbooks/report.yml'), pb.stdout);
  const env = { ...cleanEnv(), HOME: work, ANSIBLE_LOCAL_TEMP: `${work}/.ansible-local`, ANSIBLE_REMOTE_TEMP: `${work}/.ansible-remote`, ANSIBLE_NOCOLOR: '1', ANSIBLE_HOST_KEY_CHECKING: 'False', ANSIBLE_RETRY_FILES_ENABLED: 'False' };
  const r = spawnSync(playbookBin, ['-i', '../inventory.ini', 'report.yml', '-e', 'kubelet_ckpt_become=false'], { cwd: path.join(work, 'playbooks'), env, encoding: 'utf8', timeout: 150_000 });
  t.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  t.match(r.stdout, /node-a\s+: ok=4\s+changed=\d+\s+unreachable=0\s+failed=0/);
  t.match(r.stdout, /node-b\s+: ok=4\s+changed=\d+\s+unreachable=0\s+failed=0/);
  const fetched = path.join(work, 'reports', 'node-a', work.replace(/^\//, ''), 'remote-node-a', 'kubelet-ckpt-report-node-a.json');
  t.ok(fs.existsSync(fetched), `fetch kept dest/<host>/<remote path>: ${fetched}`);
  t.equal(fs.readFileSync(path.join(work, 'bin-node-a/kubelet-ckpt')).equals(fs.readFileSync(cliPath)), true, 'the bundle was copied');
  const m = runCli(['report', 'merge', path.join(work, 'reports'), '-o', 'json']);
  t.equal(m.code, 1, m.stderr);
  const f = json(m);
  t.equal(f.nodes, 2);
  t.same(f.warnings, []);
  t.same(f.trouble.map((x: { node: string; problems: string[] }) => [x.node, x.problems]), [['ansible-b', ['fell-back']]]);
  t.same(f.groups.flatMap((g: { nodes: string[] }) => g.nodes).sort(), ['ansible-a', 'ansible-b']);
});

t.test("ansible-playbook: paths holding ' \" \\ and {{ }} are data, not Jinja", { skip: playbookBin ? false : 'ansible-playbook is not installed (apt-get install ansible)', timeout: 180_000 }, async (t) => {
  const work = tempDir('kckpt-ansible-q-');
  const root = copyFixture('demo');
  writeTree(root, { 'etc/hostname': 'quoted\n' });
  // A directory name that, pasted into Jinja or YAML as it is, ends the string and runs a command.
  const hostile = `it's "q" \\ {{ lookup('pipe','touch pwned') }} {% raw %}`;
  const bundleDir = path.join(work, hostile);
  fs.mkdirSync(bundleDir);
  fs.copyFileSync(cliPath, path.join(bundleDir, 'kubelet-ckpt.cjs'));
  fs.mkdirSync(path.join(work, 'remote'));
  fs.mkdirSync(path.join(work, 'bin'));
  writeTree(work, { 'inventory.ini': `[nodes]\nquoted ansible_connection=local ansible_python_interpreter=${python} kubelet_ckpt_root=${root} kubelet_ckpt_dest=${work}/bin/kubelet-ckpt kubelet_ckpt_tmp=${work}/remote\n` });
  const reports = path.join(work, `${hostile} reports`);
  // A backslash last in a string literal would escape its closing quote, were it not plain text.
  const node = path.join(work, "node'\\");
  fs.symlinkSync(process.execPath, node);
  const pb = runCli(['fleet', 'manifest', 'ansible', '--local-bundle', path.join(bundleDir, 'kubelet-ckpt.cjs'), '--node', node, '--reports-dir', `${reports}/`]);
  t.equal(pb.code, 0, pb.stderr);
  fs.writeFileSync(path.join(work, 'report.yml'), pb.stdout);
  const env = { ...cleanEnv(), HOME: work, ANSIBLE_LOCAL_TEMP: `${work}/.ansible-local`, ANSIBLE_REMOTE_TEMP: `${work}/.ansible-remote`, ANSIBLE_NOCOLOR: '1', ANSIBLE_HOST_KEY_CHECKING: 'False', ANSIBLE_RETRY_FILES_ENABLED: 'False' };
  const r = spawnSync(playbookBin, ['-i', 'inventory.ini', 'report.yml', '-e', 'kubelet_ckpt_become=false'], { cwd: work, env, encoding: 'utf8', timeout: 150_000 });
  t.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  t.notOk(fs.existsSync(path.join(work, 'pwned')), 'no lookup ran');
  t.equal(fs.readFileSync(path.join(work, 'bin/kubelet-ckpt')).equals(fs.readFileSync(cliPath)), true, 'the bundle was copied from the quoted path');
  const m = runCli(['report', 'merge', reports, '-o', 'json']);
  t.equal(m.code, 0, m.stderr);
  t.same(json(m).groups.flatMap((g: { nodes: string[] }) => g.nodes), ['quoted'], 'the report was fetched into the quoted directory');
});

t.test('jinjaString: Jinja reads back exactly the string, whatever it holds', async (t) => {
  const { jinjaString } = await import('../../lib/fleet/manifests/ansible.js');
  t.equal(jinjaString('/usr/local/bin/kubelet-ckpt'), "'/usr/local/bin/kubelet-ckpt'", 'a plain path stays one literal');
  t.equal(jinjaString("it's\\"), "('it' ~ ('%c'|format(39)) ~ 's' ~ ('%c'|format(92)))");
  const hasJinja = spawnSync(python, ['-c', 'import jinja2'], { encoding: 'utf8' }).status === 0;
  if (!hasJinja) return t.skip('python3-jinja2 is not installed');
  const cases = ['', "'", '\\', "\\'", "it's", 'a"b', "{{ lookup('pipe','id') }}", '{% raw %}x{% endraw %}', '{# c #}', 'tab\there', 'ünï 😀', "'\\'\\\\''"];
  const script = 'import jinja2, json, sys\nfor e in json.load(sys.stdin): print(json.dumps(jinja2.Environment().from_string("{{ x | default(" + e + ") }}").render()))';
  const r = spawnSync(python, ['-c', script], { input: JSON.stringify(cases.map(jinjaString)), encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.same(r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l)), cases);
});
