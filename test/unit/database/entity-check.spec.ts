/**
 * A declaration against the TypeORM entity of its table: where both state a fact (column, type,
 * length, scale and bounds, nullability, foreign key, unique key, joins), they must agree.
 */
import { Column, DataSource, Entity, EntityMetadata, Unique } from 'typeorm';
import { EntityWith, VersionedRow } from '../../../src/database/entity-parts';
import { entityProblem } from '../../../src/database/entity-check';
import {
  Field,
  collection,
  decimal,
  foreignKey,
  integer,
  owner,
  string,
  timestamp,
} from '../../../src/rest/core/fields';
import { ResourceDefinition, defineResource } from '../../../src/rest/core/resource';
import { Email } from '../../../src/emails/email.entity';
import { User } from '../../../src/users/user.entity';

@EntityWith('tomes', { column: 'user_id', target: () => User, onDelete: 'CASCADE' })
@Unique('uq_tomes_title', ['title'])
class Tome extends VersionedRow {
  @Column({ type: 'varchar', length: 255 })
  title: string;

  @Column({ type: 'int', default: 1 })
  pages: number;

  @Column({ type: 'decimal', precision: 6, scale: 2, nullable: true })
  price: string | null;

  @Column({ type: 'datetime', precision: 3 })
  created_at: Date;
}

@Entity('labels')
class Label {
  @Column({ type: 'int', primary: true })
  id: number;
}

const FIELDS: Field[] = [
  integer('id'),
  string('title', { write: { required: true, maxLength: 255, unique: true } }),
  integer('pages', { write: { min: 1 } }),
  decimal('price', { scale: 2, write: { nullable: true, max: '9999.99' } }),
  timestamp('created_at'),
  foreignKey('user_id', 'users', { required: true }),
  owner(),
];

/** The tomes declaration, with `field` in place of the one of its name (or added). */
function tomes(...fields: Field[]): ResourceDefinition {
  const all = [...FIELDS];
  for (const field of fields) {
    const at = all.findIndex((f) => f.name === field.name);
    if (at >= 0) all[at] = field;
    else all.push(field);
  }
  return defineResource({
    path: '/api/tomes',
    singular: 'tome',
    plural: 'tomes',
    label: 'Tome',
    table: 'tomes',
    fields: all,
    bulk: false,
    examples: { id: 1, deletable: [1], create: { title: 'T', user_id: 1 }, update: {} },
  });
}

describe('entityProblem', () => {
  let dataSource: DataSource;
  let tables: Map<string, EntityMetadata>;
  let tome: EntityMetadata;

  beforeAll(async () => {
    dataSource = await new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [Tome, User, Email, Label],
    }).initialize();
    tables = new Map(dataSource.entityMetadatas.map((m) => [m.tableName, m]));
    tome = dataSource.getMetadata(Tome);
  });

  afterAll(() => dataSource?.destroy());

  it('should find nothing when declaration and entity agree', () => {
    expect(entityProblem(tomes(), tome, tables)).toBeUndefined();
  });

  it.each<[string, ResourceDefinition | (() => ResourceDefinition), string]>([
    [
      'another table',
      () => ({ ...tomes(), table: 'tomez' }),
      "the declaration's table is tomez but its entity's is tomes",
    ],
    [
      'a field without a column',
      () => tomes(integer('year', { write: {} })),
      'field year: tomes has no column year',
    ],
    [
      'a field in another column',
      () => tomes(integer('pages', { column: 'page_count' })),
      'field pages: tomes has no column page_count',
    ],
    [
      'another type',
      () => tomes(string('pages', { write: { maxLength: 10 } })),
      'field pages: declared string, but its column pages is int',
    ],
    [
      'null accepted where the column refuses it',
      () => tomes(integer('pages', { write: { nullable: true } })),
      'field pages: the declaration accepts null (write.nullable) but its column is NOT NULL',
    ],
    [
      'null refused where the column takes it',
      () => tomes(decimal('price', { scale: 2, write: { max: '9999.99' } })),
      'field price: its column may be NULL but the declaration refuses null (write.nullable)',
    ],
    [
      'a longer string than the column holds',
      () => tomes(string('title', { write: { required: true, maxLength: 300, unique: true } })),
      'field title: its column holds 255 characters but write.maxLength is 300',
    ],
    [
      'a written string without a length',
      () => tomes(string('title', { write: { required: true, unique: true } })),
      'field title: its column holds 255 characters but write.maxLength is not set',
    ],
    [
      'another scale',
      () => tomes(decimal('price', { scale: 3, write: { nullable: true, max: '999.999' } })),
      'field price: declared with scale 3, but its column is decimal(6, 2)',
    ],
    [
      'a larger bound than the column holds',
      () => tomes(decimal('price', { scale: 2, write: { nullable: true, max: '99999.99' } })),
      'field price: its column holds up to 9999.99 but write.max is 99999.99',
    ],
    [
      'a foreign key to an unknown table',
      () => tomes(foreignKey('user_id', 'readers', { required: true })),
      'field user_id: references readers, which is no table of the database',
    ],
    [
      'a foreign key to another table than the entity says',
      () => tomes(foreignKey('user_id', 'labels', { required: true })),
      "field user_id: references labels, but its entity's foreign key points to users",
    ],
    [
      'a unique field without a unique key',
      () => tomes(integer('pages', { write: { min: 1, unique: true } })),
      'field pages: is unique (write.unique) but its entity declares no unique key on it',
    ],
    [
      'a to-many relation through an unknown table',
      () =>
        tomes(
          collection('labels', {
            through: 'labels_tomes',
            ownerColumn: 'tome_id',
            targetColumn: 'label_id',
            table: 'labels',
            fields: [integer('id')],
            inIndex: false,
          }),
        ),
      'field labels: labels_tomes is no table of the database',
    ],
  ])('should name %s', (_, resource, message) => {
    const definition = typeof resource === 'function' ? resource() : resource;
    expect(entityProblem(definition, tome, tables)).toBe(message);
  });
});
