/**
 * Record shapes of the movies in JSON and XML: a bare array for the list, with empty genres, real
 * genres on a single movie, users ordered by id, an omitted main_genre.
 */
import { useApp } from '../support/harness';
import { ANN, BOB, CLEO, userRows, movieLinks } from '../support/fixtures';
import { expectExactJson, xmlDocument, expectExactXml } from '../support/http';

const ACTION = { id: 1, name: 'Action' };
const COMEDY = { id: 2, name: 'Comedy' };
const DRAMA = { id: 3, name: 'Drama' };

const MOVIE_1_BASE = {
  id: 1,
  created_at: '2024-03-01T10:00:00.500Z',
  name: 'Midnight Harbor',
  price: '12.5',
  updated_at: '2024-03-02T11:00:00.000Z',
  main_genre: ACTION,
};
const MOVIE_2_BASE = {
  id: 2,
  created_at: '2024-03-05T00:00:00.000Z',
  name: 'Paper Lanterns',
  price: null,
  updated_at: '2024-03-05T00:00:00.000Z',
};
const MOVIE_3_BASE = {
  id: 3,
  created_at: '2024-03-09T23:59:59.999Z',
  name: 'The Copper Fox',
  price: '7.0',
  updated_at: '2024-03-10T00:00:00.000Z',
  main_genre: DRAMA,
};

const MOVIE_1_XML_HEAD =
  '<id type="integer">1</id><created-at type="dateTime">2024-03-01T10:00:00Z</created-at>' +
  '<name>Midnight Harbor</name><price type="decimal">12.5</price>' +
  '<updated-at type="dateTime">2024-03-02T11:00:00Z</updated-at>' +
  '<main-genre><id type="integer">1</id><name>Action</name></main-genre>';
const MOVIE_1_USERS_XML =
  '<users type="array"><user><id type="integer">1</id><login>ann</login></user>' +
  '<user><id type="integer">3</id><login>cleo</login></user></users>';
const MOVIE_2_XML =
  '<id type="integer">2</id><created-at type="dateTime">2024-03-05T00:00:00Z</created-at>' +
  '<name>Paper Lanterns</name><price nil="true"/>' +
  '<updated-at type="dateTime">2024-03-05T00:00:00Z</updated-at>' +
  '<genres type="array"/><users type="array"/>';
const MOVIE_3_XML_HEAD =
  '<id type="integer">3</id><created-at type="dateTime">2024-03-09T23:59:59Z</created-at>' +
  '<name>The Copper Fox</name><price type="decimal">7.0</price>' +
  '<updated-at type="dateTime">2024-03-10T00:00:00Z</updated-at>' +
  '<main-genre><id type="integer">3</id><name>Drama</name></main-genre>';
const MOVIE_3_USERS_XML =
  '<users type="array"><user><id type="integer">2</id><login>bob</login></user></users>';

describe('read side: record shapes', () => {
  const t = useApp({
    seed: {
      users: userRows('ann', 'bob', 'cleo'),
      genres: [ACTION, COMEDY, DRAMA],
      movies: [
        {
          id: 1,
          name: 'Midnight Harbor',
          price: '12.50',
          main_genre_id: 1,
          created_at: '2024-03-01 10:00:00.500',
          updated_at: '2024-03-02 11:00:00.000',
        },
        {
          id: 2,
          name: 'Paper Lanterns',
          price: null,
          main_genre_id: null,
          created_at: '2024-03-05 00:00:00.000',
          updated_at: '2024-03-05 00:00:00.000',
        },
        {
          id: 3,
          name: 'The Copper Fox',
          price: '7.00',
          main_genre_id: 3,
          created_at: '2024-03-09 23:59:59.999',
          updated_at: '2024-03-10 00:00:00.000',
        },
      ],
      // Inserted out of id order: the API lists genres and users by id.
      genres_movies: movieLinks('genre_id', [1, 2], [1, 1], [3, 3]),
      movies_users: movieLinks('user_id', [1, 3], [1, 1], [3, 2]),
    },
  });

  describe('movies', () => {
    it('should list movies as a bare array with empty genres and real users ordered by id', async () => {
      const res = await t.http().get('/api/plain/movies');
      expectExactJson(res, [
        { ...MOVIE_1_BASE, genres: [], users: [ANN, CLEO] },
        { ...MOVIE_2_BASE, genres: [], users: [] },
        { ...MOVIE_3_BASE, genres: [], users: [BOB] },
      ]);
    });

    it('should list movies as XML under an objects array root', async () => {
      const res = await t.http().get('/api/plain/movies.xml');
      expectExactXml(
        res,
        '<objects type="array">' +
          `<object>${MOVIE_1_XML_HEAD}<genres type="array"/>${MOVIE_1_USERS_XML}</object>` +
          `<object>${MOVIE_2_XML}</object>` +
          `<object>${MOVIE_3_XML_HEAD}<genres type="array"/>${MOVIE_3_USERS_XML}</object>` +
          '</objects>',
      );
    });

    it('should show a movie with its real genres and users ordered by id', async () => {
      const res = await t.http().get('/api/plain/movies/1');
      expectExactJson(res, { ...MOVIE_1_BASE, genres: [ACTION, COMEDY], users: [ANN, CLEO] });
    });

    it('should show a movie as XML with genre and user items', async () => {
      const res = await t.http().get('/api/plain/movies/1.xml');
      expectExactXml(
        res,
        `<hash>${MOVIE_1_XML_HEAD}<genres type="array">` +
          '<genre><id type="integer">1</id><name>Action</name></genre>' +
          '<genre><id type="integer">2</id><name>Comedy</name></genre></genres>' +
          `${MOVIE_1_USERS_XML}</hash>`,
      );
    });

    it('should omit main_genre and send empty arrays for a movie without genre or users', async () => {
      const json = await t.http().get('/api/plain/movies/2');
      expectExactJson(json, { ...MOVIE_2_BASE, genres: [], users: [] });
      const xml = await t.http().get('/api/plain/movies/2.xml');
      expectExactXml(xml, `<hash>${MOVIE_2_XML}</hash>`);
    });

    it('should show a movie with a single genre in JSON and XML', async () => {
      const json = await t.http().get('/api/plain/movies/3');
      expect(json.body).toStrictEqual({ ...MOVIE_3_BASE, genres: [DRAMA], users: [BOB] });
      const xml = await t.http().get('/api/plain/movies/3.xml');
      expect(xml.text).toBe(
        xmlDocument(
          `<hash>${MOVIE_3_XML_HEAD}<genres type="array">` +
            '<genre><id type="integer">3</id><name>Drama</name></genre></genres>' +
            `${MOVIE_3_USERS_XML}</hash>`,
        ),
      );
    });
  });
});
