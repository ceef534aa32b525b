import { MigrationInterface, QueryRunner, Table, TableColumnOptions } from 'typeorm';
import { ColumnTypes, columnTypes } from './table-helpers';

/**
 * The change feed's outbox gets a table of its own. Writes add their events to
 * `record_event_outbox` (auto-increment `id`, the outbox order); the sequencer moves the
 * committed ones into `record_events`, giving each its `position`, which becomes that table's
 * primary key: the log is only ever appended to and cut from its oldest end, and needs no second
 * index; `outbox_id` keeps the id each event had in the outbox. Before, the events were written
 * to `record_events` with a NULL `position` and positioned in place: an entry in the position
 * index written by the writer, replaced by the batch, purged later. docs/events.md gives the
 * argument, docs/benchmark.md what it saves ("The outbox's own table").
 *
 * Events that wait for their position move to the outbox with their ids; the positioned ones
 * stay. MySQL alters `record_events` in place; SQLite copies it into a new table.
 */
export class EventOutbox1764300000000 implements MigrationInterface {
  name = 'EventOutbox1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    const c = await columnTypes(queryRunner);
    const columns = eventColumns(c);
    await queryRunner.createTable(
      new Table({ name: 'record_event_outbox', columns: [c.id(), ...columns] }),
    );
    const list = columns.map((column) => q(column.name)).join(', ');
    await queryRunner.query(
      `INSERT INTO ${q('record_event_outbox')} (${q('id')}, ${list})` +
        ` SELECT ${q('id')}, ${list} FROM ${q('record_events')} WHERE ${q('position')} IS NULL ORDER BY ${q('id')}`,
    );
    await queryRunner.query(`DELETE FROM ${q('record_events')} WHERE ${q('position')} IS NULL`);
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await queryRunner.query(
        `ALTER TABLE ${q('record_events')} DROP INDEX ${q('idx_record_events_position')},` +
          ` DROP PRIMARY KEY, CHANGE ${q('id')} ${q('outbox_id')} int NOT NULL,` +
          ` MODIFY ${q('position')} bigint NOT NULL FIRST,` +
          ` ADD PRIMARY KEY (${q('position')})`,
      );
      return;
    }
    await queryRunner.createTable(
      new Table({
        name: 'record_events_next',
        columns: [
          { name: 'position', type: 'bigint', isPrimary: true },
          { name: 'outbox_id', type: 'int' },
          ...columns,
        ],
      }),
    );
    await queryRunner.query(
      `INSERT INTO ${q('record_events_next')} (${q('position')}, ${q('outbox_id')}, ${list})` +
        ` SELECT ${q('position')}, ${q('id')}, ${list} FROM ${q('record_events')} ORDER BY ${q('position')}`,
    );
    await queryRunner.dropTable('record_events');
    await queryRunner.renameTable('record_events_next', 'record_events');
  }

  /**
   * Back to events positioned in place: `record_events` gets an `id` again (in position order)
   * and its index on `position`; the outbox's events follow, unpositioned, in outbox order.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    const c = await columnTypes(queryRunner);
    const columns = eventColumns(c);
    const list = columns.map((column) => q(column.name)).join(', ');
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await queryRunner.query(
        `ALTER TABLE ${q('record_events')} DROP PRIMARY KEY, DROP COLUMN ${q('outbox_id')},` +
          ` ADD ${q('id')} int NOT NULL AUTO_INCREMENT PRIMARY KEY FIRST,` +
          ` MODIFY ${q('position')} bigint NULL AFTER ${q('id')},` +
          ` ADD INDEX ${q('idx_record_events_position')} (${q('position')})`,
      );
    } else {
      await queryRunner.createTable(
        new Table({
          name: 'record_events_previous',
          columns: [c.id(), { name: 'position', type: 'bigint', isNullable: true }, ...columns],
          indices: [{ name: 'idx_record_events_position', columnNames: ['position'] }],
        }),
      );
      await queryRunner.query(
        `INSERT INTO ${q('record_events_previous')} (${q('position')}, ${list})` +
          ` SELECT ${q('position')}, ${list} FROM ${q('record_events')} ORDER BY ${q('position')}`,
      );
      await queryRunner.dropTable('record_events');
      await queryRunner.renameTable('record_events_previous', 'record_events');
    }
    await queryRunner.query(
      `INSERT INTO ${q('record_events')} (${list})` +
        ` SELECT ${list} FROM ${q('record_event_outbox')} ORDER BY ${q('id')}`,
    );
    await queryRunner.dropTable('record_event_outbox');
  }
}

/** An event's columns besides its id and position, as migration 1764100000000 made them. */
function eventColumns(c: ColumnTypes): TableColumnOptions[] {
  return [
    c.text('collection', { length: '64' }),
    c.text('action', { length: '16' }),
    c.int('record_id'),
    { name: 'record', type: c.mysql ? 'mediumblob' : 'blob', isNullable: true },
    c.text('etag', { length: '100', isNullable: true }),
    { name: 'at', type: 'bigint' },
    c.text('request_id', { isNullable: true }),
    c.text('actor', { isNullable: true }),
  ];
}
