import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the browser test only, kept out of `npm test` because it needs a
 * Chromium on the machine (scripts/install-browser.sh installs Debian's).
 */
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.browser.ts'],
    pool: 'forks',
    // Strict budget: launching Chromium and rendering two pages takes a few seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
