// Where `report merge` gets its reports: files, directories (walked), `-` (stdin), and
// gzip'd tar archives as Sonobuoy returns them (nested archives too). Each document comes
// with a label naming where it was found, for warnings.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { EnvError, fsReason } from '../errors.js';
import { splitJson } from './jsonstream.js';
import { looksLikeTar, readTar } from './tar.js';

export interface FoundDoc {
  /** `reports/a.json`, `results.tar.gz:plugins/x/results/node/report.json`, `-:3` … */
  label: string;
  value: unknown;
}

export interface Gathered {
  docs: FoundDoc[];
  warnings: string[];
  /** Files and archive members read. */
  files: number;
}

/** Names read when walking a directory or an archive. */
const TEXT_EXT = /\.(json|ndjson|jsonl|log|txt)$/i;
const ARCHIVE_EXT = /\.(tar\.gz|tgz|tar)$/i;
/** Reports are a few KiB; an archive member past this is not one. */
const MEMBER_CAP = 64 * 1024 * 1024;
const GUNZIP_CAP = 1024 * 1024 * 1024;
const MAX_NESTING = 3;

class Gatherer {
  readonly out: Gathered = { docs: [], warnings: [], files: 0 };

  /** `explicit`: named on the command line, so a file without reports deserves a warning. */
  text(label: string, bytes: Buffer | string, explicit: boolean): void {
    this.out.files++;
    const s = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
    // Inside archives and walked trees, skip what cannot be a report without parsing it.
    if (!explicit && !s.includes('NodeReport')) return;
    const pieces = splitJson(s);
    const single = pieces.length === 1;
    let reports = 0;
    for (const p of pieces) {
      const at = single ? label : `${label}:${p.line}`;
      if (!p.ok) {
        this.out.warnings.push(`${at}: skipped: ${p.error}`);
        continue;
      }
      const kind = (p.value as { kind?: unknown } | null)?.kind;
      if (kind !== 'NodeReport') {
        if (explicit) this.out.warnings.push(`${at}: skipped: not a NodeReport (kind ${JSON.stringify(kind ?? null)})`);
        continue;
      }
      reports++;
      this.out.docs.push({ label: at, value: p.value });
    }
    if (explicit && reports === 0 && pieces.length === 0) this.out.warnings.push(`${label}: skipped: empty`);
  }

  archive(label: string, bytes: Buffer, depth: number): void {
    let tar = bytes;
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        tar = zlib.gunzipSync(bytes, { maxOutputLength: GUNZIP_CAP });
      } catch (err) {
        // A cut-short gzip: keep what inflated (the entries before the damage).
        const partial = inflatePartial(bytes);
        this.out.warnings.push(`${label}: damaged gzip (${(err as Error).message})${partial ? '; reading the part that inflates' : ''}`);
        if (!partial) return;
        tar = partial;
      }
    }
    if (!looksLikeTar(tar)) {
      this.text(label, tar, depth === 0);
      return;
    }
    const { entries, error } = readTar(tar);
    if (error) this.out.warnings.push(`${label}: ${error}; the entries before it are read`);
    for (const e of entries) {
      const at = `${label}:${e.name}`;
      if (e.data.length > MEMBER_CAP) continue;
      if (ARCHIVE_EXT.test(e.name) && depth < MAX_NESTING) this.archive(at, e.data, depth + 1);
      else if (TEXT_EXT.test(e.name)) this.text(at, e.data, false);
    }
  }

  file(p: string, explicit: boolean): void {
    if (!explicit && TEXT_EXT.test(p)) return this.walkedText(p);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(p);
    } catch (err) {
      if (explicit) throw new EnvError(`cannot read ${p}: ${fsReason(err)}`, null, 'INPUT_UNREADABLE');
      this.out.warnings.push(`${p}: skipped: ${fsReason(err)}`);
      return;
    }
    if (ARCHIVE_EXT.test(p) || (bytes[0] === 0x1f && bytes[1] === 0x8b)) this.archive(p, bytes, 0);
    else this.text(p, bytes, explicit);
  }

  /** A text file met while walking: read straight into a string (10,000 reports: no Buffer garbage). */
  walkedText(p: string): void {
    let s: string;
    try {
      s = fs.readFileSync(p, 'utf8');
    } catch (err) {
      this.out.warnings.push(`${p}: skipped: ${fsReason(err)}`);
      return;
    }
    this.text(p, s, false);
  }

  dir(d: string): void {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(d, { withFileTypes: true });
    } catch (err) {
      this.out.warnings.push(`${d}: skipped: ${fsReason(err)}`);
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const n of names) {
      const p = path.join(d, n.name);
      // Links are not followed: a walked tree cannot loop or lead elsewhere.
      if (n.isDirectory()) this.dir(p);
      else if (n.isFile() && (TEXT_EXT.test(n.name) || ARCHIVE_EXT.test(n.name))) this.file(p, false);
    }
  }
}

/** What a cut-short gzip stream inflates to before it ends (sync flush keeps the partial output). */
function inflatePartial(bytes: Buffer): Buffer | null {
  try {
    const out = zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: GUNZIP_CAP });
    return out.length ? out : null;
  } catch {
    return null;
  }
}

/** Gather reports from the sources named on the command line (`-` reads `stdin`). */
export function gatherReports(sources: readonly string[], stdin: () => Buffer): Gathered {
  const g = new Gatherer();
  for (const src of sources) {
    if (src === '-') {
      const bytes = stdin();
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) g.archive('-', bytes, 0);
      else g.text('-', bytes, true);
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.statSync(src);
    } catch (err) {
      throw new EnvError(`cannot read ${src}: ${fsReason(err)}`, 'name report files, directories of them, .tar.gz archives, or - for stdin', 'INPUT_UNREADABLE');
    }
    if (st.isDirectory()) g.dir(src);
    else g.file(src, true);
  }
  return g.out;
}
