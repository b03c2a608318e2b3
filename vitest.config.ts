import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.spec.ts',
      'test/**/*.spec.ts',
      'test/**/*.int-spec.ts',
      'test/**/*.e2e-spec.ts',
      // The TypeScript client's own tests, against the service as the e2e tests run it.
      'clients/*/test/**/*.spec.ts',
      'clients/*/test/**/*.e2e-spec.ts',
    ],
    exclude: ['**/node_modules/**', 'clients/*/dist/**'],
    environment: 'node',
    // e2e suites each create their own databases and queue prefix, so files can run in parallel.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/global-setup.ts'],
  },
});
