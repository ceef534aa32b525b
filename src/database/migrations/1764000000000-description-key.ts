import { MigrationInterface, QueryRunner } from 'typeorm';
import { binaryCollation } from './table-helpers';

/**
 * An index that orders marbles by `description` (src/rest/sql/index-walks.ts, PrefixWalk). A TEXT
 * column cannot be indexed whole on MySQL, so the index holds its first 100 characters: on MySQL
 * the virtual generated column `description_key` (computed on read, stored in the index only), on
 * SQLite the expression `substr(description, 1, 100)`, which the list query uses as written.
 */
export class DescriptionKey1764000000000 implements MigrationInterface {
  name = 'DescriptionKey1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      const collation = await binaryCollation(queryRunner);
      await queryRunner.query(
        `ALTER TABLE \`marbles\` ADD \`description_key\` varchar(100) CHARACTER SET utf8mb4 COLLATE ${collation}` +
          ' AS (LEFT(`description`, 100)) VIRTUAL',
      );
      await queryRunner.query(
        'CREATE INDEX `idx_marbles_description_key` ON `marbles` (`description_key`)',
      );
    } else {
      await queryRunner.query(
        'CREATE INDEX "idx_marbles_description_key" ON "marbles" (substr("description", 1, 100))',
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      queryRunner.connection.driver.options.type === 'mysql'
        ? 'ALTER TABLE `marbles` DROP INDEX `idx_marbles_description_key`, DROP COLUMN `description_key`'
        : 'DROP INDEX "idx_marbles_description_key"',
    );
  }
}
