// Terminal descriptions for blessed. Blessed reads compiled terminfo files itself, but it
// (a) understands only the legacy format (magic 0432), not ncurses 6.1's 32-bit numbers
// (magic 01036) that current distributions ship for xterm-256color and tmux-256color, and
// (b) falls back to files in its own package folder, which a single-file build does not
// have. So the TUI hands blessed the bytes: the system's entry for $TERM (converted to the
// legacy format when needed), else an entry embedded in the program, else xterm.

import fs from 'node:fs';
import path from 'node:path';
import { EMBEDDED } from './terminfo.data.js';

const LEGACY = 0o432;
const EXTENDED_NUMBERS = 0o1036;

const u16 = (b: Buffer, at: number) => b.readUInt16LE(at);

/**
 * A compiled entry in the legacy format blessed parses, or null when `data` is not a
 * terminfo entry. 32-bit numbers become 16-bit ones (clamped to 32767, as ncurses does when
 * it writes the legacy format); the extended section is converted the same way, or dropped
 * when it cannot be.
 */
export function toLegacy(data: Buffer): Buffer | null {
  if (data.length < 12) return null;
  const magic = u16(data, 0);
  if (magic === LEGACY) return data;
  if (magic !== EXTENDED_NUMBERS) return null;
  const names = u16(data, 2);
  const bools = u16(data, 4);
  const nums = u16(data, 6);
  const strs = u16(data, 8);
  const table = u16(data, 10);
  let i = 12 + names + bools;
  if (i % 2) i++;
  const numStart = i;
  const after = numStart + nums * 4;
  const end = after + strs * 2 + table;
  if (end > data.length) return null;
  const head = Buffer.from(data.subarray(0, numStart));
  head.writeUInt16LE(LEGACY, 0);
  const numbers = Buffer.alloc(nums * 2);
  for (let k = 0; k < nums; k++) numbers.writeInt16LE(clamp16(data.readInt32LE(numStart + k * 4)), k * 2);
  const base = Buffer.concat([head, numbers, data.subarray(after, end)]);
  let ext = end;
  if (ext % 2) ext++;
  if (ext >= data.length) return base;
  const converted = extendedToLegacy(data.subarray(ext));
  if (!converted) return base;
  return Buffer.concat([base, base.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0), converted]);
}

function clamp16(n: number): number {
  if (n < 0) return n === -2 ? -2 : -1;
  return Math.min(n, 0x7fff);
}

/** The extended section (user-defined capabilities) with 32-bit numbers → 16-bit. */
function extendedToLegacy(x: Buffer): Buffer | null {
  if (x.length < 10) return null;
  const bools = u16(x, 0);
  const nums = u16(x, 2);
  let i = 10 + bools;
  if (i % 2) i++;
  const numStart = i;
  const rest = numStart + nums * 4;
  if (rest > x.length) return null;
  const numbers = Buffer.alloc(nums * 2);
  for (let k = 0; k < nums; k++) numbers.writeInt16LE(clamp16(x.readInt32LE(numStart + k * 4)), k * 2);
  return Buffer.concat([x.subarray(0, numStart), numbers, x.subarray(rest)]);
}

/** Where ncurses looks, in its order ($TERMINFO, ~/.terminfo, $TERMINFO_DIRS, the system). */
export function searchDirs(env: Record<string, string | undefined>): string[] {
  const dirs: string[] = [];
  if (env.TERMINFO) dirs.push(env.TERMINFO);
  if (env.HOME) dirs.push(path.join(env.HOME, '.terminfo'));
  for (const d of (env.TERMINFO_DIRS ?? '').split(':')) if (d) dirs.push(d);
  dirs.push('/etc/terminfo', '/lib/terminfo', '/usr/share/terminfo', '/usr/lib/terminfo', '/usr/share/lib/terminfo', '/usr/local/share/terminfo');
  return dirs;
}

function readSmall(file: string): Buffer | null {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > 64 * 1024) return null;
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

export interface TermEntry {
  /** The terminal name blessed should use (its feature checks look at the name). */
  name: string;
  data: Buffer;
  /** Where it came from: a file path, or `embedded:<name>`. */
  from: string;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

function fromSystem(name: string, env: Record<string, string | undefined>): TermEntry | null {
  if (!SAFE_NAME.test(name)) return null;
  const hex = name.charCodeAt(0).toString(16).padStart(2, '0');
  for (const dir of searchDirs(env)) {
    for (const sub of [name[0]!, hex]) {
      const file = path.join(dir, sub, name);
      const raw = readSmall(file);
      const data = raw && toLegacy(raw);
      if (data) return { name, data, from: file };
    }
  }
  return null;
}

function fromEmbedded(name: string): TermEntry | null {
  const b64 = EMBEDDED[name];
  const data = b64 ? toLegacy(Buffer.from(b64, 'base64')) : null;
  return data ? { name, data, from: `embedded:${name}` } : null;
}

/** The embedded entry closest to a terminal we know nothing of. */
function family(name: string): string {
  const base = name.replace(/-(256color|color|direct|truecolor)$/, '');
  const colour = /256color|direct|truecolor/.test(name);
  if (base.startsWith('tmux')) return colour ? 'tmux-256color' : 'tmux';
  if (base.startsWith('screen')) return colour ? 'screen-256color' : 'screen';
  if (base.startsWith('linux')) return 'linux';
  if (base.startsWith('vt')) return 'vt100';
  return colour ? 'xterm-256color' : 'xterm';
}

/** The entry for TERM: the system's, else an embedded one by name, else its family's, else xterm. */
/** cursor_address (`cup`): the string capability at index 10 in terminfo's fixed order. */
const CUP = 10;

/**
 * Whether a compiled entry (legacy format, as resolveTerm gives it) can put the cursor at a
 * row and column: without `cup` (TERM=dumb) blessed draws every row into the last one.
 */
export function canAddressCursor(data: Buffer): boolean {
  if (data.length < 12 || u16(data, 0) !== LEGACY) return false;
  let at = 12 + u16(data, 2) + u16(data, 4);
  if (at % 2) at++;
  at += u16(data, 6) * 2;
  if (u16(data, 8) <= CUP || at + CUP * 2 + 2 > data.length) return false;
  return data.readInt16LE(at + CUP * 2) >= 0;
}

export function resolveTerm(term: string | undefined, env: Record<string, string | undefined>): TermEntry {
  const name = path.basename(term || 'xterm');
  return fromSystem(name, env) ?? fromEmbedded(name) ?? fromEmbedded(family(name)) ?? fromEmbedded('xterm')!;
}

export const EMBEDDED_NAMES = Object.keys(EMBEDDED);
