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

// CommonJS output: a module esbuild initialises lazily (everything behind an
// `await import()`) then also loads its Node built-ins lazily, where ESM output would
// hoist every `import 'node:zlib'` to start-up. import.meta.url is given its CJS value.
await build({
  entryPoints: ['cmd/main.ts'],
  outfile: 'dist/kubelet-ckpt.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [lazyHelpDeps],
  define: { 'import.meta.url': '__ckptImportMetaUrl' },
  banner: { js: "#!/usr/bin/env node\nvar __ckptImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The ESM entry some tooling expects; the single file to copy onto a node is the .cjs.
fs.writeFileSync('dist/kubelet-ckpt.mjs', "#!/usr/bin/env node\nimport './kubelet-ckpt.cjs';\n", { mode: 0o755 });
fs.chmodSync('dist/kubelet-ckpt.cjs', 0o755);
