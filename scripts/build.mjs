// Build: type-check and compile the tree to build/, then bundle cmd/main.ts into one
// file (dist/kubelet-ckpt.mjs) that runs with plain `node`.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import fs from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
process.chdir(root);

execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { stdio: 'inherit' });

await build({
  entryPoints: ['cmd/main.ts'],
  outfile: 'dist/kubelet-ckpt.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies call require() for Node built-ins; give the ESM bundle one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __ckptCreateRequire } from 'node:module';\nconst require = __ckptCreateRequire(import.meta.url);",
  },
});
fs.chmodSync('dist/kubelet-ckpt.mjs', 0o755);
