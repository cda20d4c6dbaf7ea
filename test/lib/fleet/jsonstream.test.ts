import t from 'tap';
import { splitJson } from '../../../lib/fleet/jsonstream.js';

t.test('one document, NDJSON, concatenated pretty documents', async (t) => {
  t.same(splitJson('{"a":1}'), [{ ok: true, value: { a: 1 }, line: 1 }]);
  t.same(splitJson('{"a":1}\n{"b":"}{"}\n'), [{ ok: true, value: { a: 1 }, line: 1 }, { ok: true, value: { b: '}{' }, line: 2 }]);
  t.same(splitJson('{\n "a": "x\\"}"\n}\n{\n "b": 2\n}\n').map((p) => p.ok && p.value), [{ a: 'x"}' }, { b: 2 }]);
});

t.test('damage: truncated, corrupt and non-JSON lines are reported with their line; the rest is kept', async (t) => {
  const r = splitJson('{"a":1}\nnot json here\n{"b":,}\n{"c":3}\n{"d":');
  t.same(r, [
    { ok: true, value: { a: 1 }, line: 1 },
    { ok: false, error: 'not JSON: "not json here"', line: 2 },
    { ok: false, error: r[2]!.ok ? '' : r[2]!.error, line: 3 },
    { ok: true, value: { c: 3 }, line: 4 },
    { ok: false, error: 'truncated JSON (the text ends inside a document)', line: 5 },
  ]);
  t.match(r[2], { ok: false, error: /^corrupt JSON: / });
  t.same(splitJson(''), []);
});
