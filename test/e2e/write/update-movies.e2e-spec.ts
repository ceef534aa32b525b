/**
 * Update of one movie: genre_ids and user_ids replace its relations, relations not sent are kept,
 * `updated_at` moves forward and `created_at` never does, 404 for a missing or malformed id, and
 * invalid updates change nothing, links included. Every write is checked against the stored rows
 * and links.
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
  T1,
  T1_ISO,
  T2,
  USERS,
  dbTime,
  movieRow,
  movieLinks,
} from '../support/fixtures';
import { expectInvalid, expectJson, expectNotFound, expectStampedWithin } from '../support/http';

const METHODS = ['put', 'patch'] as const;
const VOYAGE = movieRow(1, 'Voyage', { main_genre_id: 1 });

/** A movie's JSON without a main genre, which the API then leaves out. */
function withoutMainGenre({ main_genre: _omitted, ...movie }: Record<string, unknown>) {
  return movie;
}

/** Movie 1 as the API answers an update that changed nothing but `updated_at`. */
const VOYAGE_JSON = {
  id: 1,
  created_at: T1_ISO,
  name: 'Voyage',
  price: '12.0',
  updated_at: expect.any(String),
  main_genre: ACTION,
  genres: [ACTION, DRAMA],
  users: [ANN],
};

describe('write: update', () => {
  const t = useApp({
    seedEach: {
      users: USERS,
      genres: GENRES,
      movies: [VOYAGE, movieRow(2, 'Harbor')],
      genres_movies: movieLinks('genre_id', [1, 1], [1, 2]),
      movies_users: movieLinks('user_id', [1, 1]),
    },
  });

  describe('movies', () => {
    const PATH = '/api/plain/movies';

    for (const method of METHODS) {
      it(`should replace genres and users with genre_ids and user_ids via ${method.toUpperCase()}`, async () => {
        const { res, before, after } = await t.send(method, `${PATH}/1`, {
          genre_ids: [3],
          user_ids: [2, 3],
        });

        expectJson(res, 200);
        expect(res.body).toEqual({ ...VOYAGE_JSON, genres: [COMEDY], users: [BOB, CLEO] });
        expectStampedWithin(res.body.updated_at, before, after);
        expect(await t.links('genres_movies')).toEqual([[1, 3]]);
        expect(await t.links('movies_users')).toEqual([
          [1, 2],
          [1, 3],
        ]);
        expect(await t.stored('movies')).toEqual([
          { ...VOYAGE, updated_at: dbTime(res.body.updated_at) },
          movieRow(2, 'Harbor'),
        ]);

        const shown = await t.http().get(`${PATH}/1`);
        expectJson(shown, 200);
        expect(shown.body).toEqual(res.body);
        const index = await t.http().get(PATH);
        expectJson(index, 200);
        expect(index.body[0]).toEqual({ ...res.body, genres: [] });
      });
    }

    it('should keep the relations when genre_ids and user_ids are not sent', async () => {
      const { res } = await t.send('patch', `${PATH}/1`, { name: 'Voyage Home', price: '15.25' });
      expectJson(res, 200);
      expect(res.body).toEqual({ ...VOYAGE_JSON, name: 'Voyage Home', price: '15.25' });
      expect(await t.links('genres_movies')).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(await t.links('movies_users')).toEqual([[1, 1]]);
    });

    it('should clear the relations with empty lists and the main genre with null', async () => {
      const { res } = await t.send('put', `${PATH}/1`, {
        genre_ids: [],
        user_ids: [],
        main_genre_id: null,
      });
      expectJson(res, 200);
      expect(res.body).toEqual(withoutMainGenre({ ...VOYAGE_JSON, genres: [], users: [] }));
      expect(await t.links('genres_movies')).toEqual([]);
      expect(await t.links('movies_users')).toEqual([]);
      expect((await t.stored('movies'))[0]).toEqual({
        ...VOYAGE,
        main_genre_id: null,
        updated_at: dbTime(res.body.updated_at),
      });
    });

    it('should reject missing genres and users and a bad price, changing nothing', async () => {
      const { res } = await t.send('patch', `${PATH}/1`, {
        genre_ids: [1, 99],
        user_ids: [98],
        main_genre_id: 97,
        price: '0',
        name: 'Harbor',
      });
      expectInvalid(res, {
        genre_ids: ['No genre with id 99.'],
        user_ids: ['No user with id 98.'],
        main_genre_id: ['No genre with id 97.'],
        price: ['Must be greater than 0 and at most 999999.99; got 0.0.'],
        name: ['A movie with this name already exists.'],
      });
      expect(await t.stored('movies')).toEqual([VOYAGE, movieRow(2, 'Harbor')]);
      expect(await t.links('genres_movies')).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(await t.links('movies_users')).toEqual([[1, 1]]);
    });

    it('should answer 404 for a missing movie and a malformed id', async () => {
      const missing = await t.send('put', `${PATH}/42`, { name: 'Ghost' });
      expectNotFound(missing.res, 'Movie 42 not found.');
      const word = await t.send('patch', `${PATH}/abc`, { name: 'Ghost' });
      expectNotFound(word.res, 'Movie abc not found.');
      expect(await t.stored('movies')).toEqual([VOYAGE, movieRow(2, 'Harbor')]);
    });

    it('should keep created_at and move updated_at', async () => {
      const first = await t.send('patch', `${PATH}/2`, { price: '1' });
      const second = await t.send('patch', `${PATH}/2`, { price: '2' });
      expect([first.res.status, second.res.status]).toEqual([200, 200]);
      expect(first.res.body.created_at).toBe(T1_ISO);
      expect(second.res.body.created_at).toBe(T1_ISO);
      expect(Date.parse(first.res.body.updated_at)).toBeGreaterThan(
        Date.parse('2024-05-02T08:30:15.000Z'),
      );
      expect(Date.parse(second.res.body.updated_at)).toBeGreaterThan(
        Date.parse(first.res.body.updated_at),
      );
      expect((await t.stored('movies'))[1]).toEqual({
        ...movieRow(2, 'Harbor'),
        price: '2.0',
        created_at: T1,
        updated_at: dbTime(second.res.body.updated_at),
      });
      expect(T2).not.toBe(dbTime(second.res.body.updated_at));
    });
  });
});
