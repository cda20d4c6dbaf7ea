// resource.Quantity: the canonical form Go prints.
import t from 'tap';
import { canonicalQuantity } from '../../../lib/config/quantity.js';

t.test('canonicalQuantity: as Go prints a parsed quantity (Quantity.String)', async (t) => {
  const table: [string, string][] = [
    ['0Mi', '0'], ['-0.0Gi', '0'], ['-1000m', '-1'], ['-1.5', '-1500m'], ['-1024Ki', '-1Mi'], ['-0.5Gi', '-512Mi'],
    ['-100Mi', '-100Mi'], ['-1e3', '-1e3'], ['-10k', '-10k'], ['-1k', '-1k'], ['-1E', '-1E'], ['-512Ki', '-512Ki'],
    ['-0.5Ki', '-512'], ['-1.5Ki', '-1536'], ['-100m', '-100m'], ['1Gi', '1Gi'], ['1500Mi', '1500Mi'], ['2048Mi', '2Gi'],
  ];
  for (const [in_, want] of table) t.equal(canonicalQuantity(in_), want, in_);
});

t.test('found by review: the text Go keeps from its fast path is printed as written', async (t) => {
  const table: [string, string][] = [
    ['-1.500', '-1.500'], ['-1.200', '-1.200'], ['-1.500k', '-1.500k'], ['-1.200e3', '-1.200e3'], ['-05', '-05'], ['-05Ki', '-05Ki'], ['-007Mi', '-007Mi'],
    ['-1000m', '-1'], ['-1.5', '-1500m'], ['-1024Ki', '-1Mi'], ['-8Ki', '-8Ki'], ['-16Ki', '-16Ki'], ['-0.5', '-500m'],
  ];
  for (const [in_, want] of table) t.equal(canonicalQuantity(in_), want, in_);
});
