import { defineConfig } from 'vitest/config';

/**
 * Faults suite (`npm run test:faults`): faults, load, bad input and security, end to end, printing
 * a table of figures at the end. Run by CI after `npm test`.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.faults.ts'],
    globalSetup: ['test/faults/support/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The AWS SDK's notice that its 2027 releases need Node 22 (README: Node), once per worker otherwise.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    reporters: ['default'],
  },
});
