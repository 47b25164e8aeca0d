import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file opens its own in-memory database; two workers match the machine's two cores.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
