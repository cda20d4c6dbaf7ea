// os.FileMode.String() as Go prints it, from a stat mode: the kubelet quotes it in
// "expected dir at …, but mode is "-rw-r--r--"" (util/files DirExists).

import fs from 'node:fs';

const { S_IFMT, S_IFDIR, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK } = fs.constants;
const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;

/** The type and special letters in Go's order ("dalTLDpSugct?"), then rwx for each class. `mode`: st_mode, type bits included. */
export function goFileMode(mode: number): string {
  const type = mode & S_IFMT;
  const has = (bit: number) => (mode & bit) !== 0;
  let s = '';
  if (type === S_IFDIR) s += 'd';
  if (type === S_IFLNK) s += 'L';
  if (type === S_IFBLK || type === S_IFCHR) s += 'D';
  if (type === S_IFIFO) s += 'p';
  if (type === S_IFSOCK) s += 'S';
  if (has(S_ISUID)) s += 'u';
  if (has(S_ISGID)) s += 'g';
  if (type === S_IFCHR) s += 'c';
  if (has(S_ISVTX)) s += 't';
  if (s === '') s = '-';
  const rwx = 'rwxrwxrwx';
  for (let i = 0; i < 9; i++) s += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return s;
}
