#!/usr/bin/env node
// A profiling build: bundles the CLI (src/cli/main.ts) with scripts/build.mjs's options, but without
// minification, into .prof/dist (git-excluded), so a
// `node --cpu-prof .prof/dist/run.mjs start ...` profile names the sources' own functions.
//
//   node scripts/build-profile.mjs && node --cpu-prof --cpu-prof-dir .prof .prof/dist/run.mjs start --port 0 --db /tmp/x.db --quiet
import { build } from 'esbuild';
import { bundleOptions } from './bundle-options.mjs';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}/.prof/dist`, { recursive: true, force: true });
await build({
  ...bundleOptions,
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: '.prof/dist',
});
// What bin/service-sandbox.js does for dist/cli.js.
writeFileSync(`${root}/.prof/dist/run.mjs`, "import('./cli.js').then((cli) => cli.main(process.argv));\n");
console.log('built .prof/dist/run.mjs');
