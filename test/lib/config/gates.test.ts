import t from 'tap';
import { effectiveGates, gateEnabled, gateError, gateErrors, gateWarnings, knownGates, newGateState, setFromMap } from '../../../lib/config/gates.js';

t.test('gate tables match the reference totals', async (t) => {
  // flags-and-gates.md §4.3: 119/125/129/140 gates, 23/24/23/22 locked (plus AllAlpha/AllBeta counted in).
  const table: [ '1.20' | '1.21' | '1.22' | '1.23', number, number][] = [['1.20', 119, 23], ['1.21', 125, 24], ['1.22', 129, 23], ['1.23', 140, 22]];
  for (const [v, total, locked] of table) {
    const gates = knownGates(v);
    t.equal(gates.size, total, `${v} total`);
    t.equal([...gates.values()].filter((g) => g.locked).length, locked, `${v} locked`);
  }
});

t.test('defaults of the gates validation reads', async (t) => {
  const table: [string, boolean, boolean, boolean, boolean][] = [
    ['CustomCPUCFSQuotaPeriod', false, false, false, false],
    ['RotateKubeletServerCertificate', true, true, true, true],
    ['TopologyManager', true, true, true, true],
    ['GracefulNodeShutdown', false, true, true, true],
    ['GracefulNodeShutdownBasedOnPodPriority', false, false, false, false],
    ['NodeSwap', false, false, false, false],
    ['MemoryQoS', false, false, false, false],
    ['DynamicKubeletConfig', true, true, false, false],
  ];
  for (const [gate, ...values] of table) {
    (['1.20', '1.21', '1.22', '1.23'] as const).forEach((v, i) => t.equal(gateEnabled(newGateState(v), gate), values[i], `${gate} ${v}`));
  }
});

t.test('SetFromMap errors are the kubelet texts', async (t) => {
  const table: [string, string, boolean, string | null][] = [
    ['1.23', 'Bogus', true, 'unrecognized feature gate: Bogus'],
    ['1.23', 'nodeswap', true, 'unrecognized feature gate: nodeswap'],
    ['1.23', 'CSIMigrationRBD', true, 'unrecognized feature gate: CSIMigrationRBD'],
    ['1.23', 'csiMigrationRBD', true, null],
    ['1.23', 'IPv6DualStack', false, 'cannot set feature gate IPv6DualStack to false, feature is locked to true'],
    ['1.23', 'IPv6DualStack', true, null],
    ['1.22', 'IPv6DualStack', false, null],
    ['1.22', 'NodeLease', false, 'cannot set feature gate NodeLease to false, feature is locked to true'],
    ['1.23', 'NodeLease', true, 'unrecognized feature gate: NodeLease'],
    ['1.21', 'NodeSwap', true, 'unrecognized feature gate: NodeSwap'],
    ['1.23', 'AllAlpha', true, null],
  ];
  for (const [v, gate, value, want] of table) t.equal(gateError(v as '1.23', gate, value), want, `${v} ${gate}=${value}`);
  t.same(gateErrors('1.23', { Zed: true, Alpha: true, NodeSwap: true }).map((e) => e.gate), ['Alpha', 'Zed']);
});

t.test('AllAlpha sets unset alpha gates; explicit keys and earlier layers win', async (t) => {
  const base = setFromMap(newGateState('1.23'), { NodeSwap: false }).state;
  const { state, error } = setFromMap(base, { AllAlpha: true, MemoryQoS: false });
  t.equal(error, null);
  t.equal(gateEnabled(state, 'CustomCPUCFSQuotaPeriod'), true);
  t.equal(gateEnabled(state, 'NodeSwap'), false, 'set by an earlier layer');
  t.equal(gateEnabled(state, 'MemoryQoS'), false, 'explicit in the same map');
  t.equal(gateEnabled(state, 'TopologyManager'), true, 'beta gates untouched');
  const beta = setFromMap(newGateState('1.23'), { AllBeta: false }).state;
  t.equal(gateEnabled(beta, 'TopologyManager'), false);
});

t.test('a bad gate leaves the state unchanged', async (t) => {
  const start = newGateState('1.23');
  const r = setFromMap(start, { NodeSwap: true, Bogus: true });
  t.equal(r.error, 'unrecognized feature gate: Bogus');
  t.equal(gateEnabled(r.state, 'NodeSwap'), false);
});

t.test('layering: defaults < local file < checkpoint (flags already merged into it)', async (t) => {
  const g = effectiveGates({ version: '1.23', localGates: { NodeSwap: true, MemoryQoS: true }, configGates: { MemoryQoS: false } });
  t.equal(g.error, null);
  t.equal(gateEnabled(g.state, 'NodeSwap'), true, 'local file gate still counts');
  t.equal(gateEnabled(g.state, 'MemoryQoS'), false, 'checkpoint beats local file');
  const bad = effectiveGates({ version: '1.23', localGates: { Nope: true }, configGates: {} });
  t.same(bad.localErrors, ['unrecognized feature gate: Nope']);
  t.equal(bad.error, null);
});

t.test('deprecated and GA gates produce the kubelet warnings', async (t) => {
  t.same(gateWarnings('1.23', { DynamicKubeletConfig: true, ServerSideApply: true, NodeSwap: true }), [
    'Setting deprecated feature gate DynamicKubeletConfig=true. It will be removed in a future release.',
    'Setting GA feature gate ServerSideApply=true. It will be removed in a future release.',
  ]);
});
