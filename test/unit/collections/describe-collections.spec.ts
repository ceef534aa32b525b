/** The OpenAPI description of the collections, derived from the list. */
import { Collection, describeCollections } from '../../../src/database/collection';
import { COLLECTIONS } from '../../../src/collections';

const at = (path: string, plural: string) => ({ declaration: { path, plural } }) as Collection;

describe('describeCollections', () => {
  it('should name the collections by path prefix, in the order of the list', () => {
    expect(describeCollections(COLLECTIONS)).toBe(
      'Emails, phone numbers and marbles under /api/demo, movies under /api/plain.',
    );
  });

  it('should name one collection alone, and two with "and"', () => {
    expect(describeCollections([at('/api/demo/books', 'books')])).toBe('Books under /api/demo.');
    expect(
      describeCollections([at('/api/demo/books', 'books'), at('/api/demo/maps', 'maps')]),
    ).toBe('Books and maps under /api/demo.');
  });
});
