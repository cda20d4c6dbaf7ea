// One candidate line → at most one record: the source format (JSON export, a text prefix
// of journalctl's output modes, or raw klog/`cat`), the klog header, and the catalogue.
// Header-less lines after a legacy line are its continuation (journald splits a multi-line
// klog message into one entry per line).

import { BodyCache, ByteBodyIndex, RELEVANT_TEXT } from './body-cache.js';
import { classifyKubelet, classifySystemd, looksLikeSystemd, isKubeletUnit, type Classified } from './catalog.js';
import type { JournalEvent } from './events.js';
import { isSyncFileBytes, readKlogHeader, readShortPrefix, shortKlogLine } from './fastline.js';
import { jsonText, parseJsonEntry } from './json-export.js';
import { looksLikeKlog, parseKlogHeader, type KlogHeader } from './klog.js';
import { Follow, type LineSink } from './scan.js';
import { monthOf, normaliseMonthToken, parsePrefix, type LineTime, type LocalTime, type Prefixed } from './syslog.js';

/** An event whose time is not yet resolved (year-less times wait for year inference). */
export interface LineRecord {
  event: JournalEvent;
  time: LineTime | null;
}

/** Caps on what one event absorbs from continuation lines. */
export const CONTINUATION_MAX_LINES = 64;
export const CONTINUATION_MAX_CHARS = 16 * 1024;
/**
 * Lines of other processes passed over inside one continuation: in a syslog file other
 * daemons' lines land between a kubelet message's lines, which go on after them.
 */
export const CONTINUATION_MAX_FOREIGN = 16;
/** Text of a line the scanner wants (the syslog markers, and any mention of the kubelet): such a line ends a continuation. */
const MARKER_WORDS = ['fig co', 'ynamic', 'ystemd', 'kubelet'];
const MARKER_BYTES = MARKER_WORDS.map((m) => Buffer.from(m));
/** continuationText's answer for another process's line that is passed over. */
const PASSED_OVER = Symbol('passed over');

interface Parsed {
  cls: Classified | null;
  /** The line had a text prefix or was a JSON entry (not raw klog/`cat`). */
  prefixed: boolean;
  /** The line is about the kubelet (not systemd talking about another unit). */
  relevant: boolean;
  pid: number | null;
  time: LineTime | null;
  message: string;
}

interface Continuation {
  record: LineRecord;
  pid: number | null;
  /** journalctl indents the further lines of one multi-line entry (text modes only). */
  prefixed: boolean;
  lines: number;
  chars: number;
  /** Other processes' lines passed over since the last line taken. */
  foreign: number;
}

export class LineParser {
  /** Relevant lines that became no event, and malformed ones (bad JSON, overlong, null MESSAGE). */
  skipped = 0;
  private readonly learnedMonths = new Map<string, number>();
  private lastMonth = 0;
  private cont: Continuation | null = null;
  private readonly contState: Continuation = { record: { event: null as unknown as JournalEvent, time: null }, pid: null, prefixed: false, lines: 0, chars: 0, foreign: 0 };
  /** The byte parsers' findings, reused. */
  private readonly fast = shortKlogLine();
  private readonly bodies = new BodyCache();
  private readonly byBytes = new ByteBodyIndex();
  /** The last month word the byte path met, and whether it is a known one. */
  private monthWord = Buffer.alloc(12);
  private monthWordLength = 0;
  private monthWordKnown = false;
  /** continuationBytes read the prefix and klog header of the line it turned down into `fast`. */
  private fastRead = false;

  constructor(
    private readonly source: string,
    private readonly emit: (r: LineRecord) => void,
    /** A record no one holds any more, to fill instead of a new one (Pipeline.reuse). */
    private readonly reuse?: () => LineRecord | undefined,
  ) {}

  /** A candidate line; says whether the lines after it may continue it, or should be watched (a start). */
  line(raw: string): Follow {
    this.cont = null;
    const text = clean(raw);
    const p = this.parse(text);
    if (!p) {
      this.skipped++;
      return Follow.None;
    }
    if (!p.cls) {
      if (p.relevant) this.skipped++;
      return Follow.None;
    }
    return this.found({ event: toEvent(p, this.source), time: p.time }, p.cls, p.prefixed);
  }

  /**
   * A candidate line `buf[start, end)` as bytes: a `short` + klog line is read on its bytes
   * with its body classified once per distinct text (fastline.ts, body-cache.ts); any other
   * line is decoded and read by line(). Both ways give the same records.
   */
  lineBytes(buf: Buffer, start: number, end: number, refused = false): Follow {
    const f = this.fast;
    // A line just turned down as a continuation was read that far already (this.fast holds it).
    const read = refused && this.fastRead;
    this.fastRead = false;
    if ((read || (readShortPrefix(buf, start, end, f) && readKlogHeader(buf, f.messageStart, end, f))) && this.knownMonth(buf, f.monthStart, f.monthEnd)) {
      const sync = isSyncFileBytes(buf, f.fileStart, f.fileEnd);
      let c = this.byBytes.find(buf, f.bodyStart, end, sync);
      if (!c) {
        const body = utf8(buf, f.bodyStart, end);
        // clean() on a prefix that is plain ASCII: NULs (rare: the slow way) and a CR at the end.
        if (!body.includes('\0')) {
          c = this.bodies.get(body.endsWith('\r') ? body.slice(0, -1) : body, sync);
          this.byBytes.remember(buf, f.bodyStart, end, sync, c);
        }
      }
      if (c) {
        this.cont = null;
        this.lastMonth = f.month;
        if (!c.cls) {
          if (c.relevant) this.skipped++;
          return Follow.None;
        }
        return this.found(this.klogRecord(c.cls, c.body), c.cls, true);
      }
    }
    return this.line(utf8(buf, start, end));
  }

  /** A line after a continued one, as bytes: another process's `short` line or a klog line ends the message without being decoded. */
  continuationBytes(buf: Buffer, start: number, end: number): boolean {
    this.fastRead = false;
    const c = this.cont;
    if (!c) return false;
    const f = this.fast;
    if (readShortPrefix(buf, start, end, f)) {
      if (f.pid !== c.pid) return this.foreignLine(c, f.kubeletIdent || hasMarkerBytes(buf, f.messageStart, end));
      if (readKlogHeader(buf, f.messageStart, end, f)) {
        this.cont = null;
        this.fastRead = true;
        return false;
      }
    }
    return this.continuation(utf8(buf, start, end));
  }

  /** The record of the line the byte parsers just read: a reused one filled in, else a new one. */
  private klogRecord(cls: Classified, message: string): LineRecord {
    const f = this.fast;
    const old = this.reuse?.();
    const reused = old !== undefined && old.time !== null && 'local' in old.time;
    const e = reused ? old.event : ({} as JournalEvent);
    // Every field, in one order whether the object is new or reused (one hidden class).
    e.time = null;
    e.pid = f.pid;
    e.kind = cls.kind;
    e.uid = cls.uid;
    e.resourceVersion = cls.resourceVersion;
    e.apiPath = cls.apiPath;
    e.key = cls.key;
    e.exitStatus = cls.exitStatus;
    e.message = message;
    e.source = this.source;
    const l = reused ? (old.time as { local: LocalTime }).local : ({} as LocalTime);
    l.year = null;
    l.month = f.month;
    l.day = f.day;
    l.hour = f.hour;
    l.minute = f.minute;
    l.second = f.second;
    l.micros = f.micros;
    if (l.fold) l.fold = false; // a reused record's (the pipeline sets it again where it applies)
    return reused ? old : { event: e, time: { local: l } };
  }

  /** Emit an event; what its kind asks of the lines after it. */
  private found(record: LineRecord, cls: Classified, prefixed: boolean): Follow {
    const event = record.event;
    this.emit(record);
    const kind = cls.kind;
    if (kind === 'kubelet-started' || kind === 'controller-start') return Follow.Watch;
    if (!cls.continues) return Follow.None;
    // One continuation is open at a time: its state object is reused (a dense legacy journal opens one per event).
    const c = this.contState;
    c.record = record;
    c.pid = event.pid;
    c.prefixed = prefixed;
    c.lines = 0;
    c.chars = 0;
    c.foreign = 0;
    this.cont = c;
    return Follow.Continuation;
  }

  /** Is the month word `buf[start, end)` one monthOf knows (no locale learning needed)? The last word is remembered. */
  private knownMonth(buf: Buffer, start: number, end: number): boolean {
    const n = end - start;
    const w = this.monthWord;
    let same = n === this.monthWordLength;
    for (let k = 0; same && k < n; k++) same = buf[start + k] === w[k];
    if (!same) {
      this.monthWordLength = n;
      buf.copy(w, 0, start, end);
      this.monthWordKnown = monthOf(buf.toString('latin1', start, end)) !== null;
    }
    return this.monthWordKnown;
  }

  /** A line after a continued one: true when it was taken as part of that message. */
  continuation(raw: string): boolean {
    const c = this.cont;
    if (!c) return false;
    const more = this.continuationText(clean(raw), c);
    if (more === PASSED_OVER) return this.foreignLine(c, false);
    if (more === null || c.lines >= CONTINUATION_MAX_LINES || c.chars + more.length > CONTINUATION_MAX_CHARS) {
      this.cont = null;
      return false;
    }
    c.record.event.message += '\n' + more;
    c.foreign = 0;
    c.lines++;
    c.chars += more.length + 1;
    return true;
  }

  /**
   * Another process's line inside a continuation (syslog files interleave daemons): passed
   * over, up to CONTINUATION_MAX_FOREIGN in a row, unless `wanted` (a kubelet's line, or one
   * holding a marker), which ends the message and is scanned as usual.
   */
  private foreignLine(c: Continuation, wanted: boolean): boolean {
    if (!wanted && c.prefixed && ++c.foreign <= CONTINUATION_MAX_FOREIGN) return true;
    this.cont = null;
    return false;
  }

  /** A line too long to decode that held a marker. */
  overlong(): void {
    this.cont = null;
    this.skipped++;
  }

  private parse(text: string): Parsed | null {
    const json = jsonText(text);
    if (json !== null) return this.parseJson(json);
    const p = parsePrefix(text);
    if (p) {
      if (isSystemdIdent(p.ident, p.pid)) return systemdLine(p.message, null, p.pid, this.lineTime(p.time, null, p.monthToken));
      return this.kubeletLine(p.message, p.pid, p.time, p.monthToken, p.wholeSecond);
    }
    return this.kubeletLine(text, null, null, null, null);
  }

  private parseJson(text: string): Parsed | null {
    const e = parseJsonEntry(text);
    if (!e || e.message === null) return null;
    const time: LineTime | null = e.timeMs === null ? null : { exact: e.timeMs };
    const fromSystemd = e.pid === 1 || e.ident === 'systemd' || (e.comm === 'systemd' && e.unit !== null);
    if (fromSystemd) {
      const p = systemdLine(e.message, e.unit, e.pid, time);
      // systemd talks about many units; only the kubelet's count as skipped when unrecognised.
      p.relevant = e.unit === null ? /kubelet/.test(e.message) : isKubeletUnit(e.unit);
      return p;
    }
    return this.kubeletLine(e.message, e.pid, time, null, null);
  }

  private kubeletLine(message: string, pid: number | null, prefixTime: LineTime | null, monthToken: string | null, whole: Prefixed['wholeSecond']): Parsed {
    const header = parseKlogHeader(message);
    const text = header ? header.body : message;
    const cls = classifyKubelet(text, header);
    if (!cls && !header && prefixTime === null && looksLikeSystemd(message)) {
      // `cat` output: systemd's lines have no identifier at all.
      return systemdLine(message, null, null, null);
    }
    const time = refine(this.lineTime(prefixTime, header, monthToken), whole, header);
    // Marker hits in unrelated chatter (a line mentioning systemd) are not "skipped" lines.
    const relevant = cls !== null || RELEVANT_TEXT.test(text);
    return { cls, relevant, prefixed: pid !== null || prefixTime !== null, pid: pid ?? header?.pid ?? null, time, message: text };
  }

  /**
   * Exact instants win; a year-less prefix defers to the klog header (numeric month,
   * microseconds, locale-proof) and teaches the parser the locale's month word.
   */
  private lineTime(prefix: LineTime | null, header: KlogHeader | null, monthToken: string | null): LineTime | null {
    if (prefix && 'exact' in prefix) return prefix;
    if (prefix && prefix.local.year !== null) return prefix;
    if (header) {
      if (monthToken && !monthOf(monthToken)) this.learnedMonths.set(normaliseMonthToken(monthToken), header.month);
      this.lastMonth = header.month;
      return { local: fromHeader(header) };
    }
    if (!prefix) return null;
    const local = prefix.local;
    if (local.month === 0) local.month = (monthToken && monthOf(monthToken, this.learnedMonths)) || this.lastMonth;
    if (local.month === 0) return null;
    this.lastMonth = local.month;
    return prefix;
  }

  /** The text a continuation line adds, or null when the line is something else. */
  private continuationText(text: string, c: Continuation): string | typeof PASSED_OVER | null {
    const json = jsonText(text);
    if (json !== null) {
      const e = parseJsonEntry(json);
      if (!e || e.message === null || e.pid !== c.pid || e.pid === 1) return null;
      return bodyContinuation(e.message);
    }
    const p = parsePrefix(text);
    if (p) {
      if (isSystemdIdent(p.ident, p.pid)) return null;
      if (p.pid !== c.pid) {
        // Another daemon's line in a syslog file: passed over, unless it is one the scanner
        // wants (a kubelet's, systemd's, a config-controller line), which ends the message.
        return p.ident !== 'kubelet' && !MARKER_WORDS.some((m) => text.includes(m)) ? PASSED_OVER : null;
      }
      return bodyContinuation(p.message);
    }
    if (c.prefixed) return /^\s/.test(text) ? text.trim() : null;
    return bodyContinuation(text);
  }
}

/**
 * A prefix printed to the second (short-iso, short-full) and a klog header of the same
 * wall-clock second: the header's microseconds make the time as precise as the JSON export's.
 */
function refine(time: LineTime | null, whole: Prefixed['wholeSecond'], h: KlogHeader | null): LineTime | null {
  if (!time || !whole || !h || h.hour !== whole.hour || h.minute !== whole.minute || h.second !== whole.second) return time;
  const ms = Math.floor(h.micros / 1000);
  return 'exact' in time ? { exact: time.exact + ms } : { local: { ...time.local, micros: h.micros } };
}

function bodyContinuation(message: string): string | null {
  if (looksLikeKlog(message) || looksLikeSystemd(message)) return null;
  if (message.startsWith('goroutine ') || message.startsWith('Flag --')) return null; // a stack dump or the next stderr line
  return message;
}

function isSystemdIdent(ident: string | null, pid: number | null): boolean {
  return ident === 'systemd' || (pid === 1 && ident !== 'kubelet');
}

function systemdLine(message: string, unit: string | null, pid: number | null, time: LineTime | null): Parsed {
  const cls = classifySystemd(message, unit);
  const relevant = unit !== null ? isKubeletUnit(unit) : /kubelet/i.test(message);
  return { cls, relevant, prefixed: true, pid, time, message };
}

function fromHeader(h: KlogHeader): LocalTime {
  return { year: null, month: h.month, day: h.day, hour: h.hour, minute: h.minute, second: h.second, micros: h.micros };
}

function toEvent(p: Parsed, source: string): JournalEvent {
  const c = p.cls!;
  return {
    time: null,
    pid: p.pid,
    kind: c.kind,
    uid: c.uid,
    resourceVersion: c.resourceVersion,
    apiPath: c.apiPath,
    key: c.key,
    exitStatus: c.exitStatus,
    message: p.message,
    source,
  };
}

// Buffer#utf8Slice is what toString('utf8', start, end) calls after checking its arguments
// (a tenth of a dense read went to those checks); it is not in @types/node.
type Utf8Sliced = Buffer & { utf8Slice?(start: number, end: number): string };
const utf8: (b: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as Utf8Sliced).utf8Slice === 'function' ? (b, start, end) => (b as Utf8Sliced).utf8Slice!(start, end) : (b, start, end) => b.toString('utf8', start, end);

// NUL bytes never belong to log text; a CR is left by CRLF files.
function clean(raw: string): string {
  let s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (s.includes('\0')) s = s.replace(/\0/g, '');
  return s;
}

/** The scanner's sink that hands candidate lines, as bytes, to a parser. */
export function decodingSink(parser: LineParser): LineSink {
  return {
    line: (buf, start, end, refused) => parser.lineBytes(buf, start, end, refused),
    continuation: (buf, start, end) => parser.continuationBytes(buf, start, end),
    overlong: () => parser.overlong(),
  };
}

/** Does `buf[start, end)` hold one of MARKER_BYTES? */
function hasMarkerBytes(buf: Buffer, start: number, end: number): boolean {
  const v = buf.subarray(start, end);
  return MARKER_BYTES.some((m) => v.indexOf(m) >= 0);
}
