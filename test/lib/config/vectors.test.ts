// Every payload of vectors/validation.json (decisions of the real kubelet v1.23.0 code)
// through decode → v1beta1 defaults → validation with 1.23's default gates and no flags.
// The verdict and the exact error text must match; memoryThrottlingFactor prints a Go
// pointer in 1.23, so that one address is compared by pattern.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { decodeKubeletConfig } from '../../../lib/config/decode.js';
import { applyDefaults } from '../../../lib/config/defaults.js';
import { loadCheckpointConfig } from '../../../lib/config/load.js';
import { GO_POINTER_RE, validateKubeletConfig } from '../../../lib/config/validate.js';
import { sharedDir, vectorsMissing } from '../../helpers.js';

interface Vector {
  name: string;
  payloadText: string;
  verdict: 'valid' | 'invalid' | 'load-error';
  /** Empty or null when the kubelet accepted the payload. */
  kubeletError: string | null;
}

const vectorsFile = path.join(sharedDir, 'vectors/validation.json');
const FILE = '/var/lib/kubelet/dynamic-config/store/checkpoints/uid/1/kubelet';

/** The kubelet's text with every Go pointer replaced, so addresses need not match. */
function comparable(text: string | null): string | null {
  return text === null ? null : text.replace(new RegExp(GO_POINTER_RE.source, 'g'), '<pointer>');
}

function judge(payload: string): { verdict: Vector['verdict']; error: string | null } {
  const decoded = decodeKubeletConfig(Buffer.from(payload), FILE, { version: '1.23' });
  if (!decoded.ok) return { verdict: 'load-error', error: decoded.error };
  const result = validateKubeletConfig(applyDefaults(decoded.config, '1.23'), { version: '1.23' });
  return { verdict: result.error ? 'invalid' : 'valid', error: result.error };
}

if (!fs.existsSync(vectorsFile)) {
  vectorsMissing(t, vectorsFile);
} else {
  const vectors = JSON.parse(fs.readFileSync(vectorsFile, 'utf8')) as Vector[];

  t.test(`all ${vectors.length} validation vectors`, async (t) => {
    t.equal(vectors.length, 400);
    let matched = 0;
    for (const v of vectors) {
      const got = judge(v.payloadText);
      const want = v.kubeletError || null;
      const ok = got.verdict === v.verdict && comparable(got.error) === comparable(want);
      if (ok) matched++;
      else t.fail(v.name, { found: got, wanted: { verdict: v.verdict, error: want } });
    }
    t.equal(matched, vectors.length, 'every vector matches');
  });

  t.test('pointer placeholder really is a pointer-shaped text', async (t) => {
    const withPointer = vectors.filter((v) => (v.kubeletError ?? '').includes('memoryThrottlingFactor 0x'));
    t.ok(withPointer.length > 0);
    for (const v of withPointer) t.match(judge(v.payloadText).error, GO_POINTER_RE);
  });

  t.test('loadCheckpointConfig agrees with the vectors (stage and error)', async (t) => {
    const stageOf = { valid: 'ok', invalid: 'validate-error', 'load-error': 'load-error' } as const;
    for (const v of vectors) {
      const out = loadCheckpointConfig(Buffer.from(v.payloadText), FILE, { version: '1.23' });
      const want = v.kubeletError || null;
      if (out.stage !== stageOf[v.verdict] || comparable(out.error) !== comparable(want)) {
        t.fail(v.name, { found: { stage: out.stage, error: out.error }, wanted: v });
      }
    }
    t.pass('all agree');
  });
}
