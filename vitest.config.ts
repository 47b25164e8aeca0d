import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One PostgreSQL server for the run (tests copy a migrated template database from it), and
    // one bundle of the sources for the tests that start Porch as a process.
    globalSetup: ['test/setup/postgres-server.ts', 'test/setup/source-bundle.ts'],
    // Each test file opens its own in-memory database. Vitest runs one worker on two cores (cores - 1),
    // leaving the other to the servers and processes the tests start; two workers were no faster
    // and made timing-sensitive tests flaky.
    pool: 'forks',
    // Files share one worker process and its module cache instead of starting a process and
    // importing the server again for every file, which cost more than most files' tests. Safe
    // because every file builds its own services and closes what it opened, src keeps only lazy
    // caches at module level, and tests that touch process.env, timers or spies restore them.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
