import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `record_events.position` keeps its index, no longer unique. Positions are unique because every
 * positioning batch locks the sequencer's row first and checks that it positioned exactly the
 * events it read (src/events/sequencer.ts, docs/events.md); the unique index only checked it
 * again, at a price: InnoDB looks for a duplicate of every position it is given, among the
 * delete-marked entries the positioning leaves behind until the purge removes them, so the check
 * grew with the purge's lag. Measured on MariaDB 10.11, positioning 45 events a batch: 0.07 to
 * 0.17 ms of database CPU per event with the unique index, 0.04 to 0.06 with the plain one.
 */
export class EventPositionIndex1764200000000 implements MigrationInterface {
  name = 'EventPositionIndex1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.replace(queryRunner, 'uq_record_events_position', 'idx_record_events_position', '');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.replace(
      queryRunner,
      'idx_record_events_position',
      'uq_record_events_position',
      'UNIQUE ',
    );
  }

  /** Drops the index `from` and creates `to` on `position` (at once, on MySQL). */
  private async replace(
    queryRunner: QueryRunner,
    from: string,
    to: string,
    unique: string,
  ): Promise<void> {
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await queryRunner.query(
        `ALTER TABLE ${q('record_events')} DROP INDEX ${q(from)}, ADD ${unique}INDEX ${q(to)} (${q('position')})`,
      );
    } else {
      await queryRunner.query(`DROP INDEX ${q(from)}`);
      await queryRunner.query(
        `CREATE ${unique}INDEX ${q(to)} ON ${q('record_events')} (${q('position')})`,
      );
    }
  }
}
