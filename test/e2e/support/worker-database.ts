/**
 * Each Jest worker on a MySQL database of its own (setupFiles in jest.config.js): the e2e suites
 * run in several workers at once, and a suite empties the tables of its database before it
 * starts, so two suites on one database would pull rows from under each other. TEST_MYSQL_URL
 * names the base database; a test file sees it as `<database>_<JEST_WORKER_ID>` on the same
 * server or cluster (claimed like the base one: the harness creates it with the tests' marker,
 * and refuses one of that name that holds anyone else's tables). Each test file gets a copy of
 * the environment, so the base stays in TEST_MYSQL_BASE_URL for the next.
 */
import { DEFAULT_TEST_MYSQL_URL, workerDatabaseUrl } from '../../../scripts/test-database';

if (process.env.TEST_DATABASE === 'mysql') {
  const base =
    process.env.TEST_MYSQL_BASE_URL ?? process.env.TEST_MYSQL_URL ?? DEFAULT_TEST_MYSQL_URL;
  process.env.TEST_MYSQL_BASE_URL = base;
  process.env.TEST_MYSQL_URL = workerDatabaseUrl(base, process.env.JEST_WORKER_ID ?? '1');
}
