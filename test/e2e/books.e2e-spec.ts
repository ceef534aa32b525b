/**
 * A fifth collection, `books`, defined only under test/fixtures/books/ as the README's "Adding a
 * collection" says (its folder, its migration, one more entry in the list given to the app), and
 * the generic checks the four collections pass: its routes in the OpenAPI document and its request
 * examples accepted on the demo data, CRUD in JSON and XML, bulk forms, filters, ordering, search,
 * selection, If-Match, Idempotency-Key and OPTIONS. Nothing in src/ names it.
 */
import { BOOKS_COLLECTION } from '../fixtures/books';
import { DataSource } from 'typeorm';
import { COLLECTIONS, dataSourceOptions, migrationsOf } from '../sources';
import { describeDocumentExamples } from './examples';
import { ANN, BOB, USERS } from './fixtures';
import { HOOK_TIMEOUT, Row, testDatabase, useApp } from './harness';
import {
  allowOf,
  bulkDone,
  expectExactJson,
  expectExactXml,
  expectIds,
  expectInvalid,
  expectJson,
  expectLocation,
  expectStampedWithin,
  expectXml,
} from './http';
import { documentRoutes, standardRoutes } from './routes';
import { schemaDiff } from './schema-drift';

const WITH_BOOKS = [...COLLECTIONS, BOOKS_COLLECTION];
const BOOKS = '/api/demo/books';
const T1 = '2024-03-01 10:00:00.000';
const T2 = '2024-03-02 11:30:00.250';

function bookRow(
  id: number,
  title: string,
  pages: number,
  price: string | null,
  user_id: number,
): Row {
  return { id, title, pages, price, user_id, created_at: T1, updated_at: T2 };
}

const ROWS = [
  bookRow(1, 'Dune', 412, '9.99', 1),
  bookRow(2, 'Emma', 474, null, 2),
  bookRow(3, 'Ulysses', 730, '15.5', 1),
];

const stamps = { created_at: '2024-03-01T10:00:00.000Z', updated_at: '2024-03-02T11:30:00.250Z' };
const DUNE = { id: 1, title: 'Dune', pages: 412, price: '9.99', user: ANN, ...stamps };
const EMMA = { id: 2, title: 'Emma', pages: 474, price: null, user: BOB, ...stamps };
const ULYSSES = { id: 3, title: 'Ulysses', pages: 730, price: '15.5', user: ANN, ...stamps };

const DUNE_XML =
  '<id type="integer">1</id><title>Dune</title><pages type="integer">412</pages>' +
  '<price type="decimal">9.99</price><user><id type="integer">1</id><login>ann</login></user>' +
  '<created-at type="dateTime">2024-03-01T10:00:00Z</created-at>' +
  '<updated-at type="dateTime">2024-03-02T11:30:00Z</updated-at>';

describe('books, a collection of the test fixtures', () => {
  const t = useApp({ collections: WITH_BOOKS, seedEach: { users: USERS, books: ROWS } });

  describe('the OpenAPI document', () => {
    it('should list the standard routes of books after the four, and name books in the description', async () => {
      const res = await t.http().get('/api/openapi.json');
      expectJson(res);
      expect(standardRoutes(BOOKS_COLLECTION)).toEqual([
        'GET /api/demo/books listBooks',
        'POST /api/demo/books createBook',
        'PUT /api/demo/books bulkReplaceBooks',
        'PATCH /api/demo/books bulkUpdateBooks',
        'DELETE /api/demo/books bulkDestroyBooks',
        'OPTIONS /api/demo/books describeBooks',
        'GET /api/demo/books/{id} showBook',
        'PUT /api/demo/books/{id} replaceBook',
        'PATCH /api/demo/books/{id} updateBook',
        'DELETE /api/demo/books/{id} destroyBook',
      ]);
      const routes = documentRoutes(res.body);
      const movies = routes.indexOf('DELETE /api/plain/movies/{id} destroyMovie');
      expect(routes.slice(movies + 1, movies + 11)).toEqual(standardRoutes(BOOKS_COLLECTION));
      expect(res.body.tags.map((tag: { name: string }) => tag.name)).toEqual([
        'emails',
        'phone_numbers',
        'marbles',
        'movies',
        'books',
        'front-door',
        'events',
        'health',
      ]);
      expect(res.body.info.description).toMatch(
        /^Emails, phone numbers, marbles and books under \/api\/demo, movies under \/api\/plain\. /,
      );
      expect(res.body.components.schemas.BookCreate.required).toEqual(['title', 'user_id']);
    });
  });

  describe('reads', () => {
    it('should list books in JSON, enveloped, and show one in JSON and XML', async () => {
      expectExactJson(await t.http().get(BOOKS), {
        count: 3,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [DUNE, EMMA, ULYSSES],
      });
      expectExactJson(await t.http().get(`${BOOKS}/1`), DUNE);
      expectExactXml(await t.http().get(`${BOOKS}/1.xml`), `<hash>${DUNE_XML}</hash>`);
    });

    it('should filter, order, search and select', async () => {
      await expectIds(t, BOOKS, {
        'pages__gt=450': [2, 3],
        'price__lt=10': [1],
        'price=null': [2],
        'user_id=1': [1, 3],
        'user.login=bob': [2],
        'title__contains=u': [1, 3],
        'title__in=Emma,Dune': [1, 2],
        'ordering=-pages': [3, 2, 1],
        // NULL first, as both databases order it ascending.
        'ordering=price,id': [2, 1, 3],
        'search=EMM': [2],
      });
      expectExactJson(await t.http().get(`${BOOKS}/3?only=id,title`), { id: 3, title: 'Ulysses' });
      expectExactJson(
        await t.http().get(`${BOOKS}?except=user,created_at,updated_at&pages__lt=420`),
        {
          count: 1,
          page: 1,
          page_size: 30,
          total_pages: 1,
          results: [{ id: 1, title: 'Dune', pages: 412, price: '9.99' }],
        },
      );
    });

    it('should answer OPTIONS with Allow and its own routes', async () => {
      const res = await t.http().options(BOOKS);
      expectJson(res);
      expect(allowOf(res.headers.allow)).toEqual([
        'GET',
        'HEAD',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'OPTIONS',
      ]);
      expect(Object.keys(res.body.paths)).toEqual([BOOKS, `${BOOKS}/{id}`, `${BOOKS}/events`]);
    });
  });

  describe('writes', () => {
    it('should create in JSON and in XML, with defaults, timestamps, Location and ETag', async () => {
      const { res, before, after } = await t.send('post', BOOKS, {
        book: { title: 'Walden', user_id: 2 },
      });
      expectJson(res, 201);
      expectLocation(res, `${BOOKS}/4`);
      expect(res.headers.etag).toBe('"4.1"');
      const { created_at, updated_at, ...rest } = res.body;
      expect(rest).toEqual({ id: 4, title: 'Walden', pages: 1, price: null, user: BOB });
      expectStampedWithin(created_at, before, after);
      expect(updated_at).toBe(created_at);

      const xml = await t
        .http()
        .post(`${BOOKS}.xml`)
        .set('Content-Type', 'application/xml')
        .send(
          '<book><title>Beloved</title><pages>324</pages><price>12.5</price><user-id>1</user-id></book>',
        );
      expectXml(xml, 201);
      expect(xml.text).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><id type="integer">5<\/id><title>Beloved<\/title><pages type="integer">324<\/pages><price type="decimal">12\.5<\/price>/,
      );
      expect((await t.stored('books')).map((b) => [b.id, b.title, b.pages, b.price])).toEqual([
        [1, 'Dune', 412, '9.99'],
        [2, 'Emma', 474, null],
        [3, 'Ulysses', 730, '15.5'],
        [4, 'Walden', 1, null],
        [5, 'Beloved', 324, '12.5'],
      ]);
    });

    it('should refuse what its declaration refuses, naming the fields', async () => {
      const { res } = await t.send('post', BOOKS, {
        book: { title: 'Dune', pages: 0, price: '10000', user_id: 9 },
      });
      expectInvalid(res, {
        pages: ['Must be at least 1.'],
        price: ['Must be greater than 0 and at most 9999.99; got 10000.0.'],
        title: ['A book with this title already exists.'],
        user_id: ['No user with id 9.'],
      });
    });

    it('should update, replace and destroy, moving the ETag', async () => {
      const patch = await t
        .http()
        .patch(`${BOOKS}/2`)
        .send({ book: { price: '7.25' } });
      expectJson(patch);
      expect(patch.headers.etag).toBe('"2.2"');
      expect(patch.body).toMatchObject({ id: 2, title: 'Emma', price: '7.25' });
      const put = await t
        .http()
        .put(`${BOOKS}/2`)
        .send({ book: { pages: 500 } });
      expect(put.headers.etag).toBe('"2.3"');
      expect(put.body).toMatchObject({ id: 2, pages: 500, price: '7.25' });
      const gone = await t.http().delete(`${BOOKS}/2`);
      expect([gone.status, gone.text]).toEqual([204, '']);
      expectJson(await t.http().get(`${BOOKS}/2`), 404);
    });

    it('should check If-Match against the version', async () => {
      const fresh = await t
        .http()
        .patch(`${BOOKS}/1`)
        .set('If-Match', '"1.1"')
        .send({ book: { pages: 2 } });
      expectJson(fresh);
      expect([fresh.headers.etag, fresh.body.pages]).toEqual(['"1.2"', 2]);
      const stale = await t
        .http()
        .patch(`${BOOKS}/1`)
        .set('If-Match', '"1.1"')
        .send({ book: { pages: 1 } });
      expectJson(stale, 412);
      expect(stale.body).toEqual({
        message: 'Book 1 has changed since the version If-Match names; nothing was changed.',
      });
      expect((await t.http().get(`${BOOKS}/1`)).body.pages).toBe(2);
    });

    it('should replay a create sent again with the same Idempotency-Key', async () => {
      const send = () =>
        t
          .http()
          .post(BOOKS)
          .set('Idempotency-Key', 'book-1')
          .send({ book: { title: 'Once', user_id: 1 } });
      const first = await send();
      const again = await send();
      expectJson(first, 201);
      expectJson(again, 201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await t.stored('books')).filter((b) => b.title === 'Once')).toHaveLength(1);
    });

    it('should create, update and destroy in bulk', async () => {
      const created = await t.send('post', BOOKS, [
        { title: 'Persuasion', pages: 249, user_id: 3 },
        { title: 'Middlemarch', pages: 880, user_id: 2 },
      ]);
      expectJson(created.res, 201);
      expect(created.res.body.records.map((b: Row) => [b.id, b.title])).toEqual([
        [4, 'Persuasion'],
        [5, 'Middlemarch'],
      ]);
      const updated = await t.send('patch', BOOKS, [
        { id: 4, pages: 250 },
        { id: 1, price: null },
      ]);
      expectJson(updated.res);
      expect(updated.res.body.message).toBe(bulkDone('update', []).message);
      expect(updated.res.body.records.map((b: Row) => [b.id, b.pages, b.price])).toEqual([
        [4, 250, null],
        [1, 412, null],
      ]);
      const destroyed = await t.send('delete', BOOKS, [4, 5]);
      expectJson(destroyed.res);
      expect(destroyed.res.body.records.map((b: Row) => b.id)).toEqual([4, 5]);
      expect((await t.stored('books')).map((b) => b.id)).toEqual([1, 2, 3]);
    });
  });
});

describe('books: its migration and its entity', () => {
  const t = useApp({ collections: WITH_BOOKS });

  it('should agree: TypeORM finds nothing to change', async () => {
    expect(await schemaDiff(t)).toEqual([]);
  });
});

describeDocumentExamples(WITH_BOOKS, 'books-test-token-0123456789');

// On MySQL the suites share a database: the books table and its migration go with this suite.
afterAll(async () => {
  if (process.env.TEST_DATABASE !== 'mysql') return;
  const dataSource = await new DataSource(
    dataSourceOptions(testDatabase(), [], migrationsOf(WITH_BOOKS)),
  ).initialize();
  try {
    await dataSource.undoLastMigration({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}, HOOK_TIMEOUT);
