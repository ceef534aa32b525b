import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** The tables whose records carry a version (their ETag): the collections'. */
const VERSIONED = ['emails', 'marbles', 'phone_numbers', 'movies'];

/**
 * Safe writes: a `version` on every collection's records, moved by every write
 * (the strong ETag and the If-Match check), and `idempotency_keys`, the stored responses of
 * requests sent with an Idempotency-Key.
 *
 * idempotency_keys: `idempotency_key` (binary collation on MySQL: keys are case-sensitive), the
 * request's `fingerprint`, the `claim` of the request that runs it, and once done its response:
 * `status`, `content_type`, `location`, `etag` and `body`. `expires_at` (milliseconds since the
 * epoch): the end of the running request's lease, then of the stored response's retention.
 */
export class SafeWrites1763900000000 implements MigrationInterface {
  name = 'SafeWrites1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    // Plain SQL: TypeORM's addColumn reads the table first, and on MySQL it looks up the
    // generated column of emails in a typeorm_metadata table this schema does not have.
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    for (const table of VERSIONED) {
      await queryRunner.query(`ALTER TABLE ${q(table)} ADD ${q('version')} int NOT NULL DEFAULT 1`);
    }
    let text = {};
    if (mysql) {
      const [{ version }] = await queryRunner.query('SELECT VERSION() AS version');
      const collation = String(version).includes('MariaDB')
        ? 'utf8mb4_nopad_bin'
        : 'utf8mb4_0900_bin';
      text = { charset: 'utf8mb4', collation };
    }
    const varchar = (name: string, length: string, isNullable = false) => ({
      name,
      type: 'varchar',
      length,
      isNullable,
      ...text,
    });
    await queryRunner.createTable(
      new Table({
        name: 'idempotency_keys',
        columns: [
          { ...varchar('idempotency_key', '255'), isPrimary: true },
          varchar('fingerprint', '64'),
          varchar('claim', '36'),
          { name: 'status', type: 'int', isNullable: true },
          varchar('content_type', '100', true),
          varchar('location', '2048', true),
          varchar('etag', '100', true),
          { name: 'body', type: mysql ? 'mediumblob' : 'blob', isNullable: true },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({
            name: 'idx_idempotency_keys_expires_at',
            columnNames: ['expires_at'],
          }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('idempotency_keys');
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    for (const table of VERSIONED) {
      await queryRunner.query(`ALTER TABLE ${q(table)} DROP COLUMN ${q('version')}`);
    }
  }
}
