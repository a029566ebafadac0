#!/usr/bin/env node
// The one build (`npm run build`): esbuild bundles the CLI (src/cli/main.ts) and the
// programmatic API (src/index.ts) straight from the TypeScript sources into dist/, sharing
// code through chunks; tsc writes only the type declarations (dist/types) for `import
// { startSandbox } from 'service-sandbox'`. One file instead of several hundred ES modules to
// resolve cuts about 100 ms from the cold start, and the package needs no runtime dependency
// but better-sqlite3 (a native addon, kept external). CommonJS dependencies get a real
// `require` through the banner. Type errors fail the build (tsc runs first).
import { build } from 'esbuild';
import { bundleOptions } from './bundle-options.mjs';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}/dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--emitDeclarationOnly', '--declarationDir', 'dist/types'], { cwd: root, stdio: 'inherit' });

await build({
  ...bundleOptions,
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  outdir: 'dist',
  legalComments: 'none',
  // Whitespace and syntax minified; identifiers kept as written, so stack traces name the
  // functions that failed without esbuild's keepNames, which wraps every function and class
  // (and each arrow-function field of every hono Context, on every request) in a call that
  // defines its name (issue 26: 10-20 µs of CPU a request, and a slower cold start). The
  // bundle is 2.6 MB instead of 2.0 MB.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: false,
});

// Keep only the declarations `dist/types/index.d.ts` reaches: the package's public types.
const { readFileSync, readdirSync, statSync, unlinkSync } = await import('node:fs');
const { dirname, resolve } = await import('node:path');
const typesDir = resolve(root, 'dist/types');
const keep = new Set();
const visit = (file) => {
  if (keep.has(file)) return;
  keep.add(file);
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), spec.replace(/\.js$/, '.d.ts'));
    if (target.endsWith('.d.ts')) visit(target);
  }
};
visit(resolve(typesDir, 'index.d.ts'));
const prune = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = resolve(dir, name);
    if (statSync(path).isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else if (!keep.has(path)) unlinkSync(path);
  }
};
prune(typesDir);
