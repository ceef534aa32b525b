import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSourceOptions, MigrationInterface } from 'typeorm';
import { DatabaseConfig } from '../config/database-url';
import { shapeEntitiesFor } from '../rest/sql/tables';
import { adjustTypeOrm } from './typeorm-quirks';
import { Init1732000000000 } from './migrations/1732000000000-init';
import { OrderingIndexes1763800000000 } from './migrations/1763800000000-ordering-indexes';
import { SafeWrites1763900000000 } from './migrations/1763900000000-safe-writes';
import { DescriptionKey1764000000000 } from './migrations/1764000000000-description-key';
import { RecordEvents1764100000000 } from './migrations/1764100000000-record-events';
import { EventPositionIndex1764200000000 } from './migrations/1764200000000-event-position-index';
import { EventOutbox1764300000000 } from './migrations/1764300000000-event-outbox';
import { Webhooks1764450000000 } from './migrations/1764450000000-webhooks';
import { IdempotencyCaller1764500000000 } from './migrations/1764500000000-idempotency-caller';

export type MigrationClass = new () => MigrationInterface;

/** The part of better-sqlite3's Database used here. */
interface SqliteDatabase {
  function(name: string, options: { deterministic: boolean }, fn: (text: unknown) => unknown): void;
}

/**
 * The shared migrations: the schema of the internal tables and of the first collections. A
 * collection added later brings its own (`Collection.migrations`), run after these.
 */
export const MIGRATIONS: MigrationClass[] = [
  Init1732000000000,
  OrderingIndexes1763800000000,
  SafeWrites1763900000000,
  DescriptionKey1764000000000,
  RecordEvents1764100000000,
  EventPositionIndex1764200000000,
  EventOutbox1764300000000,
  Webhooks1764450000000,
  IdempotencyCaller1764500000000,
];

/**
 * TypeORM options for a configured database. Schema changes are migrations, never `synchronize`.
 * Entities are registered by the feature modules that use them (`autoLoadEntities`); migrations
 * and the demo data need none. `migrations`: all to run, the shared ones first.
 */
export function dataSourceOptions(
  database: DatabaseConfig,
  replicaUrls: readonly string[] = [],
  migrations: readonly MigrationClass[] = MIGRATIONS,
): DataSourceOptions {
  // The entities, derived from the declarations, take the shape of this database.
  shapeEntitiesFor(database.type);
  adjustTypeOrm();
  const common = {
    entities: [],
    migrations: [...migrations],
    // Run by openDatabase, under a lock, rather than by TypeORM on connect.
    migrationsRun: false,
    synchronize: false,
    logging: false,
  };
  if (database.type === 'sqlite') {
    if (database.path !== ':memory:') mkdirSync(dirname(database.path), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      enableWAL: true,
      // Never wait for a lock synchronously (that would stop the event loop): the transaction
      // is retried asynchronously instead (rest/db/typeorm-database.ts).
      timeout: 0,
      // SQLite's own LOWER folds ASCII only; case-insensitive search must hold for É as on MySQL.
      prepareDatabase: (db: SqliteDatabase) =>
        db.function('lower', { deterministic: true }, (text: unknown) =>
          typeof text === 'string' ? text.toLowerCase() : text,
        ),
    };
  }
  // With read replicas, TypeORM opens a pool per server (mysql2's PoolCluster): the primary's
  // serves writes, transactions, migrations and the schema lock; rest/db/replicas.ts picks a
  // replica's for each read. A server that fails is never dropped from the cluster nor retried
  // there: the service's own health checks decide where reads go.
  // With several nodes (a Galera cluster), the same: a pool per node, the first node's as
  // TypeORM's MASTER (connectDatabase may start on another: nodesFrom); rest/db/galera.ts
  // decides where the service's writes and reads go.
  const [first, ...others] = database.nodes ?? [];
  const servers = first
    ? {
        replication: {
          master: { url: first },
          slaves: others.map((url) => ({ url })),
          canRetry: false,
          removeNodeErrorCount: Infinity,
        },
      }
    : replicaUrls.length > 0
      ? {
          replication: {
            master: { url: database.url },
            slaves: replicaUrls.map((url) => ({ url })),
            canRetry: false,
            removeNodeErrorCount: Infinity,
          },
        }
      : { url: database.url };
  return {
    ...common,
    type: 'mysql',
    ...servers,
    charset: 'utf8mb4',
    // Timestamps are stored in UTC and read back as text, so no time zone ever shifts them.
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    poolSize: 10,
    // On one server, a write's outbox INSERT goes with its COMMIT, `INSERT ...; COMMIT`, one
    // round trip (Tx.withCommit; not on a Galera cluster, MysqlSession says why). Every statement
    // of the service takes its values as parameters, which mysql2 escapes, so no value can end a
    // statement and start another.
    multipleStatements: !database.nodes,
  };
}
