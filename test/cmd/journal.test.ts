// The journal command as a user runs it: files, stdin, filters, JSON shape, bad input.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { json, repoRoot, runCli } from '../helpers.js';

const J = (f: string) => path.join(repoRoot, 'fixtures/journals', f);
const DEMO_ROOT = path.join(repoRoot, 'fixtures/demo');

interface Out {
  events: { time: string; pid: number | null; kind: string; uid: string | null; resourceVersion: string | null; source: string }[];
  checkpoints: { uid: string; resourceVersion: string; onDisk: boolean | null }[];
  processes: unknown[];
  restarts: number;
  crashLoop: boolean;
  skipped: number;
}

t.test('JSON shape and the same events from text, gz, JSON export and stdin', async (t) => {
  const runs = ['structured-1.22.short.log', 'structured-1.22.short.log.gz', 'structured-1.22.json'].map((f) => json<Out>(runCli(['--dir', DEMO_ROOT + '/var/lib/kubelet/dynamic-config', 'journal', '--file', J(f), '-o', 'json'])));
  const first = runs[0]!;
  t.same(Object.keys(first), ['apiVersion', 'kind', 'events', 'checkpoints', 'processes', 'restarts', 'crashLoop', 'skipped']);
  t.ok(first.events.length > 20);
  t.same(Object.keys(first.events[0]!), ['time', 'pid', 'kind', 'uid', 'resourceVersion', 'apiPath', 'key', 'exitStatus', 'message', 'source']);
  const kinds = (o: Out) => o.events.map((e) => `${e.kind}:${e.uid ?? ''}/${e.resourceVersion ?? ''}`);
  for (const r of runs.slice(1)) t.same(kinds(r), kinds(first));
  const stdin = runCli(['journal', '--file', '-', '-o', 'json'], { input: fs.readFileSync(J('structured-1.22.short.log')) });
  t.equal(stdin.code, 0, stdin.stderr);
  t.same(kinds(json<Out>(stdin)), kinds(first));
  t.equal(json<Out>(stdin).events[0]!.source, '-');
});

t.test('--uid filters; onDisk is judged against the store', async (t) => {
  const r = json<Out>(runCli(['--root', DEMO_ROOT, 'journal', '--file', J('structured-1.22.short.log'), '--uid', '7a0c', '-o', 'json']));
  t.ok(r.events.length > 0);
  t.ok(r.events.every((e) => e.uid === null || e.uid.startsWith('7a0c')));
  t.ok(r.checkpoints.every((c) => c.onDisk === false), 'the demo store holds none of these UIDs');
});

t.test('text timeline marks failures', async (t) => {
  const r = runCli(['journal', '--file', J('structured-1.22.short.log')]);
  t.equal(r.code, 0);
  t.match(r.stdout, /^Timeline/);
  t.match(r.stdout, /\n! .*load-failed/);
});

t.test('bad input: missing file exit 3, no kubelet lines exit 0, binary garbage survives', async (t) => {
  const missing = runCli(['journal', '--file', '/nonexistent/journal.log']);
  t.equal(missing.code, 3);
  t.match(missing.stderr, /nonexistent/);
  const empty = runCli(['journal', '--file', '-', '-o', 'json'], { input: 'Nov 22 08:00:00 host sshd[1]: hello\n' });
  t.equal(empty.code, 0);
  t.match(json<Out>(empty), { events: [], restarts: 0, crashLoop: false });
  const garbage = Buffer.concat([Buffer.from([0, 255, 254, 10, 0, 0]), Buffer.alloc(200_000, 0x41), Buffer.from('\n')]);
  const g = runCli(['journal', '--file', '-', '-o', 'json'], { input: garbage });
  t.equal(g.code, 0, g.stderr);
  t.same(json<Out>(g).events, []);
});
