/** The OpenAPI description of the collections, derived from the list. */
import { Collection, describeCollections } from '../../../src/database/collection-folder';
import { COLLECTIONS } from '../../sources';

const at = (path: string, plural: string) => ({ declaration: { path, plural } }) as Collection;

describe('describeCollections', () => {
  it('should name the collections by path prefix, in the order of the list', () => {
    expect(
      describeCollections([
        at('/api/demo/emails', 'emails'),
        at('/api/demo/phone_numbers', 'phone_numbers'),
        at('/api/plain/movies', 'movies'),
        at('/api/demo/marbles', 'marbles'),
      ]),
    ).toBe('Emails, phone numbers and marbles under /api/demo, movies under /api/plain.');
  });

  it('should name one collection alone, and two with "and"', () => {
    expect(describeCollections([at('/api/demo/books', 'books')])).toBe('Books under /api/demo.');
    expect(
      describeCollections([at('/api/demo/books', 'books'), at('/api/demo/maps', 'maps')]),
    ).toBe('Books and maps under /api/demo.');
  });

  it('should name every collection served, each once, with its prefix', () => {
    const text = describeCollections(COLLECTIONS).toLowerCase();
    for (const { path, plural } of COLLECTIONS.map((c) => c.declaration)) {
      // A name stands between the start, `, ` or ` and `, and `, `, ` and ` or ` under `: `tags`
      // is not counted inside `fixture tags`.
      const name = plural.replace(/_/g, ' ');
      expect(text.match(new RegExp(`(^|, | and )${name}(?=,| and | under )`, 'g'))).toHaveLength(1);
      expect(text).toContain(` under ${path.slice(0, path.lastIndexOf('/'))}`);
    }
  });
});
