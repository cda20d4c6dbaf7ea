import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import blessed from 'blessed';
import { canAddressCursor, EMBEDDED_NAMES, resolveTerm, searchDirs, toLegacy } from '../../../lib/tui/terminfo.js';

interface TputLike {
  parseTerminfo(data: Buffer, file: string): { name: string; numbers: Record<string, number>; strings: Record<string, string> };
}
const Tput = (blessed as unknown as { Tput: new (o: object) => TputLike }).Tput;
const tput = new Tput({});

t.test('every embedded entry parses in blessed, with sane capabilities', async (t) => {
  t.same([...EMBEDDED_NAMES].sort(), ['linux', 'screen', 'screen-256color', 'tmux', 'tmux-256color', 'vt100', 'xterm', 'xterm-256color']);
  for (const name of EMBEDDED_NAMES) {
    const e = resolveTerm(name, { TERMINFO: '/nonexistent', HOME: '/nonexistent', TERMINFO_DIRS: '' });
    const info = tput.parseTerminfo(e.data, e.from);
    t.ok(e.data.readUInt16LE(0) === 0o432, `${name}: legacy format`);
    t.ok(info.strings.cursor_address, `${name}: cursor addressing`);
    if (name.includes('256')) t.equal(info.numbers.max_colors, 256, `${name}: 256 colours`);
    if (name === 'vt100') t.notOk(info.numbers.max_colors > 0, 'vt100: no colours');
  }
});

t.test('toLegacy: 32-bit number entries (which blessed cannot parse) become legacy ones; garbage is refused', async (t) => {
  const ext = ['/lib/terminfo/x/xterm-256color', '/usr/share/terminfo/x/xterm-256color'].find((f) => fs.existsSync(f) && fs.readFileSync(f).readUInt16LE(0) === 0o1036);
  if (!ext) t.skip('no 32-bit-number terminfo entry on this system');
  else {
    t.throws(() => tput.parseTerminfo(fs.readFileSync(ext), ext), 'blessed alone fails on this format');
    const legacy = toLegacy(fs.readFileSync(ext))!;
    t.equal(legacy.readUInt16LE(0), 0o432);
    const info = tput.parseTerminfo(legacy, ext);
    t.equal(info.numbers.max_colors, 256);
    t.equal(info.numbers.max_pairs, 32767, 'pairs clamped as ncurses does for the legacy format');
    t.match(info.strings.set_a_foreground, /38;5;/);
  }
  t.equal(toLegacy(Buffer.from('not a terminfo file')), null);
  t.equal(toLegacy(Buffer.alloc(4)), null);
});

t.test('resolveTerm: system entry, embedded by name, by family, xterm last', async (t) => {
  const dir = t.testdir({ x: { 'xterm-custom': fs.readFileSync(path.join(import.meta.dirname ?? '.', '../../../package.json')) } });
  const none = { TERMINFO: '/nonexistent', HOME: '/nonexistent' };
  t.match(resolveTerm('tmux-256color', none).from, /^(\/|embedded:tmux-256color)/);
  t.equal(resolveTerm('screen.xterm-new', none).from, 'embedded:screen', 'an unknown screen variant: the screen entry');
  t.equal(resolveTerm('rxvt-unicode-256color-x', none).from.startsWith('embedded:') || resolveTerm('rxvt-unicode-256color-x', none).from.startsWith('/'), true);
  t.equal(resolveTerm('no-such-term', none).from, 'embedded:xterm');
  t.equal(resolveTerm('my-tmux-256color', none).from, 'embedded:xterm-256color');
  t.equal(resolveTerm('tmux-direct', none).from.includes('tmux'), true);
  t.equal(resolveTerm(undefined, none).name, 'xterm');
  t.equal(resolveTerm('../../etc/passwd', none).from, 'embedded:xterm', 'a path is reduced to its name, never opened');
  // A file that is not terminfo is skipped for the next candidate.
  t.equal(resolveTerm('xterm-custom', { TERMINFO: dir }).from, 'embedded:xterm');
  t.same(searchDirs({ TERMINFO: '/a', HOME: '/h', TERMINFO_DIRS: '/b:/c' }).slice(0, 4), ['/a', '/h/.terminfo', '/b', '/c']);
});

t.test('canAddressCursor: dumb cannot, the terminals people use can (found by review: TERM=dumb garbled the TUI)', async (t) => {
  const env = { TERMINFO: '/nonexistent', HOME: '/nonexistent', TERMINFO_DIRS: '' };
  for (const name of ['xterm', 'xterm-256color', 'linux', 'vt100', 'screen', 'tmux-256color']) t.ok(canAddressCursor(resolveTerm(name, env).data), name);
  const dumb = resolveTerm('dumb', {});
  if (dumb.name === 'dumb') t.notOk(canAddressCursor(dumb.data), `dumb (${dumb.from})`);
  t.notOk(canAddressCursor(Buffer.alloc(4)), 'not an entry');
});
