// Notice when a store changes: inotify (fs.watch) on the directories whose entries decide
// the next boot — the store, meta/, checkpoints/ and each UID directory — plus a slow poll
// of their mtimes, because inotify misses changes on some file systems (NFS, a rescue
// mount) and a watch cannot be added to a directory created later. Reads no file contents.

import fs from 'node:fs';
import path from 'node:path';

export interface StoreWatcher {
  close(): void;
}

export interface WatchOptions {
  /** Wait this long after the last event before reporting (a kubelet write is several events). */
  debounceMs?: number;
  /** Poll the directories' mtimes this often, in case inotify missed something. */
  pollMs?: number;
}

/** The directories to watch: the store, meta/, checkpoints/ and every UID directory in it. */
function watchedDirs(storeDir: string): string[] {
  const dirs = [storeDir, path.join(storeDir, 'meta'), path.join(storeDir, 'checkpoints')];
  try {
    for (const e of fs.readdirSync(dirs[2]!, { withFileTypes: true })) if (e.isDirectory()) dirs.push(path.join(dirs[2]!, e.name));
  } catch {
    /* no checkpoints/ yet: the store watch sees it appear */
  }
  return dirs;
}

/** A fingerprint of the watched directories and the meta files: mtimes, sizes, inodes. */
function fingerprint(storeDir: string): string {
  const parts: string[] = [];
  for (const p of [...watchedDirs(storeDir), path.join(storeDir, 'meta', 'assigned'), path.join(storeDir, 'meta', 'last-known-good')]) {
    try {
      const st = fs.lstatSync(p);
      parts.push(`${p}:${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push(`${p}:-`);
    }
  }
  return parts.join('|');
}

/** Call `onChange` (debounced) whenever the store's meta files or checkpoint directories change. */
export function watchStore(storeDir: string, onChange: () => void, opts: WatchOptions = {}): StoreWatcher {
  const debounceMs = opts.debounceMs ?? 150;
  let timer: NodeJS.Timeout | null = null;
  let watchers: fs.FSWatcher[] = [];
  let last = fingerprint(storeDir);
  const fire = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      last = fingerprint(storeDir);
      rewatch();
      onChange();
    }, debounceMs);
  };
  const rewatch = () => {
    for (const w of watchers) w.close();
    watchers = [];
    for (const d of watchedDirs(storeDir)) {
      try {
        const w = fs.watch(d, { persistent: false }, fire);
        w.on('error', () => undefined);
        watchers.push(w);
      } catch {
        /* gone or unreadable: the poll still notices */
      }
    }
  };
  rewatch();
  const poll = setInterval(() => {
    if (fingerprint(storeDir) !== last) fire();
  }, opts.pollMs ?? 2000);
  return {
    close() {
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
