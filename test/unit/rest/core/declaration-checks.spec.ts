/**
 * defineResource checks a declaration as a whole: each mistake stops with one line naming the
 * collection and what is wrong, before anything is derived from it.
 */
import {
  boolean,
  collection,
  decimal,
  foreignKey,
  integer,
  owner,
  string,
} from '../../../../src/rest/core/fields';
import {
  DeclarationError,
  ResourceDeclaration,
  defineResource,
} from '../../../../src/rest/core/resource';

/** The README's books, with every example its routes need. */
function books(change: (d: ResourceDeclaration) => void = () => undefined): ResourceDeclaration {
  const declaration: ResourceDeclaration = {
    path: '/api/demo/books',
    singular: 'book',
    plural: 'books',
    label: 'Book',
    table: 'books',
    fields: [
      integer('id'),
      string('title', { searchable: true, write: { required: true, maxLength: 255 } }),
      integer('pages', { write: { min: 1, default: 1 } }),
      decimal('price', { scale: 2, write: { nullable: true, max: '9999.99' } }),
      foreignKey('user_id', 'users', { required: true }),
      owner(),
    ],
    examples: {
      id: 1,
      deletable: [10, 11],
      create: { title: 'A new book', user_id: 1 },
      update: { title: 'Renamed' },
      updateAll: [{ id: 5, pages: 300 }],
    },
  };
  change(declaration);
  return declaration;
}

function problem(declaration: ResourceDeclaration): string | undefined {
  try {
    defineResource(declaration);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DeclarationError);
    return (error as Error).message;
  }
}

describe('defineResource', () => {
  it('should accept a whole declaration and fill in the defaults', () => {
    const definition = defineResource(books());
    expect([definition.bulk, definition.probes, definition.pagination]).toEqual([true, false, {}]);
  });

  it.each<[string, (d: ResourceDeclaration) => void, string]>([
    [
      'an enabled route without its example',
      (d) => delete d.examples.updateAll,
      'books: bulk update is enabled but examples.updateAll is missing',
    ],
    [
      'an example for a disabled route',
      (d) => (d.bulk = false),
      'books: examples.updateAll is given but bulk routes are disabled (bulk: false)',
    ],
    [
      'too few records to delete',
      (d) => (d.examples.deletable = [10]),
      'books: examples.deletable needs a record for destroy and at least one for bulk destroy',
    ],
    [
      'an example setting a field no client writes',
      (d) => (d.examples.update = { titel: 'Renamed' }),
      'books: examples.update sets titel, which is not a writable field',
    ],
    [
      'a create example without a required field',
      (d) => (d.examples.create = { title: 'A new book' }),
      'books: examples.create lacks user_id, a required field',
    ],
    [
      'an update_all item without an id',
      (d) => (d.examples.updateAll = [{ pages: 3 }]),
      'books: examples.updateAll[0] has no id',
    ],
    [
      'a field declared twice',
      (d) => d.fields.push(integer('pages')),
      'books: field pages is declared twice',
    ],
    [
      'no id',
      (d) => (d.fields = d.fields.filter((f) => f.name !== 'id')),
      'books: no integer id field',
    ],
    [
      'a searchable number',
      (d) => d.fields.push(integer('year', { searchable: true })),
      'books: field year is searchable but is an integer, not a string',
    ],
    [
      'a decimal without a scale',
      (d) => d.fields.push(decimal('weight')),
      'books: field weight is a decimal without a scale',
    ],
    [
      'a rule of another type',
      (d) => d.fields.push(integer('year', { write: { maxLength: 4 } })),
      'books: field year is an integer: maxLength does not apply',
    ],
    [
      'a flag exclusive within a field that is not declared',
      (d) =>
        d.fields.push(
          boolean('is_favourite', { write: { exclusiveWithin: { field: 'owner_id' } } }),
        ),
      'books: field is_favourite is exclusive within owner_id, which is not a field',
    ],
    [
      'a to-many relation written under a field name',
      (d) =>
        d.fields.push(
          collection('readers', {
            through: 'books_users',
            ownerColumn: 'book_id',
            targetColumn: 'user_id',
            table: 'users',
            fields: [integer('id')],
            inIndex: false,
            writeAs: 'title',
          }),
        ),
      "books: readers is written as title, a field's name",
    ],
  ])('should stop %s with one line', (_, change, message) => {
    expect(problem(books(change))).toBe(message);
  });
});
