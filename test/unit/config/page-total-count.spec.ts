import { ConfigError, loadConfig } from '../../../src/config/configuration';
import { COLLECTION_NAMES } from '../../sources';

/** The names of the collections served (the fixtures' too under EXTRA_COLLECTIONS). */
const COLLECTIONS = COLLECTION_NAMES;

describe('PAGE_TOTAL_COUNT settings: the count on or off, for all or one collection', () => {
  it('should count by default, for every collection', () => {
    const config = loadConfig({}, COLLECTIONS);
    expect(config.pageTotalCount).toBe(true);
    expect(config.pageTotalCountOf).toEqual({});
  });

  it('should turn the count off for all collections with PAGE_TOTAL_COUNT=false', () => {
    expect(loadConfig({ PAGE_TOTAL_COUNT: 'false' }, COLLECTIONS).pageTotalCount).toBe(false);
  });

  it('should set one collection by its name in capitals', () => {
    const config = loadConfig(
      { PAGE_TOTAL_COUNT_MARBLES: 'false', PAGE_TOTAL_COUNT_PHONE_NUMBERS: 'true' },
      COLLECTIONS,
    );
    expect(config.pageTotalCountOf).toEqual({ marbles: false, phone_numbers: true });
  });

  it('should refuse a variable that names no collection, listing the known ones', () => {
    expect(() => loadConfig({ PAGE_TOTAL_COUNT_MARBEL: 'false' }, COLLECTIONS)).toThrow(
      new ConfigError(
        'Invalid configuration: PAGE_TOTAL_COUNT_MARBEL names no collection (known: ' +
          `${COLLECTIONS.map((name) => `PAGE_TOTAL_COUNT_${name.toUpperCase()}`).join(', ')}).`,
      ),
    );
  });

  it('should refuse values that are not flags', () => {
    expect(() => loadConfig({ PAGE_TOTAL_COUNT: 'nope' }, COLLECTIONS)).toThrow(
      'PAGE_TOTAL_COUNT must be true or false, got "nope"',
    );
    expect(() => loadConfig({ PAGE_TOTAL_COUNT_EMAILS: 'nope' }, COLLECTIONS)).toThrow(
      'PAGE_TOTAL_COUNT_EMAILS must be true or false, got "nope"',
    );
  });
});
