import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index for every column a client can order a paginated collection by, so that page 1 of
 * `?ordering=-price` reads 30 index entries instead of sorting the table (and a deep page walks the
 * index in the deferred join). Each index ends on the primary key, as InnoDB and SQLite's rowid
 * tables store it, and the list query breaks ties by id in the direction of the last ordering term,
 * so one index serves both directions.
 *
 * Left out: columns that already lead an index (ids, unique names, foreign keys), `description`
 * (TEXT: MySQL indexes a prefix only, which cannot order), and paths through a reference
 * (`user.login`), which no index of the ordered table covers. README "Large tables" gives their cost.
 * Movies are a bare list, read whole whatever the order.
 *
 * SQLite keeps decimals as text and orders `price` by `CAST(price AS REAL)`: its index is on that
 * expression, which the query planner matches to the query's.
 */
const ORDERED: [table: string, column: string][] = [
  ['marbles', 'radius_mm'],
  ['marbles', 'price'],
  ['marbles', 'is_discounted'],
  ['marbles', 'created_at'],
  ['marbles', 'updated_at'],
  ['marbles', 'picture'],
  ['emails', 'is_primary'],
];

/** Decimal columns stored as text on SQLite, indexed by their numeric value there. */
const SQLITE_DECIMALS = new Set(['marbles.price']);

export class OrderingIndexes1763800000000 implements MigrationInterface {
  name = 'OrderingIndexes1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.driver.options.type !== 'mysql';
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    for (const [table, column] of ORDERED) {
      const key =
        sqlite && SQLITE_DECIMALS.has(`${table}.${column}`)
          ? `CAST(${q(column)} AS REAL)`
          : q(column);
      await queryRunner.query(
        `CREATE INDEX ${q(`idx_${table}_${column}`)} ON ${q(table)} (${key})`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of [...ORDERED].reverse()) {
      await queryRunner.dropIndex(table, `idx_${table}_${column}`);
    }
  }
}
