/**
 * The database as the SQL layer sees it: a dialect, identifier quoting, plain reads and retried
 * transactions. `database.ts` implements it over TypeORM's DataSource; nothing else here knows
 * TypeORM.
 */
export type Dialect = 'mysql' | 'sqlite';

export type Row = Record<string, unknown>;

export interface RunResult {
  rows: Row[];
  /** Rows an INSERT, UPDATE or DELETE changed. */
  affected: number;
  /** Id of the row an INSERT added. */
  insertId: number;
}

/** One transaction's view of the database. */
export interface Tx {
  run(sql: string, parameters?: unknown[]): Promise<RunResult>;
}

export abstract class SqlDatabase {
  abstract readonly dialect: Dialect;

  /** `name` quoted as an identifier. */
  abstract quote(name: string): string;

  /** One read statement outside any transaction. */
  abstract query(sql: string, parameters?: unknown[]): Promise<Row[]>;

  /** `work` in one transaction, retried from the start on a deadlock or a duplicate key. */
  abstract transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}
