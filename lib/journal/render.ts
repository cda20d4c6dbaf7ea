// Text for people: a timeline (time, pid, kind, short ref, one-line message; failures
// marked), the per-checkpoint table, the kubelet processes, and a summary line. Pure:
// the command prints the string. Log text is hostile input: every string from a log passes
// the one sanitizer (lib/output/sanitize.ts `printable`, control characters shown as `\x1b`)
// here, as the last step, so the printer hands this renderer the result as it is
// (print.ts sanitizesItself). Times are ours (ISO from numbers), kinds our catalog's.

import { isFailure, isSystemdKind, parseApiPath, type CheckpointSummary, type JournalEvent, type JournalResult, type ProcessSummary } from './events.js';
import { goUnquote, parseStructured } from './klog.js';
import { printable } from '../output/sanitize.js';
import { foldWords } from '../output/wrap.js';

export interface RenderOptions {
  color: boolean;
  /** Terminal width; 0 or Infinity: do not truncate (a pipe). */
  width: number;
}

const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const DIM = '\x1b[2m';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** Below this many columns for the message, it is printed on a line of its own. */
const MIN_MESSAGE = 16;

const RESTART_KINDS = new Set(['restart-for-config', 'restart-for-local', 'reset-requested', 'restart-scheduled']);

export function renderJournalText(r: JournalResult, o: RenderOptions): string {
  const width = o.width > 0 && Number.isFinite(o.width) ? Math.max(40, o.width) : Infinity;
  const paint = (code: string, s: string) => (o.color ? code + s + RESET : s);
  const timeFmt = timeFormatter(r.events.map((e) => e.time).concat(r.checkpoints.flatMap((c) => [c.firstSeen, c.lastSeen])));
  const out: string[] = [];
  if (r.events.length === 0) {
    out.push(`No kubelet config events found${r.skipped ? ` (${r.skipped} unrecognised line${r.skipped === 1 ? '' : 's'} skipped)` : ''}.`);
  } else {
    out.push(paint(BOLD, `Timeline (UTC${timeFmt.year ? `, ${timeFmt.year}` : ''})`));
    // No spread into push: its arguments go on the stack, and a long journal overflows it.
    for (const line of timeline(r.events, timeFmt.fmt, width, paint)) out.push(line);
  }
  if (r.checkpoints.length) out.push('', paint(BOLD, 'Checkpoints'));
  if (r.checkpoints.length) for (const line of checkpointTable(r.checkpoints, timeFmt.fmt, width)) out.push(line);
  if (r.processes.length) out.push('', paint(BOLD, 'Kubelet processes'));
  if (r.processes.length) for (const line of processTable(r.processes, timeFmt.fmt, width, paint)) out.push(line);
  out.push('', summaryLine(r, paint));
  return out.join('\n') + '\n';
}

// ---- timeline ----

function timeline(events: readonly JournalEvent[], fmt: (iso: string | null) => string, width: number, paint: (c: string, s: string) => string): string[] {
  const rows = events.map((e) => ({ e, time: fmt(e.time), pid: isSystemdKind(e.kind) ? 'systemd' : e.pid === null ? '-' : String(e.pid), ref: shortRef(e) }));
  const wTime = maxLen(rows.map((r) => r.time));
  const wPid = maxLen(rows.map((r) => r.pid));
  const wKind = maxLen(rows.map((r) => r.e.kind));
  const wRef = maxLen(rows.map((r) => r.ref));
  const gap = width < 100 ? ' ' : '  ';
  const textOf = eventTexts();
  return rows.map(({ e, time, pid, ref }) => {
    const fail = isFailure(e);
    const head = `${fail ? '!' : ' '} ${[time.padEnd(wTime), pid.padStart(wPid), e.kind.padEnd(wKind), ref.padEnd(wRef)].join(gap)}${gap}`;
    const text = textOf(e);
    // A narrow terminal leaves the message too little room: it goes on its own line below.
    const room = width - head.length;
    // A failure's reason is what the operator came for: whole, folded below when it does not
    // fit (found by an operator review: "failed to decode, error: cou…" at 80 columns).
    const line =
      text.length <= room ? head + text
      : fail ? `${head.trimEnd()}\n${foldWords(text, width - 6).map((l) => `      ${l}`).join('\n')}`
      : room >= MIN_MESSAGE ? head + fit(text, room)
      : `${head.trimEnd()}\n      ${fit(text, width - 6)}`;
    if (fail) return paint(RED, line);
    if (RESTART_KINDS.has(e.kind)) return paint(YELLOW, line);
    if (isSystemdKind(e.kind)) return paint(DIM, line);
    return line;
  });
}

/** `uid[:8]/rv`, `uid[:8]` or `-`. */
export function shortRef(e: Pick<JournalEvent, 'uid' | 'resourceVersion' | 'kind' | 'exitStatus'>): string {
  if (e.kind === 'kubelet-exited' && e.exitStatus !== null) return `status=${e.exitStatus}`;
  if (!e.uid) return e.kind === 'restart-for-local' ? 'local' : '-';
  const uid = printable(e.uid.slice(0, 8));
  return e.resourceVersion ? `${uid}/${printable(e.resourceVersion.slice(0, 12))}` : uid;
}

type TextInput = Pick<JournalEvent, 'message' | 'uid' | 'resourceVersion' | 'kind' | 'apiPath' | 'key'>;

/**
 * eventText, remembered per message for a timeline: a journal repeats a few messages
 * thousands of times, and each costs a dozen regex passes (bounded: 1000 messages).
 */
function eventTexts(): (e: TextInput) => string {
  const memo = new Map<string, { e: TextInput; text: string }>();
  return (e) => {
    const m = memo.get(e.message);
    if (m && m.e.kind === e.kind && m.e.uid === e.uid && m.e.resourceVersion === e.resourceVersion && m.e.apiPath === e.apiPath && m.e.key === e.key) return m.text;
    const text = eventText(e);
    if (memo.size < 1000) memo.set(e.message, { e, text });
    return text;
  };
}

/** Kinds whose ConfigMap says it all: the kind is the verb. */
const NAMED = new Set(['checkpoint-load', 'checkpoint-exists', 'downloaded', 'restart-for-config', 'lkg-updated']);

/**
 * The event's message on one line, as short as it can be without losing anything the other
 * columns do not show: no controller prefix or quoting, no boilerplate the kind already says,
 * ConfigMaps as `namespace/name`, continuation lines folded with ⏎.
 */
export function eventText(e: Pick<JournalEvent, 'message' | 'uid' | 'resourceVersion' | 'kind' | 'apiPath' | 'key'>): string {
  const nn = parseApiPath(e.apiPath);
  if (NAMED.has(e.kind) && nn) return printable(`${nn.namespace}/${nn.name}${e.key ? ` key=${e.key}` : ''}`);
  if (e.kind === 'store-init') {
    const dir = /(?:directory "|path=")((?:[^"\\]|\\.)*)"/.exec(e.message);
    if (dir) return printable(dir[1]!);
  }
  let text = e.message;
  const firstLine = text.split('\n', 1)[0]!;
  if (firstLine.startsWith('"')) text = structuredText(firstLine, ERROR_IS_MESSAGE.has(e.kind)) + text.slice(firstLine.length);
  text = text
    .replace(/^kubelet config controller: /, '')
    .replace(/^(?:Unit )?\S*kubelet\S*\.service:? /, '')
    .replace(/^failed to sync: /, '')
    .replace(/^failed to determine a valid configuration, error: /, '')
    .replace(/^(?:failed to (?:load|validate) config|internal failure), see Kubelet log for details, error: /, '')
    .replace(/, see Kubelet log for details, error: /g, ': ');
  if (e.uid) text = text.replace(/,? UID: [^\s,]+, ResourceVersion: [^\s,]+/g, '');
  text = text.replace(/\/api\/v1\/namespaces\/([^/\s,"]+)\/configmaps\/([^\s,"]+)/g, '$1/$2');
  return printable(text.replace(/\s*\n\s*/g, ' ⏎ ').replace(/[ \t]+/g, ' ').trim());
}

const ID_KEYS = new Set(['apiPath', 'sourceUID', 'checkpointUID', 'configMapUID', 'resourceVersion', 'reason', 'dynamicConfigDir']);

/** server.go's lines: the kind says what the message says; the error is the news. */
const ERROR_IS_MESSAGE = new Set(['bootstrap-failed', 'feature-gate-off']);

function structuredText(line: string, errorOnly: boolean): string {
  const s = parseStructured(line);
  if (!s) return goUnquote(line, 0)?.value ?? line;
  let text = errorOnly && s.kv.has('err') ? '' : s.msg.replace(/^Kubelet config controller ?/, '');
  const parts: string[] = [];
  for (const [k, v] of s.kv) {
    if (k === 'message' && (text === '' || text === 'event')) text = v;
    else if (k === 'err') parts.unshift(v);
    else if (k === 'path') parts.push(v);
    else if (!ID_KEYS.has(k)) parts.push(`${k}=${v}`);
  }
  // `"Kubelet config controller" err=…`: the error is the message.
  return [text, ...parts].filter(Boolean).join(': ');
}

// ---- tables ----

function checkpointTable(cps: readonly CheckpointSummary[], fmt: (iso: string | null) => string, width: number): string[] {
  const wide = width >= 110;
  const t = wide ? fmt : minutes(fmt);
  const rows = cps.map((c) => [
    printable(wide ? c.uid : c.uid.slice(0, 8)),
    printable(c.resourceVersion ?? '-'),
    String(c.events),
    c.onDisk === null ? '?' : c.onDisk ? 'yes' : 'no',
    t(c.firstSeen),
    t(c.lastSeen),
    configMapName(c.apiPath),
  ]);
  return table(['UID', 'RV', 'EVENTS', 'ON DISK', 'FIRST SEEN', 'LAST SEEN', 'CONFIGMAP'], rows, width, 6, fitMiddle);
}

function processTable(ps: readonly ProcessSummary[], fmt: (iso: string | null) => string, width: number, paint: (c: string, s: string) => string): string[] {
  const t = width >= 110 ? fmt : minutes(fmt);
  const rows = ps.map((p) => [
    p.pid === null ? '-' : String(p.pid),
    p.loaded ? shortRef({ uid: p.loaded.uid, resourceVersion: p.loaded.resourceVersion, kind: 'checkpoint-load', exitStatus: null }) : '-',
    p.ended ?? '-',
    t(p.firstSeen),
    t(p.lastSeen),
  ]);
  const lines = table(['PID', 'LOADED', 'ENDED', 'FIRST SEEN', 'LAST SEEN'], rows, width, 4);
  return lines.map((l, i) => (i > 0 && isFailedEnd(ps[i - 1]!) ? paint(RED, l) : l));
}

/** Tables on narrow terminals: times to the minute. */
function minutes(fmt: (iso: string | null) => string): (iso: string | null) => string {
  return (iso) => {
    const s = fmt(iso);
    return /\d\d:\d\d:\d\d$/.test(s) ? s.slice(0, -3) : s;
  };
}

function isFailedEnd(p: ProcessSummary): boolean {
  return p.ended === 'bootstrap-failed' || p.ended === 'start-limit-hit' || p.ended === 'feature-gate-off';
}

function summaryLine(r: JournalResult, paint: (c: string, s: string) => string): string {
  const n = (k: number, what: string) => `${k} ${what}${k === 1 ? '' : 's'}`;
  const listed = r.truncated ? ` (the newest ${r.events.length} listed, ${r.truncated} older ones summarised)` : '';
  const counts = `${n(r.events.length + r.truncated, 'event')}${listed}, ${n(r.restarts, 'restart')}, ${n(r.skipped, 'line')} skipped`;
  return r.crashLoop ? `${counts}\n${paint(RED, 'CRASH LOOP: 3 or more failed starts within 10 minutes')}` : `${counts}, no crash loop`;
}

/** Columns padded to their widest cell; column `flex` is cut to fit `width` (by `cut`). */
function table(head: string[], rows: string[][], width: number, flex: number, cut: (s: string, n: number) => string = fit): string[] {
  const widths = head.map((h, i) => maxLen([h, ...rows.map((r) => r[i]!)]));
  const total = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) + 2;
  if (total > width) widths[flex] = Math.max(6, widths[flex]! - (total - width));
  const cell = (c: string, i: number) => (i === flex ? cut : fit)(c, widths[i]!);
  const line = (cells: string[]) => '  ' + cells.map((c, i) => (i === cells.length - 1 ? cell(c, i) : cell(c, i).padEnd(widths[i]!))).join('  ');
  return [line(head), ...rows.map(line)].map((l) => l.trimEnd());
}

function configMapName(apiPath: string | null): string {
  const nn = parseApiPath(apiPath);
  return nn ? printable(`${nn.namespace}/${nn.name}`) : '-';
}

// ---- text helpers ----

/**
 * Times as `YYYY-MM-DD HH:MM:SS`; when all share a year `MM-DD HH:MM:SS`, when all share a
 * day `HH:MM:SS`, with what was left out in the heading.
 */
function timeFormatter(times: readonly (string | null)[]): { fmt: (iso: string | null) => string; year: string | null } {
  const known = times.filter((t): t is string => t !== null);
  const same = (n: number) => known.length > 0 && known.every((t) => t.slice(0, n) === known[0]!.slice(0, n));
  const cut = same(10) ? 11 : same(4) ? 5 : 0;
  const fmt = (iso: string | null) => (iso === null ? '-' : iso.slice(cut, 19).replace('T', ' '));
  return { fmt, year: cut === 0 ? null : known[0]!.slice(0, cut - 1) };
}

function maxLen(xs: readonly string[]): number {
  return xs.reduce((m, x) => Math.max(m, x.length), 0);
}

/**
 * Cut to `n` characters in the middle: ConfigMaps of one namespace differ at their end
 * (node-config-a, node-config-b), which a cut at the end made alike (found by an operator review).
 */
function fitMiddle(s: string, n: number): string {
  if (!Number.isFinite(n) || s.length <= n) return s;
  if (n <= 3) return fit(s, n);
  const tail = Math.ceil((n - 1) / 2);
  return `${s.slice(0, n - 1 - tail)}…${s.slice(s.length - tail)}`;
}

/** Cut to `n` characters with an ellipsis. */
function fit(s: string, n: number): string {
  if (!Number.isFinite(n) || s.length <= n) return s;
  if (n <= 1) return s.slice(0, Math.max(0, n));
  return s.slice(0, n - 1) + '…';
}

// ---- progress (for the command's TTY line) ----

/** Inputs smaller than this finish before a progress line would help. */
export const PROGRESS_MIN_BYTES = 100 * 1024 * 1024;

/** `reading kubelet.log: 312 MiB of 1024 MiB (30%), 1200 events` — one line, no newline. */
export function progressLine(p: { bytes: number; total: number | null; events: number }, label: string): string {
  const mib = (n: number) => `${Math.round(n / 1048576)} MiB`;
  const of = p.total ? ` of ${mib(p.total)} (${Math.min(100, Math.floor((100 * p.bytes) / p.total))}%)` : '';
  return printable(`reading ${label}: ${mib(p.bytes)}${of}, ${p.events} event${p.events === 1 ? '' : 's'}`);
}

// ---- one event at a time (`-f`) ----

/** Column widths for lines printed as events come: no later event can widen them. */
const LIVE = { pid: 7, kind: 18, ref: 21 };

/** One timeline line for `journal -f`: full time, fixed columns, the message to the width. */
export function renderEventLine(e: JournalEvent, o: RenderOptions): string {
  const width = o.width > 0 && Number.isFinite(o.width) ? Math.max(40, o.width) : Infinity;
  const fail = isFailure(e);
  const time = e.time === null ? '-'.padEnd(19) : e.time.slice(0, 19).replace('T', ' ');
  const pid = isSystemdKind(e.kind) ? 'systemd' : e.pid === null ? '-' : String(e.pid);
  const head = `${fail ? '!' : ' '} ${time}  ${pid.padStart(LIVE.pid)}  ${e.kind.padEnd(LIVE.kind)}  ${shortRef(e).padEnd(LIVE.ref)}  `;
  const line = head + fit(eventText(e), width - head.length);
  if (!o.color) return line;
  if (fail) return RED + line + RESET;
  if (RESTART_KINDS.has(e.kind)) return YELLOW + line + RESET;
  if (isSystemdKind(e.kind)) return DIM + line + RESET;
  return line;
}
