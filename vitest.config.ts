import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two-core machines: keep parallel forks modest so end-to-end tests that spawn the CLI stay stable.
    maxWorkers: 2,
  },
});
