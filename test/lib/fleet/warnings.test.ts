import t from 'tap';
import { WarningLog } from '../../../lib/fleet/warnings.js';

t.test('warnings are collapsed per file: the first 20 kept, the rest one line in their place', async (t) => {
  const log = new WarningLog();
  for (let i = 1; i <= 25; i++) log.add('a.json', `a.json:${i}: skipped`);
  log.add('b.json', 'b.json: skipped');
  for (let i = 26; i <= 30; i++) log.add('a.json', `a.json:${i}: skipped`);
  const list = log.list();
  t.equal(list.length, 22);
  t.same(list.slice(18), ['a.json:19: skipped', 'a.json:20: skipped', '… and 10 more in a.json', 'b.json: skipped']);
  const small = new WarningLog(2);
  small.add('x', '1');
  small.add('x', '2');
  t.same(small.list(), ['1', '2'], 'no summary line when none were dropped');
});
