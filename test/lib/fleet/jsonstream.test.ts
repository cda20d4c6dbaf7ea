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

// A pod killed mid-write leaves a cut document in `kubectl logs`; the reports after it are read.
t.test('a cut document costs only itself: reading resumes at the next line that starts a document', async (t) => {
  const pretty = (o: unknown) => JSON.stringify(o, null, 2);
  const a = pretty({ n: 'a', x: { y: [1, 2] } });
  const cases: [string, string][] = [
    ['cut inside a string', a.slice(0, a.indexOf('"a"') + 2)],
    ['cut between fields', a.slice(0, a.indexOf('"x"'))],
    ['cut after a comma at a line end', a.slice(0, a.indexOf(',') + 1)],
    ['cut after an opening bracket', a.slice(0, a.indexOf('[') + 1)],
  ];
  for (const [what, cut] of cases) {
    // On a line of its own, or glued to the cut text (a log line that lost its newline).
    for (const sep of ['\n', '']) {
      const text = `${cut}${sep}${pretty({ n: 'b' })}\n${pretty({ n: 'c' })}\n`;
      const r = splitJson(text);
      const how = `${what}${sep ? '' : ', glued'}`;
      t.same(r.filter((p) => p.ok).map((p) => p.ok && p.value), [{ n: 'b' }, { n: 'c' }], `${how}: the later documents are read`);
      t.same(r.filter((p) => !p.ok).map((p) => p.line), [1], `${how}: one warning, on the cut document's line`);
    }
  }
  // NDJSON: a cut line between good ones.
  const nd = `{"n":"a"}\n{"n":"cu\n{"n":"b"}\n{"n":"c","k":[1,\n{"n":"d"}\n{"n":"e","k":1{"n":"f"}\n{"n":"gl{"n":"h"}\n`;
  const r = splitJson(nd);
  t.same(r.map((p) => (p.ok ? p.value : p.line)), [{ n: 'a' }, 2, { n: 'b' }, 4, { n: 'd' }, 6, { n: 'f' }, 7, { n: 'h' }]);
  t.match(r[1], { ok: false, error: /^truncated JSON/ });
});

t.test('JSON indented by 0 spaces: a line starting with { after , [ or : is still the same document', async (t) => {
  const zero = '{\n"a": [\n{\n"b": 1\n},\n{\n"c": 2\n}\n],\n"d":\n{"e": 3}\n}\n{"next": true}\n';
  t.same(splitJson(zero).map((p) => p.ok && p.value), [{ a: [{ b: 1 }, { c: 2 }], d: { e: 3 } }, { next: true }]);
});

t.test('damage cannot make the split quadratic', async (t) => {
  // Every line opens an array that goes on into the next: each guess fails at the end.
  const s = '[,\n'.repeat(200_000) + '{' + 'x{x['.repeat(200_000);
  const t0 = process.hrtime.bigint();
  const r = splitJson(s);
  t.ok(Number(process.hrtime.bigint() - t0) / 1e9 < 5, 'split in well under quadratic time');
  t.ok(r.every((p) => !p.ok));
});

t.test('a leading UTF-8 byte-order mark, of the text or of an NDJSON line, is not damage', async (t) => {
  t.same(splitJson('\ufeff{\n "a": 1\n}\n'), [{ ok: true, value: { a: 1 }, line: 1 }]);
  t.same(splitJson('\ufeff{"a":1}\n\ufeff{"b":2}\n'), [{ ok: true, value: { a: 1 }, line: 1 }, { ok: true, value: { b: 2 }, line: 2 }]);
});

t.test('a run of lines that are not JSON is one piece', async (t) => {
  t.same(splitJson('x\n'.repeat(1_000_000) + '{"a":1}\nlog line\n'), [
    { ok: false, error: 'not JSON: "x" (and the 999999 lines after it)', line: 1 },
    { ok: true, value: { a: 1 }, line: 1_000_001 },
    { ok: false, error: 'not JSON: "log line"', line: 1_000_002 },
  ]);
});
