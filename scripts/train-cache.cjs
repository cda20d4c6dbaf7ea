// Build step: run the bundled program once (kubelet-ckpt status on a fixture store) inside
// a vm.Script, then save V8's code cache, which by then holds every function that run
// compiled. Usage: node scripts/train-cache.cjs PROGRAM.js CACHE_OUT FILENAME -- ARGS...
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');

const [programFile, cacheOut, filename] = process.argv.slice(2, 5);
const args = process.argv.slice(process.argv.indexOf('--') + 1);
const script = new vm.Script(fs.readFileSync(programFile, 'utf8'), { filename });
process.argv = [process.argv[0], filename, ...args];
process.on('exit', () => fs.writeFileSync(cacheOut, script.createCachedData()));
const mod = { exports: {} };
script.runInThisContext()(mod.exports, createRequire(filename), mod, filename, path.dirname(filename));
