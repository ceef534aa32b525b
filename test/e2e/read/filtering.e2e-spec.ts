/**
 * Listing filters, ordering and search on the e-mails, phone numbers and movies; text matching must
 * behave the same on SQLite and MySQL (`%`, `_` literal; case-insensitive search and contains;
 * exact equality). The marbles are in read-filtering-marbles.
 */
import { useApp } from '../support/harness';
import { ANN, BOB, onePage, setBillingEmail, userRows, movieLinks } from '../support/fixtures';
import { expectIds, expectNegotiatedJson, getJson } from '../support/http';

const EMAILS = [
  { id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 },
  { id: 2, email: 'ann.work@example.org', is_primary: false, user_id: 1 },
  { id: 3, email: 'bob@example.net', is_primary: true, user_id: 2 },
  { id: 4, email: 'Bob.Shop@Example.COM', is_primary: false, user_id: 2 },
  { id: 5, email: 'cleo_x@example.com', is_primary: false, user_id: 3 },
  { id: 6, email: 'cleoxx@example.com', is_primary: false, user_id: 3 },
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
  const t = useApp({
    seed: async () => {
      await t.insertAll({
        users: userRows('ann', 'bob', 'cleo'),
        emails: EMAILS,
        phone_numbers: PHONES,
        genres: GENRES,
        movies: MOVIES,
        genres_movies: movieLinks('genre_id', [1, 2]),
        movies_users: movieLinks('user_id', [1, 2], [4, 1]),
      });
      await setBillingEmail(t, 1, 1);
      await setBillingEmail(t, 3, 4);
    },
  });
  const list = (path: string) => getJson(t, path);
  const expectPhoneIds = (ids: Record<string, number[]>) =>
    expectIds(t, '/api/demo/phone_numbers', ids);

  const expectMovieIds = (ids: Record<string, number[]>) => expectIds(t, '/api/plain/movies', ids);

  describe('emails', () => {
    const expectEmailIds = (ids: Record<string, number[]>) => expectIds(t, '/api/demo/emails', ids);

    it('should filter by a boolean', async () => {
      const res = await list('/api/demo/emails?is_primary=true');
      expect(res.body).toStrictEqual(
        onePage([
          { id: 1, email: 'ann@example.com', is_primary: true, user: ANN, billing_user: ANN },
          { id: 3, email: 'bob@example.net', is_primary: true, user: BOB },
        ]),
      );
      await expectEmailIds({ 'is_primary=false': [2, 4, 5, 6] });
    });

    it('should filter by a foreign key and by a nested field', async () => {
      await expectEmailIds({
        'user_id=3': [5, 6],
        'user.login=ann': [1, 2],
        'user.id=2': [3, 4],
        'billing_user.login=cleo': [4],
      });
    });

    it('should match null with the value null', async () => {
      await expectEmailIds({ 'billing_user.id=null': [2, 3, 5, 6] });
    });

    it('should combine filters with AND', async () => {
      await expectEmailIds({ 'user.login=bob&is_primary=false': [4] });
    });

    it('should filter with __in', async () => {
      await expectEmailIds({
        'id__in=1,3,99': [1, 3],
        'user.login__in=ann,cleo': [1, 2, 5, 6],
      });
    });

    it('should match __contains case-insensitively', async () => {
      await expectEmailIds({ 'email__contains=EXAMPLE.COM': [1, 4, 5, 6] });
    });

    it('should match equality exactly, case included', async () => {
      await expectEmailIds({
        'user.login=ANN': [],
        'email=bob.shop@example.com': [],
        'email=Bob.Shop@Example.COM': [4],
      });
    });

    it('should search the address case-insensitively', async () => {
      await expectEmailIds({
        'search=EXAMPLE.COM': [1, 4, 5, 6],
        'search=bob': [3, 4],
      });
    });

    it('should take _ in a search literally', async () => {
      await expectEmailIds({
        'search=o_x': [5],
        'email__contains=o_x': [5],
      });
    });

    it('should order by a nested field, then by id in the direction of the last term', async () => {
      await expectEmailIds({
        'ordering=-user.login': [6, 5, 4, 3, 2, 1],
        'ordering=-user.login,id': [5, 6, 3, 4, 1, 2],
      });
    });

    it('should ignore query parameters that are not fields', async () => {
      await expectEmailIds({
        'color=red&user_id__between=1&users=2&user.email=x': [1, 2, 3, 4, 5, 6],
      });
    });

    /** Filters with a value of the wrong type, and the parameter the error names. */
    const WRONG_TYPES = [
      ['is_primary=maybe', 'is_primary'],
      ['user_id=abc', 'user_id'],
      ['id__in=1,x', 'id__in'],
      ['user.id=one', 'user.id'],
    ];

    it('should answer 400 naming the parameter for a value of the wrong type', async () => {
      for (const [query, param] of WRONG_TYPES) {
        const res = await t.http().get(`/api/demo/emails?${query}`);
        expectNegotiatedJson(res, 400);
        expect(res.body).toStrictEqual({
          message: expect.any(String),
          errors: { [param]: [expect.any(String)] },
        });
      }
    });
  });

  describe('phone_numbers', () => {
    it('should search numbers with their punctuation taken literally', async () => {
      await expectPhoneIds({
        'search=(555)': [1, 4],
        'search=%2B1': [1],
        'search=555.': [2],
        'search=010_': [4],
        'search=EXT': [5],
        'search=%20': [1, 3, 4, 5],
      });
    });

    it('should filter by number, owner and nested login', async () => {
      const res = await list('/api/demo/phone_numbers?number=555.010.0200');
      expect(res.body).toStrictEqual(onePage([{ id: 2, number: '555.010.0200', user: BOB }]));
      await expectPhoneIds({
        'user_id=2': [2, 3],
        'user.login=cleo': [4, 5],
        'number__contains=010-': [1],
      });
    });

    it('should order by number and by owner', async () => {
      await expectPhoneIds({
        'ordering=number': [4, 1, 3, 5, 2],
        'ordering=-user.login,-number': [5, 4, 2, 3, 1],
      });
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
      await expectMovieIds({
        'price__gte=12.5': [1, 4, 5],
        'price__lt=12.5': [2],
        'main_genre_id=null': [3],
        'main_genre.name__in=Comedy,Drama': [2, 5],
        'created_at__gt=2024-03-03T10:00:00Z': [4, 5],
      });
    });

    it('should search movie names case-insensitively with % literal', async () => {
      await expectMovieIds({
        'search=THE': [1, 3],
        'search=100%25': [5],
        'name__contains=ACTION': [4],
      });
    });

    it('should order movies and ignore unknown ordering names', async () => {
      await expectMovieIds({
        'ordering=-price,name&price__gt=0': [4, 5, 1, 2],
        'ordering=main_genre.name,-id&main_genre_id__gte=1': [4, 1, 2, 5],
        'ordering=bogus': [1, 2, 3, 4, 5],
      });
    });

    it('should answer 400 for a movie filter of the wrong type', async () => {
      const res = await t.http().get('/api/plain/movies?price__lt=abc');
      expectNegotiatedJson(res, 400);
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
