// klog's line header and its structured (InfoS/ErrorS) key/value layout, as the kubelet
// wrote them from 1.10 to 1.23 (reference/journal-lines.md §3).

export interface KlogHeader {
  severity: 'I' | 'W' | 'E' | 'F';
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micros: number;
  /** klog's "threadid", really os.Getpid() of the kubelet. */
  pid: number;
  /** The caller's file name (controller.go …), with a directory under -add_dir_header. */
  file: string;
  /** The message after `] `. */
  body: string;
}

// `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`; the pid is space-padded to 7 columns.
const HEADER = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) +(\d+) ([^ :\]]+):\d+\] ?/;

export function parseKlogHeader(line: string): KlogHeader | null {
  const m = HEADER.exec(line);
  if (!m) return null;
  const month = +m[2]!;
  const day = +m[3]!;
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  return {
    severity: m[1] as KlogHeader['severity'],
    month,
    day,
    hour: +m[4]!,
    minute: +m[5]!,
    second: +m[6]!,
    micros: +m[7]!,
    pid: +m[8]!,
    file: m[9]!,
    body: line.slice(m[0].length),
  };
}

/** Does the text start with a klog header? (continuation lines do not) */
export function looksLikeKlog(line: string): boolean {
  return parseKlogHeader(line) !== null;
}

export interface Structured {
  msg: string;
  /** Keys in order of appearance; a repeated key keeps its first value. */
  kv: Map<string, string>;
}

/**
 * Parse `"msg" key="quoted" key=unquoted …` (klog v2 `printS`). Strings and errors are
 * written with Go's %q; other values (types.UID included) with %+v, unquoted.
 */
export function parseStructured(body: string): Structured | null {
  if (body[0] !== '"') return null;
  const first = goUnquote(body, 0);
  if (!first) return null;
  const kv = new Map<string, string>();
  let i = first.end;
  while (i < body.length) {
    if (body[i] !== ' ') return { msg: first.value, kv }; // trailing junk: keep what was read
    const eq = body.indexOf('=', i + 1);
    if (eq < 0) break;
    const key = body.slice(i + 1, eq);
    if (!/^[A-Za-z_][\w.-]*$/.test(key)) break;
    let value: string;
    if (body[eq + 1] === '"') {
      const q = goUnquote(body, eq + 1);
      if (!q) {
        value = body.slice(eq + 1); // a truncated value still says something
        i = body.length;
      } else {
        value = q.value;
        i = q.end;
      }
    } else {
      // %+v values may hold spaces (structs); one ends where the next ` key=` begins.
      const rest = body.slice(eq + 1);
      const next = / [A-Za-z_][\w.-]*=/.exec(rest);
      value = next ? rest.slice(0, next.index) : rest;
      i = eq + 1 + value.length;
    }
    if (!kv.has(key)) kv.set(key, value);
  }
  return { msg: first.value, kv };
}

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"' };

/**
 * Decode the Go %q string that starts at `s[start]` (a `"`). Returns the value and the
 * index after the closing quote, or null when the string is not terminated.
 * `\xNN` and octal escapes are bytes: runs of them are decoded as UTF-8.
 */
export function goUnquote(s: string, start: number): { value: string; end: number } | null {
  let out = '';
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out += Buffer.from(bytes).toString('utf8');
    bytes = [];
  };
  let i = start + 1;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"') {
      flush();
      return { value: out, end: i + 1 };
    }
    if (c !== '\\') {
      flush();
      out += c;
      i++;
      continue;
    }
    const e = s[i + 1];
    if (e === undefined) return null;
    if (e in SIMPLE_ESCAPES) {
      flush();
      out += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 2, i + 4))) {
      bytes.push(parseInt(s.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (/^[0-7]{3}$/.test(s.slice(i + 1, i + 4))) {
      bytes.push(parseInt(s.slice(i + 1, i + 4), 8) & 0xff);
      i += 4;
    } else if ((e === 'u' || e === 'U') && /^[0-9a-fA-F]+$/.test(s.slice(i + 2, i + (e === 'u' ? 6 : 10)))) {
      const n = e === 'u' ? 4 : 8;
      const cp = parseInt(s.slice(i + 2, i + 2 + n), 16);
      flush();
      out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
      i += 2 + n;
    } else {
      // Not valid Go escaping: keep the text as it is.
      flush();
      out += c + e;
      i += 2;
    }
  }
  return null;
}
