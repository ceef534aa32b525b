/**
 * How a migration describes a table, the same way on both databases: the shared migrations use
 * these, and so does the migration a new collection brings (README, Adding a collection).
 *
 *     const c = await columnTypes(queryRunner);
 *     await createTable(queryRunner, 'maps', [c.id(), c.text('title'), c.int('user_id'), c.version()],
 *       [['user_id', 'users', 'CASCADE']], { unique: ['title'] });
 *
 * MySQL gets `datetime(3)`, exact `decimal` and a binary NO PAD collation on text (so that
 * equality, uniqueness and ordering of text behave as on SQLite); SQLite stores decimals as text,
 * because its NUMERIC affinity would turn them into doubles.
 */
import {
  QueryRunner,
  Table,
  TableColumnOptions,
  TableForeignKey,
  TableIndex,
  TableUnique,
} from 'typeorm';

type Extra = Partial<TableColumnOptions>;

/**
 * A binary, NO PAD collation, so that `'Opal'` and `'Opal '` are different values as on SQLite:
 * MariaDB and MySQL 8 name it differently.
 */
export async function binaryCollation(queryRunner: QueryRunner): Promise<string> {
  const [{ version }] = await queryRunner.query('SELECT VERSION() AS version');
  return String(version).includes('MariaDB') ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}

/** The column kinds of this schema, for the database `queryRunner` is connected to. */
export async function columnTypes(queryRunner: QueryRunner) {
  const mysql = queryRunner.connection.driver.options.type === 'mysql';
  return columnTypesFor(mysql, mysql ? await binaryCollation(queryRunner) : undefined);
}

export type ColumnTypes = ReturnType<typeof columnTypesFor>;

function columnTypesFor(mysql: boolean, collation?: string) {
  const text = mysql ? { charset: 'utf8mb4', collation } : {};
  return {
    mysql,
    /** The auto-increment integer primary key `id`. */
    id: (): TableColumnOptions => ({
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    }),
    int: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'int', ...extra }),
    /** `varchar(255)`, binary collation on MySQL. */
    text: (name: string, extra: Extra = {}): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '255',
      ...text,
      ...extra,
    }),
    /** `text` (64 KiB on MySQL), binary collation on MySQL. */
    longText: (name: string): TableColumnOptions => ({ name, type: 'text', ...text }),
    bool: (name: string): TableColumnOptions => ({ name, type: 'boolean', default: false }),
    /** A nullable exact decimal (text on SQLite). */
    decimal: (name: string, precision: number, scale: number): TableColumnOptions =>
      mysql
        ? { name, type: 'decimal', precision, scale, isNullable: true }
        : { name, type: 'text', isNullable: true },
    /** Milliseconds kept: `datetime(3)` on MySQL, text on SQLite. */
    timestamp: (name: string): TableColumnOptions =>
      mysql ? { name, type: 'datetime', precision: 3 } : { name, type: 'datetime' },
    /** A record's version, its ETag: every write moves it (the If-Match check compares it). */
    version: (): TableColumnOptions => ({ name: 'version', type: 'int', default: 1 }),
  };
}

/** A foreign key `column` → `table.id`, with its ON DELETE action. */
export function foreignKey(column: string, table: string, onDelete: string): TableForeignKey {
  return new TableForeignKey({
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete,
  });
}

/** A foreign key of a new table: its column, the table it points to, and ON DELETE. */
export type Reference = [column: string, table: string, onDelete: 'CASCADE' | 'SET NULL'];

export interface TableKeys {
  /** Columns given an `idx_<table>_<column>` index. Default: the foreign keys'. */
  indexed?: string[];
  /** Columns unique on their own, each under the constraint `uq_<table>_<column>`. */
  unique?: string[];
}

/**
 * Creates a table and its foreign keys, each indexed as `idx_<table>_<column>` (unless `indexed`
 * names the columns to index), as the entities' `@EntityWith` expects them.
 */
export function createTable(
  queryRunner: QueryRunner,
  name: string,
  columns: TableColumnOptions[],
  references: Reference[] = [],
  { indexed = references.map(([column]) => column), unique = [] }: TableKeys = {},
): Promise<void> {
  return queryRunner.createTable(
    new Table({
      name,
      columns,
      foreignKeys: references.map(([column, target, onDelete]) =>
        foreignKey(column, target, onDelete),
      ),
      indices: indexed.map(
        (column) => new TableIndex({ name: `idx_${name}_${column}`, columnNames: [column] }),
      ),
      uniques: unique.map(
        (column) => new TableUnique({ name: `uq_${name}_${column}`, columnNames: [column] }),
      ),
    }),
  );
}
