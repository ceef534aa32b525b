import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumnOptions,
  TableForeignKey,
  TableIndex,
} from 'typeorm';

/**
 * The whole schema. One definition for both databases; the few differences are in `columns`:
 * MySQL gets `datetime(3)`, exact `decimal` and a binary NO PAD collation (so that equality,
 * uniqueness and ordering of text behave as on SQLite); SQLite stores decimals as text, because its NUMERIC
 * affinity would turn them into doubles.
 */
export class Init1732000000000 implements MigrationInterface {
  name = 'Init1732000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const c = columns(mysql, mysql ? await binaryCollation(queryRunner) : undefined);
    const fk = (column: string, table: string, onDelete: string) =>
      new TableForeignKey({
        columnNames: [column],
        referencedTableName: table,
        referencedColumnNames: ['id'],
        onDelete,
      });
    const index = (table: string, ...columnNames: string[]) =>
      new TableIndex({ name: `idx_${table}_${columnNames.join('_')}`, columnNames });

    /** A table whose foreign keys (column, table, on delete) are indexed, unless `indexed` says which. */
    const table = (
      name: string,
      columns: TableColumnOptions[],
      references: [string, string, string][] = [],
      indexed = references.map(([column]) => column),
    ) =>
      queryRunner.createTable(
        new Table({
          name,
          columns,
          foreignKeys: references.map(([column, target, onDelete]) => fk(column, target, onDelete)),
          indices: indexed.map((column) => index(name, column)),
        }),
      );

    await table('users', [
      c.id(),
      c.text('login', { isUnique: true }),
      c.int('email_id', { isNullable: true, isUnique: true }),
    ]);
    await table('genres', [c.id(), c.text('name', { isUnique: true })]);
    await table(
      'emails',
      [c.id(), c.text('email', { isUnique: true }), c.bool('is_primary'), c.int('user_id')],
      [['user_id', 'users', 'CASCADE']],
    );
    await queryRunner.createForeignKey('users', fk('email_id', 'emails', 'SET NULL'));
    await table(
      'marbles',
      [
        c.id(),
        c.text('name', { isUnique: true }),
        c.int('radius_mm', { default: 1 }),
        c.decimal('price', 6, 2),
        c.bool('is_discounted'),
        c.timestamp('created_at'),
        c.timestamp('updated_at'),
        c.int('user_id', { isNullable: true }),
        c.longText('description'),
        c.text('picture', { isNullable: true }),
      ],
      [['user_id', 'users', 'SET NULL']],
    );
    await table(
      'phone_numbers',
      [c.id(), c.text('number', { isUnique: true }), c.int('user_id')],
      [['user_id', 'users', 'CASCADE']],
    );
    await table(
      'movies',
      [
        c.id(),
        c.text('name', { isUnique: true }),
        c.decimal('price', 8, 2),
        c.int('main_genre_id', { isNullable: true }),
        c.timestamp('created_at'),
        c.timestamp('updated_at'),
      ],
      [['main_genre_id', 'genres', 'SET NULL']],
    );
    // The join tables of a movie's genres and users: the pair is the key, both sides cascade.
    for (const [name, column, target] of [
      ['genres_movies', 'genre_id', 'genres'],
      ['movies_users', 'user_id', 'users'],
    ]) {
      await table(
        name,
        [c.int('movie_id', { isPrimary: true }), c.int(column, { isPrimary: true })],
        [
          ['movie_id', 'movies', 'CASCADE'],
          [column, target, 'CASCADE'],
        ],
        [column],
      );
    }
    await onePrimaryEmailPerUser(queryRunner, c.mysql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['movies_users', 'genres_movies', 'movies', 'phone_numbers', 'marbles']) {
      await queryRunner.dropTable(table);
    }
    const users = await queryRunner.getTable('users');
    const billing = users?.foreignKeys.find((f) => f.columnNames.includes('email_id'));
    if (billing) await queryRunner.dropForeignKey('users', billing);
    for (const table of ['emails', 'genres', 'users']) await queryRunner.dropTable(table);
  }
}

/** The database itself refuses a second primary e-mail for a user, whatever the application does. */
async function onePrimaryEmailPerUser(queryRunner: QueryRunner, mysql: boolean) {
  if (mysql) {
    await queryRunner.query(
      'ALTER TABLE `emails` ADD `primary_user_id` int ' +
        'AS (CASE WHEN `is_primary` = 1 THEN `user_id` END) STORED',
    );
    await queryRunner.query(
      'CREATE UNIQUE INDEX `uq_emails_primary_user_id` ON `emails` (`primary_user_id`)',
    );
  } else {
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_emails_primary_user_id" ON "emails" ("user_id") WHERE "is_primary" = 1',
    );
  }
}

type Extra = Partial<TableColumnOptions>;

/**
 * A binary, NO PAD collation, so that `'Opal'` and `'Opal '` are different values as on SQLite:
 * MariaDB and MySQL 8 name it differently.
 */
export async function binaryCollation(queryRunner: QueryRunner): Promise<string> {
  const [{ version }] = await queryRunner.query('SELECT VERSION() AS version');
  return String(version).includes('MariaDB') ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
}

function columns(mysql: boolean, collation?: string) {
  const text = mysql ? { charset: 'utf8mb4', collation } : {};
  return {
    mysql,
    id: (): TableColumnOptions => ({
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    }),
    int: (name: string, extra: Extra = {}): TableColumnOptions => ({ name, type: 'int', ...extra }),
    text: (name: string, extra: Extra = {}): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '255',
      ...text,
      ...extra,
    }),
    longText: (name: string): TableColumnOptions => ({ name, type: 'text', ...text }),
    bool: (name: string): TableColumnOptions => ({ name, type: 'boolean', default: false }),
    decimal: (name: string, precision: number, scale: number): TableColumnOptions =>
      mysql
        ? { name, type: 'decimal', precision, scale, isNullable: true }
        : { name, type: 'text', isNullable: true },
    timestamp: (name: string): TableColumnOptions =>
      mysql ? { name, type: 'datetime', precision: 3 } : { name, type: 'datetime' },
  };
}
