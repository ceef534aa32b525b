import { ConfigError, loadConfig } from '../../../src/config/configuration';
import { FIXTURE_COLLECTIONS, extraCollections } from '../../fixtures';

const names = (collections: readonly { declaration: { plural: string } }[]) =>
  collections.map((c) => c.declaration.plural);

describe('EXTRA_COLLECTIONS: the fixture collections the tests add to COLLECTIONS', () => {
  it('should add none when unset or empty', () => {
    expect(extraCollections('')).toEqual([]);
    expect(extraCollections(' , ')).toEqual([]);
  });

  it("should add the named ones, in the fixtures' order", () => {
    expect(names(FIXTURE_COLLECTIONS)).toEqual(['fixture_tags', 'fixture_notes']);
    expect(names(extraCollections('fixture_notes, fixture_tags'))).toEqual([
      'fixture_tags',
      'fixture_notes',
    ]);
    expect(names(extraCollections('fixture_notes'))).toEqual(['fixture_notes']);
  });

  it('should refuse a name that is no fixture, naming the known ones', () => {
    expect(() => extraCollections('fixture_tags,books')).toThrow(
      'EXTRA_COLLECTIONS names no fixture collection: books (known: fixture_tags, fixture_notes)',
    );
  });

  it('should stop the service: it never serves the fixtures', () => {
    expect(() => loadConfig({ EXTRA_COLLECTIONS: 'fixture_tags' }, ['fixture_tags'])).toThrow(
      new ConfigError('Invalid configuration: EXTRA_COLLECTIONS is for the tests only: unset it.'),
    );
  });
});
