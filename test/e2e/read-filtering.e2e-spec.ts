/**
 * Listing filters, ordering and search (CONTRACT §6) on all four collections; text matching must
 * behave the same on SQLite and MySQL (`%`, `_`, `\` literal; case-insensitive search and
 * contains; exact equality).
 */
import { startApp, TestApp } from './harness';
import { expectJson, expectXml, ids, insertUsers, setBillingEmail } from './read-helpers';

const ANN = { id: 1, login: 'ann' };
const BOB = { id: 2, login: 'bob' };

const EMAILS = [
  { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
  { id: 2, email: 'ann.work@example.org', is_primary: false, user_id: 1 },
  { id: 3, email: 'bob@example.net', is_primary: true, user_id: 2 },
  { id: 4, email: 'Bob.Shop@Example.COM', is_primary: false, user_id: 2 },
  { id: 5, email: 'cleo_x@example.com', is_primary: false, user_id: 3 },
  { id: 6, email: 'cleoxx@example.com', is_primary: false, user_id: 3 },
];

function marble(
  id: number,
  name: string,
  radius_mm: number,
  price: string | null,
  is_discounted: boolean,
  created_at: string,
  user_id: number | null,
  description: string,
) {
  return {
    id,
    name,
    radius_mm,
    price,
    is_discounted,
    created_at,
    updated_at: '2024-08-01 00:00:00.000',
    user_id,
    description,
    picture: null,
  };
}

const MARBLES = [
  marble(1, 'Amber Swirl', 12, '9.20', false, '2024-05-01 12:00:00.000', 1, 'Sale: 50% off'),
  marble(2, 'Cobalt Aggie', 8, '10.00', true, '2024-05-01 12:00:00.500', null, '500 off'),
  marble(
    3,
    'Onyx Giant',
    25,
    '100.50',
    false,
    '2024-06-15 08:00:00.000',
    2,
    'path C:\\glass\\onyx',
  ),
  marble(4, 'ruby tiny', 5, null, true, '2024-04-30 23:59:59.999', 1, 'Wow!'),
  marble(5, 'Jade_Star', 12, '4.00', false, '2024-05-02 00:00:00.000', 3, ''),
  marble(6, 'Coral Eye', 8, '9.20', false, '2024-05-01 11:59:59.999', 2, 'swirly'),
  marble(7, 'JadeXStar', 3, '1.00', false, '2024-05-03 00:00:00.000', 3, 'path C:glass'),
  marble(8, 'Opal ', 4, '2.00', false, '2024-05-04 00:00:00.000', null, 'trailing space'),
  marble(9, 'Émeraude', 6, '3.00', false, '2024-05-05 00:00:00.000', null, 'Bille ÉCLATANTE'),
];

const PHONES = [
  { id: 1, number: '+1 (555) 010-0199', user_id: 1 },
  { id: 2, number: '555.010.0200', user_id: 2 },
  { id: 3, number: '020 7946 0018', user_id: 2 },
  { id: 4, number: '(555) 010_0300', user_id: 3 },
  { id: 5, number: '555 0100 ext 7', user_id: 3 },
];

const GENRES = [
  { id: 1, name: 'Action' },
  { id: 2, name: 'Comedy' },
  { id: 3, name: 'Drama' },
];

const MOVIES = [
  {
    id: 1,
    name: 'The Long Voyage',
    price: '12.50',
    main_genre_id: 1,
    created_at: '2024-03-01 10:00:00.000',
    updated_at: '2024-03-01 10:00:00.000',
  },
  {
    id: 2,
    name: 'Midnight Harbor',
    price: '9.99',
    main_genre_id: 2,
    created_at: '2024-03-02 10:00:00.000',
    updated_at: '2024-03-02 10:00:00.000',
  },
  {
    id: 3,
    name: 'the copper fox',
    price: null,
    main_genre_id: null,
    created_at: '2024-03-03 10:00:00.000',
    updated_at: '2024-03-03 10:00:00.000',
  },
  {
    id: 4,
    name: 'Action Hero',
    price: '100.00',
    main_genre_id: 1,
    created_at: '2024-03-04 10:00:00.000',
    updated_at: '2024-03-04 10:00:00.000',
  },
  {
    id: 5,
    name: '100% Drama',
    price: '12.50',
    main_genre_id: 3,
    created_at: '2024-03-05 10:00:00.000',
    updated_at: '2024-03-05 10:00:00.000',
  },
];

describe('read side: filters, ordering and search', () => {
  let t: TestApp;
  const list = async (path: string) => {
    const res = await t.http().get(path);
    expectJson(res);
    return res;
  };
  const idsOf = async (path: string) => ids((await list(path)).body);

  beforeAll(async () => {
    t = await startApp();
    await insertUsers(t, ['ann', 'bob', 'cleo']);
    await t.insert('emails', EMAILS);
    await setBillingEmail(t, 1, 1);
    await setBillingEmail(t, 3, 4);
    await t.insert('marbles', MARBLES);
    await t.insert('phone_numbers', PHONES);
    await t.insert('genres', GENRES);
    await t.insert('movies', MOVIES);
    await t.insert('genres_movies', [{ movie_id: 1, genre_id: 2 }]);
    await t.insert('movies_users', [
      { movie_id: 1, user_id: 2 },
      { movie_id: 4, user_id: 1 },
    ]);
  });

  afterAll(() => t.close());

  describe('emails', () => {
    it('should filter by a boolean', async () => {
      const res = await list('/api/demo/emails?is_primary=true');
      expect(res.body).toStrictEqual({
        count: 2,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [
          { id: 1, email: 'ann@example.com', is_primary: true, user: ANN, billing_user: ANN },
          { id: 3, email: 'bob@example.net', is_primary: true, user: BOB },
        ],
      });
      expect(await idsOf('/api/demo/emails?is_primary=false')).toEqual([2, 4, 5, 6]);
    });

    it('should filter by a foreign key and by a nested field', async () => {
      expect(await idsOf('/api/demo/emails?user_id=3')).toEqual([5, 6]);
      expect(await idsOf('/api/demo/emails?user.login=ann')).toEqual([1, 2]);
      expect(await idsOf('/api/demo/emails?user.id=2')).toEqual([3, 4]);
      expect(await idsOf('/api/demo/emails?billing_user.login=cleo')).toEqual([4]);
    });

    it('should match null with the value null', async () => {
      expect(await idsOf('/api/demo/emails?billing_user.id=null')).toEqual([2, 3, 5, 6]);
    });

    it('should combine filters with AND', async () => {
      expect(await idsOf('/api/demo/emails?user.login=bob&is_primary=false')).toEqual([4]);
    });

    it('should filter with __in', async () => {
      expect(await idsOf('/api/demo/emails?id__in=1,3,99')).toEqual([1, 3]);
      expect(await idsOf('/api/demo/emails?user.login__in=ann,cleo')).toEqual([1, 2, 5, 6]);
    });

    it('should match __contains case-insensitively', async () => {
      expect(await idsOf('/api/demo/emails?email__contains=EXAMPLE.COM')).toEqual([1, 4, 5, 6]);
    });

    it('should match equality exactly, case included', async () => {
      expect(await idsOf('/api/demo/emails?user.login=ANN')).toEqual([]);
      expect(await idsOf('/api/demo/emails?email=bob.shop@example.com')).toEqual([]);
      expect(await idsOf('/api/demo/emails?email=Bob.Shop@Example.COM')).toEqual([4]);
    });

    it('should search the address case-insensitively', async () => {
      expect(await idsOf('/api/demo/emails?search=EXAMPLE.COM')).toEqual([1, 4, 5, 6]);
      expect(await idsOf('/api/demo/emails?search=bob')).toEqual([3, 4]);
    });

    it('should take _ in a search literally', async () => {
      expect(await idsOf('/api/demo/emails?search=o_x')).toEqual([5]);
      expect(await idsOf('/api/demo/emails?email__contains=o_x')).toEqual([5]);
    });

    it('should order by a nested field, then by id', async () => {
      expect(await idsOf('/api/demo/emails?ordering=-user.login')).toEqual([5, 6, 3, 4, 1, 2]);
      expect(await idsOf('/api/demo/emails?ordering=-user.login,-id')).toEqual([6, 5, 4, 3, 2, 1]);
    });

    it('should ignore query parameters that are not fields', async () => {
      expect(
        await idsOf('/api/demo/emails?color=red&user_id__between=1&users=2&user.email=x'),
      ).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('should answer 400 naming the parameter for a value of the wrong type', async () => {
      for (const [query, param] of [
        ['is_primary=maybe', 'is_primary'],
        ['user_id=abc', 'user_id'],
        ['id__in=1,x', 'id__in'],
        ['user.id=one', 'user.id'],
      ]) {
        const res = await t.http().get(`/api/demo/emails?${query}`);
        expectJson(res, 400);
        expect(res.body).toStrictEqual({
          message: expect.any(String),
          errors: { [param]: [expect.any(String)] },
        });
      }
    });
  });

  describe('marbles', () => {
    it('should filter integers with equality and every comparison', async () => {
      expect(await idsOf('/api/demo/marbles?radius_mm=12')).toEqual([1, 5]);
      expect(await idsOf('/api/demo/marbles?radius_mm__gt=8')).toEqual([1, 3, 5]);
      expect(await idsOf('/api/demo/marbles?radius_mm__gte=8')).toEqual([1, 2, 3, 5, 6]);
      expect(await idsOf('/api/demo/marbles?radius_mm__lt=5')).toEqual([7, 8]);
      expect(await idsOf('/api/demo/marbles?radius_mm__lte=5')).toEqual([4, 7, 8]);
      expect(await idsOf('/api/demo/marbles?radius_mm__gt=4&radius_mm__lt=12')).toEqual([
        2, 4, 6, 9,
      ]);
    });

    it('should compare decimals as numbers, not as text', async () => {
      expect(await idsOf('/api/demo/marbles?price__gt=9.2')).toEqual([2, 3]);
      expect(await idsOf('/api/demo/marbles?price__gte=9.20')).toEqual([1, 2, 3, 6]);
      expect(await idsOf('/api/demo/marbles?price__lt=9.2')).toEqual([5, 7, 8, 9]);
      expect(await idsOf('/api/demo/marbles?price__lte=10')).toEqual([1, 2, 5, 6, 7, 8, 9]);
      expect(await idsOf('/api/demo/marbles?price=9.2')).toEqual([1, 6]);
      expect(await idsOf('/api/demo/marbles?price__in=4,100.5')).toEqual([3, 5]);
    });

    it('should match a null decimal with null', async () => {
      const res = await list('/api/demo/marbles?price=null');
      expect(res.body).toStrictEqual({
        count: 1,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [
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
        ],
      });
    });

    it('should compare timestamps to the millisecond', async () => {
      expect(await idsOf('/api/demo/marbles?created_at__gte=2024-05-01T12:00:00Z')).toEqual([
        1, 2, 3, 5, 7, 8, 9,
      ]);
      expect(await idsOf('/api/demo/marbles?created_at__gt=2024-05-01T12:00:00Z')).toEqual([
        2, 3, 5, 7, 8, 9,
      ]);
      expect(await idsOf('/api/demo/marbles?created_at__lt=2024-05-01T12:00:00.500Z')).toEqual([
        1, 4, 6,
      ]);
      expect(await idsOf('/api/demo/marbles?created_at__lte=2024-05-01T12:00:00.500Z')).toEqual([
        1, 2, 4, 6,
      ]);
      expect(await idsOf('/api/demo/marbles?created_at=2024-05-01T12:00:00.500Z')).toEqual([2]);
    });

    it('should accept a date alone and a time zone offset in timestamp filters', async () => {
      expect(await idsOf('/api/demo/marbles?created_at__lt=2024-05-01')).toEqual([4]);
      expect(
        await idsOf(
          '/api/demo/marbles?created_at__gte=2024-05-01T14:00:00%2B02:00&created_at__lt=2024-05-02',
        ),
      ).toEqual([1, 2]);
    });

    it('should filter booleans, foreign keys, null references and nested fields', async () => {
      expect(await idsOf('/api/demo/marbles?is_discounted=true')).toEqual([2, 4]);
      expect(await idsOf('/api/demo/marbles?user_id=null')).toEqual([2, 8, 9]);
      expect(await idsOf('/api/demo/marbles?user.login=ann')).toEqual([1, 4]);
      expect(await idsOf('/api/demo/marbles?user.login__in=bob,cleo')).toEqual([3, 5, 6, 7]);
      expect(await idsOf('/api/demo/marbles?user_id__in=2,null')).toEqual([2, 3, 6, 8, 9]);
    });

    it('should not match a stored trailing space with an equality filter that lacks it', async () => {
      expect(await idsOf('/api/demo/marbles?name=Opal')).toEqual([]);
    });

    it('should not match a stored trailing space with an __in filter that lacks it', async () => {
      expect(await idsOf('/api/demo/marbles?name__in=Opal,Onyx%20Giant')).toEqual([3]);
    });

    it('should match a string filter that carries the trailing space', async () => {
      expect(await idsOf('/api/demo/marbles?name=Opal%20')).toEqual([8]);
    });

    it('should match __contains case-insensitively with % and _ taken literally', async () => {
      expect(await idsOf('/api/demo/marbles?name__contains=JADE')).toEqual([5, 7]);
      expect(await idsOf('/api/demo/marbles?name__contains=e_s')).toEqual([5]);
      expect(await idsOf('/api/demo/marbles?description__contains=50%25')).toEqual([1]);
      expect(await idsOf('/api/demo/marbles?description__contains=%25')).toEqual([1]);
    });

    it('should search name and description case-insensitively', async () => {
      expect(await idsOf('/api/demo/marbles?search=SWIRL')).toEqual([1, 6]);
      expect(await idsOf('/api/demo/marbles?search=giant')).toEqual([3]);
      expect(await idsOf('/api/demo/marbles?search=off')).toEqual([1, 2]);
    });

    it('should take %, _ and \\ literally in a search', async () => {
      expect(await idsOf('/api/demo/marbles?search=50%25')).toEqual([1]);
      expect(await idsOf('/api/demo/marbles?search=e_s')).toEqual([5]);
      expect(await idsOf('/api/demo/marbles?search=C:%5Cglass')).toEqual([3]);
      expect(await idsOf('/api/demo/marbles?search=%5C')).toEqual([3]);
      expect(await idsOf('/api/demo/marbles?search=%25%25')).toEqual([]);
      expect(await idsOf('/api/demo/marbles?search=w!')).toEqual([4]);
    });

    it('should find a non-ASCII name searched exactly as stored', async () => {
      expect(await idsOf('/api/demo/marbles?search=%C3%89meraude')).toEqual([9]);
    });

    it('should search non-ASCII letters case-insensitively', async () => {
      expect(await idsOf('/api/demo/marbles?search=%C3%A9meraude')).toEqual([9]);
      expect(await idsOf('/api/demo/marbles?search=%C3%A9clatante')).toEqual([9]);
    });

    it('should match __contains on non-ASCII letters case-insensitively', async () => {
      expect(await idsOf('/api/demo/marbles?name__contains=%C3%89MERAUDE')).toEqual([9]);
    });

    it('should answer 200 with no records, not an error, for extreme but well-typed filter values', async () => {
      for (const query of [
        'id=999999999999999',
        'radius_mm__gt=999999999999999',
        'price__gt=99999999999999999999.99',
        'created_at__gt=9999-12-31T23:59:59.999Z',
        'created_at__lt=0001-01-01',
      ]) {
        const res = await list(`/api/demo/marbles?${query}`);
        expect(res.body).toStrictEqual({
          count: 0,
          page: 1,
          page_size: 30,
          total_pages: 0,
          results: [],
        });
      }
    });

    it('should combine search with filters', async () => {
      expect(await idsOf('/api/demo/marbles?search=jade&radius_mm=12')).toEqual([5]);
      expect(await idsOf('/api/demo/marbles?search=path&user_id=null')).toEqual([]);
    });

    it('should order by a decimal descending, then by name', async () => {
      expect(await idsOf('/api/demo/marbles?ordering=-price,name&price__gt=0')).toEqual([
        3, 2, 1, 6, 5, 9, 8, 7,
      ]);
      expect(await idsOf('/api/demo/marbles?ordering=price,-name&price__gt=0')).toEqual([
        7, 8, 9, 5, 6, 1, 2, 3,
      ]);
    });

    it('should order by a nested field with id as the tie-breaker', async () => {
      expect(await idsOf('/api/demo/marbles?ordering=user.login&user_id__gte=1')).toEqual([
        1, 4, 3, 6, 5, 7,
      ]);
      expect(await idsOf('/api/demo/marbles?ordering=-user.login&user_id__gte=1')).toEqual([
        5, 7, 3, 6, 1, 4,
      ]);
    });

    it('should order by timestamps and by id descending', async () => {
      expect(await idsOf('/api/demo/marbles?ordering=created_at')).toEqual([
        4, 6, 1, 2, 5, 7, 8, 9, 3,
      ]);
      expect(await idsOf('/api/demo/marbles?ordering=-id')).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    });

    it('should ignore unknown ordering names', async () => {
      expect(await idsOf('/api/demo/marbles?ordering=color,-radius_mm,bogus')).toEqual([
        3, 1, 5, 2, 6, 9, 4, 8, 7,
      ]);
      expect(await idsOf('/api/demo/marbles?ordering=nothing')).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    });

    it('should keep filters, ordering and search in next and previous', async () => {
      const res = await t
        .http()
        .get('/api/demo/marbles?search=a&ordering=-price&price__gt=1&page_size=2&page=2')
        .set('Host', 'records.test');
      expectJson(res);
      expect(res.body).toMatchObject({ count: 7, page: 2, page_size: 2, total_pages: 4 });
      expect(ids(res.body)).toEqual([1, 6]);
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
      expectJson(res, 400);
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
      expectXml(res, 400);
      expect(res.text).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><message>[^<]+<\/message><errors><radius-mm type="array"><radius-mm>[^<]+<\/radius-mm><\/radius-mm><\/errors><\/hash>\n$/,
      );
    });
  });

  describe('phone_numbers', () => {
    it('should search numbers with their punctuation taken literally', async () => {
      expect(await idsOf('/api/demo/phone_numbers?search=(555)')).toEqual([1, 4]);
      expect(await idsOf('/api/demo/phone_numbers?search=%2B1')).toEqual([1]);
      expect(await idsOf('/api/demo/phone_numbers?search=555.')).toEqual([2]);
      expect(await idsOf('/api/demo/phone_numbers?search=010_')).toEqual([4]);
      expect(await idsOf('/api/demo/phone_numbers?search=EXT')).toEqual([5]);
      expect(await idsOf('/api/demo/phone_numbers?search=%20')).toEqual([1, 3, 4, 5]);
    });

    it('should filter by number, owner and nested login', async () => {
      const res = await list('/api/demo/phone_numbers?number=555.010.0200');
      expect(res.body).toStrictEqual({
        count: 1,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [{ id: 2, number: '555.010.0200', user: BOB }],
      });
      expect(await idsOf('/api/demo/phone_numbers?user_id=2')).toEqual([2, 3]);
      expect(await idsOf('/api/demo/phone_numbers?user.login=cleo')).toEqual([4, 5]);
      expect(await idsOf('/api/demo/phone_numbers?number__contains=010-')).toEqual([1]);
    });

    it('should order by number and by owner', async () => {
      expect(await idsOf('/api/demo/phone_numbers?ordering=number')).toEqual([4, 1, 3, 5, 2]);
      expect(await idsOf('/api/demo/phone_numbers?ordering=-user.login,-number')).toEqual([
        5, 4, 2, 3, 1,
      ]);
    });
  });

  describe('movies', () => {
    it('should filter movies by nested genre name and return a bare array', async () => {
      const res = await list('/api/plain/movies?main_genre.name=Action');
      expect(res.body).toStrictEqual([
        {
          id: 1,
          created_at: '2024-03-01T10:00:00.000Z',
          name: 'The Long Voyage',
          price: '12.5',
          updated_at: '2024-03-01T10:00:00.000Z',
          main_genre: { id: 1, name: 'Action' },
          genres: [],
          users: [BOB],
        },
        {
          id: 4,
          created_at: '2024-03-04T10:00:00.000Z',
          name: 'Action Hero',
          price: '100.0',
          updated_at: '2024-03-04T10:00:00.000Z',
          main_genre: { id: 1, name: 'Action' },
          genres: [],
          users: [ANN],
        },
      ]);
    });

    it('should filter movies by decimals, null and __in', async () => {
      expect(await idsOf('/api/plain/movies?price__gte=12.5')).toEqual([1, 4, 5]);
      expect(await idsOf('/api/plain/movies?price__lt=12.5')).toEqual([2]);
      expect(await idsOf('/api/plain/movies?main_genre_id=null')).toEqual([3]);
      expect(await idsOf('/api/plain/movies?main_genre.name__in=Comedy,Drama')).toEqual([2, 5]);
      expect(await idsOf('/api/plain/movies?created_at__gt=2024-03-03T10:00:00Z')).toEqual([4, 5]);
    });

    it('should search movie names case-insensitively with % literal', async () => {
      expect(await idsOf('/api/plain/movies?search=THE')).toEqual([1, 3]);
      expect(await idsOf('/api/plain/movies?search=100%25')).toEqual([5]);
      expect(await idsOf('/api/plain/movies?name__contains=ACTION')).toEqual([4]);
    });

    it('should order movies and ignore unknown ordering names', async () => {
      expect(await idsOf('/api/plain/movies?ordering=-price,name&price__gt=0')).toEqual([
        4, 5, 1, 2,
      ]);
      expect(
        await idsOf('/api/plain/movies?ordering=main_genre.name,-id&main_genre_id__gte=1'),
      ).toEqual([4, 1, 2, 5]);
      expect(await idsOf('/api/plain/movies?ordering=bogus')).toEqual([1, 2, 3, 4, 5]);
    });

    it('should answer 400 for a movie filter of the wrong type', async () => {
      const res = await t.http().get('/api/plain/movies?price__lt=abc');
      expectJson(res, 400);
      expect(res.body).toStrictEqual({
        message: expect.any(String),
        errors: { price__lt: [expect.any(String)] },
      });
    });

    it('should keep genres empty in a filtered listing', async () => {
      const res = await list('/api/plain/movies?id=1');
      expect(res.body).toHaveLength(1);
      expect(res.body[0].genres).toEqual([]);
      expect(res.body[0].users).toEqual([BOB]);
    });
  });
});
