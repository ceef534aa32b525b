/**
 * The MySQL databases the tests use, and the rule that keeps them from touching anyone else's.
 *
 * Every database a test creates or empties has a name that starts with `records_collections_test`:
 * the e2e database (TEST_MYSQL_URL's, default `records_collections_test`) and the ones the ops
 * suites and the start sequence create for themselves (`records_collections_test_<kind>_<random>`,
 * created with CREATE DATABASE, which fails on a name already taken, and dropped only by the
 * run that created them).
 *
 * The e2e database is emptied before each run. The tests mark it as theirs with a table,
 * MARKER_TABLE, created with the database. A database of that name that exists without the
 * marker and holds any table is someone else's: it is neither dropped nor emptied, and the run
 * stops, saying which database and how to name another. One without a single table (created
 * empty for the tests, `CREATE DATABASE records_collections_test`) holds nothing to lose: it
 * gets the marker and is used.
 */
const DEFAULT_TEST_MYSQL_URL = 'mysql://root@127.0.0.1:3306/records_collections_test';
const TEST_DATABASE_PREFIX = 'records_collections_test';
const MARKER_TABLE = 'records_collections_test_marker';

function quote(name) {
  return `\`${name.replace(/`/g, '``')}\``;
}

/**
 * A URL that names several nodes of a cluster (`mysql://user@h1:3306,h2:3306,h3:3306/db`, the
 * service's own form) as its first node alone: the tests create, mark and empty the database
 * through that node, and the cluster carries it to the others.
 */
function firstNodeOf(url) {
  const multi = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^/?#]*,[^/?#]*)(.*)$/i.exec(url);
  if (!multi) return url;
  const [, scheme, userinfo = '', hosts, rest] = multi;
  return `${scheme}${userinfo}${hosts.split(',')[0].trim()}${rest}`;
}

/** The database part of a MySQL URL. */
function databaseOf(url) {
  return decodeURIComponent(new URL(firstNodeOf(url)).pathname.slice(1));
}

/** The URL of the server (a cluster's first node), without a database. */
function serverOf(url) {
  const server = new URL(firstNodeOf(url));
  server.pathname = '/';
  return server.toString();
}

/** The one line a run stops with when `database` is not the tests' to empty. */
function foreignDatabaseMessage(database) {
  return (
    `The MySQL database ${database} exists and was not created by the tests (it has no ` +
    `${MARKER_TABLE} table), so they leave it alone: name another one with ` +
    `TEST_MYSQL_URL=mysql://user:password@host:3306/${TEST_DATABASE_PREFIX}_<something>.`
  );
}

/**
 * Whether `database` exists on the connection's server, whether it holds the marker, and
 * whether it holds no table at all.
 */
async function inspect(connection, database) {
  const [schemas] = await connection.query(
    'SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
    [database],
  );
  if (schemas.length === 0) return { exists: false, marked: false, empty: true };
  const [tables] = await connection.query(
    'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
    [database],
  );
  return {
    exists: true,
    marked: tables.some((t) => t.name === MARKER_TABLE),
    empty: tables.length === 0,
  };
}

async function mark(connection, database) {
  await connection.query(
    `CREATE TABLE ${quote(database)}.${quote(MARKER_TABLE)} (created_at VARCHAR(32) NOT NULL)`,
  );
  await connection.query(`INSERT INTO ${quote(database)}.${quote(MARKER_TABLE)} VALUES (?)`, [
    new Date().toISOString(),
  ]);
}

async function createMarked(connection, database) {
  await connection.query(`CREATE DATABASE ${quote(database)} CHARACTER SET utf8mb4`);
  await mark(connection, database);
}

/**
 * The runner's preparation of the e2e database at `url`: dropped and created afresh (with its
 * marker) when the tests created it, created when it is missing, marked when it exists without
 * a table. Resolves to
 * `{ foreign: message }` when the database is someone else's (nothing is changed),
 * `{ unreachable: reason }` when no MySQL answers, `{}` when the database is ready.
 */
async function prepareTestDatabase(url) {
  const mysql = require('mysql2/promise');
  const database = databaseOf(url);
  let connection;
  try {
    connection = await mysql.createConnection({ uri: serverOf(url), connectTimeout: 3000 });
  } catch (error) {
    return { unreachable: `${error.code || ''} ${error.message}`.trim() };
  }
  try {
    const found = await inspect(connection, database);
    if (found.exists && !found.marked) {
      if (!found.empty) return { foreign: foreignDatabaseMessage(database) };
      await mark(connection, database);
      return {};
    }
    if (found.exists) await connection.query(`DROP DATABASE ${quote(database)}`);
    await createMarked(connection, database);
    return {};
  } catch (error) {
    return { unreachable: `${error.code || ''} ${error.message}`.trim() };
  } finally {
    await connection.end().catch(() => undefined);
  }
}

/**
 * For a suite started on its own (Jest without the runner): the database at `url` may be used
 * when it holds the marker, or exists with no table at all (nothing to lose; it gets the
 * marker), or does not exist (created with the marker). It is not emptied here: each suite
 * empties the tables it knows. Resolves to the reason it may not be
 * used, or undefined.
 */
async function claimTestDatabase(url) {
  const mysql = require('mysql2/promise');
  const database = databaseOf(url);
  const connection = await mysql.createConnection({ uri: serverOf(url), connectTimeout: 5000 });
  try {
    const found = await inspect(connection, database);
    if (found.marked) return undefined;
    if (!found.exists) await createMarked(connection, database);
    else if (found.empty) await mark(connection, database);
    else return foreignDatabaseMessage(database);
    return undefined;
  } finally {
    await connection.end().catch(() => undefined);
  }
}

/**
 * The database of one Jest worker: `<database>_<worker>` on the same server (or cluster). The e2e
 * suites run in several workers at once (scripts/test.js), each on a database of its own, so
 * that one suite emptying its tables never pulls them from under another's. The name keeps the
 * prefix, and the database is claimed like the base one (marker table, claimTestDatabase).
 */
function workerDatabaseUrl(url, worker) {
  const parts = /^([a-z][a-z0-9+.-]*:\/\/[^/?#]*\/)([^?#]*)(.*)$/i.exec(url);
  if (!parts || !parts[2]) throw new Error(`TEST_MYSQL_URL names no database: ${url}`);
  const [, server, database, rest] = parts;
  return `${server}${encodeURIComponent(`${decodeURIComponent(database)}_${worker}`)}${rest}`;
}

/** A name for a database a suite creates for itself: `records_collections_test_<kind>_<random>`. */
function ownDatabaseName(kind) {
  return `${TEST_DATABASE_PREFIX}_${kind}_${require('node:crypto').randomBytes(4).toString('hex')}`;
}

module.exports = {
  DEFAULT_TEST_MYSQL_URL,
  TEST_DATABASE_PREFIX,
  MARKER_TABLE,
  firstNodeOf,
  databaseOf,
  serverOf,
  foreignDatabaseMessage,
  prepareTestDatabase,
  claimTestDatabase,
  ownDatabaseName,
  workerDatabaseUrl,
};
