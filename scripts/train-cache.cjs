// Build step: run the bundled program inside a vm.Script, once per argument list (the first
// as the program starts, the others through its exported main() one after the other), then
// save V8's code cache, which by then holds every function those runs compiled.
// Usage: node scripts/train-cache.cjs PROGRAM.js CACHE_OUT FILENAME -- ARGS... [-- ARGS...]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');

const [programFile, cacheOut, filename] = process.argv.slice(2, 5);
const runs = [];
for (const a of process.argv.slice(process.argv.indexOf('--'))) {
  if (a === '--') runs.push([]);
  else runs.at(-1).push(a);
}
const script = new vm.Script(fs.readFileSync(programFile, 'utf8'), { filename });
process.argv = [process.argv[0], filename, ...runs[0]];
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(filename), mod, filename, path.dirname(filename));
// The first run starts as the program loads; the others follow it one at a time.
process.once('beforeExit', async () => {
  for (const run of runs.slice(1)) await mod.exports.main(run);
});
process.on('exit', () => {
  process.exitCode = 0;
  fs.writeFileSync(cacheOut, script.createCachedData());
});
