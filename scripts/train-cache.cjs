// Build step: run the bundled program inside a vm.Script, once per argument list (the first
// as the program starts, the others through its exported main() one after the other), then
// save V8's code cache, which by then holds every function those runs compiled.
// A command may set V8 flags as it runs (journal tunes the heap): V8 stamps a code cache with a
// hash of the flags in force when it is made and rejects it under other flags, so every flag a
// run set is put back to its default first, and the cache matches a fresh start.
// Usage: node scripts/train-cache.cjs PROGRAM.js CACHE_OUT FILENAME -- ARGS... [-- ARGS...]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const v8 = require('node:v8');
const { execFileSync } = require('node:child_process');
const { createRequire } = require('node:module');

const [programFile, cacheOut, filename] = process.argv.slice(2, 5);
const runs = [];
for (const a of process.argv.slice(process.argv.indexOf('--'))) {
  if (a === '--') runs.push([]);
  else runs.at(-1).push(a);
}
/** Flags the program sets while training, by name (`--semi-space-growth-factor`). */
const flagsSet = new Set();
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  for (const f of flags.split(/\s+/)) if (f) flagsSet.add(f.replace(/=.*$/, '').replace(/^--no-/, '--'));
  return setFlags(flags);
};

/** Each flag set back to the default this Node reports (`node --v8-options`). */
function restoreFlags() {
  if (flagsSet.size === 0) return;
  const help = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8', maxBuffer: 1 << 24 });
  for (const flag of flagsSet) {
    const name = flag.slice(2).replace(/[-_]/g, '[-_]');
    const m = new RegExp(`default: (--${name}=\\S+|--${name}|--no-${name})(?=\\s|$)`, 'm').exec(help);
    if (!m) throw new Error(`train-cache: no default for ${flag} in node --v8-options`);
    setFlags(m[1]);
  }
}

const script = new vm.Script(fs.readFileSync(programFile, 'utf8'), { filename });
process.argv = [process.argv[0], filename, ...runs[0]];
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(filename), mod, filename, path.dirname(filename));
// The first run starts as the program loads; the others follow it one at a time.
// Then the process ends, even if a run left something open (the TUI's terminal, a watcher).
process.once('beforeExit', async () => {
  for (const run of runs.slice(1)) await mod.exports.main(run);
  process.exit();
});
process.on('exit', () => {
  process.exitCode = 0;
  restoreFlags();
  fs.writeFileSync(cacheOut, script.createCachedData());
});
