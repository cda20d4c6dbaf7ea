// The session's judge memo: a verdict is reused for the same file, or for the same bytes
// elsewhere only where it travels (never an empty payload, never one with relative paths).
import t from 'tap';
import { memoJudge } from '../../lib/session.js';
import type { Judgement } from '../../lib/integrity/judge.js';

function counting(verdict: (bytes: Buffer) => Judgement) {
  const calls: string[] = [];
  const judge = memoJudge((bytes, file) => (calls.push(file), verdict(bytes)));
  return { judge, calls };
}
const OK: Judgement = { stage: 'ok', error: null };
const RELATIVE: Judgement = { stage: 'ok', error: null, relativePaths: [{ field: 'resolvConf', value: 'resolv.conf' }] };

t.test('the same bytes in another file: judged once', async (t) => {
  const { judge, calls } = counting(() => OK);
  const a = judge(Buffer.from('maxPods: 10\n'), '/s/a/kubelet');
  const b = judge(Buffer.from('maxPods: 10\n'), '/s/b/kubelet');
  t.equal(b, a, 'the first verdict is given again');
  t.same(calls, ['/s/a/kubelet']);
});

t.test('other bytes, an empty payload, a verdict with relative paths: judged again', async (t) => {
  const { judge, calls } = counting((b) => (b.includes('resolvConf') ? RELATIVE : OK));
  judge(Buffer.from('maxPods: 10\n'), '/s/a/kubelet');
  judge(Buffer.from('maxPods: 11\n'), '/s/a/kubelet');
  judge(Buffer.alloc(0), '/s/e1/kubelet');
  judge(Buffer.alloc(0), '/s/e2/kubelet');
  judge(Buffer.from('resolvConf: r\n'), '/s/r1/kubelet');
  judge(Buffer.from('resolvConf: r\n'), '/s/r2/kubelet');
  t.same(calls, ['/s/a/kubelet', '/s/a/kubelet', '/s/e1/kubelet', '/s/e2/kubelet', '/s/r1/kubelet', '/s/r2/kubelet']);
  // The same file with the same bytes is always the same verdict, relative paths or not.
  judge(Buffer.from('resolvConf: r\n'), '/s/r2/kubelet');
  judge(Buffer.alloc(0), '/s/e2/kubelet');
  t.equal(calls.length, 6, 'same file, same bytes: remembered');
});

t.test('bounded: only the last four verdicts are remembered', async (t) => {
  const { judge, calls } = counting(() => OK);
  for (let i = 0; i < 5; i++) judge(Buffer.from(`maxPods: ${i}\n`), `/s/${i}/kubelet`);
  judge(Buffer.from('maxPods: 4\n'), '/s/x/kubelet');
  t.equal(calls.length, 5, 'the newest is still there');
  judge(Buffer.from('maxPods: 0\n'), '/s/0/kubelet');
  t.equal(calls.length, 6, 'the oldest was dropped');
});
