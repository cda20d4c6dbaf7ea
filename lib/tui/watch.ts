// Noticing changes to the store on disk, so the header can say "changed on disk: R reloads".
// The kubelet writes meta files, adds and deletes UID directories and, one level down, the
// resourceVersion directories under a UID: meta/, checkpoints/ and each UID directory are
// watched (one watcher per UID; never one per checkpoint: a store can hold 10,000 of them).
// The store may be hostile: a symbolic link is never watched (fs.watch would follow it out of
// the store), and a directory swapped for a link while its watcher was made is dropped again.

import fs from 'node:fs';
import path from 'node:path';

/** Watch one real directory (not a symbolic link to one); null when it is not one or cannot be watched. */
export function watchDir(dir: string, onEvent: (event: string, name: string | Buffer | null) => void): fs.FSWatcher | null {
  const before = realDir(dir);
  if (!before) return null;
  let w: fs.FSWatcher;
  try {
    w = fs.watch(dir, { persistent: false }, onEvent);
  } catch {
    return null;
  }
  w.on('error', () => undefined);
  // fs.watch follows links: if the entry changed between the lstat and the watch, what is watched may be elsewhere.
  const after = realDir(dir);
  if (!after || after.dev !== before.dev || after.ino !== before.ino) {
    w.close();
    return null;
  }
  return w;
}

function realDir(p: string): fs.Stats | null {
  try {
    const st = fs.lstatSync(p);
    return st.isDirectory() ? st : null;
  } catch {
    return null;
  }
}

/** The names of the real directories in `dir` (symbolic links, files and the unreadable left out). */
function subdirs(dir: string): Set<string> {
  try {
    return new Set(
      fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name),
    );
  } catch {
    return new Set();
  }
}

export class StoreWatch {
  private top: fs.FSWatcher[] = [];
  private uids = new Map<string, fs.FSWatcher>();
  /** checkpoints/ as it was when watched: UID paths are only followed while it is still that directory. */
  private cps: fs.Stats | null = null;

  /** `onChange` is called for every change seen (it decides what it means). */
  constructor(
    private store: string,
    private onChange: () => void,
  ) {}

  start(): void {
    this.close();
    const meta = watchDir(path.join(this.store, 'meta'), this.onChange);
    // A UID directory appearing or going: watch it (or stop) before anything is written under it.
    const cps = watchDir(this.checkpoints, (_event, name) => {
      if (name) this.rewatch(String(name));
      else this.syncUids();
      this.onChange();
    });
    // meta/ or checkpoints/ renamed or replaced, or the store itself (found by review: a store
    // swapped for another was never noticed): their entries in the directories above them.
    const top = watchDir(this.store, (_event, name) => {
      if (name === null || name === 'meta' || name === 'checkpoints') this.onChange();
    });
    const base = path.basename(this.store);
    const parent = watchDir(path.dirname(this.store), (_event, name) => {
      if (name === null || String(name) === base) this.onChange();
    });
    this.top = [meta, cps, top, parent].filter((w): w is fs.FSWatcher => w !== null);
    this.cps = cps ? realDir(this.checkpoints) : null;
    this.syncUids();
  }

  /** How many directories are watched (tests: one per UID, none through a link). */
  get watched(): number {
    return this.top.length + this.uids.size;
  }

  close(): void {
    for (const w of [...this.top, ...this.uids.values()]) w.close();
    this.top = [];
    this.uids.clear();
    this.cps = null;
  }

  private get checkpoints(): string {
    return path.join(this.store, 'checkpoints');
  }

  /** checkpoints/ is still the real directory watched: not replaced by a link, whose UID paths would lead out of the store. */
  private sameCheckpoints(): boolean {
    const now = realDir(this.checkpoints);
    return !!this.cps && !!now && now.dev === this.cps.dev && now.ino === this.cps.ino;
  }

  /** A UID entry changed: watch what is there now (a directory deleted and made again is a new one). */
  private rewatch(name: string): void {
    this.uids.get(name)?.close();
    this.uids.delete(name);
    if (!this.sameCheckpoints()) return;
    const w = watchDir(path.join(this.checkpoints, name), this.onChange);
    if (w) this.uids.set(name, w);
  }

  /** One watcher per UID directory now in checkpoints/: new ones added, those gone closed. */
  private syncUids(): void {
    const now = this.sameCheckpoints() ? subdirs(this.checkpoints) : new Set<string>();
    for (const [name, w] of this.uids) {
      if (now.has(name)) continue;
      w.close();
      this.uids.delete(name);
    }
    for (const name of now) {
      if (this.uids.has(name)) continue;
      const w = watchDir(path.join(this.checkpoints, name), this.onChange);
      if (w) this.uids.set(name, w);
    }
  }
}
