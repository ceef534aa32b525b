/**
 * One connection held for one transaction, behind one interface for both databases: statements
 * with what the server says of the transaction after each, and the two ways to let go of the
 * connection (give it back to the pool, or end it). transactions.ts decides which; this file only
 * knows how each database says it.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { QueryRunner } from 'typeorm';
import { endsConnection, isPrimaryLost } from './database-errors';
import { connectionWithin, MysqlConnection, MysqlPool, withDeadline } from './replicas';
import { Row, RunResult } from './sql-database';

/** A statement's result, and whether a transaction is open on the connection after it. */
export interface SessionAnswer {
  result: RunResult;
  /**
   * What the server says: MySQL's SERVER_STATUS_IN_TRANS flag on an OK packet, SQLite's
   * `inTransaction`. Undefined where the answer does not say (MySQL's rows of a SELECT).
   */
  inTransaction?: boolean;
}

export interface TransactionSession {
  /** The statement that starts a transaction, as the database spells it. */
  readonly begin: string;
  /** Whether the connection was let go of (given back or ended): nothing more can run on it. */
  readonly ended: boolean;
  /**
   * One statement. `committing`: it is a COMMIT (or a statement that commits by itself), so a
   * deadline passed while waiting for it may have let it commit.
   */
  send(sql: string, parameters: unknown[], committing?: boolean): Promise<SessionAnswer>;
  /**
   * Whether statements and the COMMIT may go as one text, `a; b; COMMIT` (MySQL's multiple
   * statements): the server runs them in order and stops at the first it refuses.
   */
  readonly batchesCommit: boolean;
  /** Whether the connection that `error` came from cannot be trusted any more. */
  lostBy(error: unknown): boolean;
  /**
   * Whether a COMMIT that failed with `error` may still have committed: its answer was lost
   * rather than a refusal the server gave.
   */
  commitUncertain(error: unknown): boolean;
  /** Gives the connection back for reuse. Only for a connection with no transaction open. */
  release(): void;
  /** Ends the connection: the server rolls back whatever it had not committed. */
  destroy(): void;
}

/** A result header (mysql2's ResultSetHeader), not a row. */
function isHeader(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'serverStatus' in value;
}

/** MySQL's SERVER_STATUS_IN_TRANS: a transaction is open on the connection. */
const SERVER_STATUS_IN_TRANS = 1;

/**
 * A connection of a mysql2 pool. Each statement must answer within `deadlineMs` (0: no limit);
 * past it the connection is destroyed (withDeadline) and the statement fails as DatabaseDeadline.
 */
export class MysqlSession implements TransactionSession {
  readonly begin = 'START TRANSACTION';
  ended = false;

  private constructor(
    private readonly connection: MysqlConnection,
    private readonly deadlineMs: number,
    /**
     * One server (or a primary with replicas): it stops a batch of statements at the first it
     * refuses, so a COMMIT after a refused statement never runs. Not on a Galera node: there
     * a transaction another node's write aborts (certification, a "brute force" abort) may have
     * the batch's later statements run after it, and such a COMMIT answered OK for a write the
     * cluster had rolled back (2 of 96 concurrent bulk updates, test/ops/galera/conflicts.spec).
     */
    readonly batchesCommit: boolean,
  ) {}

  static async open(
    pool: MysqlPool,
    deadlineMs: number,
    batchesCommit: boolean,
  ): Promise<MysqlSession> {
    return new MysqlSession(await connectionWithin(pool, deadlineMs), deadlineMs, batchesCommit);
  }

  async send(sql: string, parameters: unknown[], committing = false): Promise<SessionAnswer> {
    const answer = await withDeadline(
      new Promise<unknown>((resolve, reject) =>
        this.connection.query(sql, parameters, (error, rows) =>
          error ? reject(error) : resolve(rows),
        ),
      ),
      this.deadlineMs,
      () => this.destroy(),
      committing,
    );
    // Rows for a SELECT (or RETURNING), a result header (an OK packet) for the other statements;
    // for several statements, one result each: the last one's header says what the server is in.
    const last = Array.isArray(answer) && isHeader(answer.at(-1)) ? answer.at(-1) : answer;
    if (Array.isArray(last)) return { result: { rows: last as Row[], affected: 0, insertId: 0 } };
    const header = last as { affectedRows?: number; insertId?: number; serverStatus?: number };
    return {
      result: {
        rows: [],
        affected: Number(header.affectedRows ?? 0),
        insertId: Number(header.insertId ?? 0),
      },
      inTransaction:
        header.serverStatus === undefined
          ? undefined
          : (header.serverStatus & SERVER_STATUS_IN_TRANS) !== 0,
    };
  }

  lostBy(error: unknown): boolean {
    return this.ended || endsConnection(error);
  }

  /**
   * The server answers a COMMIT it refused with an error packet; a lost answer is uncertain, and
   * so is a Galera node's answer that it lost the primary component while replicating the write
   * (the other nodes may have it: isPrimaryLost).
   */
  commitUncertain(error: unknown): boolean {
    return this.lostBy(error) || isPrimaryLost(error);
  }

  release(): void {
    if (this.ended) return;
    this.ended = true;
    this.connection.release();
  }

  destroy(): void {
    if (this.ended) return;
    this.ended = true;
    // mysql2 drops a destroyed connection from its pool.
    this.connection.destroy();
  }
}

/**
 * SQLite's one connection (TypeORM's, through its query runner), taken in turn: a transaction has
 * it to itself until it lets go (SqliteSessions). Its state is always known (`inTransaction`), so
 * it is never lost: "ending" it rolls back what is open and lets the next one have it.
 */
export class SqliteSession implements TransactionSession {
  readonly begin = 'BEGIN';
  readonly batchesCommit = false;
  ended = false;

  constructor(
    private readonly runner: QueryRunner,
    private readonly db: BetterSqlite3.Database,
    private readonly done: () => void,
  ) {}

  async send(sql: string, parameters: unknown[]): Promise<SessionAnswer> {
    const result = await this.runner.query(sql, parameters, true);
    const raw = result.raw as number | bigint | undefined;
    return {
      result: {
        rows: Array.isArray(result.records) ? (result.records as Row[]) : [],
        affected: result.affected ?? 0,
        insertId: Number(raw ?? 0),
      },
      inTransaction: this.db.inTransaction,
    };
  }

  lostBy(): boolean {
    return this.ended;
  }

  /**
   * A COMMIT that failed and left the transaction open committed nothing (SQLITE_BUSY). One that
   * closed it was rolled back, SQLite says, "or may not" have been for an I/O error: uncertain.
   */
  commitUncertain(): boolean {
    return !this.db.inTransaction;
  }

  release(): void {
    if (this.ended) return;
    this.ended = true;
    this.runner.release().catch(() => undefined);
    this.done();
  }

  destroy(): void {
    if (this.ended) return;
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // Rolled back by SQLite already, or the file is gone: nothing is left open either way.
    }
    this.release();
  }
}

/**
 * SQLite's connection, one transaction at a time: TypeORM would nest a second request's
 * transaction inside the first as a savepoint.
 */
export class SqliteSessions {
  private tail: Promise<void> = Promise.resolve();
  private held = 0;

  constructor(
    private readonly runner: () => QueryRunner,
    private readonly db: () => BetterSqlite3.Database,
  ) {}

  /** The connection, once the transactions before this one have let go of it. */
  async open(): Promise<SqliteSession> {
    let free!: () => void;
    const turn = new Promise<void>((resolve) => (free = resolve));
    const before = this.tail;
    this.tail = before.then(() => turn);
    this.held++;
    await before;
    const done = () => {
      this.held--;
      free();
    };
    try {
      return new SqliteSession(this.runner(), this.db(), done);
    } catch (error) {
      done();
      throw error;
    }
  }

  /** Settles once no transaction holds or waits for the connection. */
  async idle(): Promise<void> {
    while (this.held > 0) await this.tail;
  }
}
