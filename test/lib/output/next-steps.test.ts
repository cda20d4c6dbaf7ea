// The next steps under status and verify: a command and why, never run together.
import t from 'tap';
import { renderNextSteps } from '../../../lib/output/next-steps.js';
import { palette } from '../../../lib/output/streams.js';

const ctx = (tty: boolean) => ({ p: palette(false), width: 80, verbose: false, quiet: false, tty });

t.test('found by review: a command of 33 characters got one space before why, and read as one command line', async (t) => {
  for (const n of [30, 31, 32, 33, 34, 35, 60]) {
    const command = `kubelet-ckpt --root ${'x'.repeat(n - 27)} verify`;
    t.equal(command.length, n);
    for (const tty of [false, true]) {
      const lines = renderNextSteps([{ command, why: 'every problem in detail' }], ctx(tty)).slice(2);
      const same = lines.length === 1;
      if (same) t.match(lines[0], new RegExp(`^  ${command} {2,}every problem in detail$`), `${n}: at least two spaces`);
      else t.same(lines, [`  ${command}`, '      every problem in detail'], `${n}: why on its own line`);
      t.equal(same, n <= 32, `${n} characters: ${same ? 'one line' : 'two lines'}`);
    }
  }
});
