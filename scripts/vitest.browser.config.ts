import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the browser tests (the last step of `npm test`), in Debian's Chromium
 * (scripts/install-browser.sh installs it when missing).
 */
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.browser.ts'],
    pool: 'forks',
    // Two files at once: a browser test mostly waits on Chromium's rendering, so on two cores two
    // workers finish the suite in little more than half the time of one (vitest's default here).
    maxWorkers: 2,
    // Strict budget: launching Chromium and rendering two pages takes a few seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
