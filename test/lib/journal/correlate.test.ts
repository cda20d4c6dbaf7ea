// correlate() is pure: events (journal order) + what the store holds → summaries.
import t from 'tap';
import { correlate, namesByUid } from '../../../lib/journal/correlate.js';
import type { EventKind, JournalEvent } from '../../../lib/journal/events.js';

const U = '705ab4f5-6393-11e8-b7cc-42010a800002';
const P = '/api/v1/namespaces/kube-system/configmaps/node-config';
let clock = Date.UTC(2021, 7, 24, 13, 0, 0);

/** An event `dt` seconds after the previous one. */
function ev(kind: EventKind, pid: number | null, more: Partial<JournalEvent> = {}, dt = 1): JournalEvent {
  clock += dt * 1000;
  return { time: new Date(clock).toISOString(), pid, kind, uid: null, resourceVersion: null, apiPath: null, key: null, exitStatus: null, message: kind, source: 'test', ...more };
}
const load = (pid: number, rv: string) => ev('checkpoint-load', pid, { uid: U, resourceVersion: rv, apiPath: P });
const exited = (status: number, dt = 1) => ev('kubelet-exited', 1, { exitStatus: status }, dt);

t.test('restarts: restart-scheduled events, one per restart', async (t) => {
  const events = [
    ev('controller-start', 100),
    ev('restart-for-config', 100, { uid: U, resourceVersion: '2', apiPath: P, key: 'kubelet' }),
    exited(0),
    ev('restart-scheduled', 1, { message: 'kubelet.service: Service RestartSec=10s expired, scheduling restart.' }, 10),
    ev('restart-scheduled', 1, { message: 'kubelet.service: Scheduled restart job, restart counter is at 1.' }, 0),
    ev('kubelet-started', 1),
    ev('controller-start', 200),
    ev('restart-scheduled', 1, {}, 60),
    ev('kubelet-started', 1),
    ev('controller-start', 300),
  ];
  t.equal(correlate(events).restarts, 2);
});

t.test('found by review: "Scheduled restart job" lines with no "Started" between them are restarts each', async (t) => {
  const job = (n: number) => ev('restart-scheduled', null, { message: `kubelet.service: Scheduled restart job, restart counter is at ${n}.` }, 10);
  // A failing ExecStartPre: systemd restarts the unit and never logs Started (its Stopped and Failed lines are no events).
  t.equal(correlate([job(1), job(2), job(3)]).restarts, 3);
  // The older pair for one restart still counts once, also twice in a row.
  const pair = () => [ev('restart-scheduled', null, { message: 'kubelet.service: Service hold-off time over, scheduling restart.' }, 10), ev('restart-scheduled', null, { message: 'kubelet.service: Scheduled restart job, restart counter is at 1.' }, 0)];
  t.equal(correlate([...pair(), ...pair()]).restarts, 2);
});

t.test('restarts without systemd lines: changes of kubelet pid', async (t) => {
  const events = [ev('controller-start', 100), ev('controller-start', 200), ev('checkpoint-exists', 200), ev('controller-start', 300)];
  t.equal(correlate(events).restarts, 2);
  t.equal(correlate([ev('controller-start', 100)]).restarts, 0);
  t.equal(correlate([]).restarts, 0);
});

t.test('crash loop: three failed starts within ten minutes', async (t) => {
  const failing = (pid: number, dt: number) => [ev('kubelet-started', 1, {}, dt), ev('controller-start', pid), ev('bootstrap-failed', pid), exited(255), ev('restart-scheduled', 1)];
  t.equal(correlate([...failing(1, 0), ...failing(2, 240), ...failing(3, 240)]).crashLoop, true, 'three within ~8 minutes');
  t.equal(correlate([...failing(1, 0), ...failing(2, 400), ...failing(3, 400)]).crashLoop, false, 'three over ~13 minutes');
  t.equal(correlate([...failing(1, 0), ...failing(2, 10)]).crashLoop, false, 'two');
  // bootstrap-failed, a non-zero exit and the start limit in one process count once
  const one = [ev('controller-start', 9), ev('bootstrap-failed', 9), exited(255), ev('start-limit-hit', 1)];
  t.equal(correlate([...one, ...failing(10, 1)]).crashLoop, false, 'counted once per process');
});

t.test('crash loop from systemd lines alone (the kubelet logged nothing we know)', async (t) => {
  const attempt = (dt: number) => [ev('kubelet-started', 1, {}, dt), exited(1), ev('restart-scheduled', 1)];
  const r = correlate([...attempt(0), ...attempt(10), ...attempt(10), ev('start-limit-hit', 1)]);
  t.equal(r.crashLoop, true);
  t.equal(r.processes.length, 3);
  t.same(r.processes.map((p) => [p.pid, p.ended]), [[null, 'kubelet-exited'], [null, 'kubelet-exited'], [null, 'start-limit-hit']]);
  t.equal(r.restarts, 3);
});

t.test('clean exits are not failed starts', async (t) => {
  const apply = (pid: number) => [ev('kubelet-started', 1, {}, 20), ev('controller-start', pid), ev('restart-for-local', pid), exited(0), ev('restart-scheduled', 1)];
  t.equal(correlate([...apply(1), ...apply(2), ...apply(3), ...apply(4)]).crashLoop, false);
});

t.test('processes: what each loaded, how it ended', async (t) => {
  const events = [
    ev('controller-start', 100),
    load(100, '1'),
    ev('restart-for-config', 100, { uid: U, resourceVersion: '2', apiPath: P, key: 'kubelet' }),
    exited(0),
    ev('kubelet-started', 1),
    ev('controller-start', 200),
    load(200, '2'),
    ev('validate-failed', 200),
    load(200, '1'), // last-known-good
    ev('kubelet-started', 1, {}, 60), // no exit line (systemd < v240 logs none for status 0)
    ev('controller-start', 300),
    load(300, '3'),
    ev('load-failed', 300), // last-known-good is local: nothing more is loaded
  ];
  const r = correlate(events);
  t.same(
    r.processes.map((p) => ({ pid: p.pid, loaded: p.loaded, ended: p.ended })),
    [
      { pid: 100, loaded: { uid: U, resourceVersion: '1' }, ended: 'restart-for-config' },
      { pid: 200, loaded: { uid: U, resourceVersion: '1' }, ended: null },
      { pid: 300, loaded: null, ended: null },
    ],
  );
  t.equal(r.processes[0]!.firstSeen, events[0]!.time);
  t.equal(r.processes[0]!.lastSeen, events[3]!.time, 'the exit line ends it');
});

t.test('a kubelet line journald wrote after systemd\'s exit line stays with its process', async (t) => {
  const r = correlate([ev('controller-start', 100), exited(255), ev('bootstrap-failed', 100, {}, 0)]);
  t.equal(r.processes.length, 1);
  t.equal(r.processes[0]!.ended, 'bootstrap-failed');
});

t.test('checkpoints: seen in the journal, on disk, named by meta files', async (t) => {
  const events = [load(1, '10'), ev('load-failed', 1), ev('downloaded', 1, { uid: U, resourceVersion: '11', apiPath: P }), ev('checkpoint-load', 2, { uid: 'aaaa0000', resourceVersion: null, apiPath: null })];
  const bare = correlate(events);
  t.same(bare.checkpoints.map((c) => [c.uid, c.resourceVersion, c.events, c.onDisk]), [
    [U, '10', 2, null],
    [U, '11', 1, null],
    ['aaaa0000', null, 1, null],
  ]);
  t.same(bare.concerns, [U, U, U, 'aaaa0000'], 'the load failure concerns the checkpoint loaded before it');
  const withStore = correlate(events, {
    onDisk: [{ uid: U, resourceVersion: '10' }, { uid: 'aaaa0000', resourceVersion: '5' }, { uid: 'bbbb1111', resourceVersion: '7' }],
    metaSources: [{ namespace: 'ns', name: 'meta-named', uid: 'aaaa0000', resourceVersion: '5', kubeletConfigKey: 'kubelet' }],
  });
  t.same(withStore.checkpoints.map((c) => [c.uid, c.resourceVersion, c.onDisk, c.apiPath]), [
    [U, '10', true, P],
    [U, '11', false, P],
    ['aaaa0000', null, true, '/api/v1/namespaces/ns/configmaps/meta-named'],
    ['aaaa0000', '5', true, '/api/v1/namespaces/ns/configmaps/meta-named'],
    ['bbbb1111', '7', true, null],
  ]);
  t.match(withStore.checkpoints[4], { firstSeen: null, lastSeen: null, events: 0 });
});

t.test('namesByUid: namespace/name (and key) for UIDs', async (t) => {
  const names = namesByUid([
    ev('checkpoint-exists', 1, { uid: U, resourceVersion: '1', apiPath: P }),
    ev('restart-for-config', 1, { uid: U, resourceVersion: '2', apiPath: P, key: 'kubelet-config' }),
    ev('checkpoint-load', 1, { uid: 'no-path', resourceVersion: '1' }),
    ev('downloaded', 1, { uid: 'bad-path', resourceVersion: '1', apiPath: '/api/v1/nodes/x' }),
  ]);
  t.same([...names], [[U, { namespace: 'kube-system', name: 'node-config', key: 'kubelet-config' }]]);
});

t.test('found by a journal review: a process whose last-known-good failed too ran no checkpoint', async (t) => {
  // assigned loads and fails, last-known-good loads and fails (no line of its own), bootstrap fails.
  const r = correlate([ev('controller-start', 500), load(500, '42315'), ev('validate-failed', 500), load(500, '41877'), ev('bootstrap-failed', 500), exited(1)]);
  t.match(r.processes.at(-1), { pid: 500, loaded: null, ended: 'bootstrap-failed' });
  const g = correlate([ev('controller-start', 600), ev('feature-gate-off', 600)]);
  t.match(g.processes.at(-1), { loaded: null, ended: 'feature-gate-off' });
  // A restart for a new config keeps what the process ran.
  const k = correlate([ev('controller-start', 700), load(700, '41877'), ev('restart-for-config', 700, { uid: U, resourceVersion: '42315', apiPath: P, key: 'kubelet' })]);
  t.match(k.processes.at(-1), { loaded: { resourceVersion: '41877' }, ended: 'restart-for-config' });
});
