import t from 'tap';
import { hasJsonPrefix, MAX_JSON_DEPTH, parseGoJson } from '../../../lib/config/json.js';
import { toPlain } from '../../../lib/config/jnode.js';

t.test('syntax errors carry encoding/json texts', async (t) => {
  const table: [string, string][] = [
    ['{"a":1,}', `invalid character '}' looking for beginning of object key string`],
    ['{"a" 1}', `invalid character '1' after object key`],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['{"a":[1 2]}', `invalid character '2' after array element`],
    ['{"a":[1,]}', `invalid character ']' looking for beginning of value`],
    ['{"a":tru}', `invalid character '}' in literal true (expecting 'e')`],
    ['{"a":nul', `invalid character ' ' in literal null (expecting 'l')`],
    ['{"a":fals', `invalid character ' ' in literal false (expecting 'e')`],
    ['{"a":"b', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['{"a":01}', `invalid character '1' after object key:value pair`],
    ['{"a":-}', `invalid character '}' in numeric literal`],
    ['{"a":-', `invalid character ' ' in numeric literal`],
    ['{"a":1.}', `invalid character '}' after decimal point in numeric literal`],
    ['{"a":1e}', `invalid character '}' in exponent of numeric literal`],
    ['{"a":1e', `invalid character ' ' in exponent of numeric literal`],
    ['{"a":"\\x"}', `invalid character 'x' in string escape code`],
    ['{"a":"\\u12G4"}', `invalid character 'G' in \\u hexadecimal character escape`],
    ['{"a":"\t"}', `invalid character '\\t' in string literal`],
    ['{"a":"\u0000"}', `invalid character '\\x00' in string literal`],
    ['{"a":1}x', `invalid character 'x' after top-level value`],
    ["{\"a\":'b'}", `invalid character '\\'' looking for beginning of value`],
    ['{"a":1}\u00e9', `invalid character 'Ã' after top-level value`],
    ['{a:1}', `invalid character 'a' looking for beginning of object key string`],
  ];
  for (const [text, want] of table) t.same(parseGoJson(Buffer.from(text)), { ok: false, error: want }, JSON.stringify(text));
});

t.test('nesting is limited as Go limits it, without recursion', async (t) => {
  const ok = '{"a":' + '['.repeat(MAX_JSON_DEPTH - 1) + ']'.repeat(MAX_JSON_DEPTH - 1) + '}';
  t.equal(parseGoJson(Buffer.from(ok)).ok, true);
  const deep = '{"a":' + '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH) + '}';
  t.same(parseGoJson(Buffer.from(deep)), { ok: false, error: `invalid character '[' exceeded max depth` });
  const huge = '{"a":' + '['.repeat(1_000_000);
  t.match(parseGoJson(Buffer.from(huge)), { ok: false });
});

t.test('values, number literals and repeated keys are kept', async (t) => {
  const r = parseGoJson(Buffer.from('{"a": 1.50, "b": -0, "c": "x\\u00e9\\ud83d\\ude00", "a": 2, "d": {"e": null, "e": true}, "f": [1e3]}'));
  t.ok(r.ok);
  if (!r.ok) return;
  t.same(r.value.t === 'obj' && r.value.entries.map(([k, v]) => [k, v.t === 'num' ? v.s : v.t]), [
    ['a', '1.50'], ['b', '-0'], ['c', 'str'], ['a', '2'], ['d', 'obj'], ['f', 'arr'],
  ]);
  t.same(toPlain(r.value), { a: 2, b: -0, c: 'xé😀', d: { e: true }, f: [1000] });
  t.same(r.duplicates, [{ path: 'a', key: 'a', line: 1 }, { path: 'd.e', key: 'e', line: 1 }]);
});

t.test('JSON is recognised by its first non-space character', async (t) => {
  const table: [string, boolean][] = [
    ['{}', true], ['  \n\t{"a":1}', true], ['\u00a0{', true], ['\ufeff{', false], ['# c\n{', false], ['a: {', false], ['[1]', false], ['', false],
  ];
  for (const [text, want] of table) t.equal(hasJsonPrefix(Buffer.from(text)), want, JSON.stringify(text));
});
