/** Removes the run's folder of SQLite files (global-setup.js). */
const { rmSync } = require('node:fs');

module.exports = async function globalTeardown() {
  const dir = process.env.RECORDS_E2E_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
};
