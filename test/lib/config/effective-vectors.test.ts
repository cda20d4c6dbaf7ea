// ../shared/vectors/effective.json: 300 checkpoints and command lines, with the config the
// kubelet v1.23.0 would run (`config`), its stage and error. loadCheckpointConfig with the
// case's flags must give the same stage, the same error text and the same effective
// config. `startup` cases are those where the flags alone stop the kubelet before it
// reads the store: there the flags are judged on their own (defaults + flags, validated,
// as server.go does with no --config) and must fail with the kubelet's text; every other
// case's flags must pass that check.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadCheckpointConfig, type LoadStage } from '../../../lib/config/load.js';
import { sharedDir, vectorsMissing } from '../../helpers.js';
import { substituteDir, withoutGoZeros, type EffectiveVector } from '../../effective-vectors.js';

type Vector = EffectiveVector;

const STAGE: Record<LoadStage, Vector['stage']> = { ok: '', 'validate-error': 'validate', 'load-error': 'load', 'internal-error': 'transform' };
const ROOT = '/var/lib/kubelet/dynamic-config/store/checkpoints';
const NO_CONFIG = Buffer.from('kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\n');

/** What the flags alone do to a kubelet with no --config: the step and error, or null. */
function flagsAlone(flags: string[]): string | null {
  const o = loadCheckpointConfig(NO_CONFIG, '/nonexistent/config', { version: '1.23', argv: flags });
  if (o.error === null) return null;
  const step = /^(unrecognized feature gate|cannot set feature gate)/.test(o.error) ? 'flag-gates' : o.stage === 'internal-error' ? 'flags' : 'local-validate';
  return `${step}: ${o.error}`;
}

const file = path.join(sharedDir, 'vectors/effective.json');
if (!fs.existsSync(file)) {
  vectorsMissing(t, file);
} else {
  const vectors = JSON.parse(fs.readFileSync(file, 'utf8')) as Vector[];

  t.test(`${vectors.length} effective configs`, async (t) => {
    t.equal(vectors.length, 300);
    const agree = { startup: 0, stage: 0, error: 0, config: 0 };
    for (const v of vectors) {
      const startup = flagsAlone(v.flags);
      if (startup === (v.stage === 'startup' ? v.error : null)) agree.startup++;
      else t.fail(`${v.name}: the flags alone`, { found: startup, wanted: v.stage === 'startup' ? v.error : 'the kubelet starts', flags: v.flags });
      if (v.stage === 'startup') continue;
      const dir = `${ROOT}/${v.uid}/${v.resourceVersion}`;
      const out = loadCheckpointConfig(Buffer.from(v.payloadText), `${dir}/${v.kubeletConfigKey}`, { version: '1.23', argv: v.flags });
      if (STAGE[out.stage] === v.stage) agree.stage++;
      else t.fail(`${v.name}: stage`, { found: { stage: out.stage, error: out.error }, wanted: { stage: v.stage, error: v.error } });
      if (out.error === v.error) agree.error++;
      else t.fail(`${v.name}: error text`, { found: out.error, wanted: v.error });
      if (v.config === null) continue;
      const want = withoutGoZeros(substituteDir(v.config, dir));
      if (JSON.stringify(withoutGoZeros(out.config)) === JSON.stringify(want)) agree.config++;
      else t.same(withoutGoZeros(out.config), want, `${v.name}: effective config`);
    }
    const started = vectors.filter((v) => v.stage !== 'startup').length;
    t.equal(agree.startup, vectors.length, 'whether the flags alone stop the kubelet, and why');
    t.equal(agree.stage, started, 'stages');
    t.equal(agree.error, started, 'error texts');
    t.equal(agree.config, vectors.filter((v) => v.stage !== 'startup' && v.config !== null).length, 'effective configs');
    t.comment(`startup ${vectors.length - started}, judged ${started}: stage ${agree.stage}, error ${agree.error}, config ${agree.config}`);
  });
}
