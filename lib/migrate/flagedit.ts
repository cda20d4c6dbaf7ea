// Byte-preserving edits of the files that carry the kubelet's flags (systemd units and
// drop-ins, EnvironmentFiles such as kubeadm-flags.env, /etc/default/kubelet,
// /etc/sysconfig/kubelet, kubespray's kubelet.env): remove --dynamic-config-dir and its
// value, remove DynamicKubeletConfig from --feature-gates (the whole flag when it was the
// only gate), and optionally put --config=PATH where --dynamic-config-dir was. Everything
// else in the file stays byte for byte. Flags are found as "atoms": runs of characters
// between whitespace, quotes and `\` line continuations, so quoted values and continued
// lines are handled; what cannot be edited safely is reported with its line, and the
// caller re-parses the result to prove the kubelet's command line changed only as intended.

import { isComment, openQuote } from '../store/systemd.js';

export type FlagFileKind = 'unit' | 'env';

export interface FlagEdit {
  /** 1-based line of the change in the original file. */
  line: number;
  /** What was done, e.g. `removed --dynamic-config-dir=/var/lib/kubelet/dynamic-config`. */
  action: string;
}

export interface EditOutcome {
  text: string;
  edits: FlagEdit[];
  /** Places the tool cannot edit safely (unbalanced quotes around a flag, …). */
  problems: FlagEdit[];
  /** --config was put in the place of --dynamic-config-dir. */
  placedConfig: boolean;
}

export interface EditOptions {
  /** Put `--config=<this>` where a --dynamic-config-dir was (the kubelet had no --config). */
  addConfig?: string | null;
  /** Which --dynamic-config-dir of the file (0: the first) --config takes the place of. */
  configAt?: number;
  /** The gate to drop from --feature-gates. */
  gate?: string;
}

interface Atom {
  start: number;
  end: number;
  text: string;
}

interface Region {
  start: number;
  end: number;
  line: number;
  /** Comment lines inside the region, [start, end): a unit file skips them (systemd.syntax(7)). */
  skip: [number, number][];
  /** 0-based numbers of the lines after the first that an env file's quoted value spans. */
  spanned: number[];
}


/** Logical lines that can hold flags: [start, end) offsets of their values. */
function regions(text: string, kind: FlagFileKind): Region[] {
  const out: Region[] = [];
  let section = '';
  let pos = 0;
  let lineNo = 1;
  while (pos < text.length) {
    let end = pos;
    let lines = 0;
    const skip: [number, number][] = [];
    // A logical line: physical lines joined by a trailing backslash.
    for (;;) {
      const nl = text.indexOf('\n', end);
      const stop = nl < 0 ? text.length : nl;
      lines++;
      const physical = text.slice(end, stop).replace(/\r$/, '');
      const from = end;
      end = nl < 0 ? text.length : nl + 1;
      if (kind === 'unit' && isComment(physical)) {
        if (from === pos) break; // a comment of its own
        skip.push([from, end]);
        if (nl < 0) break;
        continue;
      }
      if (!physical.endsWith('\\') || nl < 0) break;
    }
    const logical = text.slice(pos, end);
    const trimmed = logical.trimStart();
    const lead = logical.length - trimmed.length;
    if (kind === 'unit') {
      const sec = /^\[([^\]]+)\]/.exec(trimmed);
      if (sec) section = sec[1]!;
      const m = /^(ExecStart|Environment)\s*=/.exec(trimmed);
      if (section === 'Service' && m) out.push({ start: pos + lead + m[0].length, end, line: lineNo, skip, spanned: [] });
    } else if (!trimmed.startsWith('#')) {
      const m = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/.exec(trimmed);
      if (m) {
        // A quoted value may span lines (systemd.exec(5)), as store/systemd.ts reads it: the
        // region runs to the line that closes the quote, when one does.
        const more = quotedSpan(text, end, trimmed);
        const spanned: number[] = [];
        for (let k = 1; k <= more.lines; k++) spanned.push(lineNo - 1 + lines - 1 + k);
        out.push({ start: pos + lead + m[0].length, end: more.end, line: lineNo, skip, spanned });
        lines += more.lines;
        end = more.end;
      }
    }
    pos = end;
    lineNo += lines;
  }
  return out;
}

/**
 * The physical lines from `from` on that an env assignment (`assignment`, its text so far)
 * spans while its quote is open, up to the one that closes it; none when no line closes it
 * (then the assignment is one line, and its open quote is reported).
 */
function quotedSpan(text: string, from: number, assignment: string): { end: number; lines: number } {
  const q = openQuote(assignment.replace(/\r?\n$/, ''));
  if (!q) return { end: from, lines: 0 };
  // One forward scan for the closing quote (found by review: re-reading the value at each line
  // was quadratic on a quote left open): in double quotes a backslash escapes the next character.
  let i = from;
  for (; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) break;
  }
  if (i >= text.length) return { end: from, lines: 0 };
  const nl = text.indexOf('\n', i);
  const end = nl < 0 ? text.length : nl + 1;
  let lines = 0;
  for (let k = text.indexOf('\n', from); k >= 0 && k < end; k = text.indexOf('\n', k + 1)) lines++;
  return { end, lines: lines + (nl < 0 ? 1 : 0) };
}

/** Atoms of one region, and whether a quote is left open at its end. */
function atomsOf(text: string, r: Region): { atoms: Atom[]; openQuote: boolean } {
  const atoms: Atom[] = [];
  let quote: string | null = null;
  let i = r.start;
  let cur = -1;
  const close = (at: number) => {
    if (cur >= 0) atoms.push({ start: cur, end: at, text: text.slice(cur, at) });
    cur = -1;
  };
  while (i < r.end) {
    const skipped = r.skip.find(([from]) => from === i);
    if (skipped) {
      close(i);
      i = skipped[1];
      continue;
    }
    const c = text[i]!;
    if (c === '\\' && (text[i + 1] === '\n' || (text[i + 1] === '\r' && text[i + 2] === '\n'))) {
      close(i);
      i += text[i + 1] === '\n' ? 2 : 3;
      continue;
    }
    if (c === '"' || c === "'") {
      close(i);
      if (quote === null) quote = c;
      else if (quote === c) quote = null;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      close(i);
      i++;
      continue;
    }
    if (cur < 0) cur = i;
    i++;
  }
  close(r.end);
  return { atoms, openQuote: quote !== null };
}

/** A `KEY=` prefix inside an atom (Environment="KEY=--flag …"): the flag starts after it. */
function flagStart(a: Atom): Atom {
  const m = /^[A-Za-z_][A-Za-z0-9_]*=(?=-)/.exec(a.text);
  return m ? { start: a.start + m[0].length, end: a.end, text: a.text.slice(m[0].length) } : a;
}

const DIR_FLAG = /^--dynamic[-_]config[-_]dir$/;
const DIR_FLAG_EQ = /^--dynamic[-_]config[-_]dir=/;
const GATES_FLAG = /^--feature[-_]gates$/;
const GATES_FLAG_EQ = /^--feature[-_]gates=/;

interface Splice {
  start: number;
  end: number;
  with: string;
  line: number;
  action: string;
}

function lineAt(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset; i++) if (text[i] === '\n') n++;
  return n;
}

/** Gates without `gate`; null when nothing is left. */
function dropGate(value: string, gate: string): string | null {
  const kept = value.split(',').filter((kv) => kv.split('=')[0]!.trim() !== gate);
  return kept.length ? kept.join(',') : null;
}

function findSplices(text: string, found: readonly Region[], opts: EditOptions, problems: FlagEdit[]): Splice[] {
  const gate = opts.gate ?? 'DynamicKubeletConfig';
  const splices: Splice[] = [];
  let addConfig = opts.addConfig ?? null;
  let dirsBefore = opts.configAt ?? 0;
  for (const r of found) {
    const { atoms: raw, openQuote } = atomsOf(text, r);
    const atoms = raw.map(flagStart);
    const relevant = atoms.some((a) => DIR_FLAG.test(a.text) || DIR_FLAG_EQ.test(a.text) || ((GATES_FLAG.test(a.text) || GATES_FLAG_EQ.test(a.text)) && text.slice(r.start, r.end).includes(gate)));
    if (!relevant) continue;
    if (openQuote) {
      problems.push({ line: r.line, action: 'a quote opened on this line is never closed: cannot tell where the flags end' });
      continue;
    }
    for (let i = 0; i < atoms.length; i++) {
      const a = atoms[i]!;
      const line = lineAt(text, a.start);
      const flag = DIR_FLAG.test(a.text) || DIR_FLAG_EQ.test(a.text) || GATES_FLAG.test(a.text) || GATES_FLAG_EQ.test(a.text);
      // The value of `--flag value` is the next atom.
      const spacedValue = a.text.includes('=') ? undefined : atoms[i + 1];
      if (flag && (quotedValue(text, a) || (spacedValue && quotedValue(text, spacedValue)))) {
        // `--flag="value"` or `--flag "a, b"`: one argument across atoms; not spliced (found by review: a broken edit was shown).
        problems.push({ line, action: `the value of ${a.text.replace(/=.*$/s, '')} is quoted: kubelet-ckpt edits only unquoted flag values` });
        if (spacedValue) i++;
        continue;
      }
      if (DIR_FLAG.test(a.text) || DIR_FLAG_EQ.test(a.text)) {
        const spaced = DIR_FLAG.test(a.text);
        const v = spaced ? atoms[i + 1] : null;
        if (spaced && !v) {
          problems.push({ line, action: `${a.text} has no value on this line` });
          continue;
        }
        const end = v ? v.end : a.end;
        const shown = text.slice(a.start, end).replace(/\\\r?\n\s*/g, ' ');
        if (addConfig && dirsBefore-- === 0) {
          splices.push({ start: a.start, end, with: `--config=${addConfig}`, line, action: `replaced ${shown} with --config=${addConfig}` });
          addConfig = null;
        } else splices.push({ start: a.start, end, with: '', line, action: `removed ${shown}` });
        if (v) i++;
        continue;
      }
      const spaced = GATES_FLAG.test(a.text);
      if (!spaced && !GATES_FLAG_EQ.test(a.text)) continue;
      const v = spaced ? atoms[i + 1] : { start: a.start + a.text.indexOf('=') + 1, end: a.end, text: a.text.slice(a.text.indexOf('=') + 1) };
      if (!v) continue;
      if (!v.text.split(',').some((kv) => kv.split('=')[0]!.trim() === gate)) continue;
      const kept = dropGate(v.text, gate);
      const shown = text.slice(a.start, v.end).replace(/\\\r?\n\s*/g, ' ');
      if (kept === null) splices.push({ start: a.start, end: v.end, with: '', line, action: `removed ${shown}` });
      else splices.push({ start: v.start, end: v.end, with: kept, line, action: `removed ${gate} from ${shown}` });
      if (spaced) i++;
    }
  }
  return splices;
}

const isBlank = (c: string | undefined): boolean => c === undefined || /\s/.test(c);
const isQuote = (c: string | undefined): boolean => c === '"' || c === "'";

/**
 * A flag's value that a quote makes part of one argument with more than this atom: the atom
 * ends in `=` with a quote right after it (`--flag="v"`), or a quote touches the value and
 * is not just its own pair of quotes (`"a, b"` splits in two atoms). Own quotes around a whole
 * word (`"--flag=v"`, `--flag "v"`) are not this: those edits are handled.
 */
function quotedValue(text: string, a: Atom): boolean {
  if (a.text.endsWith('=') && isQuote(text[a.end])) return true;
  const before = text[a.start - 1];
  const after = text[a.end];
  if (!isQuote(before) && !isQuote(after)) return false;
  const ownPair = isQuote(before) && after === before && isBlank(text[a.start - 2]) && (isBlank(text[a.end + 1]) || text[a.end + 1] === '\\');
  return !ownPair && (isQuote(after) ? !isBlank(text[a.end + 1]) && text[a.end + 1] !== '\\' : !isBlank(text[a.start - 2]) && text[a.start - 2] !== '=');
}

/**
 * In a unit, [start, end) with the quotes around it when it is a word quoted on its own
 * (`"--dynamic-config-dir=/x"`): removed without them it would leave an empty "" argument.
 */
function withOwnQuotes(text: string, start: number, end: number, kind: FlagFileKind): { start: number; end: number } {
  const q = text[start - 1];
  const own = kind === 'unit' && (q === '"' || q === "'") && text[end] === q && isBlank(text[start - 2]) && (isBlank(text[end + 1]) || text[end + 1] === '\\');
  return own ? { start: start - 1, end: end + 1 } : { start, end };
}

/** Remove [start, end) with one side's blanks, so `a --x b` becomes `a b`, not `a  b`. */
function removal(text: string, s: Splice, kind: FlagFileKind): { start: number; end: number } {
  const word = withOwnQuotes(text, s.start, s.end, kind);
  let start = word.start;
  let end = word.end;
  while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start--;
  if (start === word.start || text[start - 1] === '"' || text[start - 1] === "'" || text[start - 1] === '=' || text[start - 1] === '\n') {
    start = word.start;
    while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
  }
  return { start, end };
}

/**
 * Lines a removal emptied: a line left holding only a `\` continuation goes; a last line of a
 * continued chain left empty goes, and the `\` before it too (else the next line would join).
 * In a unit file the comment lines between them are passed over, as systemd passes them.
 */
function tidyLines(before: string[], after: string[], kind: FlagFileKind, spanned: ReadonlySet<number>): string[] {
  const out: string[] = [];
  for (let i = 0; i < after.length; i++) {
    const line = after[i]!;
    const emptied = line.trim() !== before[i]!.trim() && /^\s*\\?\s*\r?$/.test(line);
    if (!emptied) {
      out.push(line);
      continue;
    }
    // A line inside a quoted value that spans lines: its newline is only a blank between words.
    if (/\\\s*\r?$/.test(line) || spanned.has(i)) continue;
    let j = out.length - 1;
    while (kind === 'unit' && j >= 0 && isComment(out[j]!)) j--;
    if (j >= 0 && /\\\r?$/.test(out[j]!)) {
      out[j] = out[j]!.replace(/[ \t]*\\(\r?)$/, '$1');
      continue;
    }
    out.push(line);
  }
  return out;
}

/** Edit one file's text. Never throws; problems are returned for the caller to refuse. */
export function editFlagText(text: string, kind: FlagFileKind, opts: EditOptions = {}): EditOutcome {
  const problems: FlagEdit[] = [];
  const found = regions(text, kind);
  const splices = findSplices(text, found, opts, problems);
  if (!splices.length) return { text, edits: [], problems, placedConfig: false };
  let out = text;
  // From the end, so earlier offsets stay valid. Lines are kept 1:1 until tidyLines.
  for (const s of [...splices].sort((a, b) => b.start - a.start)) {
    const { start, end } = s.with === '' ? removal(out, s, kind) : { start: s.start, end: s.end };
    out = out.slice(0, start) + s.with + out.slice(end);
  }
  const beforeLines = text.split('\n');
  const afterLines = out.split('\n');
  // Removals never remove a newline, so the two line lists stay aligned.
  const tidy = beforeLines.length === afterLines.length ? tidyLines(beforeLines, afterLines, kind, new Set(found.flatMap((r) => r.spanned))).join('\n') : out;
  return {
    text: tidy,
    edits: splices.map((s) => ({ line: s.line, action: s.action })).sort((a, b) => a.line - b.line),
    problems,
    placedConfig: splices.some((s) => s.with.startsWith('--config=')),
  };
}
