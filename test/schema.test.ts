// Every JSON/YAML document names its kind and matches schema/<kind>.json, checked against the
// real output of the built CLI (issue 13 item 5).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { SpawnSyncOptions } from 'node:child_process';
import { copyFixture, repoRoot, runCli, tempDir } from './helpers.js';
import { unknownKeywords, validate, type Schema } from './json-schema.js';
import { KINDS } from '../lib/output/document.js';

const SCHEMAS = path.join(repoRoot, 'schema');
const schemaOf = (kind: string) => JSON.parse(fs.readFileSync(path.join(SCHEMAS, `${kind}.json`), 'utf8')) as Schema;
const DEMO = path.join(repoRoot, 'fixtures/demo/var/lib/kubelet/dynamic-config');
const STORES = path.join(repoRoot, 'fixtures/stores');
const JOURNAL = path.join(repoRoot, 'fixtures/journals/structured-1.22.short.log');
const KUBEADM = path.join(repoRoot, 'fixtures/migrate/kubeadm');

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

/**
 * Each command's real output: [args, exit code, stream, spawn options]. `work` is a copy of the
 * demo store, `node` a copy of the kubeadm node (migrated, then undone), `reports` a directory
 * of two NodeReports. `journal -f` follows until the timeout's SIGTERM ends it (exit 0): one
 * document per event.
 */
function cases(work: string, node: string, reports: string): [string[], number, 'stdout' | 'stderr', SpawnSyncOptions?][] {
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
    [['--dir', DEMO, 'journal', '--file', JOURNAL], 1, 'stdout'], // the fixture's crash loop: exit 1 (man kubelet-ckpt-journal)
    [['--dir', work, 'rollback', '--dry-run'], 0, 'stdout'],
    [['--dir', work, 'prune'], 0, 'stdout'],
    [['--dir', work, 'reset', 'all', '--yes'], 0, 'stdout'],
    [['--dir', work, 'undo', '--list'], 0, 'stdout'],
    [['--root', KUBEADM, 'export'], 0, 'stdout'],
    [['--root', KUBEADM, 'migrate', '--dry-run'], 4, 'stdout'],
    [['--root', node, 'migrate', '--force', '--yes'], 0, 'stdout'],
    [['--root', node, 'undo', '--yes'], 0, 'stdout'],
    [['--root', KUBEADM, 'upgrade-check'], 1, 'stdout'],
    [['--root', KUBEADM, 'report', '--no-journal'], 0, 'stdout'],
    [['report', 'merge', reports], 0, 'stdout'],
    [['--dir', DEMO, 'journal', '-f', '-n', '3', '--file', JOURNAL], 0, 'stdout', { timeout: 5000, killSignal: 'SIGTERM' }],
    [['--dir', DEMO, 'show', 'lkgg'], 2, 'stderr'],
    [['--dir', '/nonexistent', 'status'], 3, 'stderr'],
  ];
}

for (const format of ['json', 'yaml'] as const) {
  t.test(`real ${format} output matches the schema of its kind`, async (t) => {
    const work = copyFixture('demo/var/lib/kubelet/dynamic-config');
    const node = copyFixture('migrate/kubeadm');
    const reports = tempDir();
    for (const [name, root] of [['a', KUBEADM], ['b', path.join(repoRoot, 'fixtures/demo')]] as const) {
      const r = runCli(['--root', root, 'report', '--no-journal', '--node-name', name]);
      t.equal(r.code, 0, `report of ${name}`);
      fs.writeFileSync(path.join(reports, `${name}.json`), r.stdout);
    }
    const seen = new Set<string>();
    for (const [args, code, stream, opts] of cases(work, node, reports)) {
      const r = runCli([...args, '-o', format], opts);
      t.equal(r.code, code, `${args.join(' ')} (${r.stderr.slice(0, 200)})`);
      const text = r[stream];
      const docs = (opts ? (format === 'json' ? text.trim().split('\n').map((l) => JSON.parse(l)) : yaml.loadAll(text)) : [format === 'json' ? JSON.parse(text) : yaml.load(text)]) as { apiVersion: string; kind: string }[];
      if (opts) t.equal(docs.length, 3, `${args.join(' ')}: one document per event`);
      for (const doc of docs) {
        t.equal(doc.apiVersion, 'kubelet-ckpt/v1', args.join(' '));
        seen.add(doc.kind);
        t.strictSame(validate(doc, schemaOf(doc.kind)), [], `${args.join(' ')}: a valid ${doc.kind}`);
      }
    }
    t.strictSame([...seen].sort(), [...KINDS].sort(), 'every kind was seen');
  });
}
