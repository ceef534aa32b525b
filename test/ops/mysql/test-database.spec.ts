/**
 * The test runner's preparation of its MySQL database (scripts/test-database.js, the step
 * `npm test` takes before any suite): a database of that name the tests did not create is left
 * as it is and the run is told to stop; one they created is emptied; a missing one is created.
 * And `npm test` itself stops on such a database with one line, before running anything.
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import {
  MARKER_TABLE,
  claimTestDatabase,
  foreignDatabaseMessage,
  ownDatabaseName,
  prepareTestDatabase,
} from '../../../scripts/test-database';

const serverUrl = process.env.OPS_MYSQL_URL;
if (!serverUrl) {
  throw new Error(
    'OPS_MYSQL_URL is not set: this suite needs a MySQL server (e.g. mysql://root@127.0.0.1:3306).',
  );
}

let admin: mysql.Connection;
const created: string[] = [];

function urlOf(database: string): string {
  const url = new URL(serverUrl!);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A database made here, holding one table with one row: someone else's data. */
async function foreignDatabase(): Promise<string> {
  const name = ownDatabaseName('foreign');
  await admin.query(`CREATE DATABASE \`${name}\``);
  created.push(name);
  await admin.query(`CREATE TABLE \`${name}\`.customers (id INT PRIMARY KEY, name VARCHAR(40))`);
  await admin.query(`INSERT INTO \`${name}\`.customers VALUES (1, 'Ada')`);
  return name;
}

async function tablesOf(database: string): Promise<string[]> {
  const [rows] = await admin.query<mysql.RowDataPacket[]>(
    'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1',
    [database],
  );
  return rows.map((row) => String(row.name));
}

async function customers(database: string): Promise<unknown[]> {
  const [rows] = await admin.query<mysql.RowDataPacket[]>(
    `SELECT id, name FROM \`${database}\`.customers`,
  );
  return rows.map((row) => ({ ...row }));
}

beforeAll(async () => {
  admin = await mysql.createConnection({ uri: serverUrl, connectTimeout: 5000 });
});

afterAll(async () => {
  for (const name of created) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.end();
});

describe("the runner's MySQL preparation", () => {
  it('should leave a database it did not create untouched and say how to name another', async () => {
    const name = await foreignDatabase();
    expect(await prepareTestDatabase(urlOf(name))).toEqual({
      foreign: foreignDatabaseMessage(name),
    });
    expect(foreignDatabaseMessage(name)).toBe(
      `The MySQL database ${name} exists and was not created by the tests (it has no ` +
        `${MARKER_TABLE} table), so they leave it alone: name another one with ` +
        'TEST_MYSQL_URL=mysql://user:password@host:3306/records_collections_test_<something>.',
    );
    expect(await tablesOf(name)).toEqual(['customers']);
    expect(await customers(name)).toEqual([{ id: 1, name: 'Ada' }]);
  });

  it('should refuse an existing database without the marker for a suite run on its own too', async () => {
    const name = await foreignDatabase();
    expect(await claimTestDatabase(urlOf(name))).toBe(foreignDatabaseMessage(name));
    expect(await customers(name)).toEqual([{ id: 1, name: 'Ada' }]);
  });

  it('should create a missing database with its marker, and empty it on the next run', async () => {
    const name = ownDatabaseName('prepared');
    created.push(name);
    expect(await prepareTestDatabase(urlOf(name))).toEqual({});
    expect(await tablesOf(name)).toEqual([MARKER_TABLE]);
    await admin.query(`CREATE TABLE \`${name}\`.leftover (id INT)`);
    expect(await prepareTestDatabase(urlOf(name))).toEqual({});
    expect(await tablesOf(name)).toEqual([MARKER_TABLE]);
    expect(await claimTestDatabase(urlOf(name))).toBeUndefined();
  });

  it('should use an existing database without a single table (nothing to lose), marking it', async () => {
    const name = ownDatabaseName('empty');
    await admin.query(`CREATE DATABASE \`${name}\``);
    created.push(name);
    expect(await prepareTestDatabase(urlOf(name))).toEqual({});
    expect(await tablesOf(name)).toEqual([MARKER_TABLE]);
    const other = ownDatabaseName('empty');
    await admin.query(`CREATE DATABASE \`${other}\``);
    created.push(other);
    expect(await claimTestDatabase(urlOf(other))).toBeUndefined();
    expect(await tablesOf(other)).toEqual([MARKER_TABLE]);
  });

  it('should stop `npm test` with that one line before any suite runs', async () => {
    const name = await foreignDatabase();
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', '..', '..', 'scripts', 'test.js')],
      {
        env: { ...process.env, TEST_MYSQL_URL: urlOf(name) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe(`${foreignDatabaseMessage(name)}\n`);
    expect(stdout).toContain(`    ${name} and ${name}_1 to ${name}_`);
    expect(stdout).not.toContain('=== unit ===');
    expect(await customers(name)).toEqual([{ id: 1, name: 'Ada' }]);
  });
});
