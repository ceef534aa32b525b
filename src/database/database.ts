import { Global, Injectable, Module } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Dialect, RecordQuery } from '../rest/record-query';
import { ResourceDefinition } from '../rest/resource';

interface MysqlPool {
  query(
    sql: string,
    parameters: unknown[],
    callback: (error: Error | null, rows: Record<string, unknown>[]) => void,
  ): void;
}

/** One transaction's view of the database. */
export interface Tx {
  manager: EntityManager;
  /** Runs a statement and tells its rows and the number of rows it changed. */
  run(
    sql: string,
    parameters?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; affected: number }>;
}

/**
 * Deadlocks, and duplicate keys: a unique value that a concurrent transaction committed after our
 * checks ran. On the retry the checks see it and answer 400 naming the field.
 */
const RETRYABLE = new Set([
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_DUP_ENTRY',
  'SQLITE_BUSY',
  'SQLITE_CONSTRAINT_UNIQUE',
]);
const ATTEMPTS = 5;

/**
 * The application's access to the database: plain queries for reads, and transactions that are
 * retried on deadlock.
 *
 * SQLite through TypeORM is one connection shared by every request, and TypeORM would nest a
 * second request's transaction inside the first as a savepoint. So on SQLite transactions run one
 * at a time, and a read waits while one is open: no request sees, or joins, another's
 * uncommitted work. MySQL has a pool and real isolation and needs none of this.
 */
@Injectable()
export class Database {
  readonly dialect: Dialect;
  private readonly serialize: boolean;
  /** Settles when the transactions queued so far are done (SQLite only). */
  private queue: Promise<unknown> = Promise.resolve();
  private open = 0;

  constructor(readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
    this.serialize = this.dialect === 'sqlite';
  }

  quote(name: string): string {
    return this.dataSource.driver.escape(name);
  }

  /** A collection's compiled read queries, run through this database. */
  records(resource: ResourceDefinition): RecordQuery {
    return new RecordQuery(
      resource,
      this.dialect,
      (name) => this.quote(name),
      (sql, parameters) => this.query(sql, parameters),
    );
  }

  /**
   * One read statement. On MySQL it goes straight to the connection pool TypeORM opened: a
   * TypeORM query runner per statement (events, logging hooks, a promise wrapper, a copy of the
   * rows) costs more than the query itself on the hot read path.
   */
  async query(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
    const pool = (this.dataSource.driver as unknown as { pool?: MysqlPool }).pool;
    if (this.dialect === 'mysql' && pool) {
      return new Promise((resolve, reject) =>
        pool.query(sql, parameters, (error, rows) => (error ? reject(error) : resolve(rows))),
      );
    }
    while (this.open > 0) await this.queue;
    return this.dataSource.query(sql, parameters);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (!this.serialize) return this.attempt(work);
    this.open++;
    const result = this.queue.then(() => this.attempt(work));
    this.queue = result.catch(() => undefined).finally(() => this.open--);
    return result;
  }

  private async attempt<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction((manager) => work(transactionOf(manager)));
      } catch (error) {
        if (attempt >= ATTEMPTS || !RETRYABLE.has(errorCode(error))) throw error;
        // A short random pause, so that transactions that collided do not collide again.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  }
}

function transactionOf(manager: EntityManager): Tx {
  return {
    manager,
    async run(sql, parameters = []) {
      const result = await manager.queryRunner!.query(sql, parameters, true);
      return {
        rows: Array.isArray(result.records) ? result.records : [],
        affected: result.affected ?? 0,
      };
    },
  };
}

/** The driver's error code behind a TypeORM error (`ER_DUP_ENTRY`, `SQLITE_CONSTRAINT_UNIQUE`). */
export function errorCode(error: unknown): string {
  const driverError = (error as { driverError?: { code?: unknown } })?.driverError;
  const code = driverError?.code ?? (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : '';
}

@Global()
@Module({ providers: [Database], exports: [Database] })
export class DatabaseModule {}
