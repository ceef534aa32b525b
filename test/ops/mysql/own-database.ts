/**
 * What the MySQL ops suites share: the server OPS_MYSQL_URL names (`npm test` sets it when it
 * prepared MySQL; a suite run without it stops at once, saying so), and a database of the suite's
 * own there, `records_collections_test_<kind>_<random>`, created before its tests and dropped
 * after them, only when this run created it.
 */
import mysql from 'mysql2/promise';
import { ownDatabaseName } from '../../../scripts/test-database';
import { cleanup } from '../support/process';

/** OPS_MYSQL_URL: the server, without a database. */
export function opsServerUrl(): string {
  const url = process.env.OPS_MYSQL_URL;
  if (!url) {
    throw new Error(
      'OPS_MYSQL_URL is not set: this suite needs a MySQL server (e.g. mysql://root@127.0.0.1:3306).',
    );
  }
  return url;
}

export interface OwnDatabase {
  /** The database's name, known at once. */
  readonly name: string;
  /** Its URL (the server's account), and a connection to the server: both from beforeAll on. */
  url: string;
  admin: mysql.Connection;
}

/**
 * Registers the hooks that create the suite's database (utf8mb4) before its tests and, after
 * them, stop the servers the suite started, run `beforeDrop` (what else the suite created on the
 * server) and drop the database.
 */
export function useOwnDatabase(
  kind: string,
  beforeDrop?: (admin: mysql.Connection) => Promise<unknown>,
): OwnDatabase {
  const own = { name: ownDatabaseName(kind) } as OwnDatabase;
  let created = false;
  beforeAll(async () => {
    const url = new URL(opsServerUrl());
    url.pathname = '/';
    own.admin = await mysql.createConnection({ uri: url.toString(), connectTimeout: 5000 });
    await own.admin.query(`CREATE DATABASE \`${own.name}\` CHARACTER SET utf8mb4`);
    created = true;
    url.pathname = `/${own.name}`;
    own.url = url.toString();
  });
  afterAll(async () => {
    await cleanup();
    if (own.admin && beforeDrop) await beforeDrop(own.admin);
    if (created) await own.admin.query(`DROP DATABASE IF EXISTS \`${own.name}\``);
    await own.admin?.end();
  });
  return own;
}
