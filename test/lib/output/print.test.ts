import t from 'tap';
import { jsonText, toJson, toYaml } from '../../../lib/output/print.js';

t.test('bigints are written as the numbers they are, in JSON and YAML', async (t) => {
  const doc = { a: 9223372036854775807n, b: [-9007199254740993n, 1], c: 'kckpt-int-x-5', d: Buffer.from('x') };
  t.equal(jsonText(doc), '{"a":9223372036854775807,"b":[-9007199254740993,1],"c":"kckpt-int-x-5"}');
  t.equal(toJson({ a: 1n }, true), '{"a":1}\n');
  t.equal(toYaml(doc), 'a: 9223372036854775807\nb:\n  - -9007199254740993\n  - 1\nc: kckpt-int-x-5\n');
  t.equal(jsonText('plain'), '"plain"');
  t.equal(jsonText(undefined), undefined);
});
