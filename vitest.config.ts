import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Much of a test's time is spent waiting on the servers, banks and
    // commands it starts: on a 2-core machine vitest's default (cores - 1)
    // runs one file at a time and leaves the second core mostly idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Starts the MongoDB-wire test server (FerretDB) unless MONGODB_URI is set.
    globalSetup: ['test/global-setup.ts'],
    // The skipped-guarantees list first, so vitest's own summary stays last.
    reporters: ['./test/reporters/skipped-guarantees.ts', 'default'],
  },
});
