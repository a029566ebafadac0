import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Much of the suite waits on sandboxes in child processes, on terminals and on a browser, not on
    // its own core: one worker per core, at least two. vitest's default (cores - 1) ran a two-core
    // machine's suite in one worker (590 s there, 373 s with two).
    maxWorkers: Math.max(2, availableParallelism()),
    minWorkers: 1,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default'],
  },
});
