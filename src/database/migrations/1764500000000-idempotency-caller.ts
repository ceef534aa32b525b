import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { binaryCollation } from './table-helpers';

/**
 * Idempotency keys belong to their caller: `idempotency_keys` gets a `caller` column (who sent the
 * key: `sub:<the token's sub>`, `api-token`, or empty for a request without credentials), and the
 * primary key becomes (`caller`, `idempotency_key`), so that another caller's same key is a key of
 * its own, never a replay of someone else's answer (docs/safe-writes.md).
 *
 * The rows already stored keep their keys with an empty caller: they were written without one,
 * and an empty caller is what a version before this one still writes while a deploy rolls.
 * MySQL alters the table in place, in one statement (a Galera cluster replicates no table without
 * a primary key); SQLite copies it into a new table.
 */
export class IdempotencyCaller1764500000000 implements MigrationInterface {
  name = 'IdempotencyCaller1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    if (queryRunner.connection.driver.options.type === 'mysql') {
      const collation = await binaryCollation(queryRunner);
      await queryRunner.query(
        `ALTER TABLE ${q('idempotency_keys')}` +
          ` ADD ${q('caller')} varchar(255) CHARACTER SET utf8mb4 COLLATE ${collation}` +
          ` NOT NULL DEFAULT '' FIRST,` +
          ` DROP PRIMARY KEY, ADD PRIMARY KEY (${q('caller')}, ${q('idempotency_key')})`,
      );
      return;
    }
    await copyInto(queryRunner, ['caller', 'idempotency_key']);
  }

  /** Back to one key for everyone: of one key's rows, the one stored first is kept. */
  async down(queryRunner: QueryRunner): Promise<void> {
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    const table = q('idempotency_keys');
    const key = q('idempotency_key');
    await queryRunner.query(
      `DELETE FROM ${table} WHERE EXISTS (SELECT 1 FROM (SELECT ${key}, ${q('caller')},` +
        ` ${q('expires_at')} FROM ${table}) other WHERE other.${key} = ${table}.${key}` +
        ` AND (other.${q('expires_at')} < ${table}.${q('expires_at')}` +
        ` OR (other.${q('expires_at')} = ${table}.${q('expires_at')}` +
        ` AND other.${q('caller')} < ${table}.${q('caller')})))`,
    );
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await queryRunner.query(
        `ALTER TABLE ${table} DROP PRIMARY KEY, DROP COLUMN ${q('caller')},` +
          ` ADD PRIMARY KEY (${key})`,
      );
      return;
    }
    await copyInto(queryRunner, ['idempotency_key']);
  }
}

/** The columns every version of the table has, besides `caller`. */
const COLUMNS = [
  'idempotency_key',
  'fingerprint',
  'claim',
  'status',
  'content_type',
  'location',
  'etag',
  'body',
  'expires_at',
];

/**
 * SQLite: the table again with `primary` as its primary key (with a `caller` column when the key
 * has one), its rows copied over.
 */
async function copyInto(queryRunner: QueryRunner, primary: string[]): Promise<void> {
  const q = (name: string) => queryRunner.connection.driver.escape(name);
  const withCaller = primary.includes('caller');
  const varchar = (name: string, length: string, isNullable = false) => ({
    name,
    type: 'varchar',
    length,
    isNullable,
    isPrimary: primary.includes(name),
  });
  await queryRunner.createTable(
    new Table({
      name: 'idempotency_keys_next',
      columns: [
        ...(withCaller ? [{ ...varchar('caller', '255'), default: "''" }] : []),
        varchar('idempotency_key', '255'),
        varchar('fingerprint', '64'),
        varchar('claim', '36'),
        { name: 'status', type: 'int', isNullable: true },
        varchar('content_type', '100', true),
        varchar('location', '2048', true),
        varchar('etag', '100', true),
        { name: 'body', type: 'blob', isNullable: true },
        { name: 'expires_at', type: 'bigint' },
      ],
    }),
  );
  const list = COLUMNS.map(q).join(', ');
  await queryRunner.query(
    `INSERT INTO ${q('idempotency_keys_next')} (${list}) SELECT ${list} FROM ${q('idempotency_keys')}`,
  );
  await queryRunner.dropTable('idempotency_keys');
  await queryRunner.renameTable('idempotency_keys_next', 'idempotency_keys');
  await queryRunner.createIndex(
    'idempotency_keys',
    new TableIndex({ name: 'idx_idempotency_keys_expires_at', columnNames: ['expires_at'] }),
  );
}
