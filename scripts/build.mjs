// Build: type-check and compile the tree to build/, then bundle cmd/main.ts into one
// file (dist/kubelet-ckpt.cjs) that runs with plain `node`.
import { execFileSync, spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { stdio: 'inherit' });

/**
 * yargs' help renderer (cliui) pulls in string-width and wrap-ansi, which build an
 * Intl.Segmenter and huge Unicode-property regexes when they load: a third of our
 * start-up, for help text that `status` never prints. Route every import of them
 * through a shim that require()s the real module on first call; esbuild then wraps the
 * real module in a lazy initialiser instead of running it at start-up.
 */
const LAZY = ['string-width', 'wrap-ansi'];
const lazyHelpDeps = {
  name: 'lazy-help-deps',
  setup(b) {
    const filter = new RegExp(`^(${LAZY.join('|')})$`);
    b.onResolve({ filter }, async (args) => {
      if (args.pluginData?.real) return undefined;
      const real = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { real: true } });
      if (real.errors.length) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-shim' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-shim' }, (args) => ({
      contents: [
        'let m;',
        `const load = () => (m ??= require(${JSON.stringify(args.path)}));`,
        // string-width walks a string with an Intl.Segmenter and tests each character against
        // emoji and Unicode-property regexes: building ICU's break iterator and that walk were
        // most of a --help (~800 M instructions). Our help text is printable ASCII, where every
        // character is one column wide (no control, combining, wide or emoji character, no
        // escape sequence), so such a string's width is its length; anything else asks the real
        // module. wrap-ansi reaches string-width through this shim too.
        /[\\/]string-width[\\/]/.test(args.path)
          ? 'const ascii = /^[\\x20-\\x7e]*$/;\nexport default function lazy(s, o) { return typeof s === "string" && ascii.test(s) ? s.length : load().default(s, o); }'
          : 'export default function lazy(...a) { return load().default(...a); }',
        '',
      ].join('\n'),
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * yargs and blessed import node:assert (13 M instructions to load, ~8% of a `status`) for
 * invariant checks they make on every run. Hand them checks that behave the same (assert's
 * strictEqual is Object.is; equal is ==, or both NaN) and load the real module only to throw.
 */
const cheapAssert = {
  name: 'cheap-assert-for-yargs',
  setup(b) {
    // Likewise node:module (with the ESM loader and source maps behind it): yargs and its parser
    // make a require() at load for config files we never ask them to read.
    b.onResolve({ filter: /^node:module$/ }, (args) => (/[\\/]node_modules[\\/]yargs[\\/]/.test(args.importer) ? { path: 'module', namespace: 'cheap-assert' } : undefined));
    // blessed's terminfo parser and Element (the TUI) check invariants with assert(), .ok and .equal.
    b.onResolve({ filter: /^assert$/ }, (args) => (/[\\/]node_modules[\\/](yargs|blessed)[\\/]/.test(args.importer) ? { path: 'assert', namespace: 'cheap-assert' } : undefined));
    b.onLoad({ filter: /^module$/, namespace: 'cheap-assert' }, () => ({
      contents: [
        'export function createRequire(from) {',
        "  let real;",
        "  const get = () => (real ??= require('node:module').createRequire(from));",
        '  const lazy = (id) => get()(id);',
        '  lazy.resolve = (id, o) => get().resolve(id, o);',
        '  return lazy;',
        '}',
      ].join('\n'),
      loader: 'js',
    }));
    // Each check that might fail hands its arguments to the real assert, which decides and throws.
    b.onLoad({ filter: /^assert$/, namespace: 'cheap-assert' }, () => ({
      contents: [
        "const real = () => require('node:assert');",
        'function assert(v, m) { if (!v) real()(v, m); }',
        'assert.ok = assert;',
        'assert.equal = (a, b, m) => { if (a != b) real().equal(a, b, m); };',
        'assert.strictEqual = (a, b, m) => { if (!Object.is(a, b)) real().strictEqual(a, b, m); };',
        'assert.notStrictEqual = (a, b, m) => { if (Object.is(a, b)) real().notStrictEqual(a, b, m); };',
        'module.exports = assert;',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * Text replacements in dependencies, for what they do at load or start that our commands pay
 * for and never use. Each must find its text, so an upgrade that moves it fails the build.
 * yargs:
 * - yargs() starts every parser with `.version()`, which guesses the version from a package.json
 *   above the working directory: a walk up the tree and, when there is none (a node), a thrown
 *   assertion with its stack formatted (25 M instructions). cmd/main.ts sets the version itself
 *   (KUBELET_CKPT_VERSION below), so the factory starts with no version option instead.
 * - its platform shim reads process.stdout.columns at load, which builds process.stdout (the
 *   stream modules, and net for a pipe); it becomes a getter, read only if help is wrapped to it.
 * blessed (the TUI's first screen, issue 16):
 * - Program asks `tmux -V` for its version whenever $TMUX is set, a child process at start-up
 *   (~8 ms) for a number read only by two rarely used escapes; it is asked when first read.
 * - Tput compiles every string capability of the terminal (about 400 for xterm-256color) into a
 *   function with `new Function` at start-up (~20 ms) and the TUI uses a few dozen; each is
 *   compiled when first called instead (same code, same result; an unparsable capability of
 *   some broken terminfo entry now throws when used, not at start).
 */
const SOURCE_PATCHES = [
  { file: /[\\/]node_modules[\\/]yargs[\\/]build[\\/]lib[\\/]yargs-factory\.js$/, from: 'yargs.version();', to: 'yargs.version(false);' },
  {
    file: /[\\/]node_modules[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/,
    from: "stdColumns: typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null",
    to: "get stdColumns() { return typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null; }",
  },
  {
    file: /[\\/]node_modules[\\/]blessed[\\/]lib[\\/]program\.js$/,
    from: '  this.tmuxVersion = (function() {\n    if (!self.tmux) return 2;',
    to: "  var tmuxVersion;\n  Object.defineProperty(this, 'tmuxVersion', { configurable: true, enumerable: true, set: function(v) { tmuxVersion = v; }, get: function() { return tmuxVersion === undefined ? (tmuxVersion = askTmux()) : tmuxVersion; } });\n  function askTmux() {\n    if (!self.tmux) return 2;",
  },
  {
    file: /[\\/]node_modules[\\/]blessed[\\/]lib[\\/]program\.js$/,
    from: "      return 2;\n    }\n  })();\n\n  this._buf = '';",
    to: "      return 2;\n    }\n  }\n\n  this._buf = '';",
  },
  {
    file: /[\\/]node_modules[\\/]blessed[\\/]lib[\\/]tput\.js$/,
    from: '      info.methods[key] = self._compile(info, key, info.all[key]);',
    to: [
      "      var str = info.all[key];",
      "      info.methods[key] = typeof str === 'string' && str && !self.options.stringify && key !== 'init_file' && key !== 'reset_file'",
      '        ? (function() { var f; return function() { f = f || self._compile(info, key, str); return f.apply(this, arguments); }; })()',
      '        : self._compile(info, key, str);',
    ].join('\n'),
  },
];
const sourcePatches = {
  name: 'source-patches',
  setup(b) {
    // One onLoad per file (esbuild takes the first that answers), applying all of its patches.
    const files = [...new Set(SOURCE_PATCHES.map((p) => p.file.source))];
    for (const file of files) {
      b.onLoad({ filter: new RegExp(file) }, async (args) => {
        let text = await fs.promises.readFile(args.path, 'utf8');
        for (const p of SOURCE_PATCHES.filter((x) => x.file.source === file)) {
          if (!text.includes(p.from)) throw new Error(`build: ${args.path} no longer has ${JSON.stringify(p.from)}; revisit SOURCE_PATCHES`);
          text = text.replace(p.from, p.to);
        }
        return { contents: text, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    }
  },
};

/**
 * lib/config/js-yaml.ts is the one door to js-yaml; from source it is a plain import. In the
 * bundle it becomes a module that require()s js-yaml on the first call, so that esbuild wraps
 * js-yaml in a lazy initialiser: its schemas are built only by a run that reads YAML the fast
 * path leaves alone, prints -o yaml, or opens the TUI (about 1 ms less for every plain status).
 */
const lazyJsYaml = {
  name: 'lazy-js-yaml',
  setup(b) {
    b.onLoad({ filter: /[\\/]lib[\\/]config[\\/]js-yaml\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes('return jsYamlModule;')) throw new Error(`build: ${args.path} changed; revisit lazyJsYaml`);
      const real = await b.resolve('js-yaml', { kind: 'import-statement', resolveDir: path.dirname(args.path) });
      if (real.errors.length) return { errors: real.errors };
      return {
        contents: `let m;\nexport function jsYaml() { return (m ??= require(${JSON.stringify(real.path)})); }\n`,
        resolveDir: path.dirname(args.path),
        loader: 'js',
      };
    });
  },
};

/**
 * blessed (lib/tui only) loads its widgets with `require('./widgets/' + name)`, which a bundle
 * cannot follow. Replace blessed's lib/widget.js with a static map of the widgets the TUI
 * builds (Screen and Box) and those they need (Screen keeps a Log for debug output, a
 * scrollable Element becomes a ScrollableBox); loading the other twenty-odd at start-up was
 * ~15 ms of the TUI's first screen, and several need files of the blessed package (BigText's
 * fonts) or optional modules (Terminal: term.js, pty.js). They throw a clear error if anything
 * ever constructs one. (Terminfo is not read from blessed's usr/ folder either:
 * lib/tui/terminfo.ts hands blessed the bytes.)
 */
const BLESSED_WIDGETS = ['Node', 'Screen', 'Element', 'Box', 'ScrollableBox', 'ScrollableText', 'Log'];
const BLESSED_LEFT_OUT = ['Text', 'Line', 'BigText', 'List', 'Form', 'Input', 'Textarea', 'Textbox', 'Button', 'ProgressBar', 'FileManager', 'Checkbox', 'RadioSet', 'RadioButton', 'Prompt', 'Question', 'Message', 'Loading', 'Listbar', 'Table', 'ListTable', 'Terminal', 'Image', 'ANSIImage', 'OverlayImage', 'Video', 'Layout'];
const blessedStaticWidgets = {
  name: 'blessed-static-widgets',
  setup(b) {
    b.onLoad({ filter: /[\\/]blessed[\\/]lib[\\/]widget\.js$/ }, (args) => ({
      contents: [
        'var widget = exports;',
        `widget.classes = ${JSON.stringify([...BLESSED_WIDGETS, ...BLESSED_LEFT_OUT])};`,
        ...BLESSED_WIDGETS.map((n) => `widget.${n} = widget.${n.toLowerCase()} = require('./widgets/${n.toLowerCase()}');`),
        ...BLESSED_LEFT_OUT.map((n) => `widget.${n} = widget.${n.toLowerCase()} = function () { throw new Error('blessed.${n} is not part of the kubelet-ckpt single-file build'); };`),
        "widget.aliases = { ListBar: 'Listbar', PNG: 'ANSIImage' };",
        'Object.keys(widget.aliases).forEach(function (key) { var name = widget.aliases[key]; widget[key] = widget[name]; widget[key.toLowerCase()] = widget[name]; });',
      ].join('\n'),
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * esbuild turns each module's `import fs from 'node:fs'` into its own __toESM(require('node:fs')):
 * a fresh object with a getter for each of the hundred-odd names fs exports, once per importing
 * module (about thirty of them for fs). Route every import of a Node built-in through one small
 * ESM module per built-in that requires it once and exports its default and its plain data
 * properties (not accessors such as fs.promises, which would load fs/promises at start-up).
 */
/**
 * A built-in's plain data properties as a fresh Node has them. Some are lazy getters that turn
 * into data properties once read (fs.Dir, fs.opendir: reading one loads internal/fs/dir), and
 * this build process may already have read them; a child process that has read nothing tells.
 */
const pristine = new Map();
function pristineDataNames(id) {
  if (!pristine.has(id)) {
    const probe = `const d = Object.getOwnPropertyDescriptors(require(${JSON.stringify(id)})); process.stdout.write(JSON.stringify(Object.keys(d).filter((k) => 'value' in d[k])))`;
    const names = JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }));
    pristine.set(id, names.filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default'));
  }
  return pristine.get(id);
}

const builtinsOnce = {
  name: 'builtins-once',
  setup(b) {
    b.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
      if (args.namespace === 'builtin-once' || (args.kind !== 'import-statement' && args.kind !== 'dynamic-import')) return undefined;
      const id = args.path.replace(/^node:/, '');
      if (!builtinModules.includes(id)) return undefined;
      return { path: `node:${id}`, namespace: 'builtin-once' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin-once' }, (args) => {
      const names = pristineDataNames(args.path);
      return {
        contents: [`const m = require(${JSON.stringify(args.path)});`, 'export default m;', ...names.map((k) => `export const ${k} = m.${k};`)].join('\n'),
        loader: 'js',
      };
    });
  },
};

// CommonJS output: a module esbuild initialises lazily (everything behind an
// `await import()`) then also loads its Node built-ins lazily, where ESM output would
// hoist every `import 'node:zlib'` to start-up. import.meta.url is given its CJS value;
// dynamic import() becomes a lazy require (the program runs in a vm.Script, below).
const bundle = (entry) => build({
  entryPoints: [entry],
  outfile: 'dist/kubelet-ckpt.cjs',
  write: false,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  supported: { 'dynamic-import': false },
  minifySyntax: true,
  minifyWhitespace: true,
  // Short local names: V8 hashes and interns every name of the program's one top-level scope
  // when it loads the code cache (9 M instructions of a status, ~6%). A stack trace (-v on an
  // internal error) then names minified functions; its message and code are unchanged.
  // KUBELET_CKPT_READABLE_BUILD=1 keeps the names, for a readable --cpu-prof.
  minifyIdentifiers: !process.env.KUBELET_CKPT_READABLE_BUILD,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [builtinsOnce, lazyHelpDeps, lazyJsYaml, cheapAssert, sourcePatches, blessedStaticWidgets],
  // import.meta.url (read only by yargs' modules, which the fast path never loads) is worked out when read.
  define: { 'import.meta.url': '__ckptMeta.url', KUBELET_CKPT_VERSION: JSON.stringify(JSON.parse(fs.readFileSync('package.json', 'utf8')).version) },
  banner: { js: "var __ckptMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
});
const result = await bundle('cmd/main.ts');
const statusResult = await bundle('cmd/status-main.ts');
/**
 * Pure ASCII, so that V8 makes one-byte strings of it by copying, not decoding (a single
 * non-ASCII character, as esbuild leaves in regex literals, turns the whole megabyte into a
 * slowly decoded two-byte string: 16 M instructions in the SEA). esbuild (charset ascii)
 * escapes such characters everywhere but in regex literals, where \uXXXX means the same code
 * unit (a surrogate pair, in a /u regex, the same code point).
 */
const asciiOnly = (js) => js.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const wrap = (r) => `(function (exports, require, module, __filename, __dirname) {${asciiOnly(r.outputFiles[0].text)}\n})`;
const program = wrap(result);
const statusProgram = wrap(statusResult);

/**
 * Start-up is dominated by V8 compiling the program (and each function on its first
 * call). The single file therefore carries the program as a string plus V8's code cache
 * from training runs; vm.Script uses the cache when this Node's V8 accepts it (same version
 * and flags) and otherwise simply compiles. Nothing is written at run time.
 * Three caches of the whole program (a cache holds every function its training ran, and V8
 * deserialises all of it at start): one trained on `status` and the commands people type
 * next, ls, verify, show, diff and --help (the single executable's for every command but
 * status, journal and tui: it takes ~50 M instructions off show and diff, ~600 M off --help,
 * and adds ~10 M of deserialising); one on `status` and `tui` (the single executable's for
 * tui, made in a terminal: trainInTerminal); and one on `status` and `journal` (the single
 * executable's for `journal`, and the .cjs's, which can carry only one without scanning the
 * other on every start; it takes ~25 M instructions off a `journal --file` start and adds
 * ~3 M to a status). The status program has its own, trained on status alone.
 */
fs.mkdirSync('build', { recursive: true });
const programFile = path.resolve('build/program.cjs');
const cacheFile = path.resolve('build/program.cache');
const journalCacheFile = path.resolve('build/program-journal.cache');
const tuiCacheFile = path.resolve('build/program-tui.cache');
const statusProgramFile = path.resolve('build/program-status.cjs');
const statusCacheFile = path.resolve('build/program-status.cache');
fs.writeFileSync(programFile, program);
fs.writeFileSync(statusProgramFile, statusProgram);
const dist = path.resolve('dist/kubelet-ckpt.cjs');
// `status` as people and scripts run it: text on a healthy store, JSON on one that fell back;
// `journal` on a syslog and a klog-only file, text and JSON. (Every other command works
// without the cache, compiling as it goes.)
const statusTraining = [
  ['--dir', 'fixtures/stores/healthy', 'status', '--no-journal'],
  ['--dir', 'fixtures/stores/fell-back', 'status', '--no-journal', '-o', 'json'],
];
const journalTraining = [
  ['--dir', 'fixtures/stores/healthy', 'journal', '--file', 'fixtures/journals/structured-1.22.short.log', '--utc', '--year', '2021'],
  ['--dir', 'fixtures/stores/healthy', 'journal', '--file', 'fixtures/journals/legacy-1.13.klog.log', '--utc', '--year', '2019', '-o', 'json'],
];
function train(out, runs, from = programFile) {
  const argv = ['scripts/train-cache.cjs', from, out, dist, ...runs.flatMap((a) => ['--', ...a])];
  if (!runs.some(needsTerminal)) execFileSync(process.execPath, argv, { stdio: ['ignore', 'ignore', 'inherit'] });
  else if (!trainInTerminal(argv)) {
    console.error(`build: ${out}: no terminal to train tui in (script(1) missing or the run failed); trained without it`);
    return train(out, runs.filter((r) => !needsTerminal(r)), from);
  }
  // A cache V8 would reject (a flag a run left changed, another Node) only costs start-up time;
  // fail the build instead, so that it is noticed.
  const probe = `const s = new (require('node:vm').Script)(require('node:fs').readFileSync(${JSON.stringify(from)}, 'latin1'), { filename: 'probe', cachedData: require('node:fs').readFileSync(${JSON.stringify(out)}) }); process.exitCode = s.cachedDataRejected ? 1 : 0;`;
  if (spawnSync(process.execPath, ['-e', probe]).status !== 0) throw new Error(`build: V8 rejects the code cache ${out}`);
}
const needsTerminal = (run) => run.includes('tui');
/**
 * tui needs a terminal. script(1) makes one for the training, with a `q` waiting on its input
 * (the TUI reads it once it has put the terminal in raw mode, and quits), so that the cache
 * holds the TUI and blessed too: ~100 M instructions of compiling at every TUI start otherwise.
 * False when there is no script(1) or the run failed (bounded in time: never a hung build).
 */
function trainInTerminal(argv) {
  const q = (a) => `'${String(a).replaceAll("'", "'\\''")}'`;
  const r = spawnSync('script', ['-qec', [process.execPath, ...argv].map(q).join(' '), '/dev/null'], { input: 'q', stdio: ['pipe', 'ignore', 'inherit'], timeout: 120_000, env: { ...process.env, TERM: 'xterm-256color' } });
  return r.status === 0;
}
// The single executable's cache for every other command: those people type on a node (ls,
// verify, show, diff) and the help, which yargs builds from every command's options.
// The help comes last: yargs ends the process after it.
const commandTraining = [
  ['--dir', 'fixtures/stores/healthy', 'ls'],
  ['--dir', 'fixtures/stores/healthy', 'verify'],
  ['--dir', 'fixtures/stores/healthy', 'show', 'assigned'],
  ['--dir', 'fixtures/stores/healthy', 'diff', 'last-known-good', 'assigned'],
  ['--help'],
];
// tui has its own (blessed and the TUI are a third of a cache: in the one above they would cost
// every other command ~10-20 M instructions of deserialising).
const tuiTraining = [['--dir', 'fixtures/stores/healthy', 'tui', '--no-journal', '--read-only']];
train(cacheFile, [...statusTraining, ...commandTraining]);
train(tuiCacheFile, [...statusTraining, ...tuiTraining]);
train(journalCacheFile, [...statusTraining, ...journalTraining]);
train(statusCacheFile, statusTraining, statusProgramFile);
/**
 * The program and the cache ride at the end of the file inside two function bodies, each one
 * block comment: V8 skips a comment far faster than it scans a megabyte string literal, and
 * Function.prototype.toString hands back that stretch of the source Node already read, so the
 * file is read once (the loader does not read __filename again). The program goes in as is,
 * its few `*` `/` pairs written `*` NUL `/` (esbuild escapes control characters, so the
 * program holds no NUL of its own); the binary cache goes in as base64.
 */
const CLOSE = '*/';
const HIDDEN_CLOSE = '*\0/';
if (program.includes('\0')) throw new Error('build: the program holds a NUL; the .cjs packing cannot hide its comment ends');
const loader = `#!/usr/bin/env node
'use strict';
// kubelet-ckpt, single-file build. The program (in the comment of programText, at the end of this
// file) runs in a vm.Script with the V8 code cache made at build time (${process.version});
// another Node rejects the cache and compiles.
const { Script } = require('node:vm');
const body = (f) => { const s = f.toString(); return s.slice(s.indexOf('/*') + 2, s.lastIndexOf('*/')); };
const program = body(programText).replaceAll(${JSON.stringify(HIDDEN_CLOSE)}, '*/');
new Script(program, { filename: __filename, cachedData: Buffer.from(body(cacheText), 'base64') }).runInThisContext()(exports, require, module, __filename, __dirname);
function programText() {/*${program.replaceAll(CLOSE, HIDDEN_CLOSE)}*/}
function cacheText() {/*${fs.readFileSync(journalCacheFile).toString('base64')}*/}
`;
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync(dist, loader);
// The ESM entry some tooling expects; for a node with Node, the single file to copy is the .cjs.
fs.writeFileSync('dist/kubelet-ckpt.mjs', "#!/usr/bin/env node\nimport './kubelet-ckpt.cjs';\n", { mode: 0o755 });
fs.chmodSync('dist/kubelet-ckpt.cjs', 0o755);

/**
 * dist/kubelet-ckpt: a Node single-executable application (SEA) for a node with no Node: a
 * copy of this node binary with a blob injected (postject) that holds a small main script
 * and, as assets, the program and its two trained code caches, and the status program
 * (cmd/status-main.ts: a third of the size) with its own. V8 deserialises a code cache in time
 * that grows with every function of its program, used or not (~6 ms for the whole program,
 * ~4 for the status one, measured in the SEA), so `status` starts from the smaller one. The binary is this very
 * Node, so its V8 accepts the cache. SEA's own `useCodeCache` covers only what compiling
 * the main script compiles eagerly (the loader, here), and `useSnapshot` was slower for
 * `status` on Node 20 (the deserialised functions come back without their bytecode), so the
 * trained cache is what makes it start fast. Linux x86-64 only (the goal; elsewhere skipped).
 */
function buildSea() {
  const fuse = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`build: no single executable on ${process.platform}-${process.arch} (Linux x86-64 only)`);
    return;
  }
  // The main script. It is also what a worker thread runs (eval) to start this program again,
  // since in a SEA argv[1] is the executable, not a script (cmd/shared.ts, judge workers).
  const start = `function start(require) {
  const sea = require('node:sea');
  globalThis.__kubeletCkptWorkerEval = '(' + start + ')(require)';
  // The program is pure ASCII (asciiOnly above): a latin1 copy, no UTF-8 decoding.
  const run = (program, cache) => {
    const script = new (require('node:vm').Script)(Buffer.from(sea.getRawAsset(program)).latin1Slice(), { filename: process.execPath, cachedData: Buffer.from(sea.getRawAsset(cache)) });
    const mod = { exports: {} };
    script.runInThisContext()(mod.exports, require, mod, process.execPath, require('node:path').dirname(process.execPath));
  };
  // The whole program, with the journal's or the TUI's cache for a command line that names it (a guess that only ever costs time).
  globalThis.__kubeletCkptWhole = () => run('program', process.argv.includes('journal') ? 'cache-journal' : process.argv.includes('tui') ? 'cache-tui' : 'cache');
  // A command line that names status (or is --version alone) starts in the status program, which hands anything else over.
  if (!process.env.KUBELET_CKPT_ROLE && (process.argv.includes('status') || (process.argv.length === 3 && process.argv[2] === '--version'))) run('status', 'cache-status');
  else globalThis.__kubeletCkptWhole();
}`;
  const main = path.resolve('build/sea-main.cjs');
  fs.writeFileSync(main, `'use strict';\n// kubelet-ckpt single executable (${process.version}): the program and its V8 code cache are assets.\n${start}\nstart(require);\n`);
  const config = path.resolve('build/sea-config.json');
  const blob = path.resolve('build/sea.blob');
  fs.writeFileSync(config, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true, useCodeCache: false, useSnapshot: false, assets: { program: programFile, cache: cacheFile, 'cache-journal': journalCacheFile, 'cache-tui': tuiCacheFile, status: statusProgramFile, 'cache-status': statusCacheFile } }, null, 2));
  const made = spawnSync(process.execPath, ['--experimental-sea-config', config], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`build: node --experimental-sea-config failed (${made.status}): ${made.stderr}${made.stdout}`);
  const out = path.resolve('dist/kubelet-ckpt');
  const tmp = `${out}.tmp`;
  fs.rmSync(tmp, { force: true });
  fs.copyFileSync(process.execPath, tmp);
  fs.chmodSync(tmp, 0o755);
  // postject (devDependency): writes the blob into an ELF note and flips the fuse. Its
  // "Can't find string offset for section name" warnings are noise from the ELF parser.
  const postject = path.resolve('node_modules/postject/dist/cli.js');
  const r = spawnSync(process.execPath, [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', fuse], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build: postject failed (${r.status}): ${r.stderr}`);
  fs.renameSync(tmp, out);
}
buildSea();
