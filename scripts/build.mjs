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

// ink imports its React-devtools bridge (a window polyfill and a websocket client, ~70 kB)
// only under DEV=true, and the bridge needs react-devtools-core, which is not shipped. The
// bundle answers that import as a missing module, so ink prints its own hint instead.
const inkWithoutDevtools = {
  name: 'ink-without-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer) ? { path: 'ink-devtools', namespace: 'ink-devtools' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'ink-devtools' }, () => ({
      contents: "const error = new Error('react-devtools-core is not part of service-sandbox'); error.code = 'ERR_MODULE_NOT_FOUND'; throw error;",
      loader: 'js',
    }));
  },
};

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
  // ink loads react-devtools-core only under DEV=true; it is not a dependency.
  external: ['better-sqlite3', 'react-devtools-core'],
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
  // React's production build for the UI: the development build checks and warns on every
  // render (slower, larger); nothing of ours reads NODE_ENV.
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [inkWithoutDevtools],
  legalComments: 'none',
  // Full minification (a third less to download and parse), with keepNames so functions and
  // classes keep their names: a stack trace in a bug report still names what failed.
  minify: true,
  keepNames: true,
  logLevel: 'warning',
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
