import { MAX_NAMED_FIELDS, capErrors, withMore } from '../../../../src/rest/core/errors';

const fields = (from: number, count: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${from + i}`, ['wrong']]));

describe('capErrors', () => {
  it('should keep errors of 20 fields or fewer as they are', () => {
    const errors = fields(0, MAX_NAMED_FIELDS);
    const capped = capErrors(errors);
    expect(capped).toEqual({ errors, named: 20, more: 0 });
    expect(capped.errors).toBe(errors);
    expect(withMore('Validation failed; nothing was saved.', capped)).toBe(
      'Validation failed; nothing was saved.',
    );
  });

  it('should name the first 20 fields and count the rest, with those left out before', () => {
    const capped = capErrors(fields(0, 25), 100);
    expect(capped).toEqual({ errors: fields(0, 20), named: 20, more: 105 });
    expect(withMore('Validation failed; nothing was saved.', capped)).toBe(
      'Validation failed; nothing was saved. 20 fields are listed, and 105 more.',
    );
    expect(withMore('M.', capErrors(fields(0, 1), 3))).toBe('M. One field is listed, and 3 more.');
  });

  it("should keep a bulk answer's items up to the twentieth field, nulls in place", () => {
    const items = [null, fields(0, 15), null, fields(15, 10), fields(25, 2), null];
    expect(capErrors(items)).toEqual({
      errors: [null, fields(0, 15), null, fields(15, 5)],
      named: 20,
      more: 7,
    });
    expect(capErrors([null, fields(0, 3), null])).toEqual({
      errors: [null, fields(0, 3), null],
      named: 3,
      more: 0,
    });
  });
});
