// A small reader for the tar archives Sonobuoy hands back (`sonobuoy retrieve`, gzip'd
// ustar with GNU long names or pax paths): the regular files, nothing else. Entries are
// views into the archive buffer, never written anywhere.

export interface TarEntry {
  name: string;
  data: Buffer;
}

const BLOCK = 512;

function field(b: Buffer, off: number, len: number): string {
  const end = b.indexOf(0, off);
  return b.toString('utf8', off, end === -1 || end > off + len ? off + len : end);
}

function octal(b: Buffer, off: number, len: number): number {
  // GNU base-256 for sizes past 8 GiB: not a report archive; treat as corrupt.
  if (b[off]! & 0x80) throw new Error('tar: base-256 size field');
  const s = field(b, off, len).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new Error(`tar: bad octal field ${JSON.stringify(s)}`);
  return parseInt(s, 8);
}

function isZeroBlock(b: Buffer, off: number): boolean {
  for (let i = off; i < off + BLOCK; i++) if (b[i] !== 0) return false;
  return true;
}

/** The `path` record of a pax extended header, if any. */
function paxPath(data: Buffer): string | null {
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp === -1) break;
    const len = Number(data.toString('ascii', i, sp));
    if (!Number.isInteger(len) || len <= 0) break;
    const rec = data.toString('utf8', sp + 1, i + len - 1);
    if (rec.startsWith('path=')) return rec.slice(5);
    i += len;
  }
  return null;
}

/** True when the buffer starts like a tar archive (ustar magic, or a valid v7 header checksum). */
export function looksLikeTar(b: Buffer): boolean {
  if (b.length < BLOCK) return false;
  if (b.toString('ascii', 257, 262) === 'ustar') return true;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : b[i]!;
  try {
    return octal(b, 148, 8) === sum;
  } catch {
    return false;
  }
}

/** Regular files in the archive, in order. Throws on a damaged header; a short final entry ends the list with an error. */
export function readTar(b: Buffer): { entries: TarEntry[]; error: string | null } {
  const entries: TarEntry[] = [];
  let off = 0;
  let longName: string | null = null;
  while (off + BLOCK <= b.length) {
    if (isZeroBlock(b, off)) break;
    let size: number;
    try {
      size = octal(b, off + 124, 12);
    } catch (err) {
      return { entries, error: (err as Error).message };
    }
    const type = String.fromCharCode(b[off + 156] || 0x30);
    const prefix = b.toString('ascii', off + 257, off + 262) === 'ustar' ? field(b, off + 345, 155) : '';
    let name = field(b, off + 0, 100);
    if (prefix) name = `${prefix}/${name}`;
    const start = off + BLOCK;
    if (start + size > b.length) return { entries, error: `tar: ${name} is cut short (${b.length - start} of ${size} bytes)` };
    const data = b.subarray(start, start + size);
    off = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (type === 'g') continue;
    if (longName !== null) name = longName;
    longName = null;
    if (type === '0' || type === '\0' || type === '7') entries.push({ name, data });
  }
  return { entries, error: null };
}
