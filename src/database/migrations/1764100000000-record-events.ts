import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { binaryCollation } from './table-helpers';

/**
 * The change feed (src/events, docs/events.md): `record_events`, the outbox every write adds its
 * events to in its own transaction, and `record_event_sequencer`, the one row that says which
 * instance gives committed events their `position` (the feed's cursor), up to where it has, and
 * up to where old events were purged.
 *
 * record_events: `id` (the outbox order), `position` (NULL until sequenced, then dense and
 * unique), `collection`, `action`, `record_id`, `record` (the record as `show` renders it, JSON,
 * absent for `deleted`), `etag`, `at` (milliseconds since the epoch), `request_id`, `actor`.
 */
export class RecordEvents1764100000000 implements MigrationInterface {
  name = 'RecordEvents1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const text = mysql ? { charset: 'utf8mb4', collation: await binaryCollation(queryRunner) } : {};
    const varchar = (name: string, length: string, isNullable = false) => ({
      name,
      type: 'varchar',
      length,
      isNullable,
      ...text,
    });
    await queryRunner.createTable(
      new Table({
        name: 'record_events',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'position', type: 'bigint', isNullable: true },
          varchar('collection', '64'),
          varchar('action', '16'),
          { name: 'record_id', type: 'int' },
          { name: 'record', type: mysql ? 'mediumblob' : 'blob', isNullable: true },
          varchar('etag', '100', true),
          { name: 'at', type: 'bigint' },
          varchar('request_id', '255', true),
          varchar('actor', '255', true),
        ],
        indices: [
          new TableIndex({
            name: 'uq_record_events_position',
            columnNames: ['position'],
            isUnique: true,
          }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'record_event_sequencer',
        columns: [
          { ...varchar('name', '32'), isPrimary: true },
          varchar('holder', '64'),
          { name: 'expires_at', type: 'bigint' },
          { name: 'last_position', type: 'bigint' },
          { name: 'purged_through', type: 'bigint' },
        ],
      }),
    );
    await queryRunner.query(
      `INSERT INTO ${queryRunner.connection.driver.escape('record_event_sequencer')}` +
        " VALUES ('events', '', 0, 0, 0)",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('record_event_sequencer');
    await queryRunner.dropTable('record_events');
  }
}
