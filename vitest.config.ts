import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Starts the MongoDB-wire test server (FerretDB) unless MONGODB_URI is set.
    globalSetup: ['test/global-setup.ts'],
    // The skipped-guarantees list first, so vitest's own summary stays last.
    reporters: ['./test/reporters/skipped-guarantees.ts', 'default'],
  },
});
