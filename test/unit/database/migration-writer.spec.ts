/**
 * The migration a declaration implies: new tables and new columns written with table-helpers,
 * anything else named for a migration written by hand.
 */
import { migrationFile, migrationSource } from '../../../src/database/migration-writer';
import { boolean, collection, integer, string, timestamp } from '../../../src/rest/core/fields';
import { TableDefinition, defineTable } from '../../../src/rest/sql/tables';
import { owner } from '../../../src/users/users.table';

/** Tags: a unique label, a weight from 0 to 100, an optional owner, timestamps, a page size. */
const TAGS: TableDefinition = {
  table: 'tags',
  fields: [
    integer('id'),
    string('label', { unique: true, write: { required: true, maxLength: 255 } }),
    integer('weight', { write: { min: 0, max: 100, default: 0 } }),
    boolean('is_pinned', { write: {} }),
    ...owner({ optional: true }),
    timestamp('created_at', { setOn: 'create' }),
    timestamp('updated_at', { setOn: 'write' }),
  ],
  versioned: true,
  ordered: true,
};

const EXISTING = new Map([['users', new Set(['id', 'login', 'email_id'])]]);

describe('migrationSource', () => {
  it('should write a new table with its keys and indexes, and drop it on the way down', () => {
    const source = migrationSource([TAGS], EXISTING);
    expect(source).toEqual({
      up: [
        'await createTable(',
        '  queryRunner,',
        "  'tags',",
        '  [',
        '    c.id(),',
        "    c.text('label', { isUnique: true }),",
        "    c.int('weight', { default: 0 }),",
        "    c.bool('is_pinned', { default: undefined }),",
        "    c.int('user_id', { isNullable: true }),",
        "    c.timestamp('created_at'),",
        "    c.timestamp('updated_at'),",
        '    c.version(),',
        '  ],',
        "  [['user_id', 'users', 'SET NULL']],",
        "  { indexed: ['user_id', 'weight', 'is_pinned', 'created_at', 'updated_at'] },",
        ');',
      ],
      down: ["await queryRunner.dropTable('tags');"],
      tables: ['tags'],
      problems: [],
    });
  });

  it('should add a new column of an existing table with its foreign key and index', () => {
    const table = defineTable('labels', [integer('id'), ...owner()]);
    const source = migrationSource([table], new Map([['labels', new Set(['id'])]]));
    expect(source.up).toEqual([
      "await queryRunner.addColumn('labels', new TableColumn(c.int('user_id')));",
      "await queryRunner.createForeignKey('labels', foreignKey('user_id', 'users', 'CASCADE'));",
      "await queryRunner.createIndex('labels', new TableIndex({ name: 'idx_labels_user_id', columnNames: ['user_id'] }));",
    ]);
    expect(source.down).toEqual(["await queryRunner.dropColumn('labels', 'user_id');"]);
  });

  it('should create the join table of a to-many field', () => {
    const table = defineTable('boards', [
      integer('id'),
      collection('tags', {
        through: 'boards_tags',
        ownerColumn: 'board_id',
        targetColumn: 'tag_id',
        table: 'tags',
        fields: [integer('id')],
        inIndex: true,
      }),
    ]);
    const source = migrationSource([table], new Map([['boards', new Set(['id'])]]));
    expect(source.up).toEqual([
      'await createTable(',
      '  queryRunner,',
      "  'boards_tags',",
      "  [c.int('board_id', { isPrimary: true }), c.int('tag_id', { isPrimary: true })],",
      "  [['board_id', 'boards', 'CASCADE'], ['tag_id', 'tags', 'CASCADE']],",
      "  { indexed: ['tag_id'] },",
      ');',
    ]);
  });

  it('should name what only a migration written by hand can do', () => {
    const table = defineTable('notes', [
      integer('id'),
      string('body', { text: true, prefixKey: { column: 'body_key', length: 100 } }),
    ]);
    const existing = new Map([['notes', new Set(['id', 'title'])]]);
    expect(migrationSource([table], existing).problems).toEqual([
      'notes.title is no longer declared',
      'notes.body: its prefix key (see migration 1764000000000)',
    ]);
  });

  it('should find nothing to write when the tables exist as declared', () => {
    const table = defineTable('users', [integer('id'), string('login'), integer('email_id')]);
    expect(migrationSource([table], EXISTING)).toEqual({
      up: [],
      down: [],
      tables: [],
      problems: [],
    });
  });
});

describe('migrationFile', () => {
  it('should import only the helpers the migration uses', () => {
    const file = migrationFile(
      'Tags1800000000000',
      migrationSource([TAGS], EXISTING),
      '../helpers',
    );
    expect(file.split('\n').slice(0, 2)).toEqual([
      "import { MigrationInterface, QueryRunner } from 'typeorm';",
      "import { columnTypes, createTable } from '../helpers';",
    ]);
    expect(file).toContain(
      "export class Tags1800000000000 implements MigrationInterface {\n  name = 'Tags1800000000000';",
    );
  });
});
