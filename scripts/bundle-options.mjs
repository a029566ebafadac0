// The esbuild options of every bundle of the CLI: the package's build (scripts/build.mjs) and the
// unminified profiling build (scripts/build-profile.mjs).
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

/** Bundled ES modules for node 20, code shared through chunks, better-sqlite3 left external. */
export const bundleOptions = {
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
  // Functions and classes keep their names: a stack trace in a bug report still names what failed.
  // (The package's build keeps identifiers unminified instead: scripts/build.mjs.)
  keepNames: true,
  logLevel: 'warning',
};
