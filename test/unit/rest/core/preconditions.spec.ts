import { entityTag, meets, versionsNamed } from '../../../../src/rest/core/preconditions';

describe('preconditions: versionsNamed', () => {
  it('should give the versions of the record that the tags name, selection tags included', () => {
    expect(versionsNamed(['"7.1"', '"7.3-1a2b3c4d"', '"9.2"'], 7)).toEqual([1, 3]);
  });

  it('should name no version with tags of other records, non-canonical or foreign tags', () => {
    expect(versionsNamed(['"9.2"', '"7.01"', '"07.1"', '"abc"', '"7.1-XYZ"'], 7)).toEqual([]);
  });

  it('should agree with meets on every tag it accepts', () => {
    for (const tag of ['"7.1"', '"7.3-1a2b3c4d"', '"7.01"', '"9.2"']) {
      const named = versionsNamed([tag], 7);
      for (const version of [1, 2, 3]) {
        expect(named.includes(version)).toBe(meets([tag], entityTag(7, version)));
      }
    }
  });
});
