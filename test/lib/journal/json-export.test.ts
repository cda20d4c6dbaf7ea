import t from 'tap';
import { parseJsonEntry } from '../../../lib/journal/json-export.js';
import { LineParser } from '../../../lib/journal/lines.js';
import type { JournalEvent } from '../../../lib/journal/events.js';

const KLOG = 'I0821 18:54:45.115977  108430 controller.go:101] kubelet config controller: starting controller';

t.test('string fields, µs timestamps, pids', async (t) => {
  const e = parseJsonEntry(JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085115977', _PID: '108430', SYSLOG_IDENTIFIER: 'kubelet', _SYSTEMD_UNIT: 'kubelet.service', MESSAGE: KLOG }));
  t.match(e, { timeMs: 1629572085115, pid: 108430, ident: 'kubelet', systemdUnit: 'kubelet.service', unit: null, message: KLOG });
  t.equal(parseJsonEntry(JSON.stringify({ __REALTIME_TIMESTAMP: '1', _SOURCE_REALTIME_TIMESTAMP: '2000', MESSAGE: 'x' }))?.timeMs, 2, 'the source timestamp wins');
  t.equal(parseJsonEntry(JSON.stringify({ SYSLOG_PID: '42', MESSAGE: 'x' }))?.pid, 42);
  t.equal(parseJsonEntry(JSON.stringify({ _PID: 'abc', MESSAGE: 'x' }))?.pid, null);
});

t.test('MESSAGE as a byte array, null, several values', async (t) => {
  const bytes = [...Buffer.from('héllo \xff', 'latin1')];
  t.equal(parseJsonEntry(JSON.stringify({ MESSAGE: bytes }))?.message, 'h\ufffdllo \ufffd');
  t.equal(parseJsonEntry(JSON.stringify({ MESSAGE: [...Buffer.from(KLOG)] }))?.message, KLOG);
  t.equal(parseJsonEntry(JSON.stringify({ MESSAGE: null }))?.message, null);
  t.equal(parseJsonEntry(JSON.stringify({ MESSAGE: ['first', 'second'] }))?.message, 'first');
  t.equal(parseJsonEntry(JSON.stringify({ MESSAGE: [[104, 105], 'x'] }))?.message, 'hi');
  t.equal(parseJsonEntry(JSON.stringify({ MESSAGE: [] }))?.message, null);
});

t.test('not entries', async (t) => {
  for (const s of ['', '{', '{"MESSAGE":"x"', '[1,2]', 'null', '"str"', '{"a":1}}']) t.equal(parseJsonEntry(s), null, s);
  t.equal(parseJsonEntry('{}')?.message, null);
});

function parse(lines: string[]): { events: JournalEvent[]; skipped: number } {
  const events: JournalEvent[] = [];
  const p = new LineParser('x.json', (r) => {
    r.event.time = r.time && 'exact' in r.time ? new Date(r.time.exact).toISOString() : null;
    events.push(r.event);
  });
  for (const l of lines) p.line(l);
  return { events, skipped: p.skipped };
}

t.test('through the parser: kubelet and systemd entries', async (t) => {
  const { events, skipped } = parse([
    JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085115977', _PID: '108430', _SYSTEMD_UNIT: 'kubelet.service', MESSAGE: KLOG }),
    JSON.stringify({ __REALTIME_TIMESTAMP: '1629572074000000', _PID: '1', UNIT: 'kubelet.service', SYSLOG_IDENTIFIER: 'systemd', MESSAGE: 'kubelet.service: Succeeded.' }),
    JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085000000', _PID: '1', UNIT: 'kubelet.service', MESSAGE: 'Started kubelet: The Kubernetes Node Agent.' }),
    JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085000000', _PID: '1', UNIT: 'kubelet.service', MESSAGE: 'Started Kubernetes Node Agent.' }),
    JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085000000', _PID: '1', UNIT: 'ssh.service', MESSAGE: 'Started OpenBSD Secure Shell server.' }),
    JSON.stringify({ __REALTIME_TIMESTAMP: '1629572085000000', _PID: '108430', MESSAGE: null }),
    '{"__REALTIME_TIMESTAMP":"1629572085000000","_PID":"108430","MESSAGE":"I0821 18:54:45.115977  108430 controller.go:101] kubelet config contr',
  ]);
  t.match(events, [
    { kind: 'controller-start', pid: 108430, time: '2021-08-21T18:54:45.115Z' },
    { kind: 'kubelet-exited', pid: 1, exitStatus: 0, time: '2021-08-21T18:54:34.000Z' },
    { kind: 'kubelet-started' },
    { kind: 'kubelet-started' },
  ]);
  t.equal(events.length, 4, 'systemd lines about other units are not events');
  t.equal(skipped, 2, 'a null MESSAGE and a truncated entry are skipped');
});
