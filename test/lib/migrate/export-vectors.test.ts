// Proof that an export reproduces the kubelet's own effective config of a checkpoint
// (shared/vectors/effective.json, decided by kubelet v1.23.0's code): every case becomes a
// checkpoint in one real store; its export, loaded as a local --config file from ANOTHER
// directory (relative paths would resolve against that file's directory) with the case's
// flags, must give exactly the vector's `config`, DynamicKubeletConfig aside (the export
// removes it on purpose). validate cases: refused without --force, and equal with it;
// startup cases (the flags alone stop the kubelet): refused, naming the kubelet's error.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { loadCheckpointConfig } from '../../../lib/config/load.js';
import { buildExport } from '../../../lib/migrate/export.js';
import { openSession, type Session } from '../../../lib/session.js';
import { sharedDir, vectorsMissing, writeTree } from '../../helpers.js';
import { substituteDir, withoutGoZeros, type EffectiveVector } from '../../effective-vectors.js';
import { CkptError } from '../../../lib/errors.js';

type Case = EffectiveVector & { error: string };

/** The vector's config without the gate the export removes; the flags without it too (migrate drops it there). */
function withoutDkc(config: Record<string, unknown>): Record<string, unknown> {
  const c = structuredClone(config);
  const g = c.featureGates as Record<string, boolean> | undefined;
  if (g) delete g.DynamicKubeletConfig;
  return c;
}

function flagsWithoutDkc(flags: string[]): string[] {
  return flags.map((f) => (f.startsWith('--feature-gates=') ? `--feature-gates=${f.slice(16).split(',').filter((g) => !g.startsWith('DynamicKubeletConfig=')).join(',')}` : f)).filter((f) => f !== '--feature-gates=');
}

const file = path.join(sharedDir, 'vectors', 'effective.json');
if (!fs.existsSync(file)) vectorsMissing(t, file);
else {
  const cases = JSON.parse(fs.readFileSync(file, 'utf8')) as Case[];
  const dir = t.testdir();
  const store: Record<string, string> = { 'store/meta/assigned': '', 'store/meta/last-known-good': '' };
  for (const c of cases) store[`store/checkpoints/${c.uid}/${c.resourceVersion}/${c.kubeletConfigKey}`] = c.payloadText;
  writeTree(dir, store);
  const base = openSession({ dir, kubeletVersion: '1.23' });
  const sessionFor = (flags: string[]): Session => ({ ...base, kubeletArgv: flags, judgeOptions: { version: '1.23', argv: flags } });
  const counts = { ok: 0, validateRefused: 0, validateForcedEqual: 0, startupRefused: 0, withFlags: 0, dkcRemoved: 0 };

  const reloaded = (text: string, flags: string[]) => {
    // Loaded the way the kubelet loads --config: from a directory that is not the checkpoint's.
    const o = loadCheckpointConfig(Buffer.from(text), '/elsewhere/etc/kubelet/config.yaml', { version: '1.23', argv: flagsWithoutDkc(flags) });
    return o;
  };

  t.test('every effective.json case', async (t) => {
    for (const c of cases) {
      const cpDir = `${fs.realpathSync(dir)}/store/checkpoints/${c.uid}/${c.resourceVersion}`;
      const ref = `${c.uid}/${c.resourceVersion}`;
      const s = sessionFor(c.flags);
      const req = { ref, effective: false, key: c.kubeletConfigKey, force: false, root: '/' };
      if (c.flags.length) counts.withFlags++;
      if (c.stage === 'startup') {
        let err: unknown = null;
        try {
          buildExport(s, req);
        } catch (e) {
          err = e;
        }
        t.ok(err instanceof CkptError && err.exitCode === 4, `${c.name}: refused (exit 4)`);
        // The kubelet's words are "<step>: <error>"; ours name the same error.
        const msg = err instanceof Error ? err.message : '';
        const want = c.error.replace(/^[a-z-]+: /, '');
        t.ok(msg.includes(want), `${c.name}: names the kubelet's error`, { msg, want });
        counts.startupRefused++;
        continue;
      }
      if (c.stage === 'validate') {
        t.throws(() => buildExport(s, req), { exitCode: 4, code: 'EXPORT_INVALID' }, `${c.name}: refused without --force`);
        counts.validateRefused++;
      }
      for (const effective of [false, true]) {
        const r = buildExport(s, { ...req, effective, force: c.stage === 'validate' });
        t.notMatch(r.text.replace(/^\s*#.*$/gm, ""), /DynamicKubeletConfig/, `${c.name}: no DynamicKubeletConfig in the file`);
        const o = reloaded(r.text, c.flags);
        t.ok(o.config, `${c.name}: the export loads`);
        const want = withoutGoZeros(substituteDir(withoutDkc(c.config!), cpDir));
        t.same(withoutGoZeros(o.config), want, `${c.name} (${effective ? '--effective' : 'payload fields'}): the export gives the kubelet's config`);
        if (c.stage === '') t.equal(o.stage, 'ok', `${c.name}: the export validates`);
        else t.equal(o.error, c.error.replace(/DynamicKubeletConfig[^,]*, /, ''), `${c.name}: the export fails as the checkpoint did`);
        if (!effective && r.removedGates.length) counts.dkcRemoved++;
      }
      if (c.stage === '') counts.ok++;
      else counts.validateForcedEqual++;
    }
    t.equal(counts.ok + counts.validateForcedEqual + counts.startupRefused, cases.length, 'every case checked');
    t.comment(`effective.json: ${JSON.stringify(counts)}`);
  });
}
