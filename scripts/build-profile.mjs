#!/usr/bin/env node
// A profiling build: the CLI bundled as scripts/build.mjs does it, but not minified, into
// .prof/dist (git-excluded), so `node --cpu-prof .prof/dist/run.mjs start ...` names real
// functions. Not part of `npm run build`; no type check.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// As in scripts/build.mjs: ink's devtools bridge (DEV=true only) answers as a missing module.
const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) => (/[\\/]ink[\\/]build[\\/]/.test(args.importer) ? { path: 'ink-devtools', namespace: 'ink-devtools' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'ink-devtools' }, () => ({ contents: "throw Object.assign(new Error('react-devtools-core is not shipped'), { code: 'ERR_MODULE_NOT_FOUND' });", loader: 'js' }));
  },
};
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: '.prof/dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'react-devtools-core'],
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
  define: { 'process.env.NODE_ENV': '"production"' },
  jsx: 'automatic',
  plugins: [inkWithoutDevtools],
  keepNames: true,
  logLevel: 'warning',
});
writeFileSync(`${root}/.prof/dist/run.mjs`, "import('./cli.js').then((cli) => cli.main(process.argv));\n");
