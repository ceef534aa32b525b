/**
 * Deterministic demo data: the same rows, with the same ids, on every run and every database.
 * Rows are inserted with explicit ids in multi-row batches inside transactions, so a million
 * marbles load in about a minute.
 *
 * This file knows the shared tables (users, genres) and no collection: each collection's folder
 * gives its own rows as a `DemoRows`, and the application passes the list in.
 */
import { DataSource, QueryRunner } from 'typeorm';
import { toDatabaseTimestamp } from '../rest/core/list-query';

export type Row = unknown[];

/** Rows to insert into a table, each with a value for every one of `columns`, ids included. */
export interface DemoInsert {
  table: string;
  columns: string[];
  rows: Row[];
}

/** `UPDATE <table> SET <set> = value WHERE id = id` for each `[id, value]`, after the inserts. */
export interface DemoUpdate {
  table: string;
  set: string;
  rows: [id: number, value: unknown][];
}

/** The seeded number generator every collection draws from, one after another. */
export interface DemoRandom {
  /** A number in [0, 1). */
  next(): number;
  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number;
}

/** What a collection's rows may point to: the shared tables' rows, and the generator. */
export interface DemoContext {
  random: DemoRandom;
  /** Users 1..100, `{id, login}`. */
  users: { id: number; login: string }[];
  /** Genres 1..10, `{id, name}`. */
  genres: { id: number; name: string }[];
}

/** A table whose number of rows the caller chooses (`npm run seed -- --marbles N`). */
export interface SizedDemoTable {
  /** The option that sizes it, e.g. `marbles`. */
  option: string;
  /** Rows when the caller names no number. */
  count: number;
  table: string;
  columns: string[];
  /** The row of index `i` (0-based; its id is `i + 1`). */
  row(i: number, random: DemoRandom): Row;
}

/** A collection's part of the demo data. */
export interface DemoRows {
  /** The collection's tables, in an order that lets their rows be deleted (join tables first). */
  tables: string[];
  /** Its rows, drawn in the order of the collections list, after the shared tables' rows. */
  rows?(context: DemoContext): (DemoInsert | DemoUpdate)[];
  /** Its table of chosen size, loaded in batches after every collection's `rows`. */
  sized?: SizedDemoTable;
}

export interface DemoDataOptions {
  /** Rows of each sized table by its option, e.g. `{ marbles: 1_000_000 }` (benchmarks). */
  sizes?: Record<string, number>;
  /** Called after each batch with rows done and rows in all. */
  progress?: (done: number, total: number) => void;
}

/** The shared tables, deleted after the collections' (their rows point here). */
const SHARED_TABLES = ['users', 'genres'];

const FIRST = [
  'ann',
  'bob',
  'cleo',
  'dev',
  'eve',
  'finn',
  'gus',
  'hana',
  'ivo',
  'jade',
  'kai',
  'lena',
  'milo',
  'nora',
  'otto',
  'pia',
  'quin',
  'rosa',
  'sam',
  'tess',
];
const LAST = ['archer', 'baker', 'cooper', 'dyer', 'fisher'];
const GENRES = [
  'Action',
  'Adventure',
  'Animation',
  'Comedy',
  'Documentary',
  'Drama',
  'Fantasy',
  'Horror',
  'Romance',
  'Science Fiction',
];

/**
 * Mulberry32: a small seeded generator, so every run draws the same numbers (the demo data's,
 * and the tests' that print a seed to replay a run).
 */
export function seededRandom(seed: number): DemoRandom {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

const EPOCH = Date.UTC(2024, 0, 1);

/** A timestamp `i + offsetHours` hours after 2024-01-01, with a few milliseconds. */
export function demoTimestamp(i: number, offsetHours = 0): string {
  return toDatabaseTimestamp(new Date(EPOCH + (i + offsetHours) * 3_600_000 + ((i * 37) % 1000)));
}

/** A number of cents as a decimal string: 1250 → `12.50`. */
export function demoCents(value: number): string {
  return (value / 100).toFixed(2);
}

function isUpdate(step: DemoInsert | DemoUpdate): step is DemoUpdate {
  return 'set' in step;
}

export class DemoData {
  /** Every table with demo rows, in an order that lets rows be deleted. */
  private readonly tables: string[];

  constructor(
    private readonly dataSource: DataSource,
    private readonly collections: readonly DemoRows[],
  ) {
    this.tables = ['idempotency_keys', ...collections.flatMap((c) => c.tables), ...SHARED_TABLES];
  }

  async isEmpty(): Promise<boolean> {
    const [row] = await this.dataSource.query('SELECT COUNT(*) AS n FROM users');
    return Number(row.n) === 0;
  }

  /** Deletes every row of every table. */
  async clear(): Promise<void> {
    await this.transaction(async (runner) => {
      // A user's billing e-mail points back into a collection: unlinked first.
      await runner.query(`UPDATE ${this.quote('users')} SET ${this.quote('email_id')} = NULL`);
      for (const table of this.tables) await runner.query(`DELETE FROM ${this.quote(table)}`);
    });
  }

  /**
   * Sets every table's id counter back to where a new database has it, so that after `clear()`
   * and `load()` the next record gets the id it would get on a fresh database (MySQL's
   * AUTO_INCREMENT; SQLite's sqlite_sequence, kept by AUTOINCREMENT tables). The tables must be
   * empty. On MySQL each ALTER TABLE commits on its own.
   *
   * Not on a Galera cluster: there the nodes hand out ids in steps of the cluster's size, so no
   * counter makes them consecutive, and each ALTER TABLE is a DDL every node applies at once
   * (total order isolation), which on MariaDB 10.11 can leave InnoDB's purge reopening a table
   * with an indexed virtual column (marbles' description_key) in a loop whose memory grows by
   * hundreds of MB a second, when that table's deleted rows are not yet purged (docs/scaling.md).
   */
  async resetIds(): Promise<void> {
    if (this.dataSource.driver.options.type === 'mysql') {
      if (await this.onGalera()) return;
      // On an empty InnoDB table the counter becomes 1; loading explicit ids moves it past them.
      for (const table of this.tables)
        await this.dataSource.query(`ALTER TABLE ${this.quote(table)} AUTO_INCREMENT = 1`);
      return;
    }
    const [sequence] = await this.dataSource.query(
      "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
    );
    if (Number(sequence.n) === 0) return;
    await this.dataSource.query(
      `DELETE FROM sqlite_sequence WHERE name IN (${this.tables.map(() => '?').join(', ')})`,
      this.tables,
    );
  }

  async load(options: DemoDataOptions = {}): Promise<void> {
    const context: DemoContext = {
      random: seededRandom(20240501),
      users: Array.from({ length: 100 }, (_, i) => ({
        id: i + 1,
        login: `${FIRST[i % 20]}.${LAST[Math.floor(i / 20)]}`,
      })),
      genres: GENRES.map((name, i) => ({ id: i + 1, name })),
    };
    // Drawn here, in the list's order, before anything is written: the generator's sequence,
    // and so every row, is the same whatever the database.
    const steps = this.collections.map((c) => c.rows?.(context) ?? []);
    const sized = this.collections.flatMap((c) => (c.sized ? [c.sized] : []));
    const count = (table: SizedDemoTable) => options.sizes?.[table.option] ?? table.count;
    const inserted = (list: (DemoInsert | DemoUpdate)[]) =>
      list.reduce((n, step) => n + (isUpdate(step) ? 0 : step.rows.length), 0);
    const total =
      context.users.length +
      context.genres.length +
      steps.reduce((n, list) => n + inserted(list), 0) +
      sized.reduce((n, table) => n + count(table), 0);
    let done = 0;
    const report = (n: number) => {
      done += n;
      options.progress?.(done, total);
    };

    await this.transaction(async (runner) => {
      const users = context.users.map((u) => [u.id, u.login]);
      await this.insert(runner, 'users', ['id', 'login'], users);
      const genres = context.genres.map((g) => [g.id, g.name]);
      await this.insert(runner, 'genres', ['id', 'name'], genres);
      report(users.length + genres.length);
      for (const list of steps) {
        for (const step of list) {
          if (!isUpdate(step)) await this.insert(runner, step.table, step.columns, step.rows);
        }
        for (const step of list) {
          if (!isUpdate(step)) continue;
          for (const [id, value] of step.rows) {
            await runner.query(
              `UPDATE ${this.quote(step.table)} SET ${this.quote(step.set)} = ? WHERE ${this.quote('id')} = ?`,
              [value, id],
            );
          }
        }
        report(inserted(list));
      }
    });

    const batch = 1000;
    for (const table of sized) {
      const rows = count(table);
      for (let start = 0; start < rows; start += batch) {
        const chunk: Row[] = [];
        for (let i = start; i < Math.min(start + batch, rows); i++) {
          chunk.push(table.row(i, context.random));
        }
        await this.transaction((runner) => this.insert(runner, table.table, table.columns, chunk));
        report(chunk.length);
      }
    }
  }

  private async insert(runner: QueryRunner, table: string, columns: string[], rows: Row[]) {
    const width = columns.length;
    const perStatement = Math.floor(10_000 / width);
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      await runner.query(
        `INSERT INTO ${this.quote(table)} (${columns.map((c) => this.quote(c)).join(', ')}) VALUES ` +
          chunk.map(() => tuple).join(', '),
        chunk.flat(),
      );
    }
  }

  private async transaction<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const result = await work(runner);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Whether the database is a Galera node (`wsrep_on`; MySQL has no such variable). */
  private async onGalera(): Promise<boolean> {
    const rows: { Value?: string }[] = await this.dataSource.query(
      "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'",
    );
    return rows[0]?.Value === 'ON';
  }

  private quote(name: string): string {
    return this.dataSource.driver.escape(name);
  }
}
