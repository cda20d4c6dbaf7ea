// Build: type-check and compile the tree to build/, then bundle cmd/main.ts into one
// file (dist/kubelet-ckpt.cjs) that runs with plain `node`.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

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
      contents: `let m;\nconst load = () => (m ??= require(${JSON.stringify(args.path)}));\nexport default function lazy(...a) { return load().default(...a); }\n`,
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * blessed (lib/tui only) loads its widgets with `require('./widgets/' + name)`, which a bundle
 * cannot follow, and some of them need files of the blessed package (BigText's fonts) or
 * optional modules (Terminal: term.js, pty.js; the image widgets: external programs).
 * Replace blessed's lib/widget.js with a static map of the widgets that work from a single
 * file; the others throw a clear error if anything ever constructs one. (Terminfo is not read
 * from blessed's usr/ folder either: lib/tui/terminfo.ts hands blessed the bytes.)
 */
const BLESSED_WIDGETS = ['Node', 'Screen', 'Element', 'Box', 'Text', 'Line', 'ScrollableBox', 'ScrollableText', 'List', 'Form', 'Input', 'Textarea', 'Textbox', 'Button', 'ProgressBar', 'FileManager', 'Checkbox', 'RadioSet', 'RadioButton', 'Prompt', 'Question', 'Message', 'Loading', 'Listbar', 'Log', 'Table', 'ListTable', 'Layout'];
const BLESSED_LEFT_OUT = ['BigText', 'Terminal', 'Image', 'ANSIImage', 'OverlayImage', 'Video'];
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

// CommonJS output: a module esbuild initialises lazily (everything behind an
// `await import()`) then also loads its Node built-ins lazily, where ESM output would
// hoist every `import 'node:zlib'` to start-up. import.meta.url is given its CJS value;
// dynamic import() becomes a lazy require (the program runs in a vm.Script, below).
const result = await build({
  entryPoints: ['cmd/main.ts'],
  outfile: 'dist/kubelet-ckpt.cjs',
  write: false,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  supported: { 'dynamic-import': false },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [lazyHelpDeps, blessedStaticWidgets],
  define: { 'import.meta.url': '__ckptImportMetaUrl' },
  banner: { js: "var __ckptImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
const program = `(function (exports, require, module, __filename, __dirname) {${result.outputFiles[0].text}\n})`;

/**
 * Start-up is dominated by V8 compiling the program (and each function on its first
 * call). The single file therefore carries the program as a string plus V8's code cache
 * from a training run of `status`; vm.Script uses the cache when this Node's V8 accepts
 * it (same version and flags) and otherwise simply compiles. Nothing is written at run time.
 */
fs.mkdirSync('build', { recursive: true });
const programFile = path.resolve('build/program.cjs');
const cacheFile = path.resolve('build/program.cache');
fs.writeFileSync(programFile, program);
const dist = path.resolve('dist/kubelet-ckpt.cjs');
execFileSync(process.execPath, ['scripts/train-cache.cjs', programFile, cacheFile, dist, '--', '--dir', 'fixtures/stores/healthy', 'status', '--no-journal', '-o', 'json'], { stdio: ['ignore', 'ignore', 'inherit'] });
// The program and the cache ride at the end of the file as base64 in block comments:
// V8 skips a comment far faster than it scans a megabyte string literal.
const loader = `#!/usr/bin/env node
'use strict';
// kubelet-ckpt, single-file build. The program (base64, in the comments at the end of this
// file) runs in a vm.Script with the V8 code cache made at build time (${process.version});
// another Node rejects the cache and compiles.
const { Script } = require('node:vm');
const self = require('node:fs').readFileSync(__filename, 'latin1');
const section = (tag) => {
  const start = self.lastIndexOf('/*' + tag + ':') + tag.length + 3;
  return Buffer.from(self.slice(start, self.indexOf('*/', start)), 'base64');
};
const program = section('program').toString('utf8');
new Script(program, { filename: __filename, cachedData: section('cache') }).runInThisContext()(exports, require, module, __filename, __dirname);
/*program:${Buffer.from(program).toString('base64')}*/
/*cache:${fs.readFileSync(cacheFile).toString('base64')}*/
`;
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync(dist, loader);
// The ESM entry some tooling expects; the single file to copy onto a node is the .cjs.
fs.writeFileSync('dist/kubelet-ckpt.mjs', "#!/usr/bin/env node\nimport './kubelet-ckpt.cjs';\n", { mode: 0o755 });
fs.chmodSync('dist/kubelet-ckpt.cjs', 0o755);
