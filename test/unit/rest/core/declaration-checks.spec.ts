/**
 * defineResource checks a declaration as a whole: each mistake stops with one line naming the
 * collection and what is wrong, before anything is derived from it.
 */
import {
  boolean,
  collection,
  decimal,
  integer,
  string,
  timestamp,
} from '../../../../src/rest/core/fields';
import { owner } from '../../../../src/users/users.table';
import {
  DeclarationError,
  ResourceDeclaration,
  defineResource,
} from '../../../../src/rest/core/resource';

/** A books collection, with every example its routes need. */
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
      decimal('price', { precision: 6, scale: 2, write: { nullable: true, max: '9999.99' } }),
      ...owner(),
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
      'a decimal without a precision',
      (d) => d.fields.push(decimal('weight', { scale: 2 })),
      'books: field weight is a decimal without a precision',
    ],
    [
      'a decimal bound its column cannot hold',
      (d) => d.fields.push(decimal('weight', { precision: 4, scale: 2, write: { max: '100.00' } })),
      'books: field weight has max 100.00, more than decimal(4, 2) holds (99.99)',
    ],
    [
      'a decimal bound given as a number',
      (d) => d.fields.push(decimal('weight', { precision: 4, scale: 2, write: { max: 10 } })),
      'books: field weight has max 10, not a decimal string',
    ],
    [
      'an integer bound given as a string',
      (d) => d.fields.push(integer('year', { write: { max: '2100' } })),
      'books: field year has max 2100, not an integer',
    ],
    [
      'a string longer than its column',
      (d) => d.fields.push(string('blurb', { write: { maxLength: 300 } })),
      'books: field blurb may be 300 characters long, but its varchar(255) column holds 255 (text: true makes it TEXT)',
    ],
    [
      'a timestamp the service sets that a client writes',
      (d) => d.fields.push(timestamp('read_at', { setOn: 'write', write: {} })),
      'books: field read_at is set on write: no client writes it',
    ],
    [
      'a table option of another type',
      (d) => d.fields.push(integer('year', { setOn: 'create' })),
      'books: field year is an integer: setOn does not apply',
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
