// One sanitizer for all human output (issue 12, Deliver 4): escape bytes, bidi overrides and
// newlines in names and meta fields never reach the terminal from any text command, and
// never start a line of their own; JSON keeps them exactly.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { json, runCli } from '../helpers.js';
import { printable, printableBlock, sanitizeDeep } from '../../lib/output/sanitize.js';
import { printable as tuiPrintable } from '../../lib/tui/text.js';

const ESC = '\u001b]0;pwned\u0007\u001b[31m';
const UID = 'aaaa1111-0000-4000-8000-00000000000a';
const RV1 = '1\nok: no problems found';
const RV2 = `2${ESC}\u202e`;
const PAYLOAD = 'kind: KubeletConfiguration\napiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 110\n';
const meta = (rv: string, name: string) =>
  `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: SerializedNodeConfigSource\nsource:\n  configMap:\n    kubeletConfigKey: kubelet\n    name: ${JSON.stringify(name)}\n    namespace: kube-system\n    resourceVersion: ${JSON.stringify(rv)}\n    uid: ${UID}\n`;

function hostileStore(dir: string): string {
  for (const rv of [RV1, RV2]) {
    fs.mkdirSync(path.join(dir, 'store/checkpoints', UID, rv), { recursive: true });
    fs.writeFileSync(path.join(dir, 'store/checkpoints', UID, rv, 'kubelet'), PAYLOAD);
  }
  fs.mkdirSync(path.join(dir, 'store/meta'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'store/meta/assigned'), meta(RV2, `cfg${ESC}`));
  fs.writeFileSync(path.join(dir, 'store/meta/last-known-good'), meta(RV1, 'cfg\u202eevil'));
  fs.writeFileSync(path.join(dir, 'store/checkpoints', UID, `tmp_${ESC}`), '');
  return dir;
}

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

t.test('the sanitizer: one line, a block, a whole result', async (t) => {
  t.equal(printable(`a${ESC}\u202eb\nc\td`), 'a\\x1b]0;pwned\\x07\\x1b[31m\\u202eb\\x0ac  d');
  t.equal(printableBlock('a\x1b[2J\n\tb\r\n\u2066'), 'a\\x1b[2J\n\tb\\x0d\n\\u2066');
  t.equal(printable('\u2028\u2029\u061c\u200f'), '\\u2028\\u2029\\u061c\\u200f');
  t.equal(printable('plain Zürich ☃ 日本'), 'plain Zürich ☃ 日本');
  t.equal(tuiPrintable, printable, 'the TUI uses the same function');
  const buf = Buffer.from('x\x1b');
  const when = new Date(0);
  const out = sanitizeDeep({ [`k${ESC}`]: [`v\n`], text: 'a\nb\x1b', unified: '\x1b', bytes: buf, when }, { block: ['text'], exact: ['unified'] });
  t.strictSame(out, { 'k\\x1b]0;pwned\\x07\\x1b[31m': ['v\\x0a'], text: 'a\nb\\x1b', unified: '\x1b', bytes: buf, when });
  t.equal(out.bytes, buf, 'a Buffer is kept as it is');
});

t.test('escape bytes in names and meta fields: every text command escapes them', async (t) => {
  const dir = hostileStore(t.testdir({}));
  const runs: [string[], number][] = [
    [['status', '--no-journal'], 0],
    [['ls'], 0],
    [['verify'], 0],
    [['verify', 'assigned', 'lkg'], 0],
    [['show', 'meta/assigned'], 0],
    [['show', `x${ESC}`], 2],
    [['show', `${UID}/nope${ESC}`], 2],
    [['diff', 'lkg'], 0],
    [['reset', 'all', '--dry-run'], 0],
    [['rollback', '--dry-run'], 0],
    [['reset', 'assigned', '--dry-run', '--to', `${UID}/${RV1}`], 0],
    [['undo', '--dry-run'], 4],
    [['prune'], 0],
  ];
  for (const [args, code] of runs) {
    const r = runCli(['--dir', dir, ...args]);
    const name = args.join(' ').replace(UNSAFE, '?');
    t.equal(r.code, code, `${name}: exit code (${r.stderr})`);
    t.notMatch(r.stdout, UNSAFE, `${name}: stdout has no control or bidi characters`);
    t.notMatch(r.stderr, UNSAFE, `${name}: stderr has no control or bidi characters`);
    t.notMatch(r.stdout, /^ok: no problems found$/m, `${name}: no fake "ok" line`);
    t.notMatch(r.stdout, /^[^ \n]*pwned/m, `${name}: no line starts with the hostile text`);
  }
  const ls = runCli(['--dir', dir, 'ls']);
  t.match(ls.stdout, ` L  ${UID} 1\\x0aok: no problems found `);
  t.match(ls.stdout, `A B ${UID} 2\\x1b]0;pwned\\x07\\x1b[31m\\u202e `);
});

t.test('JSON keeps the names exactly', async (t) => {
  const dir = hostileStore(t.testdir({}));
  const ls = json<{ checkpoints: { resourceVersion: string }[] }>(runCli(['--dir', dir, 'ls', '-o', 'json']));
  t.strictSame(ls.checkpoints.map((c) => c.resourceVersion), [RV1, RV2]);
  const st = json<{ assigned: { name: string } }>(runCli(['--dir', dir, 'status', '--no-journal', '-o', 'json']));
  t.equal(st.assigned.name, `cfg${ESC}`);
  const err = runCli(['--dir', dir, 'show', `x${ESC}`, '-o', 'json']);
  t.equal((JSON.parse(err.stderr) as { error: { message: string } }).error.message, `unknown ref "x${ESC}": no checkpoint UID starts with "x${ESC}"`);
});

t.test('diff: a history and the not-comparable fallback are escaped also when piped; only a pair\'s -u diff is an exact patch', async (t) => {
  const dir = t.testdir({});
  const U = 'bbbb2222-0000-4000-8000-00000000000b';
  const base = `${PAYLOAD}`;
  const evil = `${PAYLOAD}# c \x1b[31m red \r\n\x1b]0;pwned\x07\n`;
  for (const [rv, text] of [['1', base], ['2', evil]] as const) {
    fs.mkdirSync(path.join(dir, 'store/checkpoints', U, rv), { recursive: true });
    fs.writeFileSync(path.join(dir, 'store/checkpoints', U, rv, 'kubelet'), text);
  }
  fs.mkdirSync(path.join(dir, 'store/meta'));
  const raw = /\x1b|\x07|\r/;
  for (const args of [['diff', U], ['diff', U, '-u']]) {
    const r = runCli(['--dir', dir, ...args]);
    t.notMatch(r.stdout, raw, `${args.join(' ')}: nothing raw reaches a pipe`);
    t.match(r.stdout, /\\x1b\[31m/, `${args.join(' ')}: shown escaped`);
  }
  // Not comparable field by field (one side does not decode): the fallback under our headings.
  fs.writeFileSync(path.join(dir, 'store/checkpoints', U, '1', 'kubelet'), 'kind: [\n');
  const pair = runCli(['--dir', dir, 'diff', `${U}/1`, `${U}/2`]);
  t.notMatch(pair.stdout, raw, 'fallback: nothing raw');
  const patch = runCli(['--dir', dir, 'diff', `${U}/1`, `${U}/2`, '-u']);
  t.match(patch.stdout, /\x1b\[31m/, '-u on a pair, piped: the exact bytes (a patch)');
});
