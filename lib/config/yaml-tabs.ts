// libyaml's rules for tabs, which js-yaml does not keep. go-yaml v2's scanner (a port of
// libyaml) skips a tab between tokens only where no simple key may start: so in block context
// a tab at the start of a line (blank and comment lines too) and a tab right after a block
// entry `-` cannot start a token, and a tab in the blanks a plain scalar carries over a line
// break is refused where it sits left of the scalar's indentation. js-yaml accepts all three,
// so a payload the kubelet fails to load ("found character that cannot start any token")
// would be judged valid. This reads the plain block YAML kubelet configs are written in, line
// by line, as libyaml's scanner would; where a line holds anything else (flow collections,
// block scalars, quoted scalars over several lines, anchors, tags, aliases, directives,
// complex keys) it has no opinion and the caller keeps js-yaml's answer.

/** Why a line-start blank is refused, in libyaml's words. */
const CANNOT_START = 'found character that cannot start any token';
const VIOLATES_INDENT = 'found a tab character that violates indentation';

export interface TabError {
  /** 0-based line of the tab. */
  line: number;
  problem: string;
}

/** A scanner error's text with go-yaml's `line N: ` prefix (none on the first line, as go-yaml prints it); tabs', anchors', escapes'. */
export function scannerErrorText(e: TabError): string {
  return `yaml: ${e.line > 0 ? `line ${e.line + 1}: ` : ''}${e.problem}`;
}

/** After a line, what the scanner is in: between tokens, or in a plain scalar that may go on (its indentation). */
type State = { plain: false } | { plain: true; indent: number };

/**
 * The first tab libyaml refuses in `text` (the first document, LF line breaks), or null when
 * there is none or the text holds a construct this does not model.
 */
export function libyamlTabError(text: string): TabError | null {
  // A CR alone is a line break to libyaml, not to this reader.
  if (!text.includes('\t') || /\r(?!\n)/.test(text)) return null;
  const lines = text.split('\n');
  let state: State = { plain: false };
  /** libyaml's block indentation stack (parser.indent is its top; -1 before any collection). */
  const indents: number[] = [-1];
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.endsWith('\r') ? lines[n]!.slice(0, -1) : lines[n]!;
    let first = 0;
    while (first < line.length && (line[first] === ' ' || line[first] === '\t')) first++;
    const tab = line.slice(0, first).indexOf('\t');
    if (state.plain) {
      // The plain scalar's loop eats the break and these blanks: a tab left of its indentation is refused.
      if (tab >= 0 && tab < state.indent) return { line: n, problem: VIOLATES_INDENT };
      if (first === line.length) continue; // a blank line: the scalar may still go on
      if (first >= state.indent && line[first] !== '#') {
        // More of the same scalar, up to a comment.
        if (commentAt(line, first) >= 0) state = { plain: false };
        continue;
      }
      state = { plain: false };
      if (line[first] === '#') continue;
    } else {
      // Between tokens after a line break a simple key may start: only spaces are skipped.
      if (tab >= 0) return { line: n, problem: CANNOT_START };
      if (first === line.length || line[first] === '#') continue;
    }
    // A token at this column closes the collections indented further (unroll_indent).
    while (indents[indents.length - 1]! > first) indents.pop();
    const r = contentLine(line, first, indents);
    if (r === null) return null;
    if ('error' in r) return { line: n, problem: r.error };
    state = r.state;
  }
  return null;
}

/** Where a comment starts in `line` at or after `from` (a `#` after a blank), or -1. */
function commentAt(line: string, from: number): number {
  for (let i = Math.max(from, 1); i < line.length; i++) if (line[i] === '#' && (line[i - 1] === ' ' || line[i - 1] === '\t')) return i;
  return -1;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
/** A `:` (or `-`) that is an indicator: followed by a blank or the end of the line. */
const indicatorAt = (line: string, j: number) => j + 1 === line.length || isBlank(line[j + 1]);
/** Characters that start what this does not model: flow collections, block scalars, anchors, aliases, tags, directives, complex keys, reserved. */
const UNMODELLED = '[]{}|>&*!%?@`';
const BETWEEN_TOKENS: { state: State } = { state: { plain: false } };

/** A quoted scalar at `at` that closes on the line, with nothing but a comment after it: between tokens; else null. */
function quotedAlone(line: string, at: number): { state: State } | null {
  let j = quotedEnd(line, at);
  if (j < 0) return null; // a quoted scalar over several lines
  while (isBlank(line[j])) j++;
  return j === line.length || line[j] === '#' ? BETWEEN_TOKENS : null;
}

/**
 * One content line from its first non-blank: block entries, then `key: value`, `key:` or a
 * value. Null when it holds what this does not model.
 */
function contentLine(line: string, first: number, indents: number[]): { state: State } | { error: string } | null {
  let i = first;
  /** roll_indent: a block collection that starts at `col` (deeper than the current one). */
  const roll = (col: number) => {
    if (indents[indents.length - 1]! < col) indents.push(col);
  };
  const top = () => indents[indents.length - 1]!;
  // Block entries: `-` followed by a blank. After one, a simple key may start: a tab is no blank there.
  while (line[i] === '-' && indicatorAt(line, i)) {
    roll(i);
    i++;
    while (line[i] === ' ') i++;
    if (line[i] === '\t') return { error: CANNOT_START };
    if (i === line.length || line[i] === '#') return BETWEEN_TOKENS;
  }
  const c = line[i]!;
  if (UNMODELLED.includes(c) || (i === 0 && (line.startsWith('---') || line.startsWith('...')))) {
    // A document marker alone (or with a comment) is a token like any other.
    return i === 0 && /^(?:---|\.\.\.)[ \t]*(?:#.*)?$/.test(line) ? BETWEEN_TOKENS : null;
  }
  // A key, quoted or plain, ends at a `:` indicator.
  let colon = -1;
  if (c === '"' || c === "'") {
    let j = quotedEnd(line, i);
    if (j < 0) return null; // a quoted scalar over several lines
    while (isBlank(line[j])) j++;
    if (line[j] !== ':' || !indicatorAt(line, j)) return quotedAlone(line, i);
    colon = j;
  } else {
    const comment = commentAt(line, i);
    for (let j = i; j < (comment < 0 ? line.length : comment) && colon < 0; j++) if (line[j] === ':' && indicatorAt(line, j)) colon = j;
    // A plain value alone (a sequence item, a mapping value on its own line): it may go on
    // below, in lines indented past the collection it belongs to.
    if (colon < 0) return comment >= 0 ? BETWEEN_TOKENS : { state: { plain: true, indent: top() + 1 } };
  }
  // `key:` at column i opens (or continues) a mapping whose indentation is i. After a simple
  // key's `:`, tabs are blanks again.
  roll(i);
  let v = colon + 1;
  while (isBlank(line[v])) v++;
  if (v === line.length || line[v] === '#') return BETWEEN_TOKENS;
  const d = line[v]!;
  if (d === '"' || d === "'") return quotedAlone(line, v);
  if (UNMODELLED.includes(d) || (d === '-' && indicatorAt(line, v))) return null;
  return commentAt(line, v) >= 0 ? BETWEEN_TOKENS : { state: { plain: true, indent: top() + 1 } };
}

/** The index after the closing quote of the scalar opened at `at`, or -1 when it does not close on the line. */
function quotedEnd(line: string, at: number): number {
  const q = line[at];
  for (let j = at + 1; j < line.length; j++) {
    if (q === '"' && line[j] === '\\') j++;
    else if (line[j] === q) {
      if (q === "'" && line[j + 1] === "'") j++;
      else return j + 1;
    }
  }
  return -1;
}
