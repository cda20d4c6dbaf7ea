// The kubelet's SerializedNodeConfigSource bytes. Expectations come from two sources:
// the quoting table in shared/reference/store-format.md (the kubelet's v1.23.0 encoder),
// and rows produced by the real encoding path — go1.19 encoding/json, ghodss/yaml
// JSONToYAML, gopkg.in/yaml.v2 v2.4.0 (Debian packages), the same path the kubelet runs.
// The Go program that produced them is not in this repository; the rows are its output.

import t from 'tap';
import fc from 'fast-check';
import * as yaml from 'js-yaml';
import { encodeEmptyMeta, encodeMeta, MetaEncodeError, resolvesToString } from '../../../lib/store/encode.js';
import { UsageError } from '../../../lib/errors.js';
import type { ConfigMapSource } from '../../../lib/store/types.js';

type Field = keyof ConfigMapSource;
const FIELDS: readonly Field[] = ['kubeletConfigKey', 'name', 'namespace', 'resourceVersion', 'uid'];
const BASE: ConfigMapSource = { namespace: 'namespace', name: 'name', uid: 'uid', resourceVersion: '1', kubeletConfigKey: 'kubelet' };

const GOLDEN =
  'apiVersion: kubelet.config.k8s.io/v1beta1\n' +
  'kind: SerializedNodeConfigSource\n' +
  'source:\n' +
  '  configMap:\n' +
  '    kubeletConfigKey: kubelet\n' +
  '    name: name\n' +
  '    namespace: namespace\n' +
  '    resourceVersion: "1"\n' +
  '    uid: uid\n';

/** The golden document with one field's text (everything after "field:") replaced. */
function docWith(field: Field, fragment: string): string {
  const golden = { kubeletConfigKey: ' kubelet', name: ' name', namespace: ' namespace', resourceVersion: ' "1"', uid: ' uid' };
  const head = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n';
  return head + FIELDS.map((f) => `    ${f}:${f === field ? fragment : golden[f]}\n`).join('');
}

t.test('golden bytes', async (t) => {
  const out = encodeMeta(BASE);
  t.ok(Buffer.isBuffer(out));
  t.equal(out.toString('hex'), Buffer.from(GOLDEN).toString('hex'));
  t.equal(docWith('name', ' name'), GOLDEN, 'the test helper rebuilds the golden document');
});

// store-format.md, "Exact output of the kubelet's own encoder": value -> what follows "resourceVersion: ".
const QUOTING_TABLE: [string, string][] = [
  ["1326", "\"1326\""],
  ["0", "\"0\""],
  ["007", "\"007\""],
  ["1e3", "\"1e3\""],
  ["1_000", "\"1_000\""],
  ["0x1F", "\"0x1F\""],
  ["0o17", "\"0o17\""],
  ["0b101", "\"0b101\""],
  ["12:30", "\"12:30\""],
  ["1:20:30", "\"1:20:30\""],
  [".5", "\".5\""],
  ["1.", "\"1.\""],
  ["-1", "\"-1\""],
  ["+1", "\"+1\""],
  ["1.0", "\"1.0\""],
  [".inf", "\".inf\""],
  [".nan", "\".nan\""],
  ["true", "\"true\""],
  ["True", "\"True\""],
  ["on", "\"on\""],
  ["ON", "\"ON\""],
  ["off", "\"off\""],
  ["y", "\"y\""],
  ["Y", "\"Y\""],
  ["yes", "\"yes\""],
  ["no", "\"no\""],
  ["n", "\"n\""],
  ["null", "\"null\""],
  ["Null", "\"Null\""],
  ["~", "\"~\""],
  ["2001-12-14", "\"2001-12-14\""],
  ["2001-12-14t21:59:43.10-05:00", "\"2001-12-14t21:59:43.10-05:00\""],
  ["abc", "abc"],
  ["a:b", "a:b"],
  ["a: b", "'a: b'"],
  ["-abc", "-abc"],
  ["#x", "'#x'"],
  ["a #b", "'a #b'"],
  ["a b", "a b"],
  ["kubelet", "kubelet"],
  ["my-node-config-9mbkccg2cc", "my-node-config-9mbkccg2cc"],
  ["5808539f-48e3-4e47-8ce6-c261c48fa1d9", "5808539f-48e3-4e47-8ce6-c261c48fa1d9"],
  ["705ab4f5-6393-11e8-b7cc-42010a800002", "705ab4f5-6393-11e8-b7cc-42010a800002"],
  ["1e10-abc", "1e10-abc"],
  ["=", "="],
  ["<<", "<<"],
  ["*a", "'*a'"],
  ["&a", "'&a'"],
  ["!x", "'!x'"],
  ["%x", "'%x'"],
  ["@x", "'@x'"],
  ["`x", "'`x'"],
  ["[a]", "'[a]'"],
  ["{a}", "'{a}'"],
  ["a,b", "a,b"],
  ["?", "'?'"],
  ["-", "'-'"],
  ["\u00fc", "\u00fc"],
  ["a\tb", "\"a\\tb\""],
];

t.test('store-format.md quoting table (resourceVersion)', async (t) => {
  t.equal(QUOTING_TABLE.length, 59);
  for (const [value, written] of QUOTING_TABLE) {
    t.equal(encodeMeta({ ...BASE, resourceVersion: value }).toString(), docWith('resourceVersion', ' ' + written), show(value));
  }
});

t.test('the same rules apply to every field', async (t) => {
  for (const field of FIELDS) {
    for (const [value, written] of QUOTING_TABLE) {
      if (encodeMeta({ ...BASE, [field]: value }).toString() !== docWith(field, ' ' + written)) t.fail(`${field} = ${show(value)}`);
    }
  }
  t.pass('all fields agree with the table');
});

// Produced by the Go encoding path (see the header): field, value, text after "field:".
const GO_ROWS: [Field, string, string][] = [
  ["namespace", "", " \"\""],
  ["name", "", " \"\""],
  ["kubeletConfigKey", "", " \"\""],
  ["name", " a", " ' a'"],
  ["name", "a ", " 'a '"],
  ["name", " ", " ' '"],
  ["name", "a  b", " a  b"],
  ["name", "\u00a0x", " \u00a0x"],
  ["name", "\u00e9", " \u00e9"],
  ["name", "\u00fc-\u65e5\u672c", " \u00fc-\u65e5\u672c"],
  ["name", "\ud83d\ude00", " \"\\U0001F600\""],
  ["name", "a\ud83d\ude00b", " \"a\\U0001F600b\""],
  ["name", "\ufeffab", " \"\\uFEFF\\x61\\x62\""],
  ["name", "a\ufeffb", " \"a\\uFEFFb\""],
  ["name", "a\u0000b", " \"a\\0b\""],
  ["name", "\u0007\b\u000b\f\r\u001b\u0001", " \"\\a\\b\\v\\f\\r\\e\\x01\""],
  ["name", "a\"b", " a\"b"],
  ["name", "a\\b", " a\\b"],
  ["name", "it's", " it's"],
  ["name", "'q'", " '''q'''"],
  ["name", "\u00a0", " \u00a0"],
  ["name", "a\u2028b", " 'a\u2028      b'"],
  ["name", "a\u2029", " 'a\u2029'"],
  ["name", "a\u2028 b", " \"a\\L b\""],
  ["name", "a\u0085b", " a b"],
  ["name", "a \u0085 b", " a b"],
  ["name", "a\u0085\u0085b", " |-\n      a\n      b"],
  ["name", "\u0085", " ' '"],
  ["name", "a\nb", " |-\n      a\n      b"],
  ["name", "a\nb\n", " |\n      a\n      b"],
  ["name", "a\nb\n\n", " |+\n      a\n      b\n"],
  ["name", "\n", " |2+\n"],
  ["name", "\n\n", " |2+\n\n"],
  ["name", " a\nb", " |2-\n       a\n      b"],
  ["name", "\na", " |2-\n\n      a"],
  ["name", "a\n b", " |-\n      a\n       b"],
  ["name", "a \nb", " \"a \\nb\""],
  ["name", "a\nb ", " \"a\\nb \""],
  ["name", "a\n\tb", " \"a\\n\\tb\""],
  ["name", "a\n\u2028b", " |-\n      a\n\u2028      b"],
  ["uid", "a\nb\n", " |\n      a\n      b"],
  ["uid", "a\nb", " |-\n      a\n      b"],
  ["uid", "a\nb\n\n", " |+\n      a\n      b\n"],
  ["name", "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore", " lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n      incididunt ut labore"],
  ["name", "#lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore", " '#lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod\n      tempor incididunt ut labore'"],
  ["name", "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ", " 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n      incididunt ut labore '"],
  ["name", "\tlorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore", " \"\\tlorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod\n      tempor incididunt ut labore\""],
  ["name", "lorem  ipsum  dolor  sit  amet  consectetur  adipiscing  elit  sed  do  eiusmod  tempor  incididunt  ut  labore", " lorem  ipsum  dolor  sit  amet  consectetur  adipiscing  elit  sed  do  eiusmod  tempor  incididunt  ut  labore"],
  ["name", "lorem\t ipsum\t dolor\t sit\t amet\t consectetur\t adipiscing\t elit\t sed\t do\t eiusmod\t tempor\t incididunt\t ut\t labore", " \"lorem\\t ipsum\\t dolor\\t sit\\t amet\\t consectetur\\t adipiscing\\t elit\\t\n      sed\\t do\\t eiusmod\\t tempor\\t incididunt\\t ut\\t labore\""],
  ["kubeletConfigKey", "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore", " lorem ipsum dolor sit amet consectetur adipiscing elit sed do\n      eiusmod tempor incididunt ut labore"],
  ["uid", "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore", " lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n      incididunt ut labore"],
  ["name", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx yyyyyyyyyy", " xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n      yyyyyyyyyy"],
  ["name", "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\nlorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore", " |-\n      lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore\n      lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore"],
  ["name", "0x10000000000000000", " 0x10000000000000000"],
  ["name", "1e400", " 1e400"],
  ["name", ".5e400", " .5e400"],
  ["name", "0b-101", " \"0b-101\""],
  ["name", "08", " \"08\""],
  ["name", ".5_0", " \".5_0\""],
  ["name", "._5", " ._5"],
  ["name", "0o", " 0o"],
  ["name", "0x", " 0x"],
  ["name", ".", " ."],
  ["name", "1.2.3", " 1.2.3"],
  ["name", "-0b101", " \"-0b101\""],
  ["name", "9223372036854775808", " \"9223372036854775808\""],
  ["name", "18446744073709551616", " \"18446744073709551616\""],
  ["name", "-9223372036854775809", " \"-9223372036854775809\""],
  ["name", "2000-02-29", " \"2000-02-29\""],
  ["name", "2001-02-29", " 2001-02-29"],
  ["name", "2001-12-14 21:59:43,5", " \"2001-12-14 21:59:43,5\""],
  ["name", "2001-12-14T21:59:43+-1:00", " \"2001-12-14T21:59:43+-1:00\""],
  ["name", "2001-12-14T21:59:43.1234567890Z", " 2001-12-14T21:59:43.1234567890Z"],
  ["name", "2001-12-14z", " 2001-12-14z"],
  ["name", "2001-1-2", " \"2001-1-2\""],
  ["name", "2001-12-14t21:59:43.10-5", " 2001-12-14t21:59:43.10-5"],
  ["name", "1:2", " \"1:2\""],
  ["name", "1:60", " 1:60"],
  ["name", "+1_0:59.5", " \"+1_0:59.5\""],
  ["name", "<<", " <<"],
  ["name", "---", " '---'"],
  ["name", "--- a", " '--- a'"],
  ["name", "...", " '...'"],
  ["name", "a #b", " 'a #b'"],
  ["name", "a# b", " a# b"],
  ["name", "a:", " 'a:'"],
  ["name", ":a", " :a"],
  ["name", "- a", " '- a'"],
  ["name", "-a", " -a"],
  ["name", "? a", " '? a'"],
  ["name", "?a", " ?a"],
  ["name", "a, b", " a, b"],
  ["name", "Yes", " \"Yes\""],
  ["name", "NO", " \"NO\""],
  ["name", "Off", " \"Off\""],
  ["name", "+.INF", " \"+.INF\""],
  ["name", "-.inf", " \"-.inf\""],
  ["name", ".NaN", " \".NaN\""],
  ["name", "NULL", " \"NULL\""],
  ["name", "nuLL", " nuLL"],
];

t.test('rows verified against go-yaml v2.4.0 via JSONToYAML', async (t) => {
  for (const [field, value, fragment] of GO_ROWS) {
    t.equal(encodeMeta({ ...BASE, [field]: value }).toString(), docWith(field, fragment), `${field} = ${show(value)}`);
  }
});

t.test('the kubelet refuses empty uid and resourceVersion, with its own words', async (t) => {
  const cases: [Partial<ConfigMapSource>, string][] = [
    [{ uid: '' }, 'failed to write RemoteConfigSource, empty UID is ambiguous'],
    [{ resourceVersion: '' }, 'failed to write RemoteConfigSource, empty ResourceVersion is ambiguous'],
    [{ uid: '', resourceVersion: '' }, 'failed to write RemoteConfigSource, empty UID is ambiguous'],
  ];
  for (const [patch, message] of cases) {
    const err = catchErr(() => encodeMeta({ ...BASE, ...patch }));
    t.ok(err instanceof MetaEncodeError && err instanceof UsageError, 'a UsageError');
    t.equal(err?.message, message);
    t.equal((err as UsageError).exitCode, 2);
  }
});

t.test('values the kubelet cannot encode (yaml.v2 rejects what JSON left raw)', async (t) => {
  // Each of these made the Go path fail: "control characters are not allowed", or
  // "found unexpected document indicator" after a NEL line break.
  for (const value of ['a\u007fb', 'a\u0080b', 'a\u009fb', '\ufffe', '\uffff', 'a\u0085--- b', 'a\u0085...\u0085b', 'a\u0085\u0085--- b', '\u0085--- x']) {
    t.throws(() => encodeMeta({ ...BASE, name: value }), MetaEncodeError, show(value));
  }
  // ... and these similar ones it encoded (the indicator needs column 0 and a blank after it).
  t.equal(encodeMeta({ ...BASE, name: 'a\u0085---' }).toString(), docWith('name', ' a ---'));
  t.equal(encodeMeta({ ...BASE, name: 'a\u0085 --- b' }).toString(), docWith('name', ' a --- b'));
});

t.test('lone surrogates are written as U+FFFD, as Go writes invalid UTF-8', async (t) => {
  t.equal(encodeMeta({ ...BASE, name: 'a\ud800b' }).toString(), docWith('name', ' a\ufffdb'));
});

t.test('encodeEmptyMeta is zero bytes', async (t) => {
  t.equal(encodeEmptyMeta().length, 0);
  t.ok(Buffer.isBuffer(encodeEmptyMeta()));
});

t.test('resolvesToString (yaml.v2 resolve + base-60 quoting)', async (t) => {
  // Base-60 shapes resolve to strings in yaml.v2 but are quoted for other YAML 1.1 readers.
  const base60 = new Set(['12:30', '1:20:30']);
  for (const [value, written] of QUOTING_TABLE) {
    if (value.includes('\t')) continue; // quoted for the tab, not for its type
    t.equal(resolvesToString(value), base60.has(value) || !written.startsWith('"'), show(value));
  }
});

t.test('YAML 1.1 vs 1.2: plain scalars go-yaml keeps as strings but js-yaml (1.2) types', async (t) => {
  // The kubelet reads with yaml.v2, so these are strings to it; a YAML 1.2 reader disagrees.
  for (const value of ['0x10000000000000000', '2001-02-29']) {
    const doc = encodeMeta({ ...BASE, name: value }).toString();
    t.equal(doc, docWith('name', ' ' + value), 'written plain');
    t.not(typeof field(yaml.load(doc), 'name'), 'string', 'js-yaml default schema types it');
    t.equal(field(yaml.load(doc, { schema: yaml.FAILSAFE_SCHEMA }), 'name'), value, 'failsafe reads the string');
  }
});

// ---------------------------------------------------------------------------------------
// Round trip: what we write reads back as the kubelet's own reading of the value.

/** What the kubelet ends up storing: lone surrogates -> U+FFFD; raw NEL folded like a YAML 1.1 line break. */
function kubeletValue(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8').replace(/ *\u0085[ \u0085]*/g, (run) => {
    const nels = run.split('\u0085').length - 1;
    return nels === 1 ? ' ' : '\n'.repeat(nels - 1);
  });
}

/** Whether the Go path fails on s (see the test above for the verified cases). */
function kubeletFails(s: string): boolean {
  return /[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/.test(s) || /\u0085(---|\.\.\.)[ \u0085]/.test(s.replace(/\u0085 +/g, '\u0085x'));
}

function field(doc: unknown, f: Field): unknown {
  return (doc as { source: { configMap: Record<string, unknown> } }).source.configMap[f];
}

/** The raw text of one field's scalar, including the line break that ends it. */
function fragmentOf(doc: string, f: Field): string {
  const start = doc.indexOf(`\n    ${f}:`) + 6 + f.length;
  const next = FIELDS[FIELDS.indexOf(f) + 1];
  if (!next) return doc.slice(start);
  const m = new RegExp(`[\\n\\u2028\\u2029]    ${next}:`).exec(doc.slice(start));
  return doc.slice(start, start + m!.index + 1);
}

/**
 * A YAML 1.1 reader for the two styles in which the encoder leaves U+2028/U+2029 raw
 * (single-quoted and literal). YAML 1.1 counts them as line breaks; YAML 1.2 (js-yaml)
 * reads them as content, so js-yaml cannot judge these values.
 */
function read11(fragment: string): string | null {
  if (fragment.startsWith(" '")) return readSingle11(fragment.slice(2, fragment.lastIndexOf("'")));
  if (fragment.startsWith(' |')) return readLiteral11(fragment);
  return null;
}

const isBreak11 = (c: string | undefined): boolean => c === '\n' || c === '\u2028' || c === '\u2029';

function readSingle11(body: string): string {
  let s = '';
  let i = 0;
  while (i < body.length) {
    while (i < body.length && body[i] !== ' ' && !isBreak11(body[i])) {
      if (body[i] === "'") i++; // '' -> '
      s += body[i++];
    }
    let whitespaces = '';
    let leading: string | null = null;
    let trailing = '';
    while (i < body.length && (body[i] === ' ' || isBreak11(body[i]))) {
      if (body[i] === ' ') {
        if (leading === null) whitespaces += ' ';
      } else if (leading === null) leading = body[i];
      else trailing += body[i];
      i++;
    }
    if (leading === null) s += whitespaces;
    else if (leading === '\n') s += trailing === '' ? ' ' : trailing;
    else s += leading + trailing;
  }
  return s;
}

function readLiteral11(fragment: string): string {
  const header = /^ \|([0-9])?([-+])?\n/.exec(fragment)!;
  const chomp = header[2] ?? '';
  let s = '';
  let leading = '';
  let trailing = '';
  for (const m of fragment.slice(header[0].length).matchAll(/([^\n\u2028\u2029]*)([\n\u2028\u2029])/g)) {
    const [, text, brk] = m;
    if (text === '') {
      trailing += brk;
      continue;
    }
    if (!text.startsWith('      ')) throw new Error(`literal line not indented: ${JSON.stringify(text)}`);
    s += leading + trailing + text.slice(6);
    leading = brk;
    trailing = '';
  }
  if (chomp !== '-') s += leading;
  if (chomp === '+') s += trailing;
  return s;
}

/** Read field f of an encoded document the way a YAML 1.1 reader would, as strings. */
function readBack(doc: string, f: Field): unknown {
  const fragment = fragmentOf(doc, f);
  if (/[\u2028\u2029]/.test(doc)) return read11(fragment);
  const viaJsYaml = field(yaml.load(doc, { schema: yaml.FAILSAFE_SCHEMA }), f);
  const via11 = read11(fragment);
  if (via11 !== null && via11 !== viaJsYaml) throw new Error(`read11 disagrees with js-yaml on ${JSON.stringify(fragment)}`);
  return viaJsYaml;
}

/** A test name that stays on one TAP line (U+2028 and friends would break it). */
function show(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function catchErr(fn: () => unknown): Error | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err as Error;
  }
}

/** Pieces that exercise the resolver, the indicators and the emitter's special cases. */
const TRICKY = [
  '0', '1', '9', '.', '-', '+', '_', ':', 'e', 'x', 'o', 'b', 'T', 'Z', ' ', '  ', '#', '?', '!', '&', '*', '[', ']', '{', '}', ',', '|', '>',
  '%', '@', '`', "'", '"', '\\', '\n', '\n\n', '\t', '\r', '\u0085', '\u2028', '\u2029', '\ufeff', '\u00a0', '\u{1f600}', 'é', 'y', 'on', 'null',
  '~', '<<', '.inf', '0x', '2001-12-14', '21:59:43', '1e3', '---', '...', '\u0000', '\u0007', '\u001b', '\u007f', '\u0080', '\ufffe', 'abc', '- ', ': ',
];
const trickyString = fc.array(fc.constantFrom(...TRICKY), { maxLength: 8 }).map((a) => a.join(''));
const words = fc.array(fc.oneof(fc.constantFrom(' ', '  ', '\n', '\u2028', "'", '#'), fc.string({ minLength: 1, maxLength: 12 })), { minLength: 10, maxLength: 40 }).map((a) => a.join(''));
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ maxLength: 30 }),
  trickyString,
  words,
);

t.test('round trip: random strings read back as the kubelet stores them', async (t) => {
  let written = 0;
  let refused = 0;
  let read11Only = 0;
  fc.assert(
    fc.property(anyString, fc.constantFrom(...FIELDS), (value, f) => {
      if ((f === 'uid' || f === 'resourceVersion') && value === '') return;
      const err = catchErr(() => encodeMeta({ ...BASE, [f]: value }));
      if (kubeletFails(value)) {
        refused++;
        return err instanceof MetaEncodeError;
      }
      if (err) throw err;
      const doc = encodeMeta({ ...BASE, [f]: value }).toString();
      written++;
      if (/[\u2028\u2029]/.test(doc)) read11Only++;
      const back = readBack(doc, f);
      if (back !== kubeletValue(value)) throw new Error(`${show(value)} read back as ${show(String(back))} from\n${doc}`);
      return true;
    }),
    { numRuns: 600, seed: 20261122 },
  );
  t.comment(`written ${written}, refused ${refused}, read only by the YAML 1.1 reader (raw U+2028/U+2029) ${read11Only}`);
  t.ok(written > 300 && refused > 10 && read11Only > 10, 'every class was exercised');
});

t.test('round trip: long values fold at 80 columns and read back', async (t) => {
  fc.assert(
    fc.property(words, fc.constantFrom(...FIELDS), (value, f) => {
      if (kubeletFails(value)) return;
      const doc = encodeMeta({ ...BASE, [f]: value }).toString();
      return readBack(doc, f) === kubeletValue(value);
    }),
    { numRuns: 300, seed: 7 },
  );
  t.pass('300 long values');
});
