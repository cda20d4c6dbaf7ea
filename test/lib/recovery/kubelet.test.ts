import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { hostPort, kubeconfigServers, kubeletsUsing, reachableServers, tcpReachable } from '../../../lib/recovery/kubelet.js';
import { findOnPath } from '../../../lib/onpath.js';
import { kubeconfig, kubeletBin, listener, makeStore, startKubelet } from './fixtures/index.js';

t.test('hostPort', async (t) => {
  const table: [string, { host: string; port: number } | null][] = [
    ['https://10.0.0.1:6443', { host: '10.0.0.1', port: 6443 }],
    ['https://api.example.com', { host: 'api.example.com', port: 443 }],
    ['http://127.0.0.1', { host: '127.0.0.1', port: 80 }],
    ['https://[::1]:6443', { host: '::1', port: 6443 }],
    ['10.0.0.1:6443', { host: '10.0.0.1', port: 6443 }],
    ['https://', null],
  ];
  for (const [s, want] of table) t.same(hostPort(s), want, s);
});

t.test('kubeconfigServers reads clusters[].cluster.server, tolerates junk', async (t) => {
  const dir = t.testdir({
    kc: 'clusters:\n- cluster: {server: "https://a:6443"}\n- cluster: {server: ""}\n- name: x\n- cluster: {server: "https://b"}\n',
    bad: 'clusters: [',
    none: 'kind: Config\n',
  });
  t.same(kubeconfigServers(path.join(dir, 'kc')), ['https://a:6443', 'https://b']);
  t.same(kubeconfigServers(path.join(dir, 'bad')), []);
  t.same(kubeconfigServers(path.join(dir, 'none')), []);
  t.same(kubeconfigServers(path.join(dir, 'missing')), []);
});

t.test('reachability: a loopback listener answers, a closed port does not', async (t) => {
  const l = await listener(t);
  t.equal(await tcpReachable('127.0.0.1', l.port, 1000), true);
  const dir = t.testdir({});
  const kc = kubeconfig(path.join(dir, 'kc'), `https://127.0.0.1:${l.port}`);
  t.same(await reachableServers(kc, 1000), [`https://127.0.0.1:${l.port}`]);
  await l.close();
  t.equal(await tcpReachable('127.0.0.1', l.port, 1000), false);
  t.same(await reachableServers(kc, 1000), []);
});

t.test('kubeletsUsing matches a real kubelet process on this store only', async (t) => {
  const dir = t.testdir({});
  const mine = makeStore(path.join(dir, 'mine'));
  const other = makeStore(path.join(dir, 'other'));
  const bin = kubeletBin(path.join(dir, 'bin'));
  t.same(kubeletsUsing(mine).using, []);
  const k1 = await startKubelet(t, bin, [`--dynamic-config-dir=${other}`]);
  const k2 = await startKubelet(t, bin, ['--kubeconfig', '/etc/kubernetes/kubelet.conf', `--dynamic-config-dir=${mine}/`]);
  t.same(
    kubeletsUsing(mine).using.map((k) => [k.pid, k.kubeconfig]),
    [[k2.pid, '/etc/kubernetes/kubelet.conf']],
  );
  t.same(kubeletsUsing(other).using.map((k) => k.pid), [k1.pid]);
  // a symlink to the store is the same store
  fs.symlinkSync(mine, path.join(dir, 'link'));
  t.same(kubeletsUsing(path.join(dir, 'link')).using.map((k) => k.pid), [k2.pid]);
  k2.kill('SIGTERM');
  await new Promise((r) => k2.once('exit', r));
  t.same(kubeletsUsing(mine).using, []);
});

t.test('findOnPath finds systemctl-like executables on a PATH', async (t) => {
  const dir = t.testdir({ tool: '#!/bin/sh\n', plain: 'x' });
  fs.chmodSync(path.join(dir, 'tool'), 0o755);
  t.equal(findOnPath('tool', `/nonexistent:${dir}`), path.join(dir, 'tool'));
  t.equal(findOnPath('plain', dir), null);
  t.equal(findOnPath('tool', ''), null);
});
