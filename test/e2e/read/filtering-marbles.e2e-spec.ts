/**
 * Listing filters, ordering and search on the marbles: integers, decimals, timestamps, booleans,
 * null and nested fields; text matching must behave the same on SQLite and MySQL (`%`, `_`, `\\`
 * literal; case-insensitive search and contains, non-ASCII letters included; exact equality).
 */
import { useApp } from '../support/harness';
import { ANN, marbleRow, onePage, userRows } from '../support/fixtures';
import {
  expectIds,
  expectNegotiatedJson,
  expectNegotiatedXml,
  ids,
  getJson,
} from '../support/http';

/** [id, name, radius_mm, price, is_discounted, created_at, user_id, description] */
type MarbleValues = [number, string, number, string | null, boolean, string, number | null, string];

const MARBLES = (
  [
    [1, 'Amber Swirl', 12, '9.20', false, '2024-05-01 12:00:00.000', 1, 'Sale: 50% off'],
    [2, 'Cobalt Aggie', 8, '10.00', true, '2024-05-01 12:00:00.500', null, '500 off'],
    [3, 'Onyx Giant', 25, '100.50', false, '2024-06-15 08:00:00.000', 2, 'path C:\\glass\\onyx'],
    [4, 'ruby tiny', 5, null, true, '2024-04-30 23:59:59.999', 1, 'Wow!'],
    [5, 'Jade_Star', 12, '4.00', false, '2024-05-02 00:00:00.000', 3, ''],
    [6, 'Coral Eye', 8, '9.20', false, '2024-05-01 11:59:59.999', 2, 'swirly'],
    [7, 'JadeXStar', 3, '1.00', false, '2024-05-03 00:00:00.000', 3, 'path C:glass'],
    [8, 'Opal ', 4, '2.00', false, '2024-05-04 00:00:00.000', null, 'trailing space'],
    [9, 'Émeraude', 6, '3.00', false, '2024-05-05 00:00:00.000', null, 'Bille ÉCLATANTE'],
  ] as MarbleValues[]
).map(([id, name, radius_mm, price, is_discounted, created_at, user_id, description]) =>
  marbleRow(id, name, {
    radius_mm,
    price,
    is_discounted,
    created_at,
    updated_at: '2024-08-01 00:00:00.000',
    user_id,
    description,
  }),
);

/** Filter values far out of range, yet of the right type. */
const EXTREME_QUERIES = [
  'id=999999999999999',
  'radius_mm__gt=999999999999999',
  'price__gt=99999999999999999999.99',
  'created_at__gt=9999-12-31T23:59:59.999Z',
  'created_at__lt=0001-01-01',
];

describe('read side: filters, ordering and search', () => {
  const t = useApp({
    allowedHosts: ['records.test'],
    seed: { users: userRows('ann', 'bob', 'cleo'), marbles: MARBLES },
  });
  const list = (path: string) => getJson(t, path);
  const expectMarbleIds = (ids: Record<string, number[]>) => expectIds(t, '/api/demo/marbles', ids);

  describe('marbles', () => {
    it('should filter integers with equality and every comparison', async () => {
      await expectMarbleIds({
        'radius_mm=12': [1, 5],
        'radius_mm__gt=8': [1, 3, 5],
        'radius_mm__gte=8': [1, 2, 3, 5, 6],
        'radius_mm__lt=5': [7, 8],
        'radius_mm__lte=5': [4, 7, 8],
        'radius_mm__gt=4&radius_mm__lt=12': [2, 4, 6, 9],
      });
    });

    it('should compare decimals as numbers, not as text', async () => {
      await expectMarbleIds({
        'price__gt=9.2': [2, 3],
        'price__gte=9.20': [1, 2, 3, 6],
        'price__lt=9.2': [5, 7, 8, 9],
        'price__lte=10': [1, 2, 5, 6, 7, 8, 9],
        'price=9.2': [1, 6],
        'price__in=4,100.5': [3, 5],
      });
    });

    it('should match a null decimal with null', async () => {
      const res = await list('/api/demo/marbles?price=null');
      expect(res.body).toStrictEqual(
        onePage([
          {
            id: 4,
            name: 'ruby tiny',
            radius_mm: 5,
            price: null,
            is_discounted: true,
            created_at: '2024-04-30T23:59:59.999Z',
            updated_at: '2024-08-01T00:00:00.000Z',
            user: ANN,
            description: 'Wow!',
            picture: null,
          },
        ]),
      );
    });

    it('should compare timestamps to the millisecond', async () => {
      await expectMarbleIds({
        'created_at__gte=2024-05-01T12:00:00Z': [1, 2, 3, 5, 7, 8, 9],
        'created_at__gt=2024-05-01T12:00:00Z': [2, 3, 5, 7, 8, 9],
        'created_at__lt=2024-05-01T12:00:00.500Z': [1, 4, 6],
        'created_at__lte=2024-05-01T12:00:00.500Z': [1, 2, 4, 6],
        'created_at=2024-05-01T12:00:00.500Z': [2],
      });
    });

    it('should accept a date alone and a time zone offset in timestamp filters', async () => {
      await expectMarbleIds({
        'created_at__lt=2024-05-01': [4],
        'created_at__gte=2024-05-01T14:00:00%2B02:00&created_at__lt=2024-05-02': [1, 2],
      });
    });

    it('should filter booleans, foreign keys, null references and nested fields', async () => {
      await expectMarbleIds({
        'is_discounted=true': [2, 4],
        'user_id=null': [2, 8, 9],
        'user.login=ann': [1, 4],
        'user.login__in=bob,cleo': [3, 5, 6, 7],
        'user_id__in=2,null': [2, 3, 6, 8, 9],
      });
    });

    it('should not match a stored trailing space with an equality filter that lacks it', async () => {
      await expectMarbleIds({ 'name=Opal': [] });
    });

    it('should not match a stored trailing space with an __in filter that lacks it', async () => {
      await expectMarbleIds({ 'name__in=Opal,Onyx%20Giant': [3] });
    });

    it('should match a string filter that carries the trailing space', async () => {
      await expectMarbleIds({ 'name=Opal%20': [8] });
    });

    it('should match __contains case-insensitively with % and _ taken literally', async () => {
      await expectMarbleIds({
        'name__contains=JADE': [5, 7],
        'name__contains=e_s': [5],
        'description__contains=50%25': [1],
        'description__contains=%25': [1],
      });
    });

    it('should search name and description case-insensitively', async () => {
      await expectMarbleIds({
        'search=SWIRL': [1, 6],
        'search=giant': [3],
        'search=off': [1, 2],
      });
    });

    it('should take %, _ and \\ literally in a search', async () => {
      await expectMarbleIds({
        'search=50%25': [1],
        'search=e_s': [5],
        'search=C:%5Cglass': [3],
        'search=%5C': [3],
        'search=%25%25': [],
        'search=w!': [4],
      });
    });

    it('should find a non-ASCII name searched exactly as stored', async () => {
      await expectMarbleIds({ 'search=%C3%89meraude': [9] });
    });

    it('should search non-ASCII letters case-insensitively', async () => {
      await expectMarbleIds({
        'search=%C3%A9meraude': [9],
        'search=%C3%A9clatante': [9],
      });
    });

    it('should match __contains on non-ASCII letters case-insensitively', async () => {
      await expectMarbleIds({ 'name__contains=%C3%89MERAUDE': [9] });
    });

    it('should answer 200 with no records, not an error, for extreme but well-typed filter values', async () => {
      for (const query of EXTREME_QUERIES) {
        const res = await list(`/api/demo/marbles?${query}`);
        expect(res.body).toStrictEqual(onePage([]));
      }
    });

    it('should combine search with filters', async () => {
      await expectMarbleIds({
        'search=jade&radius_mm=12': [5],
        'search=path&user_id=null': [],
      });
    });

    it('should order by a decimal descending, then by name', async () => {
      await expectMarbleIds({
        'ordering=-price,name&price__gt=0': [3, 2, 1, 6, 5, 9, 8, 7],
        'ordering=price,-name&price__gt=0': [7, 8, 9, 5, 6, 1, 2, 3],
      });
    });

    it('should order by a nested field with id as the tie-breaker, in the same direction', async () => {
      await expectMarbleIds({
        'ordering=user.login&user_id__gte=1': [1, 4, 3, 6, 5, 7],
        'ordering=-user.login&user_id__gte=1': [7, 5, 6, 3, 4, 1],
        'ordering=-user.login,id&user_id__gte=1': [5, 7, 3, 6, 1, 4],
      });
    });

    it('should order by timestamps and by id descending', async () => {
      await expectMarbleIds({
        'ordering=created_at': [4, 6, 1, 2, 5, 7, 8, 9, 3],
        'ordering=-id': [9, 8, 7, 6, 5, 4, 3, 2, 1],
      });
    });

    it('should ignore unknown ordering names', async () => {
      await expectMarbleIds({
        'ordering=color,-radius_mm,bogus': [3, 5, 1, 6, 2, 9, 4, 8, 7],
        'ordering=nothing': [1, 2, 3, 4, 5, 6, 7, 8, 9],
      });
    });

    it('should keep filters, ordering and search in next and previous', async () => {
      const res = await t.request({
        path: '/api/demo/marbles?search=a&ordering=-price&price__gt=1&page_size=2&page=2',
        headers: { Host: 'records.test' },
      });
      expectNegotiatedJson(res);
      expect(res.body).toMatchObject({ count: 7, page: 2, page_size: 2, total_pages: 4 });
      expect(ids(res.body)).toEqual([6, 1]);
      expect(res.body.next).toBe(
        'http://records.test/api/demo/marbles?search=a&ordering=-price&price__gt=1&page_size=2&page=3',
      );
      expect(res.body.previous).toBe(
        'http://records.test/api/demo/marbles?search=a&ordering=-price&price__gt=1&page_size=2&page=1',
      );
    });

    it('should answer 400 listing every parameter of the wrong type', async () => {
      const res = await t
        .http()
        .get(
          '/api/demo/marbles?radius_mm=abc&price__gt=cheap&created_at__lt=yesterday&is_discounted=maybe&name=ok',
        );
      expectNegotiatedJson(res, 400);
      expect(res.body).toStrictEqual({
        message: expect.any(String),
        errors: {
          radius_mm: [expect.any(String)],
          price__gt: [expect.any(String)],
          created_at__lt: [expect.any(String)],
          is_discounted: [expect.any(String)],
        },
      });
    });

    it('should answer a bad filter value in XML when XML is asked for', async () => {
      const res = await t.http().get('/api/demo/marbles.xml?radius_mm=abc');
      expectNegotiatedXml(res, 400);
      expect(res.text).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><message>[^<]+<\/message><errors><radius_mm type="array"><radius_mm>[^<]+<\/radius_mm><\/radius_mm><\/errors><\/hash>\n$/,
      );
    });
  });
});
