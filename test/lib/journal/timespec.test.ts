// parseTimeBound: the systemd.time(7) forms journalctl takes, for --since/--until on files.
import t from 'tap';
import { parseTimeBound } from '../../../lib/journal/timespec.js';

// Tuesday 2021-08-24 15:30:00 local time (TZ is set per case below through process.env.TZ).
process.env.TZ = 'Europe/Berlin';
const now = new Date(Date.UTC(2021, 7, 24, 13, 30, 0));
const p = (s: string) => parseTimeBound(s, now, '--since');
const iso = (s: string) => new Date(p(s)).toISOString();

t.test('absolute times: local, UTC, offsets, tz names, a weekday that agrees', async (t) => {
  t.equal(iso('2021-08-24 12:00'), '2021-08-24T10:00:00.000Z', 'local time (CEST)');
  t.equal(iso('2021-08-24 12:00:00 UTC'), '2021-08-24T12:00:00.000Z');
  t.equal(iso('2021-08-24T04:00:00Z'), '2021-08-24T04:00:00.000Z');
  t.equal(iso('2021-08-24 04:00:00+02:00'), '2021-08-24T02:00:00.000Z');
  t.equal(iso('2021-08-24 12:00 America/New_York'), '2021-08-24T16:00:00.000Z');
  t.equal(iso('Tue 2021-08-24 12:00'), '2021-08-24T10:00:00.000Z');
  t.equal(iso('tuesday 2021-08-24'), '2021-08-23T22:00:00.000Z');
  t.equal(iso('13:00'), '2021-08-24T11:00:00.000Z', 'a time alone is today, local');
  t.equal(iso('13:00:05.5 UTC'), '2021-08-24T13:00:05.500Z');
  t.equal(iso('2021-08-24 12:00:00.123456'), '2021-08-24T10:00:00.123Z');
});

t.test('relative times, compound, with the units systemd counts', async (t) => {
  const at = now.getTime();
  t.equal(p('-2h30min'), at - 9000e3);
  t.equal(p('2h 30min ago'), at - 9000e3);
  t.equal(p('+3d'), at + 3 * 86400e3);
  t.equal(p('30 min ago'), at - 1800e3);
  t.equal(p('2 months ago'), at - 2 * 2629800e3);
  t.equal(p('+1y'), at + 31557600e3);
  t.equal(p('-500ms'), at - 500);
  t.equal(p('5min left'), at + 300e3);
  // A number without a unit counts seconds (found by review: refused where journalctl takes it).
  t.equal(p('-300'), at - 300e3);
  t.equal(p('+5'), at + 5e3);
  t.equal(p('5 ago'), at - 5e3);
  t.equal(p('today'), Date.UTC(2021, 7, 23, 22));
  t.equal(p('@1629811200'), 1629811200e3);
});

t.test('what journalctl refuses is refused (exit 2)', async (t) => {
  for (const bad of ['Mon 2021-08-24', 'Funday 2021-08-24', '2021-08-24 12:00 Mars/Olympus', '25:00', '2021-02-30', '-2 fortnights', 'ago', '', '-', '12', 'soon', '3d', '-3d ago', '-5mins', '-5secs', '10 mins ago', '2021-08-24 13:00 +02:00', '2021-08-24 13:00+0200']) {
    t.throws(() => p(bad), { exitCode: 2, message: /is not a time/ }, JSON.stringify(bad));
  }
});
