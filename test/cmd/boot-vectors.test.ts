// A sample of shared/vectors/boot-random.json through the built CLI (`status -o json`,
// `verify -o json`): root cases with --root (discovery reads the unit file for the flags
// and --config), dir cases with --dir and --kubelet-config. The whole set runs through
// the library in test/lib/integrity/boot-random.test.ts; this holds the CLI to the same answers.
import t from 'tap';
import path from 'node:path';
import { buildCase, loadBootVectors } from '../lib/integrity/boot-vectors.js';
import { json, runCli, sharedDir, vectorsMissing } from '../helpers.js';

interface Status {
  trial: { inTrial: boolean } | null;
  nextBoot: { source: string; willStart: boolean | null; statusError: string | null; promotesToLastKnownGood: boolean; reason: string };
}

const vectors = loadBootVectors();
if (!vectors) {
  vectorsMissing(t, path.join(sharedDir, 'vectors', 'boot-random.json'));
} else {
  const tmp = t.testdir();
  // Every case that stops before the store, plus every 100th other case (two CLI runs each: keep the file well inside the timeout).
  const sample = vectors.filter((v, i) => (v.kubelet.stoppedAt !== '' && v.kubelet.stoppedAt !== 'bootstrap' && i % 20 === 0) || i % 100 === 0);
  for (const v of sample) {
    t.test(v.name, async (t) => {
      const b = buildCase(v, path.join(tmp, v.name));
      const where = b.root ? ['--root', b.root] : ['--dir', b.dir, ...(v.localConfig === null ? [] : ['--kubelet-config', b.config])];
      const s = json<Status>(runCli([...where, 'status', '--no-journal', '-o', 'json']));
      const k = v.kubelet;
      t.equal(s.nextBoot.source, k.nextBoot, `source (${s.nextBoot.reason})`);
      t.equal(s.nextBoot.willStart, k.willStart, 'willStart');
      t.equal(s.nextBoot.statusError, k.statusError, 'statusError');
      if (k.nextBoot === 'assigned') {
        t.equal(s.trial?.inTrial ?? null, k.inTrial, 'inTrial');
        t.equal(s.nextBoot.promotesToLastKnownGood, k.wouldPromote, 'promotes to last-known-good');
      }
      const startup = k.stoppedAt !== '' && k.stoppedAt !== 'bootstrap';
      const r = runCli([...where, 'verify', '-o', 'json']);
      const codes = json<{ findings: { code: string }[] }>(r).findings.map((f) => f.code);
      t.equal(codes.includes('STARTUP_FAILS'), startup, 'verify: STARTUP_FAILS exactly when the kubelet stops before the store');
      if (startup) t.equal(r.code, 1, 'verify exits 1');
    });
  }
}
