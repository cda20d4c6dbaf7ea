import t from 'tap';
import { npdLine, problemsOf, unknownVerdict, verdictOf } from '../../../lib/fleet/check.js';
import type { NextBoot } from '../../../lib/integrity/nextboot.js';
import { EnvError } from '../../../lib/errors.js';

const ref = { namespace: 'kube-system', name: 'cfg', uid: '946d785e-998a-11e7-a8dd-42010a800006', resourceVersion: '119980', kubeletConfigKey: 'kubelet', apiPath: '/api/v1/namespaces/kube-system/configmaps/cfg' };
const nb = (o: Partial<NextBoot>): NextBoot => ({ source: 'assigned', ref, reason: 'fine', statusError: null, willStart: true, promotesToLastKnownGood: false, assignedError: null, lastKnownGoodError: null, ...o });
const loop = { lastEvent: null, summary: null, restarts: 7, crashLoop: true, running: null, reason: null };

t.test('verdicts: ok, fell back, will not start, crash loop, unknown', async (t) => {
  t.same(verdictOf(nb({}), null), { exit: 0, state: 'ok', line: 'ok: kubelet starts on assigned 946d785e/119980' });
  t.same(verdictOf(nb({ source: 'local', ref: null }), null), { exit: 0, state: 'ok', line: 'ok: kubelet starts on local config' });
  t.same(verdictOf(nb({ source: 'last-known-good', statusError: 'failed to load config, see Kubelet log for details' }), null), { exit: 1, state: 'fell-back', line: 'fell back to lkg 946d785e/119980: assigned failed to load config' });
  t.same(verdictOf(nb({ source: 'local', ref: null, statusError: 'failed to validate config, see Kubelet log for details' }), null).line, 'fell back to local config: assigned failed to validate config');
  t.same(verdictOf(nb({ source: 'none', ref: null, willStart: false, reason: 'both fail' }), loop), { exit: 1, state: 'will-not-start', line: 'kubelet will not start: both fail' });
  t.same(verdictOf(nb({}), loop), { exit: 1, state: 'crash-loop', line: 'kubelet crash loop: 7 restarts, 3+ failed starts in 10 min' });
  t.same(verdictOf(nb({ source: 'unknown', ref: null, willStart: null, reason: 'a link out of the store' }), null), { exit: 2, state: 'unknown', line: 'unknown: a link out of the store' });
  t.same(problemsOf(nb({ source: 'none', willStart: false, statusError: 'x' }), loop), ['will-not-start', 'crash-loop']);
});

t.test('--problem: only that problem is 1; others and unknown are 0 (a temporary rule must not raise events for them)', async (t) => {
  const fb = nb({ source: 'last-known-good', statusError: 'failed to load config, see Kubelet log for details' });
  t.equal(verdictOf(fb, loop, 'fell-back').exit, 1);
  t.equal(verdictOf(fb, loop, 'crash-loop').exit, 1);
  t.same(verdictOf(fb, null, 'will-not-start'), { exit: 0, state: 'ok', line: 'ok: no will-not-start' });
  t.equal(verdictOf(nb({ source: 'unknown', willStart: null }), null, 'fell-back').exit, 0);
});

t.test('one printable ASCII line of at most 80 bytes', async (t) => {
  t.equal(npdLine('a\nb\tc  d'), 'a b c d');
  t.equal(npdLine('naïve ☃'), 'na?ve ?');
  const long = npdLine('x'.repeat(200));
  t.equal(long.length, 80);
  t.ok(long.endsWith('...'));
  const u = unknownVerdict(new EnvError('cannot read /var/lib/kubelet/dynamic-config/store: permission denied'));
  t.same(u, { exit: 2, state: 'unknown', line: 'unknown: cannot read /var/lib/kubelet/dynamic-config/store: permission denied' });
  t.match(unknownVerdict(new Error('boom')), { exit: 2, line: 'unknown: internal error: boom' });
});

t.test('found by review: a journal read cut short, with no loop in what was read, is unknown for the permanent rule, not ok', async (t) => {
  const cut = { lastEvent: null, summary: null, restarts: 0, crashLoop: false, running: null, reason: 'journal not read: journalctl did not finish within 800 ms, so events and crash loops were not checked', cutShort: true };
  t.same(verdictOf(nb({}), cut), { exit: 2, state: 'unknown', line: 'unknown: journal read cut short (journalctl slow): crash loop not checked' });
  t.match(verdictOf(nb({}), cut, 'crash-loop'), { exit: 0 }, 'a temporary rule says no event');
  t.match(verdictOf(nb({}), { ...cut, crashLoop: true, restarts: 4 }), { exit: 1, state: 'crash-loop' }, 'a loop in what was read still counts');
  t.match(verdictOf(nb({ source: 'last-known-good', statusError: 'failed to load config' }), cut), { exit: 1, state: 'fell-back' }, 'a problem found is said');
});
