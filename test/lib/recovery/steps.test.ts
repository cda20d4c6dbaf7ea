import t from 'tap';
import { faultHook, parseFault } from '../../../lib/recovery/steps.js';

t.test('parseFault', async (t) => {
  const table: [string | undefined, unknown][] = [
    [undefined, null],
    ['', null],
    ['after-temp-write', { step: 'after-temp-write', occurrence: 1, delayMs: 0, simulate: {} }],
    ['after-rename#2', { step: 'after-rename', occurrence: 2, delayMs: 0, simulate: {} }],
    ['between-files', { step: 'between-files', occurrence: 1, delayMs: 0, simulate: {} }],
    ['delay:5', { step: null, occurrence: 1, delayMs: 5, simulate: {} }],
    ['enospc', { step: null, occurrence: 1, delayMs: 0, simulate: { enospc: true } }],
    ['delay:2, moved-aside', { step: 'moved-aside', occurrence: 1, delayMs: 2, simulate: {} }],
  ];
  for (const [v, want] of table) t.same(parseFault(v), want, String(v));
  t.throws(() => parseFault('after-tmp-write'), /unknown fault "after-tmp-write"/);
});

t.test('the hook announces the delay at begin and counts occurrences', async (t) => {
  const lines: string[] = [];
  const hook = faultHook({ step: null, occurrence: 1, delayMs: 1, simulate: {} }, (l) => lines.push(l));
  const t0 = Date.now();
  hook('begin', 'x');
  hook('after-rename', 'meta/assigned');
  t.ok(Date.now() - t0 >= 2, 'slept at each step');
  t.same(lines, ['kubelet-ckpt: fault: apply begins (delay 1 ms per step)']);
});
