/**
 * Field selection: `only`, `except` and `fields` on index and show, and on the records of bulk
 * responses; in JSON and XML; the SQL reads only what is sent.
 */
import { ANN, DRAMA, USERS, marbleRow, movieLinks, movieRow } from '../support/fixtures';
import { useApp } from '../support/harness';
import { readsOf } from '../support/statements';
import {
  bulkDone,
  expectError,
  expectExactJson,
  expectExactXml,
  expectNegotiatedJson,
} from '../support/http';

const MARBLES = [
  marbleRow(1, 'Amber', { user_id: 1, description: 'warm', price: '2.5' }),
  marbleRow(2, 'Beryl', { description: 'cool', created_at: '2024-05-01 12:00:00.123' }),
  marbleRow(3, 'Coral', { user_id: 1 }),
];

const ALLOWED =
  'allowed: id, name, radius_mm, price, is_discounted, created_at, updated_at, user, description, picture.';

describe('Field selection', () => {
  const t = useApp({
    seed: {
      users: USERS,
      marbles: MARBLES,
      genres: [DRAMA],
      movies: [movieRow(1, 'Open Water', { main_genre_id: 2 })],
      genres_movies: [{ movie_id: 1, genre_id: 2 }],
      movies_users: movieLinks('user_id', [1, 1]),
    },
  });

  it('should keep only the named fields of each record, in their order, the envelope unchanged', async () => {
    const res = await t.http().get('/api/demo/marbles?page_size=2&only=name,id');
    expectExactJson(res, {
      count: 3,
      page: 1,
      page_size: 2,
      total_pages: 2,
      next: `${res.request.url.split('?')[0]}?page_size=2&only=name,id&page=2`,
      results: [
        { id: 1, name: 'Amber' },
        { id: 2, name: 'Beryl' },
      ],
    });
  });

  it('should drop the fields named by except, and keep a nested reference whole', async () => {
    const res = await t
      .http()
      .get('/api/demo/marbles/1?except=description,picture,created_at,updated_at,radius_mm');
    expectExactJson(res, {
      id: 1,
      name: 'Amber',
      price: '2.5',
      is_discounted: false,
      user: ANN,
    });
  });

  it('should take fields= as another name for only, and keep previous with the parameter', async () => {
    const res = await t.http().get('/api/demo/marbles?page_size=2&page=2&fields=id,user');
    expectNegotiatedJson(res);
    expect(res.body.results).toEqual([{ id: 3, user: ANN }]);
    expect(res.body.previous).toMatch(/\?page_size=2&page=1&fields=id,user$/);
  });

  it('should answer the same selection in XML', async () => {
    const res = await t.http().get('/api/demo/marbles/2.xml?only=id,name,created_at');
    expectExactXml(
      res,
      '<hash><id type="integer">2</id><name>Beryl</name>' +
        '<created-at type="dateTime">2024-05-01T12:00:00Z</created-at></hash>',
    );
  });

  it('should select on the bare list of movies, to-many relations included', async () => {
    const list = await t.http().get('/api/plain/movies?only=name,users');
    expectExactJson(list, [{ name: 'Open Water', users: [ANN] }]);
    const show = await t.http().get('/api/plain/movies/1?only=genres');
    expectExactJson(show, { genres: [DRAMA] });
    const xml = await t
      .http()
      .get('/api/plain/movies.xml?except=created_at,updated_at,genres,users');
    expectExactXml(
      xml,
      '<objects type="array"><object><id type="integer">1</id><name>Open Water</name>' +
        '<price type="decimal">12.0</price><main-genre><id type="integer">2</id><name>Drama</name></main-genre></object></objects>',
    );
  });

  it('should refuse an unknown name with 400 listing the allowed names', async () => {
    expectError(await t.http().get('/api/demo/marbles?only=id,colour'), 400, {
      message: 'Invalid query parameters.',
      errors: { only: [`Unknown field "colour"; ${ALLOWED}`] },
    });
    expectError(await t.http().get('/api/demo/marbles/1?except=user_id'), 400, {
      message: 'Invalid query parameters.',
      errors: { except: [`Unknown field "user_id"; ${ALLOWED}`] },
    });
    expectError(await t.http().get('/api/demo/marbles?fields=nope'), 400, {
      message: 'Invalid query parameters.',
      errors: { fields: [`Unknown field "nope"; ${ALLOWED}`] },
    });
  });

  it('should give each selection its own ETag', async () => {
    const whole = await t.http().get('/api/demo/marbles/1');
    const some = await t.http().get('/api/demo/marbles/1?only=id,name');
    const other = await t.http().get('/api/demo/marbles/1?except=name');
    const tags = [whole, some, other].map((r) => r.headers.etag);
    expect(new Set(tags).size).toBe(3);
    const again = await t
      .http()
      .get('/api/demo/marbles/1?only=id,name')
      .set('If-None-Match', tags[1]);
    expect(again.status).toBe(304);
  });

  it('should read only the selected columns, joining only the selected references', async () => {
    // The statements of each request alone (the change feed may poll meanwhile).
    const statements = [
      ...(await readsOf(t, '/api/demo/marbles?only=id,name')).statements,
      ...(await readsOf(t, '/api/demo/marbles/1?only=user')).statements,
    ]
      .map(({ sql }) => sql)
      .filter((sql) => !sql.includes('COUNT'));
    expect(statements).toHaveLength(2);
    expect(statements[0]).not.toMatch(/description|radius_mm|JOIN/);
    expect(statements[0]).toMatch(/"?`?name`?"? AS/);
    expect(statements[1]).toMatch(/LEFT JOIN/);
    expect(statements[1]).not.toMatch(/description|\.`?"?name/);
  });
});

describe('Field selection on the records of bulk responses', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: MARBLES } });

  it('should keep the selected fields of created, updated and deleted records', async () => {
    const created = await t
      .http()
      .post('/api/demo/marbles?only=id,name')
      .send([{ name: 'Dune' }, { name: 'Elm' }]);
    const [dune, elm] = (await t.ids('marbles')).slice(MARBLES.length);
    expect({ status: created.status, body: created.body }).toEqual({
      status: 201,
      body: bulkDone('create', [
        { id: dune, name: 'Dune' },
        { id: elm, name: 'Elm' },
      ]),
    });
    const updated = await t
      .http()
      .patch('/api/demo/marbles?except=created_at,updated_at,description,picture,user')
      .send([{ id: 1, price: '3.5' }]);
    expect(updated.body).toEqual(
      bulkDone('update', [
        { id: 1, name: 'Amber', radius_mm: 10, price: '3.5', is_discounted: false },
      ]),
    );
    const deleted = await t.http().delete('/api/demo/marbles?fields=name').send([2, 3]);
    expect(deleted.body).toEqual(bulkDone('destroy', [{ name: 'Beryl' }, { name: 'Coral' }]));
  });

  it('should refuse an unknown name before writing anything', async () => {
    const res = await t
      .http()
      .post('/api/demo/marbles?only=colour')
      .send([{ name: 'Dune' }]);
    expect(res.status).toBe(400);
    expect((await t.rows('marbles')).length).toBe(3);
  });
});
