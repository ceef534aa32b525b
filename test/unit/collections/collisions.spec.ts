/**
 * Two collections of one plural name, path or table are refused at start with one line naming
 * both (as Django's system checks refuse two models on one db_table), before any query runs; so
 * is a collection on an internal table.
 */
import { AppModule } from '../../../src/app.module';
import { COLLECTIONS } from '../../../src/collections';
import { loadConfig } from '../../../src/config/configuration';
import { Collection, collisionOf } from '../../../src/database/collection-folder';
import { DeclarationError } from '../../../src/rest/core/resource';
import { FIXTURE_TAGS_COLLECTION } from '../../fixtures/fixture-tags';

/** The fixture collection under other names: `changes` gives the ones that stay the same. */
function copyOf(changes: { plural?: string; path?: string; table?: string }): Collection {
  const { declaration } = FIXTURE_TAGS_COLLECTION;
  return {
    ...FIXTURE_TAGS_COLLECTION,
    declaration: {
      ...declaration,
      plural: 'copies',
      path: '/api/demo/copies',
      table: 'copies',
      ...changes,
    },
  };
}

describe('collections that collide', () => {
  const base = [...COLLECTIONS, FIXTURE_TAGS_COLLECTION];

  it('should accept collections that each have their own name, path and table', () => {
    expect(collisionOf(base, ['users', 'genres'])).toBeUndefined();
    expect(collisionOf([...base, copyOf({})], ['users', 'genres'])).toBeUndefined();
  });

  it.each([
    [
      'plural name',
      { plural: 'fixture_tags' },
      'fixture_tags (/api/demo/copies): its plural name fixture_tags is also that of fixture_tags (/api/demo/fixture_tags)',
    ],
    [
      'path',
      { path: '/api/demo/marbles' },
      'copies (/api/demo/marbles): its path /api/demo/marbles is also that of marbles (/api/demo/marbles)',
    ],
    [
      'table',
      { table: 'emails' },
      'copies (/api/demo/copies): its table emails is also that of emails (/api/demo/emails)',
    ],
    [
      'internal table',
      { table: 'users' },
      'copies (/api/demo/copies): its table users is also that of the internal table users',
    ],
  ])('should refuse two collections of one %s, naming both', (_, changes, line) => {
    const found = collisionOf([...base, copyOf(changes)], ['users', 'genres']);
    expect(found && `${found.collection}: ${found.problem}`).toBe(
      `${line}; each collection needs a plural name, path and table of its own`,
    );
  });

  it('should stop the application before it is built, in one line', () => {
    const config = { ...loadConfig({}), demoData: false };
    expect(() => AppModule.register(config, [...base, copyOf({ table: 'marbles' })])).toThrow(
      new DeclarationError(
        'copies (/api/demo/copies)',
        'its table marbles is also that of marbles (/api/demo/marbles); each collection needs a plural name, path and table of its own',
      ),
    );
  });
});
