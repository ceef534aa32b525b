/**
 * Comparing the entities with the schema the migrations created (test/e2e/schema-drift.e2e-spec.ts,
 * and the fixture collections' suite for their own migrations).
 */
import { DataSource, DataSourceOptions, EntityMetadata, QueryRunner } from 'typeorm';
import type { TestApp } from './support/harness';

interface GeneratedColumn {
  table: string;
  name: string;
  expression: string;
  /** STORED or VIRTUAL. */
  kind: string;
}

export function generatedColumns(metadatas: EntityMetadata[]): GeneratedColumn[] {
  return metadatas.flatMap((m) =>
    m.columns
      .filter((c) => c.asExpression)
      .map((c) => ({
        table: m.tableName,
        name: c.databaseName,
        expression: c.asExpression!,
        kind: c.generatedType!,
      })),
  );
}

export async function isMariaDb(dataSource: DataSource): Promise<boolean> {
  const [{ version }] = await dataSource.query('SELECT VERSION() AS version');
  return String(version).includes('MariaDB');
}

/**
 * Runs `compare` on a DataSource that reads the database as TypeORM reads it best. SQLite: the
 * app's. MySQL: the same options with TypeORM's driver for the server: on MariaDB its `mysql`
 * driver (the app's) takes the default of every nullable column for the text 'NULL'. TypeORM
 * reads the expression of a generated column from its `typeorm_metadata` table only, which is
 * not part of this schema: the record TypeORM would have written is there while it compares.
 */
export async function comparing<T>(t: TestApp, compare: (dataSource: DataSource) => Promise<T>) {
  if (t.dialect === 'sqlite') return compare(t.dataSource);
  const options = {
    ...t.dataSource.options,
    type: (await isMariaDb(t.dataSource)) ? 'mariadb' : 'mysql',
  } as DataSourceOptions;
  const dataSource = await new DataSource(options).initialize();
  const runner = dataSource.createQueryRunner();
  const metadataTable = dataSource.metadataTableName;
  try {
    const builder = dataSource.driver.createSchemaBuilder() as unknown as {
      createTypeormMetadataTable(runner: QueryRunner): Promise<void>;
    };
    await builder.createTypeormMetadataTable(runner);
    const [{ schema }] = await runner.query('SELECT DATABASE() AS `schema`');
    for (const column of generatedColumns(dataSource.entityMetadatas)) {
      await runner.manager
        .createQueryBuilder()
        .insert()
        .into(metadataTable)
        .values({
          type: 'GENERATED_COLUMN',
          schema,
          table: column.table,
          name: column.name,
          value: column.expression,
        })
        .execute();
    }
    return await compare(dataSource);
  } finally {
    await runner.dropTable(metadataTable, true);
    await runner.release();
    await dataSource.destroy();
  }
}

/**
 * A generation expression as MySQL and MariaDB each print it back: lower case, no parentheses,
 * no space after a comma.
 */
export function normalizedExpression(expression: string): string {
  return expression
    .toLowerCase()
    .replace(/[()\s]+/g, ' ')
    .replace(/ ?, ?/g, ',')
    .trim();
}

/** The statements TypeORM would run to make the migrated database match the entities: none. */
export function schemaDiff(t: TestApp): Promise<string[]> {
  return comparing(t, async (dataSource) => {
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    return upQueries.map((q) => q.query);
  });
}
