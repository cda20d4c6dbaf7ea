// Go's os.FileMode.String() for the modes a store can hold (the kubelet quotes it).
import t from 'tap';
import fs from 'node:fs';
import { goFileMode } from '../../../lib/store/gomode.js';

const { S_IFREG, S_IFDIR, S_IFLNK, S_IFIFO, S_IFSOCK, S_IFBLK, S_IFCHR } = fs.constants;
const table: [number, string][] = [
  [S_IFREG | 0o644, '-rw-r--r--'],
  [S_IFREG | 0o600, '-rw-------'],
  [S_IFREG | 0o4755, 'urwxr-xr-x'],
  [S_IFDIR | 0o755, 'drwxr-xr-x'],
  [S_IFDIR | 0o1777, 'dtrwxrwxrwx'],
  [S_IFDIR | 0o2775, 'dgrwxrwxr-x'],
  [S_IFLNK | 0o777, 'Lrwxrwxrwx'],
  [S_IFIFO | 0o644, 'prw-r--r--'],
  [S_IFSOCK | 0o755, 'Srwxr-xr-x'],
  [S_IFBLK | 0o660, 'Drw-rw----'],
  [S_IFCHR | 0o666, 'Dcrw-rw-rw-'],
  [0o644, '-rw-r--r--'],
];
for (const [mode, want] of table) t.equal(goFileMode(mode), want, `0${mode.toString(8)}`);
