/**
 * The TypeORM entity derived from a declaration: what the declaration says of its table, shaped
 * for each database. (test/e2e/schema-drift proves the shipped tables' against the migrations.)
 */
import { EMAILS } from '../../../../src/emails/emails.resource';
import { MARBLES } from '../../../../src/marbles/marbles.resource';
import { entitiesOf, shapeEntitiesFor, tableOf } from '../../../../src/rest/sql/tables';

/** The parts of an entity's options these tests read. */
interface Shape {
  columns: Record<string, Record<string, unknown>>;
  relations: Record<string, Record<string, unknown>>;
  indices: { name?: string }[];
}

function entity(dialect: 'mysql' | 'sqlite', resource = MARBLES): Shape {
  const [schema] = entitiesOf(tableOf(resource));
  shapeEntitiesFor(dialect);
  return schema.options as unknown as Shape;
}

afterAll(() => shapeEntitiesFor('mysql'));

describe('entitiesOf', () => {
  it('should keep an optional owner with SET NULL and take a required one with CASCADE', () => {
    expect(entity('mysql').relations.user).toMatchObject({
      target: 'users',
      joinColumn: { name: 'user_id' },
      onDelete: 'SET NULL',
    });
    expect(entity('mysql').columns.user_id).toEqual({ type: 'int', nullable: true });
    expect(entity('mysql', EMAILS).relations.user).toMatchObject({ onDelete: 'CASCADE' });
    expect(entity('mysql', EMAILS).columns.user_id).toEqual({ type: 'int', nullable: false });
  });

  it('should give a decimal its precision on MySQL and text on SQLite', () => {
    expect(entity('mysql').columns.price).toEqual({
      type: 'decimal',
      precision: 6,
      scale: 2,
      nullable: true,
    });
    expect(entity('sqlite').columns.price).toEqual({ type: 'text', nullable: true });
  });

  it('should give integer and boolean defaults to their columns, and a version to records', () => {
    const { columns } = entity('mysql');
    expect([columns.radius_mm.default, columns.is_discounted.default, columns.version]).toEqual([
      1,
      false,
      { type: 'int', default: 1 },
    ]);
    expect(columns.description).toEqual({ type: 'text', nullable: false });
  });

  it('should index each column a page can be ordered by, and the foreign key', () => {
    const names = entity('mysql').indices.map((i) => i.name);
    expect(names).toEqual([
      'idx_marbles_radius_mm',
      'idx_marbles_price',
      'idx_marbles_is_discounted',
      'idx_marbles_created_at',
      'idx_marbles_updated_at',
      'idx_marbles_user_id',
      'idx_marbles_description_key',
      'idx_marbles_picture',
    ]);
  });

  it('should return the same entity for the same table, for every module that uses it', () => {
    expect(entitiesOf(tableOf(MARBLES))[0]).toBe(entitiesOf(tableOf(MARBLES))[0]);
  });
});
