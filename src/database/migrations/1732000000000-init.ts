import { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, createTable, foreignKey } from './table-helpers';

/**
 * The whole first schema, one definition for both databases (./table-helpers.ts holds the few
 * differences).
 */
export class Init1732000000000 implements MigrationInterface {
  name = 'Init1732000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = await columnTypes(queryRunner);
    const table = createTable.bind(null, queryRunner);

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
    await queryRunner.createForeignKey('users', foreignKey('email_id', 'emails', 'SET NULL'));
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
    ] as const) {
      await table(
        name,
        [c.int('movie_id', { isPrimary: true }), c.int(column, { isPrimary: true })],
        [
          ['movie_id', 'movies', 'CASCADE'],
          [column, target, 'CASCADE'],
        ],
        { indexed: [column] },
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
