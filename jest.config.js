/**
 * Unit tests run in parallel; so do e2e suites, each Jest worker on a database of its own
 * (test/e2e/support/worker-database.ts; SQLite: a file per suite, copied from one migrated once
 * per run, in a folder of the run that global-setup.js makes and global-teardown.js removes).
 * Ops suites start the compiled server (`npm run build` first) as child processes; the runner
 * runs them one file at a time. No e2e or ops test runs on Jest's default timeout of 5 s:
 * test/e2e/support/timeouts.ts and test/ops/support/timeouts.ts set generous ones for a loaded machine.
 */
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: 'test/tsconfig.json' }],
  // jose ships ES modules only: Node requires them (20.19+), Jest's own loader does not before
  // Node 24.9, so its files are compiled to CommonJS for the tests (test/esm-to-cjs.js).
  '/node_modules/jose/.+\\.js$': '<rootDir>/test/esm-to-cjs.js',
};
/** Everything under node_modules runs as shipped, jose excepted (above). */
const transformIgnorePatterns = ['/node_modules/(?!jose/)'];

module.exports = {
  projects: [
    {
      displayName: 'unit',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/unit/**/*.spec.ts'],
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/e2e/support/global-setup.js',
      globalTeardown: '<rootDir>/test/e2e/support/global-teardown.js',
      setupFiles: ['<rootDir>/test/e2e/support/worker-database.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/e2e/support/timeouts.ts'],
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'ops',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/ops/**/*.spec.ts'],
      testEnvironment: 'node',
      setupFilesAfterEnv: ['<rootDir>/test/ops/support/timeouts.ts'],
      transform,
      transformIgnorePatterns,
    },
  ],
};
