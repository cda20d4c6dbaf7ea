// Files a command may use, and executables on PATH, looked up without spawning anything
// (status's no-journal path must stay free of child processes).

import fs from 'node:fs';
import path from 'node:path';

/** A regular file (links followed) this process may access with `mode` (fs.constants.R_OK, X_OK). */
export function accessibleFile(p: string, mode: number): boolean {
  try {
    fs.accessSync(p, mode);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The executable `bin` names: itself when it holds a `/`, else the first on `envPath`; null when none. */
export function findOnPath(bin: string, envPath = process.env.PATH ?? ''): string | null {
  if (bin.includes('/')) return accessibleFile(bin, fs.constants.X_OK) ? bin : null;
  for (const dir of envPath.split(':')) {
    if (!dir) continue;
    const p = path.join(dir, bin);
    if (accessibleFile(p, fs.constants.X_OK)) return p;
  }
  return null;
}
