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
    expect(names(FIXTURE_COLLECTIONS)).toEqual(['tags', 'notes']);
    expect(names(extraCollections('notes, tags'))).toEqual(['tags', 'notes']);
    expect(names(extraCollections('notes'))).toEqual(['notes']);
  });

  it('should refuse a name that is no fixture, naming the known ones', () => {
    expect(() => extraCollections('tags,books')).toThrow(
      'EXTRA_COLLECTIONS names no fixture collection: books (known: tags, notes)',
    );
  });

  it('should stop the service: it never serves the fixtures', () => {
    expect(() => loadConfig({ EXTRA_COLLECTIONS: 'tags,notes' }, ['tags', 'notes'])).toThrow(
      new ConfigError(
        'Invalid configuration: EXTRA_COLLECTIONS is for the tests only (npm run test:fixtures): unset it.',
      ),
    );
  });
});
