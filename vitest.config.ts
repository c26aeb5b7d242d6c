import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    environment: 'node',
    // The outermost bound, for a test that hangs: above every inner one (a wait's 60 s, the CLI
    // harness's 120 s kill), so a stuck test fails with the message of what it waited for. A busy
    // two-core machine runs an end-to-end test several times slower than an idle one.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Two-core machines: keep parallel forks modest so end-to-end tests that spawn the CLI stay stable.
    maxWorkers: 2,
  },
});
