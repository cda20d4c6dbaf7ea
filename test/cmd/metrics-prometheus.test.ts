// metrics end to end with the real Debian node exporter and Prometheus on loopback: one
// exporter per fixture node reads that node's kubelet_ckpt.prom, Prometheus scrapes them
// all, and a PromQL query over the HTTP API groups the nodes by the config they run.
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { copyFixture, runCli, tempDir } from '../helpers.js';

const which = (b: string) => spawnSync('sh', ['-c', `command -v ${b}`], { encoding: 'utf8' }).stdout.trim();
const exporter = which('prometheus-node-exporter');
const prometheus = which('prometheus');
const missing = [!exporter && 'prometheus-node-exporter', !prometheus && 'prometheus'].filter(Boolean);

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function get(url: string): Promise<{ status: number; body: string } | null> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return { status: r.status, body: await r.text() };
  } catch {
    return null;
  }
}

/** Poll until `ok` holds or the deadline passes; the last value either way. */
async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let v = await what();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 250));
    v = await what();
  }
  return v;
}

t.test('node exporter + Prometheus: two or more nodes, grouped by config with PromQL', { skip: missing.length ? `not installed: ${missing.join(', ')} (apt-get install prometheus prometheus-node-exporter)` : false, timeout: 120_000 }, async (t) => {
  const procs: ChildProcess[] = [];
  const logs: string[] = [];
  t.teardown(() => {
    for (const p of procs) {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
  const start = (bin: string, args: string[]) => {
    const p = spawn(bin, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    p.stderr!.on('data', (b) => logs.push(String(b)));
    procs.push(p);
    return p;
  };
  const nodes: [string, string[]][] = [
    ['node-a', ['--dir', copyFixture('stores/healthy')]],
    ['node-b', ['--dir', copyFixture('stores/healthy')]],
    ['node-c', ['--root', copyFixture('demo')]],
    ['node-d', ['--dir', copyFixture('stores/in-trial')]],
  ];
  const targets: { node: string; port: number }[] = [];
  for (const [node, args] of nodes) {
    const dir = tempDir('kckpt-textfile-');
    const w = runCli([...args, 'metrics', '--no-journal', '--textfile-dir', dir]);
    t.equal(w.code, 0, w.stderr);
    t.same(fs.readdirSync(dir), ['kubelet_ckpt.prom'], `${node}: only the .prom file is left`);
    const port = await freePort();
    start(exporter, [`--web.listen-address=127.0.0.1:${port}`, '--collector.disable-defaults', '--collector.textfile', `--collector.textfile.directory=${dir}`]);
    targets.push({ node, port });
  }
  // The exporter serves our metrics, and its textfile collector read the file without error.
  for (const { node, port } of targets) {
    const m = await until(() => get(`http://127.0.0.1:${port}/metrics`), (r) => r?.status === 200, 15_000);
    t.equal(m?.status, 200, `${node}: exporter up${m ? '' : `\n${logs.join('')}`}`);
    t.match(m?.body ?? '', /^kubelet_ckpt_will_start 1$/m, `${node}: kubelet_ckpt_will_start served`);
    t.match(m?.body ?? '', /^node_textfile_scrape_error 0$/m, `${node}: the collector parsed the file`);
  }
  const work = tempDir('kckpt-prom-');
  const cfg = path.join(work, 'prometheus.yml');
  fs.writeFileSync(
    cfg,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: node\n    static_configs:\n${targets.map((x) => `      - targets: ['127.0.0.1:${x.port}']\n        labels: {node: ${x.node}}\n`).join('')}`,
  );
  const promPort = await freePort();
  start(prometheus, [`--config.file=${cfg}`, `--storage.tsdb.path=${path.join(work, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`]);
  const base = `http://127.0.0.1:${promPort}`;
  const ready = await until(() => get(`${base}/-/ready`), (r) => r?.status === 200, 30_000);
  t.equal(ready?.status, 200, `prometheus ready${ready ? '' : `\n${logs.join('').slice(-2000)}`}`);
  type Vec = { metric: Record<string, string>; value: [number, string] }[];
  const query = async (q: string): Promise<Vec> => {
    const r = await get(`${base}/api/v1/query?query=${encodeURIComponent(q)}`);
    return r?.status === 200 ? (JSON.parse(r.body) as { data: { result: Vec } }).data.result : [];
  };
  const up = await until(() => query('sum(up{job="node"})'), (v) => v[0]?.value[1] === String(targets.length), 30_000);
  t.equal(up[0]?.value[1], String(targets.length), 'every exporter scraped');
  const grouped = await until(() => query('count by (sha256, uid, resource_version) (kubelet_ckpt_config_info{role="next-boot"})'), (v) => v.reduce((n, x) => n + Number(x.value[1]), 0) === targets.length, 30_000);
  const groups = grouped.map((g) => [g.metric.uid, g.metric.resource_version, Number(g.value[1])]).sort((a, b) => Number(b[2]) - Number(a[2]) || `${a[0]}/${a[1]}`.localeCompare(`${b[0]}/${b[1]}`));
  t.same(groups, [
    ['946d785e-998a-11e7-a8dd-42010a800006', '119980', 2],
    ['5808539f-48e3-4e47-8ce6-c261c48fa1d9', '42315', 1],
    ['946d785e-998a-11e7-a8dd-42010a800006', '120113', 1],
  ], 'node-a and node-b run one config; the demo node and the in-trial node one each');
  const byNode = await query('max by (node) (kubelet_ckpt_next_boot_source{source="assigned"})');
  t.same(byNode.map((x) => x.metric.node).sort(), ['node-a', 'node-b', 'node-c', 'node-d']);
  t.equal(grouped.every((g) => /^[0-9a-f]{64}$/.test(g.metric.sha256 ?? '')), true, 'grouped by the sha256 of the payload');
});
