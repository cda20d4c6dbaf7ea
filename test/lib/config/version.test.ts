import t from 'tap';
import { DEFAULT_VERSION, SUPPORTED_VERSIONS, parseKubeletVersion, resolveKubeletVersion } from '../../../lib/config/load.js';
import { UsageError } from '../../../lib/errors.js';

t.test('supported releases', async (t) => {
  t.same(SUPPORTED_VERSIONS, ['1.20', '1.21', '1.22', '1.23']);
  t.equal(DEFAULT_VERSION, '1.23');
});

t.test('parseKubeletVersion accepts the usual spellings', async (t) => {
  const table: [string, string, boolean][] = [
    ['1.23', '1.23', true],
    ['v1.22.3', '1.22', true],
    ['Kubernetes v1.21.0', '1.21', true],
    ['v1.20.15-gke.100', '1.20', true],
    ['1.18', '1.20', false],
    ['v1.11.0', '1.20', false],
  ];
  for (const [text, want, exact] of table) {
    t.equal(parseKubeletVersion(text), want, text);
    t.equal(resolveKubeletVersion(text).exact, exact, `${text} exact`);
  }
});

t.test('parseKubeletVersion refuses what has no checkpoint store', async (t) => {
  for (const text of ['1.24', 'v1.30.1', '1.10', '2.0', 'latest', '']) {
    t.throws(() => parseKubeletVersion(text), UsageError, text);
  }
});
