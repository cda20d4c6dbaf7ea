// Splits text holding one or more JSON documents — one report, NDJSON, or pretty-printed
// reports written one after the other (`kubectl logs` of many pods) — into the documents,
// and says where a document is cut short or not JSON at all.
//
// A damaged document costs only itself, so a pod killed mid-write does not take the reports
// printed after it down with it: reading resumes at the next document, which starts either on
// a line of its own (`{` or `[` in the first column: every report, pretty or NDJSON) or glued
// to the cut text (a log line without its newline), where no JSON value can start.

export type Piece = { ok: true; value: unknown; line: number } | { ok: false; error: string; line: number };

const BOM = 0xfeff;
const NL = 0x0a;
/** Between documents a byte-order mark is whitespace: a file, or an NDJSON line, may start with one. */
const WS = new Set([0x20, 0x09, NL, 0x0d, BOM]);

const TRUNCATED = 'truncated JSON (the text ends inside a document)';
const CUT_SHORT = 'truncated JSON (the next document starts before this one ends)';

const isOpen = (c: number) => c === 0x7b || c === 0x5b;

/** Whether a line starting at `k` starts a document: `{` or `[` in its first column, after a BOM if any. */
function startsDoc(s: string, k: number): boolean {
  const c = s.charCodeAt(k);
  return isOpen(c) || (c === BOM && isOpen(s.charCodeAt(k + 1)));
}

/** The next line at or after `from` (a line start) that starts a document, or the end of the text. */
function nextDocLine(s: string, from: number): number {
  for (let k = from; k < s.length; k = lineAfter(s, k)) if (startsDoc(s, k)) return k;
  return s.length;
}

interface Scan {
  /** The end (exclusive) of the value when its brackets close, else -1 (cut short). */
  end: number;
  /** Where reading goes on when the value turns out damaged. */
  resume: number;
  /** The value ran into a line that starts a document (so a parse failure means cut short). */
  crossed: boolean;
  /** How far the scan read. */
  at: number;
}

/**
 * Finds where the value starting at `i` ends by counting brackets outside strings. It is cut
 * short when the text ends, when a string runs into a newline (JSON strings hold none), or when
 * a line starts with `{`/`[` where this value cannot go on. After `,` `[` or `:` such a line
 * may still be this value's (JSON indented by 0 spaces); reading on is then a guess, and
 * `budget.left` bounds what wrong guesses may cost, so damage cannot make the split quadratic.
 */
function scan(s: string, i: number, budget: { left: number }): Scan {
  let depth = 0;
  let inStr = false;
  let last = 0; // the last character outside strings and whitespace
  let guess = -1; // the first document line this value was read on through
  const fail = (at: number, resume: number): Scan => {
    if (guess === -1) return { end: -1, resume, crossed: false, at };
    budget.left -= at - guess;
    return { end: -1, resume: guess, crossed: true, at };
  };
  for (let k = i; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (inStr) {
      if (c === NL) return fail(k, nextDocLine(s, k + 1));
      if (c === 0x5c && s.charCodeAt(k + 1) !== NL) k++;
      else if (c === 0x22) inStr = false;
      continue;
    }
    if (c === NL) {
      if (depth > 0 && startsDoc(s, k + 1)) {
        const goesOn = (last === 0x2c || last === 0x5b || last === 0x3a) && budget.left > 0;
        if (!goesOn) return fail(k, k + 1);
        if (guess === -1) guess = k + 1;
      }
      continue;
    }
    if (WS.has(c)) continue;
    last = c;
    if (c === 0x22) inStr = true;
    else if (isOpen(c)) depth++;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) {
      if (guess !== -1) budget.left -= k - guess;
      return { end: k + 1, resume: guess === -1 ? k + 1 : guess, crossed: guess !== -1, at: k + 1 };
    }
  }
  return fail(s.length, s.length);
}

/** Whether the `{` or `[` at `k` comes where no JSON value can: not after `:` `,` `[` or at the start. */
function misplaced(s: string, k: number): boolean {
  let p = k - 1;
  while (p >= 0 && WS.has(s.charCodeAt(p))) p--;
  if (p < 0) return false;
  const c = s.charCodeAt(p);
  return c !== 0x3a && c !== 0x2c && c !== 0x5b;
}

function onlyWs(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!WS.has(s.charCodeAt(k))) return false;
  return true;
}

type Parsed = { value: unknown; end: number } | null;

function parseAt(s: string, i: number, budget: { left: number }): { scan: Scan; parsed: Parsed; error: string } {
  const r = scan(s, i, budget);
  if (r.end === -1) return { scan: r, parsed: null, error: '' };
  try {
    return { scan: r, parsed: { value: JSON.parse(s.slice(i, r.end)), end: r.end }, error: '' };
  } catch (err) {
    return { scan: r, parsed: null, error: (err as Error).message };
  }
}

/**
 * A document glued into the damaged text (from, to) — a log line that lost its newline: a
 * value that parses, starting where no value can, or running up to `to` (where the next
 * document line starts). Every try is paid from the budget.
 */
function gluedDoc(s: string, from: number, to: number, budget: { left: number }): { at: number; value: unknown; end: number } | null {
  for (let k = from; k < to && budget.left > 0; k++) {
    if (!isOpen(s.charCodeAt(k))) continue;
    const p = parseAt(s, k, budget);
    budget.left -= p.scan.at - k;
    if (p.parsed && p.parsed.end <= to && (misplaced(s, k) || onlyWs(s, p.parsed.end, to))) return { at: k, ...p.parsed };
  }
  return null;
}

/** The start of the line after the one holding `k` (the end of the text when there is none). */
function lineAfter(s: string, k: number): number {
  const nl = s.indexOf('\n', k);
  return nl === -1 ? s.length : nl + 1;
}

/** How far a document glued to a damaged one may lie: one that closes yet does not parse may have swallowed its start. */
function damagedUpTo(s: string, r: Scan): number {
  return r.end !== -1 && !r.crossed ? nextDocLine(s, lineAfter(s, r.end)) : r.resume;
}

function damageOf(r: Scan, parseError: string, length: number): string {
  if (r.end !== -1 && !r.crossed) return `corrupt JSON: ${parseError}`;
  return r.crossed || r.resume < length ? CUT_SHORT : TRUNCATED;
}

function lineAt(s: string, i: number, from: number, line: number): number {
  for (let k = from; k < i; k++) if (s.charCodeAt(k) === NL) line++;
  return line;
}

/** The lines from `from` (a line start) that are not JSON either: how many, and where they end. */
function notJsonRun(s: string, from: number): { lines: number; end: number } {
  let lines = 0;
  let k = from;
  while (k < s.length) {
    let c = k;
    while (c < s.length && WS.has(s.charCodeAt(c)) && s.charCodeAt(c) !== NL) c++;
    if (c >= s.length || s.charCodeAt(c) === NL || isOpen(s.charCodeAt(c))) break;
    lines++;
    k = lineAfter(s, c);
  }
  return { lines, end: k };
}

function parseWhole(s: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(s) };
  } catch {
    return null; // several documents, or damage: scan
  }
}

/** Every document and every piece of damage, as found: a file of garbage lines holds millions. */
export function* documents(text: string): Generator<Piece> {
  const s = text.charCodeAt(0) === BOM ? text.slice(1) : text;
  // The common case, one document per file: one parse.
  const whole = parseWhole(s);
  if (whole) {
    yield { ok: true, value: whole.value, line: 1 };
    return;
  }
  // What guesses and searches after damage may read beyond one pass over the text.
  const budget = { left: 4 * s.length };
  let i = 0;
  let line = 1;
  let lineFrom = 0;
  const lineOf = (k: number) => {
    line = lineAt(s, k, lineFrom, line);
    lineFrom = k;
    return line;
  };
  while (i < s.length) {
    while (i < s.length && WS.has(s.charCodeAt(i))) i++;
    if (i >= s.length) break;
    const at = lineOf(i);
    if (!isOpen(s.charCodeAt(i))) {
      // Not a document (a log prefix, a shell message): skip it and the lines like it after it.
      const nl = s.indexOf('\n', i);
      const run = notJsonRun(s, nl === -1 ? s.length : nl + 1);
      const more = run.lines ? ` (and the ${run.lines} line${run.lines === 1 ? '' : 's'} after it)` : '';
      yield { ok: false, error: `not JSON: ${JSON.stringify(s.slice(i, Math.min(nl === -1 ? s.length : nl, i + 40)))}${more}`, line: at };
      i = run.end;
      continue;
    }
    const p = parseAt(s, i, budget);
    if (p.parsed) {
      yield { ok: true, value: p.parsed.value, line: at };
      i = p.parsed.end;
      continue;
    }
    const r = p.scan;
    const g = gluedDoc(s, i + 1, damagedUpTo(s, r), budget);
    yield { ok: false, error: g ? CUT_SHORT : damageOf(r, p.error, s.length), line: at };
    if (!g) {
      i = r.resume;
      continue;
    }
    yield { ok: true, value: g.value, line: lineOf(g.at) };
    i = g.end;
  }
}

export const splitJson = (text: string): Piece[] => [...documents(text)];
