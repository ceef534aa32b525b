/**
 * The database of a suite that tests one migration on rows written before it: on the test
 * runner's database kind, SQLite (a file of its own) or MySQL (a database of its own on
 * TEST_MYSQL_URL's server, `records_collections_test_<kind>_<random>`, dropped after the suite),
 * migrated before the suite's tests up to, not including, the migration named.
 */
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { ownDatabaseName, serverOf } from '../../../scripts/test-database';
import { DatabaseConfig } from '../../../src/config/database-url';
import { MIGRATIONS, dataSourceOptions } from '../../sources';
import { HOOK_TIMEOUT, testDatabase } from './harness';

export interface MigrationDatabase {
  /** The open data source (a new one after `migrateWith`). */
  readonly dataSource: DataSource;
  /** The migrations' list position of the migration under test. */
  readonly at: number;
  /** A name quoted for the database. */
  q(name: string): string;
  /** Opens the database again with `migrations` (the runs of which it has are kept). */
  migrateWith(migrations: typeof MIGRATIONS): Promise<void>;
}

export function useMigrationDatabase(kind: string, migration: string): MigrationDatabase {
  const at = MIGRATIONS.findIndex((m) => new m().name === migration);
  let config: DatabaseConfig;
  let admin: mysql.Connection | undefined;
  let own: string | undefined;
  let dataSource: DataSource;
  const open = async (migrations: typeof MIGRATIONS) => {
    dataSource = await new DataSource(dataSourceOptions(config, [], migrations)).initialize();
  };
  const handle: MigrationDatabase = {
    get dataSource() {
      return dataSource;
    },
    at,
    q: (name) => dataSource.driver.escape(name),
    async migrateWith(migrations) {
      await dataSource.destroy();
      await open(migrations);
    },
  };

  beforeAll(async () => {
    if (at < 0) throw new Error(`no migration named ${migration}`);
    config = testDatabase();
    if (config.type === 'mysql') {
      own = ownDatabaseName(kind);
      admin = await mysql.createConnection({ uri: serverOf(config.url) });
      await admin.query(`CREATE DATABASE \`${own}\` CHARACTER SET utf8mb4`);
      const url = new URL(serverOf(config.url));
      url.pathname = `/${own}`;
      config = { type: 'mysql', url: url.toString(), database: own };
    }
    await open(MIGRATIONS.slice(0, at));
    await dataSource.runMigrations();
  }, HOOK_TIMEOUT);

  afterAll(async () => {
    await dataSource?.destroy();
    if (admin && own) await admin.query(`DROP DATABASE IF EXISTS \`${own}\``);
    await admin?.end();
  }, HOOK_TIMEOUT);

  return handle;
}
