import t from 'tap';
import { jsonText, print, sanitizesItself, toJson, toYaml } from '../../../lib/output/print.js';
import type { Streams } from '../../../lib/output/streams.js';

t.test('bigints are written as the numbers they are, in JSON and YAML', async (t) => {
  const doc = { a: 9223372036854775807n, b: [-9007199254740993n, 1], c: 'kckpt-int-x-5', d: Buffer.from('x') };
  t.equal(jsonText(doc), '{"a":9223372036854775807,"b":[-9007199254740993,1],"c":"kckpt-int-x-5"}');
  t.equal(toJson({ a: 1n }, true), '{"a":1}\n');
  t.equal(toYaml(doc), 'a: 9223372036854775807\nb:\n  - -9007199254740993\n  - 1\nc: kckpt-int-x-5\n');
  t.equal(jsonText('plain'), '"plain"');
  t.equal(jsonText(undefined), undefined);
});

t.test('text renderers get a sanitized copy, unless they sanitize themselves (then the result as it is)', async (t) => {
  const out: string[] = [];
  const streams: Streams = { stdout: { write: (s: string) => (out.push(s), true) }, stderr: { write: () => true }, isTTY: false, color: false, width: 80 } as unknown as Streams;
  const result = { name: 'a\x1bb', lines: ['x\ny'] };
  const seen: unknown[] = [];
  const plain = (r: typeof result) => (seen.push(r), `${r.name} ${r.lines[0]}`);
  print(result, plain, streams, { format: 'text', kind: 'Test' });
  t.not(seen[0], result, 'a copy');
  t.equal(out[0], 'a\\x1bb x\\x0ay\n', 'every string made printable before the renderer');
  const own = sanitizesItself((r: typeof result) => (seen.push(r), 'own'));
  print(result, own, streams, { format: 'text', kind: 'Test' });
  t.equal(seen[1], result, 'the result itself: the renderer is the guard');
  t.equal(out[1], 'own\n');
});
