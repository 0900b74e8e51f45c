import { defineConfig } from 'vitest/config';

/**
 * Interop suite: opens the writers' files in LibreOffice (`soffice`, Debian package
 * `libreoffice-calc-nogui`). Not part of `npm test`; run with `npx vitest run -c vitest.interop.config.ts`.
 */
export default defineConfig({
  test: {
    include: ['test/interop/**/*.interop.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // The AWS SDK's notice that its 2027 releases need Node 22 (README: Node), once per worker otherwise.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    reporters: ['default'],
  },
});
