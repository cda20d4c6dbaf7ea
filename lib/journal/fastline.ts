// The commonest candidate line, read on its bytes: journalctl's `short` prefix
// (`Aug 01 00:00:01 host kubelet[2000]: `) and a klog header, then the message. A dense
// journal holds hundreds of thousands of them; their regexes and strings cost more than the
// rest of the read. These parsers accept only a strict subset of what syslog.ts and klog.ts
// accept, and on that subset find exactly what those find; anything else (another prefix,
// a systemd line, a byte out of place) answers "not here" and the string parsers decide.

import type { LocalTime } from './syslog.js';

/** What the byte parsers found; one object, reused line after line. The klog header's time
 *  fields (month … micros, the year-less LocalTime) are valid after readKlogHeader. */
export interface ShortKlogLine extends Omit<LocalTime, 'year'> {
  /** The syslog `[pid]`. */
  pid: number;
  /** The month word of the prefix, `[monthStart, monthEnd)`. */
  monthStart: number;
  monthEnd: number;
  /** Where the text after `ident[pid]: ` starts. */
  messageStart: number;
  /** The ident is `kubelet`. */
  kubeletIdent: boolean;
  /** The klog header's file (controller.go …) is `[fileStart, fileEnd)`. */
  fileStart: number;
  fileEnd: number;
  /** Where the message after `] ` starts. */
  bodyStart: number;
}

export function shortKlogLine(): ShortKlogLine {
  return { pid: 0, monthStart: 0, monthEnd: 0, messageStart: 0, kubeletIdent: false, month: 0, day: 0, hour: 0, minute: 0, second: 0, micros: 0, fileStart: 0, fileEnd: 0, bodyStart: 0 };
}

const SP = 32;
const COLON = 58;
const DOT = 46;
const LBRACKET = 91;
const RBRACKET = 93;

// Reads go through `at` so that nothing past the line's end is looked at (-1 there, which
// no class below holds).
const at = (b: Uint8Array, i: number, end: number): number => (i < end ? b[i]! : -1);

// Byte classes, one table lookup each.
const DIGIT = 1;
const LETTER = 2;
/** Bytes of a host, an ident or a file name: printable ASCII other than `:`, `[` and `]` (the regexes take more: such lines go the slow way). */
const NAME = 4;
const CLASSES = new Uint8Array(257); // index c + 1, so that -1 (past the end) is class 0
for (let c = 0; c < 256; c++) {
  let k = 0;
  if (c >= 48 && c <= 57) k |= DIGIT;
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) k |= LETTER;
  if (c > SP && c < 127 && c !== COLON && c !== LBRACKET && c !== RBRACKET) k |= NAME;
  CLASSES[c + 1] = k;
}
const digit = (c: number): boolean => (CLASSES[c + 1]! & DIGIT) !== 0;
const letter = (c: number): boolean => (CLASSES[c + 1]! & LETTER) !== 0;
const nameByte = (c: number): boolean => (CLASSES[c + 1]! & NAME) !== 0;

/** `dd:dd:dd` at `i`; returns the index after it, or -1. */
function clock(b: Uint8Array, i: number, end: number): number {
  if (i + 8 > end) return -1;
  if (!digit(b[i]!) || !digit(b[i + 1]!) || b[i + 2] !== COLON || !digit(b[i + 3]!) || !digit(b[i + 4]!) || b[i + 5] !== COLON || !digit(b[i + 6]!) || !digit(b[i + 7]!)) return -1;
  return i + 8;
}

/**
 * `Mon dd hh:mm:ss[.ffffff] [host ]ident[pid]: ` at `start` (syslog.ts's SHORT then IDENT, for
 * an ASCII-letter month word, printable ASCII names and a pid of at most 9 digits). Fills
 * `out.pid`, the month word and `out.messageStart`; false when the line is not of this shape or
 * is systemd's (pid 1, or ident `systemd`).
 */
export function readShortPrefix(b: Uint8Array, start: number, end: number, out: ShortKlogLine): boolean {
  let i = start;
  while (i - start < 13 && letter(at(b, i, end))) i++;
  const words = i - start;
  if (words < 1 || words > 12 || at(b, i, end) !== SP) return false;
  // syslog.ts tries the short-full form first when these two bytes say so.
  if (at(b, start + 3, end) === SP && at(b, start + 8, end) === 45) return false;
  out.monthStart = start;
  out.monthEnd = i;
  i++;
  if (at(b, i, end) === SP) i++;
  if (!digit(at(b, i, end))) return false;
  i++;
  if (digit(at(b, i, end))) i++;
  if (at(b, i, end) !== SP) return false;
  i = clock(b, i + 1, end);
  if (i < 0) return false;
  if (at(b, i, end) === DOT) {
    const f = ++i;
    while (i - f < 7 && digit(at(b, i, end))) i++;
    if (i === f || i - f > 6) return false;
  }
  if (at(b, i, end) !== SP) return false;
  i++;
  // [host ]ident
  const a = i;
  while (nameByte(at(b, i, end))) i++;
  if (i === a) return false;
  let identStart = a;
  let identEnd = i;
  if (at(b, i, end) === SP) {
    identStart = ++i;
    while (nameByte(at(b, i, end))) i++;
    if (i === identStart) return false;
    identEnd = i;
  }
  if (at(b, i, end) !== LBRACKET) return false;
  const p = ++i;
  let pid = 0;
  while (i - p < 10 && digit(at(b, i, end))) pid = pid * 10 + b[i++]! - 48;
  if (i === p || i - p > 9 || at(b, i, end) !== RBRACKET || at(b, i + 1, end) !== COLON) return false;
  i += 2;
  if (at(b, i, end) === SP) i++;
  if (pid === 1 || isSystemd(b, identStart, identEnd)) return false;
  out.pid = pid;
  out.messageStart = i;
  out.kubeletIdent = sameBytes(b, identStart, identEnd, KUBELET);
  return true;
}

const SYSTEMD = [115, 121, 115, 116, 101, 109, 100]; // "systemd"
const KUBELET = [107, 117, 98, 101, 108, 101, 116]; // "kubelet"

function sameBytes(b: Uint8Array, start: number, end: number, word: readonly number[]): boolean {
  if (end - start !== word.length) return false;
  for (let k = 0; k < word.length; k++) if (b[start + k] !== word[k]) return false;
  return true;
}

const isSystemd = (b: Uint8Array, start: number, end: number): boolean => sameBytes(b, start, end, SYSTEMD);

const severity = (c: number): boolean => c === 73 || c === 87 || c === 69 || c === 70; // I W E F

/**
 * klog's `Lmmdd hh:mm:ss.uuuuuu pid file:line] ` at `start` (klog.ts's HEADER with its month
 * and day checks, for a printable-ASCII file name and a pid of at most 15 digits). Fills the
 * header fields and `out.bodyStart`; false when there is none.
 */
export function readKlogHeader(b: Uint8Array, start: number, end: number, out: ShortKlogLine): boolean {
  let i = start;
  if (i + 28 > end || !severity(b[i]!)) return false;
  if (!digit(b[i + 1]!) || !digit(b[i + 2]!) || !digit(b[i + 3]!) || !digit(b[i + 4]!) || b[i + 5] !== SP) return false;
  const month = two(b, i + 1);
  const day = two(b, i + 3);
  const t = clock(b, i + 6, end);
  if (t < 0 || at(b, t, end) !== DOT) return false;
  i = t + 1;
  let micros = 0;
  for (let k = 0; k < 6; k++, i++) {
    const c = at(b, i, end);
    if (!digit(c)) return false;
    micros = micros * 10 + c - 48;
  }
  if (at(b, i, end) !== SP) return false;
  while (at(b, i, end) === SP) i++;
  const p = i;
  while (i - p < 16 && digit(at(b, i, end))) i++;
  if (i === p || i - p > 15 || at(b, i, end) !== SP) return false;
  const fileStart = ++i;
  while (nameByte(at(b, i, end))) i++;
  if (i === fileStart || at(b, i, end) !== COLON) return false;
  const fileEnd = i++;
  const l = i;
  while (digit(at(b, i, end))) i++;
  if (i === l || at(b, i, end) !== RBRACKET) return false;
  i++;
  if (at(b, i, end) === SP) i++;
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  out.month = month;
  out.day = day;
  out.hour = two(b, t - 8);
  out.minute = two(b, t - 5);
  out.second = two(b, t - 2);
  out.micros = micros;
  out.fileStart = fileStart;
  out.fileEnd = fileEnd;
  out.bodyStart = i;
  return true;
}

function two(b: Uint8Array, i: number): number {
  return (b[i]! - 48) * 10 + b[i + 1]! - 48;
}

const CONFIGSYNC = [...Buffer.from('configsync.go')];

/** catalog.ts's isSyncFile on the header's file bytes: `configsync.go`, or a path ending in `/configsync.go`. */
export function isSyncFileBytes(b: Uint8Array, start: number, end: number): boolean {
  const n = CONFIGSYNC.length;
  if (end - start < n || (end - start > n && b[end - n - 1] !== 47)) return false;
  for (let k = 0; k < n; k++) if (b[end - n + k] !== CONFIGSYNC[k]) return false;
  return true;
}
