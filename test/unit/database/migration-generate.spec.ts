/**
 * `npm run migration:generate`, end to end on SQLite: the migration of a new collection's table is
 * written into its folder and proven (with it, TypeORM finds nothing left to change).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateMigration } from '../../../src/migration-generate';
import { COLLECTIONS } from '../../../src/collections';
import { FIXTURE_TAGS_COLLECTION } from '../../fixtures/fixture-tags';

jest.setTimeout(60_000);

/** The fixture collection fixture_tags before its migration was generated. */
const tags = { ...FIXTURE_TAGS_COLLECTION, migrations: [] };

describe('generateMigration', () => {
  const output = join(__dirname, '..', '..', '..', 'test-output');
  let folder: string;
  beforeEach(() => {
    mkdirSync(output, { recursive: true });
    folder = mkdtempSync(join(output, 'tags-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('should write the new table into the folder, named by its timestamp', async () => {
    const file = await generateMigration(folder, [...COLLECTIONS, tags], undefined, 1800000000001);
    expect(readdirSync(folder)).toEqual(['1800000000001-fixture-tags.ts']);
    expect(file).toBe(join(folder, '1800000000001-fixture-tags.ts'));
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('export class FixtureTags1800000000001 implements MigrationInterface {');
    expect(text).toContain("[['user_id', 'users', 'SET NULL']]");
  });

  it('should refuse to write a migration when the schema is up to date', async () => {
    await expect(generateMigration(folder, COLLECTIONS)).rejects.toThrow(
      'Nothing to migrate: the schema is up to date.',
    );
    expect(readdirSync(folder)).toEqual([]);
  });
});
