/**
 * Schema drift: the entities describe the schema the migration creates, on either database
 * (what differs between the two is derived in src/rest/sql/tables.ts). Once the app has
 * migrated its database, TypeORM's schema diff finds nothing to change; and what that diff
 * does not look at (index conditions, generation expressions, collations) agrees as well.
 */
import {
  comparing,
  generatedColumns,
  isMariaDb,
  normalizedExpression,
  schemaDiff,
} from './schema-drift';
import { useApp } from './support/harness';

describe('schema drift', () => {
  const t = useApp();

  it('should find nothing to change between the entities and the migrated database', async () => {
    expect(await schemaDiff(t)).toEqual([]);
  }, 30_000);

  it('should have the indexes the entities declare, partial ones with the same condition', async () => {
    const declared = t.dataSource.entityMetadatas.flatMap((m) =>
      m.indices
        .filter((index) => index.synchronize)
        .map((index) => ({
          table: m.tableName,
          name: index.name,
          columns: index.columns.map((c) => c.databaseName),
          unique: index.isUnique,
          where: index.where || undefined,
        })),
    );
    const tables = await comparing(t, async (dataSource) => {
      const runner = dataSource.createQueryRunner();
      try {
        return await runner.getTables(dataSource.entityMetadatas.map((m) => m.tablePath));
      } finally {
        await runner.release();
      }
    });
    const found = declared.map(({ table, name }) => {
      const index = tables.find((tb) => tb.name === table)?.indices.find((i) => i.name === name);
      return {
        table,
        name,
        columns: index?.columnNames,
        unique: index?.isUnique,
        where: index?.where || undefined,
      };
    });
    expect(found).toEqual(declared);
  }, 30_000);

  if (process.env.TEST_DATABASE !== 'mysql') {
    it("should leave out MySQL's generated column on SQLite, where a partial index serves", () => {
      expect(generatedColumns(t.dataSource.entityMetadatas)).toEqual([]);
      const emails = t.dataSource.entityMetadatas.find((m) => m.tableName === 'emails')!;
      const index = emails.indices.find((i) => i.name === 'uq_emails_primary_user_id')!;
      expect([index.isUnique, index.where]).toEqual([true, '"is_primary" = 1']);
    });

    it('should index decimals by their numeric value and descriptions by their prefix, as the list query orders', async () => {
      const marbles = t.dataSource.entityMetadatas.find((m) => m.tableName === 'marbles')!;
      const unsynchronized = marbles.indices.filter((i) => !i.synchronize);
      expect(unsynchronized.map((i) => i.name).sort()).toEqual([
        'idx_marbles_description_key',
        'idx_marbles_price',
      ]);
      const indexes = await t.query(
        `SELECT sql FROM sqlite_master WHERE type = 'index' AND name IN (?, ?) ORDER BY name`,
        ['idx_marbles_description_key', 'idx_marbles_price'],
      );
      expect(indexes.map((i) => i.sql)).toEqual([
        'CREATE INDEX "idx_marbles_description_key" ON "marbles" (substr("description", 1, 100))',
        'CREATE INDEX "idx_marbles_price" ON "marbles" (CAST("price" AS REAL))',
      ]);
    });
    return;
  }

  it('should compute each generated column as its entity declares it', async () => {
    const declared = generatedColumns(t.dataSource.entityMetadatas);
    expect(declared.map((c) => `${c.table}.${c.name} ${c.kind}`)).toEqual([
      'emails.primary_user_id STORED',
      'marbles.description_key VIRTUAL',
    ]);
    for (const column of declared) {
      const [stored] = await t.dataSource.query(
        'SELECT GENERATION_EXPRESSION AS expression, EXTRA AS extra FROM information_schema.COLUMNS ' +
          'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
        [column.table, column.name],
      );
      expect([column.name, normalizedExpression(String(stored.expression))]).toEqual([
        column.name,
        normalizedExpression(column.expression),
      ]);
      expect([column.name, stored.extra]).toEqual([
        column.name,
        expect.stringMatching(new RegExp(column.kind)),
      ]);
    }
  });

  it('should give every text column a binary NO PAD collation', async () => {
    const collation = (await isMariaDb(t.dataSource)) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
    const declared = t.dataSource.entityMetadatas
      .flatMap((m) =>
        m.columns
          .filter((c) => ['varchar', 'text'].includes(String(c.type)))
          .map((c) => `${m.tableName}.${c.databaseName} ${collation}`),
      )
      .sort();
    const rows: { name: string; collation: string }[] = await t.dataSource.query(
      "SELECT CONCAT(TABLE_NAME, '.', COLUMN_NAME) AS name, COLLATION_NAME AS collation " +
        'FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ' +
        `AND COLLATION_NAME IS NOT NULL AND TABLE_NAME IN (${t.dataSource.entityMetadatas.map(() => '?').join(', ')})`,
      t.dataSource.entityMetadatas.map((m) => m.tableName),
    );
    expect(rows.map((r) => `${r.name} ${r.collation}`).sort()).toEqual(declared);
  });
});
