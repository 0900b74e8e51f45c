import { defineConfig } from 'vitest/config';

/** The portal in a real browser (Debian's chromium, driven by playwright-core): `npm run test:browser`. */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
