// Dependency direction (STYLE.md): cmd/ → lib/; only lib/tui imports blessed; lib/ never
// imports yargs or cmd/, never prints, exits or reads process.argv.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers.js';

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const lib = files(path.join(repoRoot, 'lib'));
for (const f of lib) {
  const rel = path.relative(repoRoot, f);
  const src = fs.readFileSync(f, 'utf8');
  const imports = [...src.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  t.test(rel, async (t) => {
    t.notOk(imports.some((i) => i === 'yargs' || i.startsWith('yargs/')), 'no yargs');
    t.notOk(imports.some((i) => i.includes('/cmd/') || i.startsWith('../cmd') || i.startsWith('../../cmd')), 'no cmd/');
    if (!rel.startsWith('lib/tui/')) {
      t.notOk(imports.includes('blessed'), 'blessed only in lib/tui');
      t.notMatch(src, /console\.(log|error|warn|info)\(|process\.exit\(|process\.argv/, 'never prints, exits or reads argv');
    }
  });
}
