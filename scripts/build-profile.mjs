#!/usr/bin/env node
// A profiling build: bundles the CLI (src/cli/main.ts) as scripts/build.mjs does, but without
// minification, into .prof/dist (git-excluded), so a
// `node --cpu-prof .prof/dist/run.mjs start ...` profile names the sources' own functions.
//
//   node scripts/build-profile.mjs && node --cpu-prof --cpu-prof-dir .prof .prof/dist/run.mjs start --port 0 --db /tmp/x.db --quiet
import { build } from 'esbuild';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}/.prof/dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: '.prof/dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  // Split as the real build does: ink's devtools bridge stays a lazy chunk that is never loaded.
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'react-devtools-core'],
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
  define: { 'process.env.NODE_ENV': '"production"' },
  keepNames: true,
  logLevel: 'warning',
});
// What bin/service-sandbox.js does for dist/cli.js.
writeFileSync(`${root}/.prof/dist/run.mjs`, "import('./cli.js').then((cli) => cli.main(process.argv));\n");
console.log('built .prof/dist/run.mjs');
