/**
 * `npm run migration:generate -- <folder>`: writes into <folder> (a collection's, e.g. src/tags)
 * the migration that brings the schema from what the migrations so far create to what the
 * declarations describe, then proves it: the migrations and the new one, run on an empty SQLite
 * database, leave TypeORM nothing to change against the entities derived from the declarations.
 * The collection finds it in its folder (`defineCollection`). A command of its own, like
 * seed.ts: it counts the application's collections and the folder's own (its index.ts), listed
 * in `COLLECTIONS` yet or not; src/database/migration-writer.ts does the writing.
 *
 * With `EXTRA_COLLECTIONS=fixture_tags,fixture_notes` it counts the tests' fixture collections
 * too; it reads them from the sources' test/fixtures/, as only a checkout has them.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { DataSource } from 'typeorm';
import { COLLECTIONS, TABLES } from './collections';
import { Collection, collectionsIn, migrationsOf } from './database/collection-folder';
import { MigrationClass, dataSourceOptions } from './database/data-source-options';
import { IdempotencyKey } from './database/idempotency-key.entity';
import { ExistingTables, migrationFile, migrationSource } from './database/migration-writer';
import { pascal } from './rest/core/names';
import { TableDefinition, entitiesOf, tableOf } from './rest/sql/tables';

const HELPERS = resolve(__dirname, 'database', 'migrations', 'table-helpers');

/** A DataSource on an empty in-memory SQLite database, migrated by `migrations`. */
async function migrated(migrations: MigrationClass[], definitions: readonly TableDefinition[]) {
  const options = dataSourceOptions({ type: 'sqlite', path: ':memory:' }, [], migrations);
  const entities = [IdempotencyKey, ...definitions.flatMap(entitiesOf)];
  const dataSource = await new DataSource({ ...options, entities }).initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return dataSource;
}

/** What the schema builder would still change: nothing, once the migrations are complete. */
async function remaining(dataSource: DataSource): Promise<string[]> {
  const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
  return upQueries.map((q) => q.query);
}

/**
 * Writes the migration into `folder` and returns its path, or throws naming what is wrong.
 * `now`: its timestamp (milliseconds), which orders it after those before it.
 */
export async function generateMigration(
  folder: string,
  collections: readonly Collection[] = COLLECTIONS,
  tables: readonly TableDefinition[] = TABLES,
  now = Date.now(),
): Promise<string> {
  const definitions = [...tables, ...collections.map((c) => tableOf(c.declaration))];
  const before = await migrated(migrationsOf(collections), definitions);
  let existing: ExistingTables;
  try {
    const runner = before.createQueryRunner();
    const found = await runner.getTables();
    await runner.release();
    existing = new Map(found.map((t) => [t.name, new Set(t.columns.map((c) => c.name))]));
  } finally {
    await before.destroy();
  }
  const source = migrationSource(definitions, existing);
  if (source.problems.length > 0) {
    throw new Error(`Write this migration by hand: ${source.problems.join('; ')}.`);
  }
  if (source.up.length === 0) throw new Error('Nothing to migrate: the schema is up to date.');

  const name = `${pascal(source.tables[0])}${now}`;
  const file = resolve(folder, `${now}-${source.tables[0].replace(/_/g, '-')}.ts`);
  let helpers = relative(resolve(folder), HELPERS).replace(/\\/g, '/');
  if (!helpers.startsWith('.')) helpers = `./${helpers}`;
  let text = migrationFile(name, source, helpers);
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(file)) ?? {};
    text = await prettier.format(text, { ...config, filepath: file });
  } catch {
    // Prettier is a development tool: without it the file is written as generated.
  }
  mkdirSync(folder, { recursive: true });
  writeFileSync(file, text);

  // The proof: with the new migration, nothing is left to change.
  const written = require(file) as Record<string, MigrationClass>;
  const after = await migrated([...migrationsOf(collections), written[name]], definitions);
  try {
    const left = await remaining(after);
    if (left.length > 0) {
      rmSync(file);
      throw new Error(
        `The generated migration leaves the schema short of the declarations (${basename(file)} removed):\n${left.join('\n')}`,
      );
    }
  } finally {
    await after.destroy();
  }
  return file;
}

/** `known`, then each collection of `more` whose plural name is not among them. */
function joined(known: readonly Collection[], more: readonly Collection[]): Collection[] {
  const names = new Set(known.map((c) => c.declaration.plural));
  return [...known, ...more.filter((c) => !names.has(c.declaration.plural))];
}

if (require.main === module) {
  const folder = process.argv[2];
  if (!folder || folder.startsWith('-')) {
    console.error(
      'Usage: npm run migration:generate -- <folder>\n\n' +
        'Writes into <folder> the migration from what the migrations so far create to what the\n' +
        'declarations describe; the collection finds it there (defineCollection in its index.ts).',
    );
    process.exit(2);
  }
  const extras: readonly Collection[] = process.env.EXTRA_COLLECTIONS
    ? require(resolve(__dirname, '..', 'test', 'fixtures')).extraCollections()
    : [];
  const target = resolve(process.cwd(), folder);
  generateMigration(target, joined([...COLLECTIONS, ...extras], collectionsIn(target))).then(
    (file) => console.log(`Wrote ${relative(process.cwd(), file)}.`),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
