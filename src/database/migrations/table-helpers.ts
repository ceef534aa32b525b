/**
 * How a migration describes a table, the same way on both databases: the shared migrations use
 * these, and so does the migration a new collection brings (README, Adding a collection).
 *
 *     const c = await columnTypes(queryRunner);
 *     await createTable(queryRunner, 'maps', [c.id(), c.text('title', { isUnique: true }),
 *       c.int('user_id'), c.version()], [['user_id', 'users', 'CASCADE']]);
 *
 * `npm run migration:generate` writes such calls from a declaration (src/database/migration-writer.ts).
 *
 * MySQL gets `datetime(3)`, exact `decimal` and a binary NO PAD collation on text (so that
 * equality, uniqueness and ordering of text behave as on SQLite); SQLite stores decimals as text,
 * because its NUMERIC affinity would turn them into doubles.
 */
import { QueryRunner, Table, TableColumnOptions, TableForeignKey, TableIndex } from 'typeorm';

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
    longText: (name: string, extra: Extra = {}): TableColumnOptions => ({
      name,
      type: 'text',
      ...text,
      ...extra,
    }),
    /** A boolean, `false` by default unless `extra` says otherwise. */
    bool: (name: string, extra: Extra = {}): TableColumnOptions => ({
      name,
      type: 'boolean',
      default: false,
      ...extra,
    }),
    /** An exact decimal (text on SQLite), nullable unless `extra` says otherwise. */
    decimal: (
      name: string,
      precision: number,
      scale: number,
      extra: Extra = {},
    ): TableColumnOptions =>
      mysql
        ? { name, type: 'decimal', precision, scale, isNullable: true, ...extra }
        : { name, type: 'text', isNullable: true, ...extra },
    /** Milliseconds kept: `datetime(3)` on MySQL, text on SQLite. */
    timestamp: (name: string, extra: Extra = {}): TableColumnOptions =>
      mysql
        ? { name, type: 'datetime', precision: 3, ...extra }
        : { name, type: 'datetime', ...extra },
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
  /**
   * Decimal columns given an `idx_<table>_<column>` index that orders them by their value: on
   * SQLite, which keeps decimals as text, an index on `CAST(<column> AS REAL)`.
   */
  indexedByValue?: string[];
}

/** The `idx_<table>_<column>` index of a decimal, by its numeric value (see `TableKeys`). */
export async function createValueIndex(
  queryRunner: QueryRunner,
  table: string,
  column: string,
): Promise<void> {
  const q = (name: string) => queryRunner.connection.driver.escape(name);
  const key =
    queryRunner.connection.driver.options.type === 'mysql'
      ? q(column)
      : `CAST(${q(column)} AS REAL)`;
  await queryRunner.query(`CREATE INDEX ${q(`idx_${table}_${column}`)} ON ${q(table)} (${key})`);
}

/**
 * Creates a table and its foreign keys, each indexed as `idx_<table>_<column>` (unless `indexed`
 * names the columns to index), as src/rest/sql/tables.ts derives them from a declaration.
 */
export async function createTable(
  queryRunner: QueryRunner,
  name: string,
  columns: TableColumnOptions[],
  references: Reference[] = [],
  { indexed = references.map(([column]) => column), indexedByValue = [] }: TableKeys = {},
): Promise<void> {
  await queryRunner.createTable(
    new Table({
      name,
      columns,
      foreignKeys: references.map(([column, target, onDelete]) =>
        foreignKey(column, target, onDelete),
      ),
      indices: indexed.map(
        (column) => new TableIndex({ name: `idx_${name}_${column}`, columnNames: [column] }),
      ),
    }),
  );
  for (const column of indexedByValue) await createValueIndex(queryRunner, name, column);
}
