import { defineConfig } from 'vitest/config';

/**
 * End-to-end suite: whole runs over real processes and servers (`serve` and its state machine,
 * the CLI in its own process signalled with Ctrl-C, `cdk synth` with real bundling, full demo years
 * in three rule sets). Each file takes 10–60 s on an idle 2-core machine; together they would take
 * `npm test` past 10 minutes. CI runs them right after `npm test` (`.ci/run`); run with
 * `npm run test:e2e` (docs/developer/testing.md).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
    // The AWS SDK's notice that its 2027 releases need Node 22 (README: Node), once per worker otherwise.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
