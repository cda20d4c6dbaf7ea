import t from 'tap';
import { isoOf, localMs, monthOf, parsePrefix, YearInference, type LocalTime } from '../../../lib/journal/syslog.js';

const MSG = 'I0824 13:16:04.368361  278409 controller.go:151] kubelet config controller: x';

t.test('prefixes of each journalctl text mode', async (t) => {
  const cases: Array<[string, string, unknown]> = [
    ['short', `Aug 24 13:16:04 localhost.worker kubelet[278409]: ${MSG}`, { local: { year: null, month: 8, day: 24, hour: 13, minute: 16, second: 4, micros: 0 } }],
    ['short-precise', `Aug 24 13:16:04.368361 host kubelet[278409]: ${MSG}`, { local: { month: 8, micros: 368361 } }],
    ['short-iso old', `2021-08-24T13:16:04+0900 host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 4, 16, 4) }],
    ['short-iso new', `2021-08-24T13:16:04+09:00 host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 4, 16, 4) }],
    ['short-iso-precise', `2021-08-24T13:16:04.368361-0130 host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 14, 46, 4, 368) }],
    ['short-iso Z', `2021-08-24T13:16:04.5Z host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 13, 16, 4, 500) }],
    ['short-full UTC', `Tue 2021-08-24 13:16:04 UTC host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 13, 16, 4) }],
    ['short-full zone', `Tue 2021-08-24 13:16:04 KST host kubelet[278409]: ${MSG}`, { local: { year: 2021, month: 8, day: 24 } }],
    // A zone with no abbreviation: strftime's %Z prints its offset (TZ=America/Sao_Paulo: -03).
    ['short-full -03', `Tue 2021-08-24 13:16:04 -03 host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 16, 16, 4) }],
    ['short-full +0530', `Tue 2021-08-24 13:16:04.5 +0530 host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 7, 46, 4, 500) }],
    ['short-full +05:45', `Tue 2021-08-24 13:16:04 +05:45 host kubelet[278409]: ${MSG}`, { exact: Date.UTC(2021, 7, 24, 7, 31, 4) }],
    ['short-full +99 (no zone)', `Tue 2021-08-24 13:16:04 +99 host kubelet[278409]: ${MSG}`, { local: { year: 2021, hour: 13 } }],
    ['short-unix', `1629778564.368361 host kubelet[278409]: ${MSG}`, { exact: 1629778564368 }],
    ['syslog day padding', `Aug  4 13:16:04 host kubelet[278409]: ${MSG}`, { local: { day: 4 } }],
  ];
  for (const [name, line, time] of cases) {
    const p = parsePrefix(line);
    t.match(p, { time, ident: 'kubelet', pid: 278409, message: MSG }, name);
  }
});

t.test('identifiers: with and without hostname, pid 1, no pid', async (t) => {
  t.match(parsePrefix('Aug 21 18:54:34 localhost.worker systemd[1]: kubelet.service: Succeeded.'), { ident: 'systemd', pid: 1, message: 'kubelet.service: Succeeded.' });
  // --no-hostname: the unit name in the message must not be taken for the identifier
  t.match(parsePrefix('Aug 21 18:54:34 systemd[1]: kubelet.service: Succeeded.'), { ident: 'systemd', pid: 1, message: 'kubelet.service: Succeeded.' });
  t.match(parsePrefix('Aug 21 18:54:34 host kernel: something'), { ident: 'kernel', pid: null, message: 'something' });
  t.equal(parsePrefix(MSG), null, 'a raw klog line has no prefix');
  t.equal(parsePrefix('-- Logs begin at Thu 2020-12-31 22:58:00 UTC. --'), null);
  t.equal(parsePrefix('-- Reboot --'), null);
  t.equal(parsePrefix('{"MESSAGE":"x"}'), null);
});

t.test('locale month names', async (t) => {
  const cases: Array<[string, number]> = [['Jan', 1], ['Mai', 5], ['mai', 5], ['Mär', 3], ['Okt', 10], ['Dez', 12], ['déc.', 12], ['févr.', 2], ['ago', 8], ['дек', 12], ['10月', 10], ['1月', 1], ['12월', 12], ['paź', 10]];
  for (const [w, m] of cases) t.equal(monthOf(w), m, w);
  t.equal(monthOf('Foo'), null);
  t.equal(monthOf('13月'), null);
  t.equal(monthOf('xyz', new Map([['xyz', 7]])), 7, 'learned words');
  t.match(parsePrefix(`10月 25 16:08:09 host kubelet[1]: ${MSG}`), { time: { local: { month: 10, day: 25 } } });
  t.match(parsePrefix(`Mai 22 08:07:35 host kubelet[1]: ${MSG}`), { time: { local: { month: 5 } } });
  t.match(parsePrefix(`Xyz 22 08:07:35 host kubelet[1]: ${MSG}`), { monthToken: 'Xyz', time: { local: { month: 0 } } }, 'unknown words are kept for learning');
});

const lt = (month: number, day: number): LocalTime => ({ year: null, month, day, hour: 0, minute: 0, second: 0, micros: 0 });

t.test('year inference: --year is the first line\'s year, Dec → Jan steps forward', async (t) => {
  const y = new YearInference();
  const steps = [lt(12, 30), lt(12, 31), lt(1, 1), lt(1, 2)].map((x) => y.step(x));
  t.same(steps, [0, 0, 1, 1]);
  const opts = { year: 2025, anchor: new Date(0), utc: true };
  t.same(steps.map((s) => y.yearFor(s, opts)), [2025, 2025, 2026, 2026]);
});

t.test('year inference from the mtime: the last line falls in the mtime\'s year', async (t) => {
  const y = new YearInference();
  const steps = [lt(12, 30), lt(1, 2)].map((x) => y.step(x));
  // read in January 2026: the December line is from 2025
  const jan = { anchor: new Date(Date.UTC(2026, 0, 5)), utc: true };
  t.same(steps.map((s) => y.yearFor(s, jan)), [2025, 2026]);
  // a log whose last date lies after the mtime's date is from the year before
  const y2 = new YearInference();
  const s2 = y2.step(lt(11, 20));
  t.equal(y2.yearFor(s2, { anchor: new Date(Date.UTC(2026, 2, 1)), utc: true }), 2025);
  t.equal(y2.yearFor(s2, { anchor: new Date(Date.UTC(2026, 11, 1)), utc: true }), 2026);
});

t.test('year inference: a month back at a month boundary is jitter, not a year', async (t) => {
  const y = new YearInference();
  t.same([lt(2, 1), lt(1, 31), lt(2, 1)].map((x) => y.step(x)), [0, 0, 0]);
  t.same([lt(3, 5), lt(2, 5)].map((x) => y.step(x)), [0, 1], 'other backward steps are a new year');
});

t.test('local times: TZ and --utc', async (t) => {
  const x: LocalTime = { year: 2021, month: 8, day: 24, hour: 13, minute: 16, second: 4, micros: 368361 };
  t.equal(isoOf(localMs(x, true)), '2021-08-24T13:16:04.368Z');
  t.equal(localMs(x, false), new Date(2021, 7, 24, 13, 16, 4, 368).getTime());
  t.equal(isoOf(Number.NaN), null);
  t.equal(isoOf(1e17), null, 'hostile years give no time rather than a RangeError');
});
