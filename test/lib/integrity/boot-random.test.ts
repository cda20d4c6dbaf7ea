// shared/vectors/boot-random.json: 2000 stores judged by the kubelet v1.23.0's own code
// (start-up checks, Bootstrap, the trial clock), rebuilt on disk and replayed through the
// library — root cases through real discovery (unit file → flags → --config). Decisions must
// agree on every case; error-text differences are counted by class and listed.
import t from 'tap';
import path from 'node:path';
import { buildCase, loadBootVectors, predictCase, type BootVector } from './boot-vectors.js';
import { sharedDir, vectorsMissing } from '../../helpers.js';

const vectors = loadBootVectors();
if (!vectors) {
  vectorsMissing(t, path.join(sharedDir, 'vectors', 'boot-random.json'));
} else {
  const tmp = t.testdir();
  const decisions: Record<string, string[]> = { nextBoot: [], willStart: [], statusError: [], inTrial: [], wouldPromote: [], stoppedAt: [] };
  const texts: Record<string, string[]> = {};
  const text = (cls: string, name: string, ours: string | null, theirs: string | null) => {
    if (ours === theirs) return;
    (texts[cls] ??= []).push(`${name}: ours ${JSON.stringify(ours)} kubelet ${JSON.stringify(theirs)}`);
  };
  let i = 0;
  for (const v of vectors as BootVector[]) {
    const b = buildCase(v, path.join(tmp, String(i++)));
    const k = v.kubelet;
    const { nb, startup, inTrial } = predictCase(v, b);
    const miss = (field: string, ours: unknown, theirs: unknown) => {
      if (ours !== theirs) decisions[field]!.push(`${v.name} (${v.describe}): ours ${JSON.stringify(ours)} kubelet ${JSON.stringify(theirs)} — ${nb.reason}`);
    };
    miss('nextBoot', nb.source, k.nextBoot);
    miss('willStart', nb.willStart, k.willStart);
    miss('statusError', nb.statusError, k.statusError);
    const startStage = k.stoppedAt === 'bootstrap' ? '' : k.stoppedAt;
    miss('stoppedAt', startup && !startup.ok ? startup.stage : '', startStage);
    if (k.nextBoot === 'assigned') {
      miss('inTrial', inTrial, k.inTrial);
      miss('wouldPromote', nb.promotesToLastKnownGood, k.wouldPromote);
    }
    text('startupError', v.name, startup && !startup.ok ? startup.error : null, b.sub(k.startupError));
    // The error Bootstrap exits with is quoted in the reason.
    const be = b.sub(k.bootstrapError);
    if (be && !nb.reason.includes(be)) text('bootstrapError (quoted in reason)', v.name, nb.reason, be);
    if (!k.startupError) {
      text('assignedError', v.name, nb.assignedError, b.sub(k.assignedError));
      if (k.nextBoot !== 'none' || k.lastKnownGoodError) text('lastKnownGoodError', v.name, nb.lastKnownGoodError, b.sub(k.lastKnownGoodError));
    }
  }
  for (const [field, list] of Object.entries(decisions)) t.same(list, [], `${field}: agrees with the kubelet on all ${vectors.length} stores`);
  const classes = Object.entries(texts).map(([cls, list]) => `${cls}: ${list.length}`);
  t.comment(`error-text mismatches by class: ${classes.length ? classes.join(', ') : 'none'}`);
  for (const [cls, list] of Object.entries(texts)) for (const m of list.slice(0, 5)) t.comment(`  ${cls} ${m}`);
  t.same(Object.values(texts).flat(), [], 'error texts are the kubelet\'s');
}
