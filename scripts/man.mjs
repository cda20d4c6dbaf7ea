#!/usr/bin/env node
// man/*.md (the source) → man/*.1 (roff) with marked-man, deterministic.
//   node scripts/man.mjs           regenerate
//   node scripts/man.mjs --check   fail when a committed .1 is out of date
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(new URL('..', import.meta.url).pathname);
const manDir = path.join(root, 'man');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const bin = path.join(root, 'node_modules', 'marked-man', 'bin', 'marked-man.js');
const check = process.argv.includes('--check');
let stale = 0;
for (const md of fs.readdirSync(manDir).filter((f) => f.endsWith('.md')).sort()) {
  let roff = execFileSync(process.execPath, [bin, '--version', `kubelet-ckpt ${pkg.version}`, '--manual', 'kubelet-ckpt manual', '--no-breaks', path.join(manDir, md)], {
    encoding: 'utf8',
    env: { ...process.env, SOURCE_DATE_EPOCH: '1795305600' },
  });
  // marked-man leaves HTML entities of inline code in the roff; man shows them raw.
  roff = roff.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const out = path.join(manDir, md.replace(/\.md$/, '.1'));
  if (check) {
    if (!fs.existsSync(out) || fs.readFileSync(out, 'utf8') !== roff) {
      console.error(`out of date: man/${path.basename(out)} (run npm run man)`);
      stale++;
    }
  } else fs.writeFileSync(out, roff);
}
// package.json's "man" lists every page, so `man kubelet-ckpt` works after a global install.
const pages = fs.readdirSync(manDir).filter((f) => /\.\d$/.test(f)).sort().map((f) => `man/${f}`);
if (JSON.stringify(pkg.man) !== JSON.stringify(pages)) {
  if (check) {
    console.error('out of date: the "man" field of package.json (run npm run man)');
    stale++;
  } else {
    fs.writeFileSync(path.join(root, 'package.json'), `${JSON.stringify({ ...pkg, man: pages }, null, 2)}\n`);
  }
}
process.exitCode = stale ? 1 : 0;
