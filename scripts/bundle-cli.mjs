#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js and everything it imports) into one file,
// dist/bundle/cli.js, which bin/service-sandbox.js loads. One file instead of several hundred
// ES modules to resolve cuts about 100 ms from the cold start. better-sqlite3 stays external
// (a native addon); CommonJS dependencies get a real `require` through the banner.
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('../dist/cli/main.js', import.meta.url).pathname],
  outfile: new URL('../dist/bundle/cli.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
