/**
 * Create on the movies: 201 with the record and Location, genres and users linked from genre_ids
 * and user_ids in JSON and XML, defaults, read-only fields ignored, every validation rule, and no
 * bulk create. Each write is checked against the stored rows and links.
 */
import { useApp } from '../support/harness';
import {
  ACTION,
  ANN,
  BOB,
  CLEO,
  COMEDY,
  DRAMA,
  GENRES,
  USERS,
  dbTime,
  movieRow,
} from '../support/fixtures';
import {
  expectError,
  expectInvalid,
  expectJson,
  expectLocation,
  expectStampedWithin,
} from '../support/http';

describe('write: create', () => {
  const t = useApp({ seedEach: { users: USERS, genres: GENRES } });

  describe('movies', () => {
    const PATH = '/api/plain/movies';
    const postXml = (xml: string) => t.sendRaw('post', PATH, 'application/xml', xml);

    function storedMovie(res: { body: Record<string, unknown> }, row: Record<string, unknown>) {
      return {
        ...movieRow(res.body.id as number, res.body.name as string),
        price: null,
        created_at: dbTime(res.body.created_at as string),
        updated_at: dbTime(res.body.updated_at as string),
        ...row,
      };
    }

    it('should create a movie with its genres and users, 201 and Location', async () => {
      const { res, before, after } = await t.send('post', PATH, {
        name: 'The Long Voyage',
        price: '10.50',
        main_genre_id: 2,
        genre_ids: [1, 3],
        user_ids: [2, 3],
      });

      expectJson(res, 201);
      const id = await t.onlyId('movies');
      expectLocation(res, `/api/plain/movies/${id}`);
      expect(res.body).toEqual({
        id,
        created_at: expect.any(String),
        name: 'The Long Voyage',
        price: '10.5',
        updated_at: expect.any(String),
        main_genre: DRAMA,
        genres: [ACTION, COMEDY],
        users: [BOB, CLEO],
      });
      expect(Object.keys(res.body)).toEqual([
        'id',
        'created_at',
        'name',
        'price',
        'updated_at',
        'main_genre',
        'genres',
        'users',
      ]);
      expectStampedWithin(res.body.created_at, before, after);
      expectStampedWithin(res.body.updated_at, before, after);
      expect(await t.stored('movies')).toEqual([
        storedMovie(res, { name: 'The Long Voyage', price: '10.5', main_genre_id: 2 }),
      ]);
      expect(await t.links('genres_movies')).toEqual([
        [id, 1],
        [id, 3],
      ]);
      expect(await t.links('movies_users')).toEqual([
        [id, 2],
        [id, 3],
      ]);
    });

    it('should accept a wrapped JSON body and an XML body with id arrays', async () => {
      const wrapped = await t.send('post', PATH, { movie: { name: 'Wrapped', genre_ids: ['2'] } });
      expectJson(wrapped.res, 201);
      const first = await t.onlyId('movies');
      expect(wrapped.res.body).toEqual({
        id: first,
        created_at: expect.any(String),
        name: 'Wrapped',
        price: null,
        updated_at: expect.any(String),
        genres: [DRAMA],
        users: [],
      });

      const xml = await postXml(
        '<movie><name>Midnight Harbor</name><price type="decimal">999999.99</price>' +
          '<main-genre-id type="integer">1</main-genre-id>' +
          '<genre-ids type="array"><genre-id type="integer">1</genre-id><genre-id type="integer">2</genre-id></genre-ids>' +
          '<user-ids type="array"/></movie>',
      );
      expectJson(xml.res, 201);
      const second = await t.lastId('movies');
      expectLocation(xml.res, `/api/plain/movies/${second}`);
      expect(xml.res.body).toEqual({
        id: second,
        created_at: expect.any(String),
        name: 'Midnight Harbor',
        price: '999999.99',
        updated_at: expect.any(String),
        main_genre: ACTION,
        genres: [ACTION, DRAMA],
        users: [],
      });

      expect(await t.stored('movies')).toEqual([
        storedMovie(wrapped.res, { name: 'Wrapped' }),
        storedMovie(xml.res, { name: 'Midnight Harbor', price: '999999.99', main_genre_id: 1 }),
      ]);
      expect(await t.links('genres_movies')).toEqual([
        [first, 2],
        [second, 1],
        [second, 2],
      ]);
      expect(await t.links('movies_users')).toEqual([]);
    });

    it('should apply defaults and ignore read-only fields sent back', async () => {
      const { res, before, after } = await t.send('post', PATH, {
        id: 70,
        name: 'Echo',
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
        main_genre: ACTION,
        genres: [ACTION],
        users: [ANN],
      });

      expectJson(res, 201);
      const id = await t.onlyId('movies');
      expect(id).not.toBe(70);
      expectLocation(res, `/api/plain/movies/${id}`);
      expect(res.body).toEqual({
        id,
        created_at: expect.any(String),
        name: 'Echo',
        price: null,
        updated_at: expect.any(String),
        genres: [],
        users: [],
      });
      expectStampedWithin(res.body.created_at, before, after);
      expect(await t.stored('movies')).toEqual([storedMovie(res, { name: 'Echo' })]);
      expect(await t.links('genres_movies')).toEqual([]);
      expect(await t.links('movies_users')).toEqual([]);
    });

    it('should list a taken name, missing genres and users and a bad price at once', async () => {
      await t.insert('movies', [movieRow(1, 'Taken')]);
      const { res } = await t.send('post', PATH, {
        name: 'Taken',
        price: '1000000',
        main_genre_id: 99,
        genre_ids: [1, 98],
        user_ids: [97],
        rating: 5,
      });
      expectInvalid(res, {
        name: ['A movie with this name already exists.'],
        price: ['Must be greater than 0 and at most 999999.99; got 1000000.0.'],
        main_genre_id: ['No genre with id 99.'],
        genre_ids: ['No genre with id 98.'],
        user_ids: ['No user with id 97.'],
        rating: ['Unknown field; movie has no such field.'],
      });
      expect(await t.stored('movies')).toEqual([movieRow(1, 'Taken')]);
      expect(await t.links('genres_movies')).toEqual([]);
    });

    it('should accept prices up to 999999.99 and reject 0, more decimals and more', async () => {
      const ok = await t.send('post', PATH, { name: 'Dear', price: '10000' });
      expectJson(ok.res, 201);
      expect(ok.res.body.price).toBe('10000.0');
      for (const [price, message] of [
        ['0', 'Must be greater than 0 and at most 999999.99; got 0.0.'],
        ['1000000.00', 'Must be greater than 0 and at most 999999.99; got 1000000.0.'],
        ['5.555', 'Must be a decimal number with at most 2 decimal places.'],
      ]) {
        const { res } = await t.send('post', PATH, { name: 'Priced', price });
        expectInvalid(res, { price: [message] });
      }
      expect((await t.stored('movies')).map((m) => [m.name, m.price])).toEqual([
        ['Dear', '10000.0'],
      ]);
    });

    it('should require a name and lists of ids', async () => {
      const { res } = await t.send('post', PATH, { genre_ids: 1, user_ids: ['x'] });
      expectInvalid(res, {
        name: ['This field is required.'],
        genre_ids: expect.arrayContaining(['Must be a list of ids.']),
        user_ids: expect.arrayContaining(['Must be a list of ids.']),
      });
      expect(await t.stored('movies')).toEqual([]);
    });

    it('should accept a name of 255 characters and reject 256 or a blank one', async () => {
      const ok = await t.send('post', PATH, { name: 'm'.repeat(255) });
      expectJson(ok.res, 201);
      const long = await t.send('post', PATH, { name: 'm'.repeat(256) });
      expectInvalid(long.res, { name: ['Must be at most 255 characters long.'] });
      const blank = await t.send('post', PATH, { name: ' ' });
      expectInvalid(blank.res, { name: ['May not be blank.'] });
      expect((await t.stored('movies')).map((m) => m.name)).toEqual(['m'.repeat(255)]);
    });

    it('should link a genre sent twice once', async () => {
      const { res } = await t.send('post', PATH, { name: 'Twice', genre_ids: [1, 1] });
      expectJson(res, 201);
      expect(res.body.genres).toEqual([ACTION]);
      expect(await t.links('genres_movies')).toEqual([[res.body.id, 1]]);
    });

    it('should refuse an array: movies have no bulk create', async () => {
      const { res } = await t.send('post', PATH, [{ name: 'One' }, { name: 'Two' }]);
      expectError(res, 400, {
        message: 'Request body must be a movie object; movies have no bulk create.',
      });
      expect(await t.stored('movies')).toEqual([]);
    });
  });
});
