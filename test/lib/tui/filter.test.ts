import t from 'tap';
import { matches, parseFilter, type Filterable } from '../../../lib/tui/filter.js';

const row = (o: Partial<Filterable> = {}): Filterable => ({
  uid: '5808539f-48e3-4e47-8ce6-c261c48fa1d9',
  rv: '42315',
  configMap: 'kube-system/node-config-worker',
  assigned: false,
  lkg: false,
  boot: false,
  marked: false,
  verify: 'ok',
  ...o,
});

t.test('parseFilter: words, fields, markers, negation, errors', async (t) => {
  t.same(parseFilter('').terms, []);
  t.same(parseFilter('  5808  ').terms, [{ kind: 'text', value: '5808', negate: false }]);
  t.same(parseFilter('uid:5808 rv:423 name:Worker').terms, [
    { kind: 'uid', value: '5808', negate: false },
    { kind: 'rv', value: '423', negate: false },
    { kind: 'name', value: 'worker', negate: false },
  ]);
  t.same(parseFilter('is:error -is:lkg').terms, [
    { kind: 'is', value: 'error', negate: false },
    { kind: 'is', value: 'lkg', negate: true },
  ]);
  t.same(parseFilter('A L B ! ? -A').terms.map((x) => `${x.negate ? '-' : ''}${x.value}`), ['assigned', 'lkg', 'boot', 'error', 'warning', '-assigned']);
  t.same(parseFilter('is:last-known-good is:errors').terms.map((x) => x.value), ['lkg', 'error']);
  const bad = parseFilter('is:broken uid: x');
  t.same(bad.terms, [{ kind: 'text', value: 'x', negate: false }]);
  t.equal(bad.errors.length, 2);
  t.match(bad.errors[0], /unknown is:broken/);
  t.same(parseFilter('-').terms, [{ kind: 'text', value: '-', negate: false }], 'a lone dash is a word');
  t.same(parseFilter('foo:bar').terms, [{ kind: 'text', value: 'foo:bar', negate: false }], 'an unknown field is searched as text');
});

t.test('matches: every word must match', async (t) => {
  const table: [string, Partial<Filterable>, boolean][] = [
    ['', {}, true],
    ['5808', {}, true],
    ['5808539F', {}, true],
    ['/42315', {}, true],
    ['worker', {}, true],
    ['uid:5808', {}, true],
    ['uid:48e3', {}, false],
    ['rv:23', {}, true],
    ['rv:999', {}, false],
    ['name:node-config', {}, true],
    ['name:other', {}, false],
    ['name:x', { configMap: null }, false],
    ['is:error', { verify: 'error' }, true],
    ['is:error', { verify: 'warning' }, false],
    ['!', { verify: 'error' }, true],
    ['?', { verify: 'warning' }, true],
    ['is:ok', { verify: undefined }, false],
    ['A', { assigned: true }, true],
    ['A', {}, false],
    ['-A', { assigned: true }, false],
    ['L B', { lkg: true, boot: true }, true],
    ['L B', { lkg: true }, false],
    ['is:marked', { marked: true }, true],
    ['5808 -42315', {}, false],
  ];
  for (const [f, r, want] of table) t.equal(matches(parseFilter(f), row(r)), want, `${JSON.stringify(f)} ${JSON.stringify(r)}`);
});
