import { defineConfig } from 'vitest/config';

/** The portal in a real browser (Debian's chromium, driven by playwright-core): `npm run test:browser`. */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The AWS SDK's notice that its 2027 releases need Node 22 (README: Node), once per worker otherwise.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    fileParallelism: false,
    reporters: ['default'],
  },
});
