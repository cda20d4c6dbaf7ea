// int64 fields past 2^53 (maxOpenFiles, podPidsLimit) are carried exactly: an export writes the
// very digits the checkpoint holds (rounded, 9223372036854775807 became 9223372036854776000,
// past int64: the exported file was one the kubelet cannot decode), diff sees a difference
// in the last digit, and JSON/YAML output print the number as it is.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { json, metaYaml, runCli, tempDir, writeTree, GOOD_PAYLOAD } from '../helpers.js';

const UID = '6a1c0ffe-0000-4000-8000-000000000064';
const BIG = `${GOOD_PAYLOAD}maxOpenFiles: 9007199254740993\npodPidsLimit: 9223372036854775807\n`;

function store(payloads: Record<string, string>): string {
  const dcd = tempDir('kckpt-int64-');
  const files: Record<string, string> = { 'store/meta/assigned': metaYaml({ uid: UID, rv: Object.keys(payloads)[0]! }) };
  for (const [rv, text] of Object.entries(payloads)) files[`store/checkpoints/${UID}/${rv}/kubelet`] = text;
  writeTree(dcd, files);
  return dcd;
}

t.test('export writes the exact digits, and the file it writes loads', async (t) => {
  const dcd = store({ '10': BIG });
  const out = path.join(tempDir('kckpt-int64-out-'), 'config.yaml');
  const r = runCli(['--dir', dcd, 'export', 'assigned', '--out', out]);
  t.equal(r.code, 0, r.stderr);
  const text = fs.readFileSync(out, 'utf8');
  t.match(text, /^maxOpenFiles: 9007199254740993$/m);
  t.match(text, /^podPidsLimit: 9223372036854775807$/m);
  const v = runCli(['--dir', dcd, 'verify', out, '-o', 'json']);
  t.equal(v.code, 0, `the exported file loads: ${v.stdout}`);
  t.same(json(v).findings, []);
  const j = runCli(['--dir', dcd, 'export', 'assigned', '--effective', '-o', 'json']);
  t.match(j.stdout, /"maxOpenFiles": 9007199254740993,/);
  t.match(j.stdout, /"podPidsLimit": 9223372036854775807,/);
  const y = runCli(['--dir', dcd, 'export', 'assigned', '-o', 'yaml']);
  t.match(y.stdout, /^ {2}podPidsLimit: 9223372036854775807$/m, 'YAML output: a number, not a string');
});

t.test('a flag past 2^53 overrides exactly, in the comment and in JSON', async (t) => {
  const dcd = store({ '10': BIG });
  const r = runCli(['--dir', dcd, '--kubelet-flags=--max-open-files=9007199254740995', 'export', 'assigned', '--effective', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /"value": 9007199254740995\b/);
  t.match(json<{ text: string }>(r).text, /runs with 9007199254740995\n/);
});

t.test('validation names the exact value (Go prints %d)', async (t) => {
  const dcd = store({ '10': `${GOOD_PAYLOAD}maxOpenFiles: -9223372036854775808\n` });
  const r = runCli(['--dir', dcd, 'verify', '-o', 'json']);
  t.equal(r.code, 1);
  t.match(r.stdout, /maxOpenFiles \(--max-open-files\) -9223372036854775808 must not be a negative number/);
});

t.test('diff: a change in the last digit of a 2^53+ integer is a change', async (t) => {
  const dcd = store({ '10': BIG, '11': BIG.replace('9007199254740993', '9007199254740992') });
  const r = runCli(['--dir', dcd, 'diff', `${UID}/10`, `${UID}/11`, '-o', 'json']);
  t.equal(r.code, 1, 'they differ');
  t.match(r.stdout, /"from": 9007199254740993,\s+"to": 9007199254740992\b/);
  const same = runCli(['--dir', dcd, 'diff', `${UID}/10`, `${UID}/10`, '-q']);
  t.equal(same.code, 0);
  const f = runCli(['--dir', dcd, 'show', `${UID}/10`, '--field', 'podPidsLimit']);
  t.equal(f.stdout, '9223372036854775807\n');
});

t.test('a payload string that looks like the bigint marker stays a string', async (t) => {
  const dcd = store({ '10': `${GOOD_PAYLOAD}providerID: "kckpt-int-0000000000-12"\n` });
  const r = runCli(['--dir', dcd, 'export', 'assigned', '-o', 'json']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /"providerID": "kckpt-int-0000000000-12"/);
});
