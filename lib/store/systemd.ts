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
 * Logical lines: comments dropped, backslash continuations joined. In a unit file a comment
 * line inside a continuation is skipped and the continuation goes on (systemd.syntax(7)):
 * `unit`. An EnvironmentFile has its own parser, where such a line is part of the value.
 */
function logicalLines(text: string, unit = false): string[] {
  const out: string[] = [];
  let cur = '';
  let continued = false;
  const lines = text.split(/\r?\n/);
  /** Index of the line that closes the quote the current one leaves open (-1: none). */
  let closesAt = -1;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if ((!continued || unit) && isComment(raw)) continue;
    const line = continued ? raw : raw.trimStart();
    // An environment file's quoted value may span lines, newlines kept (systemd.exec(5); found
    // by review: the flags on a KUBELET_EXTRA_ARGS="…" value's later lines were never seen).
    // A quote that no later line closes is read line by line (the flag editor then says so).
    if (!unit && i < closesAt) {
      cur += `${line}\n`;
      continue;
    }
    if (!unit && closesAt < i && openQuote(cur + line)) {
      closesAt = closingLine(lines, i, cur + line);
      if (closesAt > i) {
        cur += `${line}\n`;
        continued = true;
        continue;
      }
    }
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
 * Whether an environment file's `KEY="…` or `KEY='…` assignment is still inside its quotes at
 * the end of `text` (in double quotes a backslash escapes the next character; in single
 * quotes nothing does). Quotes count only where the value starts with one, as systemd reads them.
 */
export function openQuote(text: string): boolean {
  const m = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*(["'])/.exec(text);
  if (!m) return false;
  const q = m[1]!;
  for (let i = m[0].length; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) return false;
  }
  return true;
}

/** The first line after `i` at which `text` (through line i) and the lines after it close its quote; -1 when none does. */
function closingLine(lines: readonly string[], i: number, text: string): number {
  let acc = text;
  for (let j = i + 1; j < lines.length; j++) {
    acc += `\n${lines[j]}`;
    if (!openQuote(acc)) return j;
  }
  return -1;
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
  for (const line of logicalLines(text, true)) {
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

/** Parse an EnvironmentFile: KEY=VALUE lines, each value as systemd reads it (envValue), comments ignored. */
export function parseEnvFile(text: string): Map<string, string> {
  const env = new Map<string, string>();
  for (const line of logicalLines(text)) {
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/s.exec(line);
    if (!m) continue;
    env.set(m[1]!, envValue(m[2]!));
  }
  return env;
}

const SHELL_NEED_ESCAPE = '"\\`$';

/**
 * An EnvironmentFile value as systemd's parser leaves it (env-file.c): a value that starts with
 * a quote is unquoted (in double quotes a backslash escapes " \\ ` $ only, and is kept before
 * anything else); in an unquoted value quotes are characters like any other, a backslash escapes
 * the next one, and trailing blanks go. `$VAR` then splits the value into words honouring its
 * quotes (expandExecStart). Found by review: `--eviction-hard="a<1, b<2"` inside an unquoted
 * value was split in two arguments, and the kubelet judged unable to start.
 */
export function envValue(raw: string): string {
  let out = '';
  let state: 'pre' | 'value' | 'single' | 'double' = 'pre';
  let trailing = 0; // blanks at the end of an unquoted stretch, dropped if nothing follows
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (state === 'pre') {
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') continue;
      if (c === "'") state = 'single';
      else if (c === '"') state = 'double';
      else {
        state = 'value';
        i--;
      }
      continue;
    }
    if (state === 'single') {
      if (c === "'") state = 'pre';
      else out += c;
      continue;
    }
    if (state === 'double') {
      if (c === '"') state = 'pre';
      else if (c === '\\' && i + 1 < raw.length) {
        const n = raw[++i]!;
        if (n === '\n') continue;
        out += SHELL_NEED_ESCAPE.includes(n) ? n : `\\${n}`;
      } else out += c;
      continue;
    }
    // Unquoted.
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      if (n !== '\n') out += n;
      trailing = 0;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      out += c;
      trailing++;
    } else {
      out += c;
      trailing = 0;
    }
  }
  return state === 'value' && trailing ? out.slice(0, out.length - trailing) : out;
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
