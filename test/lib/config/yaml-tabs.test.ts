// libyaml's tab rules (lib/config/yaml-tabs.ts), held to libyaml itself: each expectation
// below is what libyaml 0.2.5 (PyYAML's CSafeLoader) says of the same text, and when
// python3 with PyYAML's C loader is on the machine, random documents are compared too.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { libyamlTabError, scannerErrorText as tabErrorText } from '../../../lib/config/yaml-tabs.js';
import { parseYamlDocument } from '../../../lib/config/yaml.js';

const H = 'apiVersion: v1\nkind: K\n';
const CANNOT = 'found character that cannot start any token';
const VIOLATES = 'found a tab character that violates indentation';
const cases: [string, [string, number] | null][] = [
  ['maxPods: 10\n\t\nport: 10250\n', [VIOLATES, 3]],
  ['maxPods: 10\n  \t\nport: 10250\n', null],
  ['maxPods: "10"\n  \t\nport: 10250\n', [CANNOT, 3]],
  ['maxPods: 10 # c\n  \t\nport: 10250\n', [CANNOT, 3]],
  ['clusterDNS:\n- \t10.0.0.1\n', [CANNOT, 3]],
  ['clusterDNS:\n-\t10.0.0.1\n', [CANNOT, 3]],
  ['clusterDNS:\n  - 10.0.0.1\n\t\n', [VIOLATES, 4]],
  ['maxPods:\t10\nport: \t10250 \t# c\n', null],
  ['a:\n  b: 1\n\t# c\n', [VIOLATES, 4]],
  ['a:\n  b: x\n \t\n  c: y\n', [VIOLATES, 4]],
  ['a:\n  b: x\n  \t\n  c: y\n', [VIOLATES, 4]],
  ['a:\n  - x\n \t\n  - y\n', [VIOLATES, 4]],
  ['a:\n  x\n\t\n', [VIOLATES, 4]],
  ['\t\n', [VIOLATES, 2]],
  ['a: first\n  more\n\t\n', [VIOLATES, 4]],
];

t.test('each case as libyaml decides it', async (t) => {
  for (const [body, want] of cases) {
    const got = libyamlTabError(H + body);
    t.same(got && [got.problem, got.line], want, JSON.stringify(body));
  }
});

t.test('what the kubelet is told: go-yaml\'s text, also through the whole parse', async (t) => {
  t.equal(tabErrorText({ line: 3, problem: VIOLATES }), `yaml: line 4: ${VIOLATES}`);
  t.equal(tabErrorText({ line: 0, problem: CANNOT }), `yaml: ${CANNOT}`, 'no line on the first line, as go-yaml prints it');
  t.same(parseYamlDocument(Buffer.from(`${H}maxPods: 10\n\t\nport: 10250\n`)), { ok: false, error: `yaml: line 4: ${VIOLATES}` });
  t.same(parseYamlDocument(Buffer.from(`${H}clusterDNS:\n- \t10.0.0.1\n`)), { ok: false, error: `yaml: line 4: ${CANNOT}` });
  t.equal(parseYamlDocument(Buffer.from(`${H}maxPods:\t10\n`)).ok, true, 'a tab after a key is a blank');
});

t.test('no opinion on what it does not model', async (t) => {
  for (const body of ['a: [1,\n\t2]\n', 'a: |\n  x\n\t\n', 'a: "x\n\ty"\n', 'a: &x 1\n\t\n', '? a\n: 1\n\t\n', 'a: 1\r\t\r']) t.equal(libyamlTabError(H + body), null, JSON.stringify(body));
  t.equal(libyamlTabError(`${H}a: 1\n`), null, 'no tab: nothing to look at');
});

const hasLibyaml = spawnSync('python3', ['-c', 'import yaml; yaml.CSafeLoader'], { stdio: 'ignore' }).status === 0;

t.test('random block documents agree with libyaml', { skip: !hasLibyaml && 'python3 with PyYAML (libyaml) is not installed' }, async (t) => {
  let seed = 20261127;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const sep = () => (rnd() < 0.1 ? pick(['\t', ' \t', '\t ']) : ' ');
  const blank = () => pick(['', ' ', '  ', '    ']) + (rnd() < 0.5 ? pick(['\t', ' \t', '\t ', '  \t']) : '') + (rnd() < 0.2 ? '# c' : '');
  const scalar = (ind: number): string[] => {
    const r = rnd();
    if (r < 0.5) return [pick(['1', 'abc', 'a b', '10s'])];
    if (r < 0.65) return [pick(['"q"', "'s'"])];
    if (r < 0.75) return [pick(['v # c', 'w\t# c'])];
    return ['first', ...Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ' '.repeat(ind + 1 + Math.floor(rnd() * 3)) + 'more')];
  };
  const mapping = (ind: number, depth: number, lines: string[]): void => {
    for (let k = 0, n = 1 + Math.floor(rnd() * 3); k < n; k++) {
      if (rnd() < 0.25) lines.push(blank());
      const key = `${' '.repeat(ind)}k${depth}${k}:`;
      const r = rnd();
      if (depth < 3 && r < 0.25) {
        lines.push(key);
        mapping(ind + 2, depth + 1, lines);
      } else if (depth < 3 && r < 0.45) {
        lines.push(key);
        const si = rnd() < 0.5 ? ind : ind + 2;
        for (let j = 0, m = 1 + Math.floor(rnd() * 3); j < m; j++) {
          if (rnd() < 0.25) lines.push(blank());
          const s = scalar(si);
          lines.push(`${' '.repeat(si)}-${rnd() < 0.1 ? pick(['\t', ' \t']) : ' '}${s[0]}`, ...s.slice(1));
        }
      } else {
        const s = scalar(ind);
        lines.push(key + sep() + s[0], ...s.slice(1));
      }
    }
  };
  const docs: string[] = [];
  while (docs.length < 400) {
    const lines: string[] = [];
    mapping(0, 0, lines);
    if (rnd() < 0.3) lines.push(blank());
    const d = `${lines.join('\n')}\n`;
    if (d.includes('\t')) docs.push(d);
  }
  const py = 'import yaml, json, sys\nout = []\nfor d in json.load(sys.stdin):\n    try:\n        yaml.load(d, Loader=yaml.CSafeLoader); out.append(None)\n    except yaml.MarkedYAMLError as e:\n        out.append([e.problem, e.problem_mark.line])\nprint(json.dumps(out))';
  const lib = JSON.parse(execFileSync('python3', ['-c', py], { input: JSON.stringify(docs) }).toString()) as ([string, number] | null)[];
  let errors = 0;
  docs.forEach((d, i) => {
    const got = libyamlTabError(d);
    if (lib[i]) errors++;
    if (!t.same(got && [got.problem, got.line], lib[i], JSON.stringify(d))) t.bailout();
  });
  t.ok(errors > 100 && errors < 350, `both kinds of document occur (${errors} refused of ${docs.length})`);
});
