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
  // A worker whose heap passed 1 GB after a test file is replaced by a fresh one: every e2e file
  // boots Nest anew, and a worker that kept all of them grew to 1.5 GB and spent its time in the
  // collector (the SQLite stage ran 10-20% faster with the limit).
  workerIdleMemoryLimit: '1GB',
  // A worker that has finished exits by itself, but tearing down a heap of several hundred MB
  // takes longer than Jest's default 500 ms on a loaded machine, which Jest then reported as a
  // worker that "failed to exit gracefully" and killed. Nothing was left open (checked by
  // tracing the workers' handles and timers); they only needed the time.
  workerGracefulExitTimeout: 5000,
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
