/**
 * The e2e project's global setup (jest.config.js): one folder for the run's SQLite files (a file
 * per suite, and the migrated files they are copied from, harness.ts), named to the workers by
 * RECORDS_E2E_DIR and removed by the global teardown (global-teardown.js) when the run ends.
 */
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = async function globalSetup() {
  process.env.RECORDS_E2E_DIR = mkdtempSync(join(tmpdir(), 'records-e2e-run-'));
};
