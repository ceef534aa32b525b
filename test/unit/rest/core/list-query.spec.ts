import { ScalarType } from '../../../../src/rest/core/fields';
import {
  InvalidQueryError,
  ListQuery,
  QueryParams,
  parseBoolean,
  parseListQuery,
  parseTimestamp,
} from '../../../../src/rest/core/list-query';

const PATHS: ReadonlyMap<string, ScalarType> = new Map<string, ScalarType>([
  ['id', 'integer'],
  ['name', 'string'],
  ['radius_mm', 'integer'],
  ['price', 'decimal'],
  ['is_discounted', 'boolean'],
  ['created_at', 'timestamp'],
  ['user_id', 'integer'],
  ['user.login', 'string'],
]);

const parse = (params: QueryParams): ListQuery => parseListQuery(params, PATHS);

/** The errors of the InvalidQueryError that parsing `params` throws. */
function errorsOf(params: QueryParams): Record<string, string[]> {
  try {
    parse(params);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidQueryError);
    expect((error as InvalidQueryError).message).toBe('Invalid query parameters.');
    return (error as InvalidQueryError).errors;
  }
  throw new Error('expected an InvalidQueryError');
}

describe('parseListQuery', () => {
  describe('filters', () => {
    it('should return no filters, no ordering and no search for an empty query', () => {
      expect(parse({})).toStrictEqual({ filters: [], ordering: [] });
    });

    it('should parse an integer equality filter into a number', () => {
      expect(parse({ radius_mm: '12' })).toStrictEqual({
        filters: [{ path: 'radius_mm', op: 'eq', values: [12] }],
        ordering: [],
      });
    });

    it('should parse a negative integer', () => {
      expect(parse({ id: '-3' }).filters).toStrictEqual([{ path: 'id', op: 'eq', values: [-3] }]);
    });

    it('should keep a string filter as sent', () => {
      expect(parse({ name: 'Blue Marble' }).filters).toStrictEqual([
        { path: 'name', op: 'eq', values: ['Blue Marble'] },
      ]);
    });

    it('should filter on a nested path', () => {
      expect(parse({ 'user.login': 'ann' }).filters).toStrictEqual([
        { path: 'user.login', op: 'eq', values: ['ann'] },
      ]);
    });

    it.each([
      ['true', true],
      ['false', false],
      ['TRUE', true],
      ['1', true],
      ['0', false],
    ])('should parse the boolean %s as %s', (raw, value) => {
      expect(parse({ is_discounted: raw }).filters).toStrictEqual([
        { path: 'is_discounted', op: 'eq', values: [value] },
      ]);
    });

    it('should keep a decimal as its text so no precision is lost', () => {
      expect(parse({ price: '12.50' }).filters).toStrictEqual([
        { path: 'price', op: 'eq', values: ['12.50'] },
      ]);
    });

    it('should turn a timestamp into the stored UTC form', () => {
      expect(parse({ created_at: '2024-05-01T12:00:00+02:00' }).filters).toStrictEqual([
        { path: 'created_at', op: 'eq', values: ['2024-05-01 10:00:00.000'] },
      ]);
    });

    it('should split an __in filter on commas and parse each value', () => {
      expect(parse({ radius_mm__in: '1,2,3', name__in: 'a,b' }).filters).toStrictEqual([
        { path: 'radius_mm', op: 'in', values: [1, 2, 3] },
        { path: 'name', op: 'in', values: ['a', 'b'] },
      ]);
    });

    it.each(['lt', 'lte', 'gt', 'gte'])(
      'should parse __%s on integers, decimals and timestamps',
      (op) => {
        expect(
          parse({
            [`radius_mm__${op}`]: '5',
            [`price__${op}`]: '9.99',
            [`created_at__${op}`]: '2024-05-01',
          }).filters,
        ).toStrictEqual([
          { path: 'radius_mm', op, values: [5] },
          { path: 'price', op, values: ['9.99'] },
          { path: 'created_at', op, values: ['2024-05-01 00:00:00.000'] },
        ]);
      },
    );

    it('should keep two range filters on the same field', () => {
      expect(parse({ radius_mm__gte: '2', radius_mm__lt: '10' }).filters).toStrictEqual([
        { path: 'radius_mm', op: 'gte', values: [2] },
        { path: 'radius_mm', op: 'lt', values: [10] },
      ]);
    });

    it('should parse __contains on strings and keep the text as sent', () => {
      expect(parse({ name__contains: 'Blue', 'user.login__contains': 'an' }).filters).toStrictEqual(
        [
          { path: 'name', op: 'contains', values: ['Blue'] },
          { path: 'user.login', op: 'contains', values: ['an'] },
        ],
      );
    });

    it('should take null as a NULL match for every type', () => {
      expect(
        parse({ user_id: 'null', name: 'null', price: 'null', is_discounted: 'null' }).filters,
      ).toStrictEqual([
        { path: 'user_id', op: 'eq', values: [null] },
        { path: 'name', op: 'eq', values: [null] },
        { path: 'price', op: 'eq', values: [null] },
        { path: 'is_discounted', op: 'eq', values: [null] },
      ]);
    });

    it('should accept null among __in values', () => {
      expect(parse({ user_id__in: '1,null' }).filters).toStrictEqual([
        { path: 'user_id', op: 'in', values: [1, null] },
      ]);
    });

    it('should search for the text "null" with __contains rather than match NULL', () => {
      expect(parse({ name__contains: 'null' }).filters).toStrictEqual([
        { path: 'name', op: 'contains', values: ['null'] },
      ]);
    });
  });

  describe('invalid values', () => {
    it('should reject a value of the wrong type, keyed by the parameter name', () => {
      expect(errorsOf({ radius_mm: 'abc' })).toStrictEqual({
        radius_mm: ['"abc" is not a valid integer.'],
      });
    });

    it('should list every bad parameter and every bad value at once', () => {
      expect(
        errorsOf({
          radius_mm: 'abc',
          price: '1.2.3',
          is_discounted: 'yes',
          created_at: 'yesterday',
          user_id__in: '1,x,y',
          name: 'fine',
        }),
      ).toStrictEqual({
        radius_mm: ['"abc" is not a valid integer.'],
        price: ['"1.2.3" is not a valid decimal number.'],
        is_discounted: ['"yes" is not a valid boolean (true or false).'],
        created_at: ['"yesterday" is not a valid ISO 8601 timestamp.'],
        user_id__in: ['"x" is not a valid integer.', '"y" is not a valid integer.'],
      });
    });

    it('should reject an impossible date in a timestamp filter, offset or not', () => {
      expect(
        errorsOf({ created_at: '2024-02-30', created_at__gte: '2024-02-30T00:00:00+02:00' }),
      ).toStrictEqual({
        created_at: ['"2024-02-30" is not a valid ISO 8601 timestamp.'],
        created_at__gte: ['"2024-02-30T00:00:00+02:00" is not a valid ISO 8601 timestamp.'],
      });
    });

    it.each(['1.5', '', '1e3', '12abc', '1234567890123456'])(
      'should reject the integer %j',
      (raw) => {
        expect(errorsOf({ id: raw })).toStrictEqual({ id: [`"${raw}" is not a valid integer.`] });
      },
    );

    it.each(['abc', '', '1,5', '1e3', '--1'])('should reject the decimal %j', (raw) => {
      expect(errorsOf({ price: raw })).toStrictEqual({
        price: [`"${raw}" is not a valid decimal number.`],
      });
    });

    it('should reject __contains on a field that is not text', () => {
      expect(errorsOf({ radius_mm__contains: '1', is_discounted__contains: 't' })).toStrictEqual({
        radius_mm__contains: ['contains applies to text fields only.'],
        is_discounted__contains: ['contains applies to text fields only.'],
      });
    });

    it('should reject range filters on strings and booleans', () => {
      expect(
        errorsOf({
          name__lt: 'b',
          'user.login__lte': 'b',
          is_discounted__gt: 'true',
          name__gte: 'a',
        }),
      ).toStrictEqual({
        name__lt: ['lt applies to numbers, decimals and timestamps only.'],
        'user.login__lte': ['lte applies to numbers, decimals and timestamps only.'],
        is_discounted__gt: ['gt applies to numbers, decimals and timestamps only.'],
        name__gte: ['gte applies to numbers, decimals and timestamps only.'],
      });
    });
  });

  describe('unknown parameters', () => {
    it('should ignore query parameters that are not fields', () => {
      expect(
        parse({ page: '2', page_size: 'x', format: 'xml', foo: 'bar', password__contains: 'x' }),
      ).toStrictEqual({ filters: [], ordering: [] });
    });

    it('should ignore a known field with an unknown suffix', () => {
      expect(
        parse({ radius_mm__between: '1,2', name__icontains: 'x', price__ne: 'abc' }),
      ).toStrictEqual({ filters: [], ordering: [] });
    });

    it('should ignore a parameter that is only a suffix', () => {
      expect(parse({ __in: '1,2', __contains: 'x' })).toStrictEqual({ filters: [], ordering: [] });
    });
  });

  describe('ordering', () => {
    /** `-price` as `{ path: 'price', descending: true }`. */
    const term = (name: string) =>
      name.startsWith('-')
        ? { path: name.slice(1), descending: true }
        : { path: name, descending: false };

    it.each([
      ['parse descending and ascending fields in order', '-price,name', ['-price', 'name']],
      ['ignore unknown names', 'bogus,-price,-password,name', ['-price', 'name']],
      ['keep only the first mention of a field', 'name,-name,price,name', ['name', 'price']],
      [
        'trim spaces and skip empty parts',
        ' -radius_mm , ,user.login,',
        ['-radius_mm', 'user.login'],
      ],
    ])('should %s (%j)', (_, ordering, expected) => {
      expect(parse({ ordering }).ordering).toStrictEqual(expected.map(term));
    });

    it('should give no ordering for an empty value', () => {
      expect(parse({ ordering: '' })).toStrictEqual({ filters: [], ordering: [] });
    });
  });

  describe('search', () => {
    it('should carry the search text as sent', () => {
      expect(parse({ search: 'Blue Ma' })).toStrictEqual({
        filters: [],
        ordering: [],
        search: 'Blue Ma',
      });
    });

    it('should ignore an empty search', () => {
      expect(parse({ search: '' })).toStrictEqual({ filters: [], ordering: [] });
    });
  });

  describe('repeated parameters', () => {
    it('should use the last value of a repeated filter', () => {
      expect(parse({ radius_mm: ['1', '2'] }).filters).toStrictEqual([
        { path: 'radius_mm', op: 'eq', values: [2] },
      ]);
    });

    it('should judge only the last value of a repeated filter', () => {
      expect(parse({ radius_mm: ['abc', '7'] }).filters).toStrictEqual([
        { path: 'radius_mm', op: 'eq', values: [7] },
      ]);
      expect(errorsOf({ radius_mm: ['7', 'abc'] })).toStrictEqual({
        radius_mm: ['"abc" is not a valid integer.'],
      });
    });

    it('should use the last ordering and the last search', () => {
      expect(parse({ ordering: ['name', '-price'], search: ['a', 'b'] })).toStrictEqual({
        filters: [],
        ordering: [{ path: 'price', descending: true }],
        search: 'b',
      });
    });

    it('should skip parameters whose value is undefined', () => {
      expect(parse({ radius_mm: undefined })).toStrictEqual({ filters: [], ordering: [] });
    });
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['2024-05-01', '2024-05-01 00:00:00.000'],
    ['2024-05-01T12:34:56Z', '2024-05-01 12:34:56.000'],
    ['2024-05-01T12:34:56', '2024-05-01 12:34:56.000'],
    ['2024-05-01 12:34:56', '2024-05-01 12:34:56.000'],
    ['2024-05-01T12:34', '2024-05-01 12:34:00.000'],
    ['2024-05-01t12:34:56z', '2024-05-01 12:34:56.000'],
    ['2024-05-01T12:34:56+02:00', '2024-05-01 10:34:56.000'],
    ['2024-05-01T12:34:56+0200', '2024-05-01 10:34:56.000'],
    ['2024-05-01T01:00:00-05:30', '2024-05-01 06:30:00.000'],
    ['2024-05-01T00:30:00+02:00', '2024-04-30 22:30:00.000'],
    ['2024-05-01T12:34:56.5Z', '2024-05-01 12:34:56.500'],
    ['2024-05-01T12:34:56.123Z', '2024-05-01 12:34:56.123'],
    ['2024-05-01T12:34:56.123456789Z', '2024-05-01 12:34:56.123'],
    ['2024-05-01T12:34:56.123+01:00', '2024-05-01 11:34:56.123'],
    ['2024-02-29', '2024-02-29 00:00:00.000'],
    [' 2024-05-01 ', '2024-05-01 00:00:00.000'],
  ])('should read %j as %j', (raw, stored) => {
    expect(parseTimestamp(raw)).toBe(stored);
  });

  it.each([
    '2024-02-30',
    '2023-02-29',
    '2024-04-31',
    '2024-13-01',
    '2024-00-10',
    '2024-05-00',
    '2024-05-01T25:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:00:60Z',
    '2024-05-01T12:34:56+25:00',
    '2024-5-1',
    '2024-05-01T12',
    'yesterday',
    '',
    '1714564800',
    '9999-12-31T23:59:59-01:00',
    '0001-01-01T00:30:00+01:00',
    // Impossible dates, even with an offset.
    '2024-02-30T00:00:00+02:00',
    '2024-02-30T12:00:00+0200',
    '2024-02-30T12:00:00-05:00',
    '2024-04-31T10:00:00+01:00',
    '2023-02-29T10:00:00-01:00',
  ])('should reject %j', (raw) => {
    expect(parseTimestamp(raw)).toBeUndefined();
  });
});

describe('parseBoolean', () => {
  it.each([
    ['true', true],
    ['True', true],
    ['1', true],
    ['false', false],
    ['FALSE', false],
    ['0', false],
  ])('should read %j as %s', (raw, value) => {
    expect(parseBoolean(raw)).toBe(value);
  });

  it.each(['yes', 'no', '', '2', 't', 'f', 'null', ' true'])('should reject %j', (raw) => {
    expect(parseBoolean(raw)).toBeUndefined();
  });
});
