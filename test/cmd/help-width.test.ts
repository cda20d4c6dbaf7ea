// The build hands yargs' help renderer a string-width that answers a printable-ASCII string
// with its length and asks the real module for anything else (scripts/build.mjs, lazy-help-deps):
// the real module's Intl.Segmenter walk was most of a --help. Its premise, checked against
// the real module, and the help it lays out.
import t from 'tap';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { runCli } from '../helpers.js';

t.test('every printable-ASCII string is as wide as it is long', async (t) => {
  for (let c = 0x20; c <= 0x7e; c++) t.equal(stringWidth(String.fromCharCode(c)), 1, `U+${c.toString(16).padStart(4, '0')}`, { diagnostic: false });
  t.equal(stringWidth(''), 0);
  fc.assert(fc.property(fc.stringMatching(/^[\x20-\x7e]{0,200}$/), (s) => stringWidth(s) === s.length), { numRuns: 2000, seed: 20261127 });
  // What the shim leaves to the real module: these are not one column per character.
  for (const s of ['\x1b[1mbold\x1b[22m', 'tab\there', '漢字', '👍🏽', 'a\u0301', 'x\u200by']) t.not(stringWidth(s), s.length, JSON.stringify(s));
});

t.test('help of every command: laid out in 80 columns (yargs\' width when stdout is not a terminal)', async (t) => {
  for (const args of [['--help'], ...['status', 'ls', 'show', 'verify', 'diff', 'journal', 'reset', 'migrate', 'fleet', 'tui'].map((c) => [c, '--help'])]) {
    const r = runCli(args);
    t.equal(r.code, 0, args.join(' '));
    t.same(r.stdout.split('\n').filter((l) => stringWidth(l) > 80), [], `${args.join(' ')}: no line wider than 80 columns`);
  }
});
