#!/usr/bin/env node
// The one build (`npm run build`): esbuild bundles the CLI (src/cli/main.ts) and the
// programmatic API (src/index.ts) straight from the TypeScript sources into dist/, sharing
// code through chunks; tsc writes only the type declarations (dist/types) for `import
// { startSandbox } from 'service-sandbox'`. One file instead of several hundred ES modules to
// resolve cuts about 100 ms from the cold start, and the package needs no runtime dependency
// but better-sqlite3 (a native addon, kept external). CommonJS dependencies get a real
// `require` through the banner. Type errors fail the build (tsc runs first).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}/dist`, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--emitDeclarationOnly', '--declarationDir', 'dist/types'], { cwd: root, stdio: 'inherit' });

await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
});
