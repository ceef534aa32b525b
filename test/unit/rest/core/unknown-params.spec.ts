import { ScalarType } from '../../../../src/rest/core/fields';
import { ignoredOf, markIgnored, unknownParams } from '../../../../src/rest/core/list-query';
import { closestName } from '../../../../src/rest/core/names';

const PATHS: ReadonlyMap<string, ScalarType> = new Map<string, ScalarType>([
  ['id', 'integer'],
  ['name', 'string'],
  ['user.login', 'string'],
]);
const KNOWN = new Set(['page', 'page_size', 'only', 'format']);
const FIELDS = 'id, name, user.login';

describe('unknownParams', () => {
  it('should find nothing in a query of filters, operators, ordering, search and known names', () => {
    expect(
      unknownParams(
        {
          id__gte: '2',
          name: 'x',
          'user.login__in': 'a,b',
          ordering: '-name, id',
          search: 'q',
          page: '2',
          page_size: '5',
          only: 'id',
          format: 'csv',
        },
        PATHS,
        KNOWN,
      ),
    ).toEqual({});
  });

  it('should name an unknown parameter, an unknown operator and unknown ordering fields', () => {
    expect(
      unknownParams(
        { colour: 'red', id__foo: '3', name__: 'x', ordering: 'colour,-id,-size,' },
        PATHS,
        KNOWN,
      ),
    ).toEqual({
      colour: [
        `Unknown parameter; the list takes: ordering, search, page, page_size, only, format; the fields to filter by: ${FIELDS}.`,
      ],
      id__foo: ['Unknown operator "foo"; operators: in, lt, lte, gt, gte, contains.'],
      name__: ['Unknown operator ""; operators: in, lt, lte, gt, gte, contains.'],
      ordering: [
        `Unknown field "colour"; ordering takes: ${FIELDS}.`,
        `Unknown field "size"; ordering takes: ${FIELDS}.`,
      ],
    });
  });

  it('should take a parameter that is not known here as unknown (no page without a paginator)', () => {
    expect(Object.keys(unknownParams({ page: '2', __in: '1' }, PATHS, new Set()))).toEqual([
      'page',
      '__in',
    ]);
  });
});

describe('closestName', () => {
  it('should name the closest candidate of a slip, and none of a word far from all', () => {
    const candidates = ['ordering', 'search', 'page', 'page_size', 'only', 'id', 'user.login'];
    const cases: [string, string | undefined][] = [
      ['pagesize', 'page_size'],
      ['PAGE', 'page'],
      ['pgae', 'page'],
      ['oder', undefined],
      ['odering', 'ordering'],
      ['user.logn', 'user.login'],
      ['ix', undefined],
      ['colour', undefined],
      ['', undefined],
    ];
    expect(cases.map(([name]) => [name, closestName(name, candidates)])).toEqual(cases);
  });
});

describe('markIgnored', () => {
  it('should mark an answer only when something was ignored', () => {
    const marked = markIgnored([1], { colour: ['x'] });
    expect(ignoredOf(marked)).toEqual({ colour: ['x'] });
    expect(ignoredOf(markIgnored([1], {}))).toBeUndefined();
    expect(ignoredOf(null)).toBeUndefined();
    expect(JSON.stringify(marked)).toBe('[1]');
  });
});
