// Every JSON/YAML document names its kind and matches schema/<kind>.json, checked against the
// real output of the built CLI (issue 13 item 5).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { copyFixture, repoRoot, runCli } from './helpers.js';
import { unknownKeywords, validate, type Schema } from './json-schema.js';
import { KINDS } from '../lib/output/document.js';

const SCHEMAS = path.join(repoRoot, 'schema');
const schemaOf = (kind: string) => JSON.parse(fs.readFileSync(path.join(SCHEMAS, `${kind}.json`), 'utf8')) as Schema;
const DEMO = path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config');
const STORES = path.join(repoRoot, 'fixtures/stores');
const JOURNAL = path.join(repoRoot, 'fixtures/journals/structured-1.22.short.log');

t.test('a schema per kind, shipped with the package, using only keywords the validator knows', async (t) => {
  const files = fs.readdirSync(SCHEMAS);
  for (const k of KINDS) t.ok(files.includes(`${k}.json`), `schema/${k}.json`);
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { files: string[] };
  t.ok(pkg.files.includes('schema/'), 'package.json files has schema/');
  for (const k of KINDS) {
    const s = schemaOf(k);
    t.strictSame(unknownKeywords(s), [], k);
    t.strictSame((s.properties ?? {}).kind, { const: k }, `${k} names its kind`);
  }
});

t.test('the validator rejects what it should', async (t) => {
  const s = schemaOf('VerifyReport');
  t.strictSame(validate({ apiVersion: 'kubelet-ckpt/v1', kind: 'VerifyReport', ok: true, findings: [] }, s), []);
  t.match(validate({ apiVersion: 'kubelet-ckpt/v1', kind: 'VerifyReport', ok: 'yes', findings: [{ severity: 'bad' }] }, s), [/\$\.ok: "yes" is not boolean/, /\$\.findings\[0\]: missing code/]);
  t.strictSame(validate({ kind: 'StatusReport' }, s), ['$: missing apiVersion', '$: missing ok', '$: missing findings', '$.kind: not "VerifyReport"']);
});

/** Each command's real output: [args, exit code]. */
function cases(work: string): [string[], number, 'stdout' | 'stderr'][] {
  return [
    [['--dir', DEMO, 'status', '--no-journal'], 0, 'stdout'],
    [['--dir', path.join(STORES, 'corrupt'), 'status'], 1, 'stdout'],
    [['--dir', DEMO, 'ls'], 0, 'stdout'],
    [['--dir', path.join(STORES, 'corrupt'), 'verify'], 1, 'stdout'],
    [['--dir', DEMO, 'verify', 'lkg', path.join(repoRoot, 'fixtures/local/config.yaml')], 0, 'stdout'],
    [['--dir', DEMO, 'show', 'assigned'], 0, 'stdout'],
    [['--dir', DEMO, 'show', 'lkg', '--field', 'maxPods'], 0, 'stdout'],
    [['--dir', DEMO, 'show', 'lkg', 'meta/assigned'], 0, 'stdout'],
    [['--dir', DEMO, 'diff', 'lkg'], 1, 'stdout'],
    [['--dir', DEMO, 'diff', '5808539f'], 1, 'stdout'],
    [['--dir', DEMO, 'journal', '--file', JOURNAL], 1, 'stdout'], // this journal holds a crash loop: a finding
    [['--dir', work, 'rollback', '--dry-run'], 0, 'stdout'],
    [['--dir', work, 'prune'], 0, 'stdout'],
    [['--dir', work, 'reset', 'all', '--yes'], 0, 'stdout'],
    [['--dir', work, 'undo', '--list'], 0, 'stdout'],
    [['--dir', DEMO, 'show', 'lkgg'], 2, 'stderr'],
    [['--dir', '/nonexistent', 'status'], 3, 'stderr'],
  ];
}

for (const format of ['json', 'yaml'] as const) {
  t.test(`real ${format} output matches the schema of its kind`, async (t) => {
    const work = copyFixture('demo/var/lib/kubelet/dynamic-config');
    const seen = new Set<string>();
    for (const [args, code, stream] of cases(work)) {
      const r = runCli([...args, '-o', format]);
      t.equal(r.code, code, `${args.join(' ')} (${r.stderr.slice(0, 200)})`);
      const doc = (format === 'json' ? JSON.parse(r[stream]) : yaml.load(r[stream])) as { apiVersion: string; kind: string };
      t.equal(doc.apiVersion, 'kubelet-ckpt/v1', args.join(' '));
      seen.add(doc.kind);
      t.strictSame(validate(doc, schemaOf(doc.kind)), [], `${args.join(' ')}: a valid ${doc.kind}`);
    }
    t.strictSame([...seen].sort(), [...KINDS].sort(), 'every kind was seen');
  });
}
