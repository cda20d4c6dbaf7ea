import t from 'tap';
import { compareValues } from '../../../lib/diff/semantic.js';
import { formatPath, quote } from '../../../lib/diff/path.js';
import { deepEqual, fromJNode, type Value } from '../../../lib/diff/value.js';
import { parseGoJson } from '../../../lib/config/json.js';

const plain = (cs: ReturnType<typeof compareValues>) => cs.map(({ path, op, from, to }) => ({ path, op, from, to }));

t.test('formatPath: dots where unambiguous, bracketed quoted keys elsewhere', async (t) => {
  const cases: Array<[string[], string]> = [
    [[], ''],
    [['maxPods'], 'maxPods'],
    [['systemReserved', 'cpu'], 'systemReserved.cpu'],
    [['evictionHard', 'memory.available'], 'evictionHard["memory.available"]'],
    [['featureGates', 'CPUManager'], 'featureGates.CPUManager'],
    [['reservedMemory', 'hugepages-2Mi'], 'reservedMemory.hugepages-2Mi'],
    [['nodeLabels', 'kubernetes.io/os'], 'nodeLabels["kubernetes.io/os"]'],
    [['nodeLabels', 'région'], 'nodeLabels["région"]'],
    [['m', ''], 'm[""]'],
    [['m', 'a"b'], 'm["a\\"b"]'],
    [['m', 'with space'], 'm["with space"]'],
    [['1st'], '["1st"]'],
    [['m', 'a[0]'], 'm["a[0]"]'],
  ];
  for (const [keys, want] of cases) t.equal(formatPath(keys), want, JSON.stringify(keys));
});

t.test('quote escapes what a terminal would act on', async (t) => {
  t.equal(quote('a\u001b[31mb'), '"a\\u001b[31mb"');
  t.equal(quote('\u009b2J'), '"\\u009b2J"', 'C1 CSI');
  t.equal(quote('abc\u202edef'), '"abc\\u202edef"', 'bidi override');
  t.equal(quote('Zürich ☃ 日本'), '"Zürich ☃ 日本"', 'ordinary unicode stays readable');
});

t.test('compareValues: a table of documents', async (t) => {
  const cases: Array<{ name: string; a: Value; b: Value; want: unknown[] }> = [
    { name: 'equal', a: { x: 1, y: { z: [1, 2] } }, b: { y: { z: [1, 2] }, x: 1 }, want: [] },
    { name: 'scalar changed', a: { maxPods: 110 }, b: { maxPods: 150 }, want: [{ path: 'maxPods', op: 'changed', from: 110, to: 150 }] },
    { name: 'type changed', a: { v: '1' }, b: { v: 1 }, want: [{ path: 'v', op: 'changed', from: '1', to: 1 }] },
    { name: 'removed field', a: { a: 1, b: 2 }, b: { a: 1 }, want: [{ path: 'b', op: 'removed', from: 2, to: null }] },
    { name: 'added field', a: {}, b: { c: false }, want: [{ path: 'c', op: 'added', from: null, to: false }] },
    {
      name: 'nested maps',
      a: { systemReserved: { cpu: '500m', memory: '512Mi' }, authentication: { webhook: { enabled: true } } },
      b: { systemReserved: { cpu: '1', memory: '512Mi', pid: '100' }, authentication: { webhook: { enabled: false } } },
      want: [
        { path: 'authentication.webhook.enabled', op: 'changed', from: true, to: false },
        { path: 'systemReserved.cpu', op: 'changed', from: '500m', to: '1' },
        { path: 'systemReserved.pid', op: 'added', from: null, to: '100' },
      ],
    },
    {
      name: 'a whole map added is one change',
      a: {},
      b: { kubeReserved: { cpu: '250m', memory: '512Mi' } },
      want: [{ path: 'kubeReserved', op: 'added', from: null, to: { cpu: '250m', memory: '512Mi' } }],
    },
    {
      name: 'dotted map keys',
      a: { evictionHard: { 'memory.available': '100Mi' } },
      b: { evictionHard: { 'memory.available': '200Mi' } },
      want: [{ path: 'evictionHard["memory.available"]', op: 'changed', from: '100Mi', to: '200Mi' }],
    },
    {
      name: 'lists compare as values',
      a: { clusterDNS: ['10.0.0.1', '10.0.0.2'] },
      b: { clusterDNS: ['10.0.0.2', '10.0.0.1'] },
      want: [{ path: 'clusterDNS', op: 'changed', from: ['10.0.0.1', '10.0.0.2'], to: ['10.0.0.2', '10.0.0.1'] }],
    },
    {
      name: 'lists of maps',
      a: { registerWithTaints: [{ key: 'a', effect: 'NoSchedule' }] },
      b: { registerWithTaints: [{ effect: 'NoSchedule', key: 'a' }] },
      want: [],
    },
    { name: 'map vs list', a: { m: { a: 1 } }, b: { m: [1] }, want: [{ path: 'm', op: 'changed', from: { a: 1 }, to: [1] }] },
    { name: 'null vs absent', a: { x: null }, b: {}, want: [{ path: 'x', op: 'removed', from: null, to: null }] },
    {
      name: 'unicode values and keys',
      a: { nodeLabels: { région: 'Zürich ☃' } },
      b: { nodeLabels: { région: 'Genève ☃' } },
      want: [{ path: 'nodeLabels["région"]', op: 'changed', from: 'Zürich ☃', to: 'Genève ☃' }],
    },
    { name: 'root', a: [1], b: [2], want: [{ path: '', op: 'changed', from: [1], to: [2] }] },
    {
      name: 'sorted path order, whatever the input order',
      a: { z: 1, a: 1, m: { b: 1, a: 1 } },
      b: { m: { a: 2, b: 2 }, a: 2, z: 2 },
      want: [
        { path: 'a', op: 'changed', from: 1, to: 2 },
        { path: 'm.a', op: 'changed', from: 1, to: 2 },
        { path: 'm.b', op: 'changed', from: 1, to: 2 },
        { path: 'z', op: 'changed', from: 1, to: 2 },
      ],
    },
  ];
  for (const c of cases) t.same(plain(compareValues(c.a, c.b)), c.want, c.name);
});

t.test('__proto__ is an ordinary key', async (t) => {
  const a = fromJNode((parseGoJson(Buffer.from('{"__proto__": {"x": 1}}')) as { value: never }).value);
  const b = fromJNode((parseGoJson(Buffer.from('{"__proto__": {"x": 2}}')) as { value: never }).value);
  t.same(plain(compareValues(a, b)), [{ path: '__proto__.x', op: 'changed', from: 1, to: 2 }]);
  t.equal(({} as Record<string, unknown>).x, undefined, 'no prototype pollution');
});

t.test('sameValue hook and keys', async (t) => {
  const cs = compareValues({ d: '60s', e: 'x' }, { d: '1m0s', e: 'y' }, { sameValue: (keys, a, b) => keys[0] === 'd' && a !== b });
  t.same(cs.map((c) => [c.path, c.keys]), [['e', ['e']]]);
});

t.test('fromJNode: last duplicate wins, numbers by value', async (t) => {
  const j = (s: string) => fromJNode((parseGoJson(Buffer.from(s)) as { value: never }).value);
  t.same(j('{"a": 1, "a": 2, "b": [1e3, 1000.0]}'), { a: 2, b: [1000, 1000] });
  t.ok(deepEqual(j('{"a": {"b": 1, "c": 2}}'), j('{"a": {"c": 2, "b": 1}}')));
});

t.test('deep documents do not overflow the stack', async (t) => {
  const depth = 20000;
  let a: Value = 1;
  let b: Value = 2;
  for (let i = 0; i < depth; i++) {
    a = { k: a };
    b = { k: b };
  }
  const cs = compareValues(a, b);
  t.equal(cs.length, 1);
  t.equal(cs[0]!.keys.length, depth);
  t.notOk(deepEqual([a], [b]));
});
