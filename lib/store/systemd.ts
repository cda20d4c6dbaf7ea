// Just enough of systemd's unit-file and environment-file syntax to rebuild the kubelet's
// command line from kubelet.service, its drop-ins and the EnvironmentFile=s they name.

import { rootedList, rootedRead } from './rooted.js';

export interface UnitFiles {
  /** Files read, in the order systemd applies them. */
  files: string[];
  environment: Map<string, string>;
  environmentFiles: { path: string; optional: boolean }[];
  execStart: string | null;
  /** WorkingDirectory= (the last; `-` and `~` as systemd.exec(5) reads them): where relative paths of the command line resolve; null: `/`. */
  workingDirectory: string | null;
}

const UNIT_DIRS = ['/etc/systemd/system', '/run/systemd/system', '/usr/local/lib/systemd/system', '/lib/systemd/system', '/usr/lib/systemd/system'];
const UNIT = 'kubelet.service';

/** A `#` or `;` comment line (leading blanks allowed). */
/** A unit file's comment line (systemd.syntax(7)): `#` or `;` first, also inside a continuation. */
export const isComment = (line: string): boolean => /^\s*[#;]/.test(line);

/**
 * A unit file's logical lines: comments dropped, backslash continuations joined with a blank;
 * a comment line inside a continuation is skipped and the continuation goes on
 * (systemd.syntax(7)). An EnvironmentFile has its own parser (parseEnvFile).
 */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let continued = false;
  for (const raw of text.split(/\r?\n/)) {
    if (isComment(raw)) continue;
    const line = continued ? raw : raw.trimStart();
    if (line.endsWith('\\')) {
      cur += line.slice(0, -1) + ' ';
      continued = true;
      continue;
    }
    out.push((cur + line).trim());
    cur = '';
    continued = false;
  }
  if (continued) out.push(cur.trim());
  return out;
}

/**
 * The quote an environment file's `KEY="…` or `KEY='…` assignment is still inside at
 * the end of `text` (in double quotes a backslash escapes the next character; in single
 * quotes nothing does), or null. Quotes count only where the value starts with one, as systemd reads them.
 */
export function openQuote(text: string): '"' | "'" | null {
  const m = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*(["'])/.exec(text);
  if (!m) return null;
  const q = m[1] as '"' | "'";
  for (let i = m[0].length; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) return null;
  }
  return q;
}

/** Split on whitespace honouring "double" and 'single' quotes and backslash escapes. */
export function splitWords(s: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

function applyServiceLine(u: UnitFiles, key: string, value: string): void {
  if (key === 'ExecStart') u.execStart = value === '' ? null : value;
  else if (key === 'WorkingDirectory') u.workingDirectory = workingDirectoryOf(value);
  else if (key === 'Environment') {
    // An empty assignment resets the list (systemd.exec(5); found by review: a drop-in's bare
    // Environment= left the unit's flags in place).
    if (value === '') u.environment.clear();
    for (const w of splitWords(value)) {
      const eq = w.indexOf('=');
      if (eq > 0) u.environment.set(w.slice(0, eq), w.slice(eq + 1));
    }
  } else if (key === 'EnvironmentFile') {
    if (value === '') u.environmentFiles = [];
    else {
      const optional = value.startsWith('-');
      u.environmentFiles.push({ path: optional ? value.slice(1) : value, optional });
    }
  }
}

function applyUnitText(u: UnitFiles, text: string): void {
  let section = '';
  for (const line of logicalLines(text)) {
    const sec = /^\[(.+)\]$/.exec(line);
    if (sec) {
      section = sec[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (section !== 'Service' || eq < 0) continue;
    applyServiceLine(u, line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
}

/**
 * WorkingDirectory= as systemd.exec(5) reads it: a leading `-` (a missing directory is no
 * error) is dropped; `~` is the service user's home (the kubelet runs as root: /root); empty
 * resets to the default, `/`.
 */
function workingDirectoryOf(value: string): string | null {
  const v = value.startsWith('-') ? value.slice(1) : value;
  if (v === '') return null;
  if (v === '~') return '/root';
  return v.startsWith('/') ? v : null;
}

/** How node files are read: rootedRead, or an overlay of edited contents (migrate's check). */
export type NodeReader = (root: string, nodePath: string) => string | null;

/** Read kubelet.service and its drop-ins under `root`. Returns null when there is no unit. */
export function readKubeletUnit(root: string, read: NodeReader = rootedRead): UnitFiles | null {
  const u: UnitFiles = { files: [], environment: new Map(), environmentFiles: [], execStart: null, workingDirectory: null };
  for (const dir of UNIT_DIRS) {
    const text = read(root, `${dir}/${UNIT}`);
    if (text !== null) {
      u.files.push(`${dir}/${UNIT}`);
      applyUnitText(u, text);
      break;
    }
  }
  // Drop-ins: one per file name, the first directory wins; applied in name order.
  const dropins = new Map<string, string>();
  for (const dir of UNIT_DIRS) {
    for (const name of rootedList(root, `${dir}/${UNIT}.d`)) {
      if (name.endsWith('.conf') && !dropins.has(name)) dropins.set(name, `${dir}/${UNIT}.d/${name}`);
    }
  }
  for (const name of [...dropins.keys()].sort()) {
    const p = dropins.get(name)!;
    const text = read(root, p);
    if (text === null) continue;
    u.files.push(p);
    applyUnitText(u, text);
  }
  return u.files.length ? u : null;
}

const WHITESPACE = ' \t\n\r';
const NEWLINE = '\n\r';
const SHELL_NEED_ESCAPE = '"\\`$';
/** env_name_is_valid: what systemd accepts as a variable's name. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parse an EnvironmentFile in one pass, as systemd's env-file.c does (found by reviews, each a
 * way the line-based reading differed): `#` and `;` start a comment line (a backslash at its end
 * continues it); blanks around the name go; a value that starts with a quote is unquoted (in
 * double quotes a backslash escapes " \\ ` $ and a newline only, and stays before anything
 * else; the value may span lines, and a quote never closed runs to the end of the file); in an
 * unquoted value quotes are characters like any other, a backslash escapes the next one (a
 * newline too: the lines join with nothing between them), and trailing blanks go; a line
 * with no `=`, or a name that is not one (`export KEY`), is ignored. `$VAR` then splits a
 * value into words honouring its quotes (expandExecStart).
 */
export function parseEnvFile(text: string): Map<string, string> {
  const env = new Map<string, string>();
  type State = 'preKey' | 'key' | 'preValue' | 'value' | 'valueEscape' | 'single' | 'double' | 'doubleEscape' | 'comment' | 'commentEscape';
  let state: State = 'preKey';
  let key = '';
  let value = '';
  let trailing = -1; // where trailing blanks of an unquoted value start (-1: none)
  const push = () => {
    const name = key.replace(/[ \t\n\r]+$/, '');
    if (ENV_NAME.test(name)) env.set(name, trailing >= 0 ? value.slice(0, trailing) : value);
    key = '';
    value = '';
    trailing = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    switch (state) {
      case 'preKey':
        if (c === '#' || c === ';') state = 'comment';
        else if (!WHITESPACE.includes(c)) {
          state = 'key';
          key = c;
        }
        break;
      case 'key':
        if (NEWLINE.includes(c)) {
          state = 'preKey';
          key = '';
        } else if (c === '=') {
          state = 'preValue';
          trailing = -1;
        } else key += c;
        break;
      case 'preValue':
        if (NEWLINE.includes(c)) {
          state = 'preKey';
          push();
        } else if (c === "'") state = 'single';
        else if (c === '"') state = 'double';
        else if (c === '\\') state = 'valueEscape';
        else if (!WHITESPACE.includes(c)) {
          state = 'value';
          value += c;
        }
        break;
      case 'value':
        if (NEWLINE.includes(c)) {
          state = 'preKey';
          push();
        } else if (c === '\\') {
          state = 'valueEscape';
          trailing = -1;
        } else {
          if (!WHITESPACE.includes(c)) trailing = -1;
          else if (trailing < 0) trailing = value.length;
          value += c;
        }
        break;
      case 'valueEscape':
        state = 'value';
        if (!NEWLINE.includes(c)) value += c;
        break;
      case 'single':
        if (c === "'") state = 'preValue';
        else value += c;
        break;
      case 'double':
        if (c === '"') state = 'preValue';
        else if (c === '\\') state = 'doubleEscape';
        else value += c;
        break;
      case 'doubleEscape':
        state = 'double';
        if (SHELL_NEED_ESCAPE.includes(c)) value += c;
        else if (c !== '\n') value += `\\${c}`;
        break;
      case 'comment':
        if (c === '\\') state = 'commentEscape';
        else if (NEWLINE.includes(c)) state = 'preKey';
        break;
      case 'commentEscape':
        state = 'comment';
        break;
    }
  }
  if (state === 'preValue' || state === 'value' || state === 'valueEscape' || state === 'single' || state === 'double' || state === 'doubleEscape') push();
  return env;
}

/**
 * systemd's ExecStart expansion: `$VAR` as a whole word splits into words, `${VAR}`
 * substitutes in place as part of one word; the command's `-@+!` prefixes are dropped.
 */
export function expandExecStart(exec: string, env: Map<string, string>): string[] {
  const out: string[] = [];
  for (const word of splitWords(exec)) {
    const whole = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
    if (whole) {
      out.push(...splitWords(env.get(whole[1]!) ?? ''));
      continue;
    }
    out.push(word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, k: string) => env.get(k) ?? ''));
  }
  if (out.length) out[0] = out[0]!.replace(/^[-@+!:]+/, '');
  return out;
}
