#!/usr/bin/env node
// `npm run bench`: every benchmark under test/bench/, one after the other.
//   npm run bench -- --smoke    small sizes, for CI
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = path.dirname(new URL(import.meta.url).pathname);
const smoke = process.argv.includes('--smoke');
const benches = fs.readdirSync(dir).filter((f) => f.endsWith('.mjs') && f !== 'run.mjs').sort();
let failed = 0;
for (const b of benches) {
  const args = [path.join(dir, b), ...(smoke ? ['--smoke'] : [])];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
