/**
 * The fixture collections, `fixture_tags` and `fixture_notes`, defined only under test/fixtures/
 * as the README's "Adding a collection" recipe adds one (their folders, their generated
 * migrations found there, one more entry each in the list given to the app), and the generic checks the application's collections pass: their
 * routes in the OpenAPI document and its request examples accepted on the demo data, CRUD in JSON
 * and XML, bulk forms, filters, ordering, search, selection, If-Match, Idempotency-Key, OPTIONS,
 * an integer range, an optional owner (SET NULL) and the default page size. Nothing in src/ names
 * them. With `EXTRA_COLLECTIONS=fixture_tags,fixture_notes` every other suite serves them too.
 */
import { DataSource } from 'typeorm';
import { COLLECTIONS, FIXTURE_COLLECTIONS, dataSourceOptions, migrationsOf } from '../sources';
import { describeDocumentExamples } from './support/examples';
import { ANN, BOB, USERS } from './support/fixtures';
import { HOOK_TIMEOUT, Row, testDatabase, useApp } from './support/harness';
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
} from './support/http';
import { documentRoutes, standardRoutes } from './support/routes';
import { schemaDiff } from './schema-drift';

/** The fixtures this suite adds: none when EXTRA_COLLECTIONS already did. */
const ADDED = FIXTURE_COLLECTIONS.filter((c) => !COLLECTIONS.includes(c));
const WITH_FIXTURES = [...COLLECTIONS, ...ADDED];
const [TAGS_COLLECTION, NOTES_COLLECTION] = FIXTURE_COLLECTIONS;
const TAGS = TAGS_COLLECTION.declaration.path;
const NOTES = NOTES_COLLECTION.declaration.path;
const T1 = '2024-03-01 10:00:00.000';
const T2 = '2024-03-02 11:30:00.250';
const stamps = { created_at: '2024-03-01T10:00:00.000Z', updated_at: '2024-03-02T11:30:00.250Z' };

function tagRow(id: number, label: string, weight: number, user_id: number | null): Row {
  return { id, label, weight, user_id, created_at: T1, updated_at: T2 };
}

const TAG_ROWS = [tagRow(1, 'red', 10, 1), tagRow(2, 'green', 100, 2), tagRow(3, 'blue', 0, null)];
const RED = { id: 1, label: 'red', weight: 10, user: ANN, ...stamps };
const GREEN = { id: 2, label: 'green', weight: 100, user: BOB, ...stamps };
// An ownerless tag leaves `user` out, as an ownerless marble does.
const BLUE = { id: 3, label: 'blue', weight: 0, ...stamps };
const OWNERLESS_GREEN = { id: 2, label: 'green', weight: 100, ...stamps };

const RED_XML =
  '<id type="integer">1</id><label>red</label><weight type="integer">10</weight>' +
  '<user><id type="integer">1</id><login>ann</login></user>' +
  '<created-at type="dateTime">2024-03-01T10:00:00Z</created-at>' +
  '<updated-at type="dateTime">2024-03-02T11:30:00Z</updated-at>';

/** 25 notes, one more page than the default page size (20) holds. */
const NOTE_ROWS: Row[] = Array.from({ length: 25 }, (_, i) => ({
  id: i + 1,
  title: `Note ${i + 1}`,
  body: i === 0 ? 'First words.' : '',
  pinned: i % 10 === 0,
  created_at: T1,
}));
const note = (id: number, extra: Row = {}) => ({
  id,
  title: `Note ${id}`,
  body: '',
  pinned: (id - 1) % 10 === 0,
  created_at: stamps.created_at,
  ...extra,
});

describe('the fixture collections, fixture_tags and fixture_notes', () => {
  const t = useApp({
    collections: WITH_FIXTURES,
    seedEach: { users: USERS, fixture_tags: TAG_ROWS, fixture_notes: NOTE_ROWS },
  });

  describe('the OpenAPI document', () => {
    it("should list their standard routes after the application's, and tag them in that order", async () => {
      const res = await t.http().get('/api/openapi.json');
      expectJson(res);
      expect(standardRoutes(TAGS_COLLECTION)).toEqual([
        'GET /api/demo/fixture_tags listFixtureTags',
        'POST /api/demo/fixture_tags createFixtureTag',
        'PUT /api/demo/fixture_tags bulkReplaceFixtureTags',
        'PATCH /api/demo/fixture_tags bulkUpdateFixtureTags',
        'DELETE /api/demo/fixture_tags bulkDestroyFixtureTags',
        'OPTIONS /api/demo/fixture_tags describeFixtureTags',
        'GET /api/demo/fixture_tags.csv listFixtureTagsCsv',
        'GET /api/demo/fixture_tags/{id} showFixtureTag',
        'PUT /api/demo/fixture_tags/{id} replaceFixtureTag',
        'PATCH /api/demo/fixture_tags/{id} updateFixtureTag',
        'DELETE /api/demo/fixture_tags/{id} destroyFixtureTag',
        'GET /api/demo/fixture_tags/{id}.csv showFixtureTagCsv',
      ]);
      const routes = documentRoutes(res.body);
      const fixtures = [...standardRoutes(TAGS_COLLECTION), ...standardRoutes(NOTES_COLLECTION)];
      const first = routes.indexOf(fixtures[0]);
      expect(routes.slice(first, first + fixtures.length)).toEqual(fixtures);
      const before = WITH_FIXTURES.slice(0, WITH_FIXTURES.indexOf(TAGS_COLLECTION));
      const theirs = (route: string) =>
        before.some((c) => route.split(' ')[1].startsWith(c.declaration.path));
      expect(routes.slice(0, first).filter((route) => !theirs(route))).toEqual([]);
      expect(res.body.tags.map((tag: { name: string }) => tag.name)).toEqual([
        ...WITH_FIXTURES.map((c) => c.declaration.plural),
        'front-door',
        'events',
        'operations',
        'webhooks',
        'health',
      ]);
      expect(res.body.info.description).toContain('fixture tags and fixture notes under /api/demo');
      expect(res.body.components.schemas.FixtureTagCreate.required).toEqual(['label']);
      expect(res.body.components.schemas.FixtureTagCreate.properties.weight).toMatchObject({
        type: 'integer',
        minimum: 0,
        maximum: 100,
        default: 50,
      });
      expect(res.body.components.schemas.FixtureNoteCreate.required).toEqual(['title']);
    });
  });

  describe('reads', () => {
    it('should list tags in JSON, enveloped, 30 a page, and show one in JSON and XML', async () => {
      expectExactJson(await t.http().get(TAGS), {
        count: 3,
        page: 1,
        page_size: 30,
        total_pages: 1,
        results: [RED, GREEN, BLUE],
      });
      expectExactJson(await t.http().get(`${TAGS}/1`), RED);
      expectExactXml(await t.http().get(`${TAGS}/1.xml`), `<hash>${RED_XML}</hash>`);
    });

    it('should page notes by the default page size, 20', async () => {
      const res = await t.http().get(`${NOTES}?page=2`);
      expectJson(res);
      expect(res.body).toMatchObject({ count: 25, page: 2, page_size: 20, total_pages: 2 });
      expect(res.body.results).toEqual([21, 22, 23, 24, 25].map((id) => note(id)));
      expectExactJson(await t.http().get(`${NOTES}/1`), note(1, { body: 'First words.' }));
    });

    it('should filter, order, search and select', async () => {
      await expectIds(t, TAGS, {
        'weight__gte=10': [1, 2],
        'weight=0': [3],
        'user_id=null': [3],
        'user.login=bob': [2],
        'label__in=red,blue': [1, 3],
        'ordering=-weight': [2, 1, 3],
        'search=RE': [1, 2],
      });
      await expectIds(t, NOTES, {
        'pinned=true': [1, 11, 21],
        'search=note 2': [2, 20, 21, 22, 23, 24, 25],
        'ordering=-id&page_size=3': [25, 24, 23],
      });
      expectExactJson(await t.http().get(`${TAGS}/3?only=id,label`), { id: 3, label: 'blue' });
    });

    it('should answer OPTIONS with Allow and their own routes', async () => {
      for (const path of [TAGS, NOTES]) {
        const res = await t.http().options(path);
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
        expect(Object.keys(res.body.paths)).toEqual([
          path,
          `${path}.csv`,
          `${path}/{id}`,
          `${path}/{id}.csv`,
          `${path}/events`,
        ]);
      }
    });
  });

  describe('writes', () => {
    it('should create in JSON and in XML, with defaults, timestamps, Location and ETag', async () => {
      const { res, before, after } = await t.send('post', TAGS, {
        fixture_tag: { label: 'violet' },
      });
      expectJson(res, 201);
      const violet = await t.lastId('fixture_tags');
      expectLocation(res, `${TAGS}/${violet}`);
      expect(res.headers.etag).toBe(`"${violet}.1"`);
      const { created_at, updated_at, ...rest } = res.body;
      expect(rest).toEqual({ id: violet, label: 'violet', weight: 50 });
      expectStampedWithin(created_at, before, after);
      expect(updated_at).toBe(created_at);

      const xml = await t
        .http()
        .post(`${NOTES}.xml`)
        .set('Content-Type', 'application/xml')
        .send(
          '<fixture-note><title>Shopping</title><pinned type="boolean">true</pinned></fixture-note>',
        );
      expectXml(xml, 201);
      const shopping = await t.lastId('fixture_notes');
      expect(xml.text).toMatch(
        new RegExp(
          `^<\\?xml version="1\\.0" encoding="UTF-8"\\?>\\n<hash><id type="integer">${shopping}</id>` +
            '<title>Shopping</title><body></body><pinned type="boolean">true</pinned><created-at type="dateTime">',
        ),
      );
      expect(
        (await t.stored('fixture_tags')).map((r) => [r.id, r.label, r.weight, r.user_id]),
      ).toEqual([
        [1, 'red', 10, 1],
        [2, 'green', 100, 2],
        [3, 'blue', 0, null],
        [violet, 'violet', 50, null],
      ]);
    });

    it('should refuse what their declarations refuse, naming the fields', async () => {
      expectInvalid(
        (await t.send('post', TAGS, { fixture_tag: { label: 'red', weight: 101 } })).res,
        {
          label: ['A fixture tag with this label already exists.'],
          weight: ['Must be at most 100.'],
        },
      );
      expectInvalid(
        (await t.send('post', TAGS, { fixture_tag: { label: 'x', weight: -1, user_id: 9 } })).res,
        {
          weight: ['Must be at least 0.'],
          user_id: ['No user with id 9.'],
        },
      );
      expectInvalid(
        (await t.send('post', NOTES, { fixture_note: { title: ' ', user_id: 1 } })).res,
        {
          title: ['May not be blank.'],
          user_id: ['Unknown field; fixture_note has no such field.'],
        },
      );
    });

    it('should leave a tag ownerless when its owner goes (SET NULL)', async () => {
      await t.query('DELETE FROM users WHERE id = ?', [2]);
      expectExactJson(await t.http().get(`${TAGS}/2`), OWNERLESS_GREEN);
      expect((await t.stored('fixture_tags')).map((r) => r.user_id)).toEqual([1, null, null]);
    });

    it('should update, replace and destroy, moving the ETag', async () => {
      const patch = await t
        .http()
        .patch(`${TAGS}/2`)
        .send({ fixture_tag: { weight: 75, user_id: null } });
      expectJson(patch);
      expect(patch.headers.etag).toBe('"2.2"');
      expect(patch.body).toEqual({
        ...OWNERLESS_GREEN,
        weight: 75,
        updated_at: patch.body.updated_at,
      });
      const put = await t
        .http()
        .put(`${NOTES}/2`)
        .send({ fixture_note: { body: 'Now written.' } });
      expect(put.headers.etag).toBe('"2.2"');
      expect(put.body).toEqual(note(2, { body: 'Now written.' }));
      const gone = await t.http().delete(`${TAGS}/2`);
      expect([gone.status, gone.text]).toEqual([204, '']);
      expectJson(await t.http().get(`${TAGS}/2`), 404);
    });

    it('should check If-Match against the version', async () => {
      const fresh = await t
        .http()
        .patch(`${TAGS}/1`)
        .set('If-Match', '"1.1"')
        .send({ fixture_tag: { weight: 2 } });
      expectJson(fresh);
      expect([fresh.headers.etag, fresh.body.weight]).toEqual(['"1.2"', 2]);
      const stale = await t
        .http()
        .patch(`${TAGS}/1`)
        .set('If-Match', '"1.1"')
        .send({ fixture_tag: { weight: 1 } });
      expectJson(stale, 412);
      expect(stale.body).toEqual({
        message: 'Fixture tag 1 has changed since the version If-Match names; nothing was changed.',
      });
      expect((await t.http().get(`${TAGS}/1`)).body.weight).toBe(2);
    });

    it('should replay a create sent again with the same Idempotency-Key', async () => {
      const send = () =>
        t
          .http()
          .post(NOTES)
          .set('Idempotency-Key', 'note-1')
          .send({ fixture_note: { title: 'Once' } });
      const first = await send();
      const again = await send();
      expectJson(first, 201);
      expectJson(again, 201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await t.stored('fixture_notes')).filter((n) => n.title === 'Once')).toHaveLength(1);
    });

    it('should create, update and destroy in bulk', async () => {
      const created = await t.send('post', TAGS, [
        { label: 'cyan', weight: 40, user_id: 3 },
        { label: 'magenta' },
      ]);
      expectJson(created.res, 201);
      const [cyan, magenta] = (await t.ids('fixture_tags')).slice(3);
      expect(created.res.body.records.map((r: Row) => [r.id, r.label, r.weight])).toEqual([
        [cyan, 'cyan', 40],
        [magenta, 'magenta', 50],
      ]);
      const updated = await t.send('patch', TAGS, [
        { id: cyan, weight: 41 },
        { id: 1, user_id: null },
      ]);
      expectJson(updated.res);
      expect(updated.res.body.message).toBe(bulkDone('update', []).message);
      expect(updated.res.body.records.map((r: Row) => [r.id, r.weight, r.user ?? null])).toEqual([
        [cyan, 41, { id: 3, login: 'cleo' }],
        [1, 10, null],
      ]);
      const destroyed = await t.send('delete', TAGS, [cyan, magenta]);
      expectJson(destroyed.res);
      expect(destroyed.res.body.records.map((r: Row) => r.id)).toEqual([cyan, magenta]);
      expect((await t.stored('fixture_tags')).map((r) => r.id)).toEqual([1, 2, 3]);
    });
  });
});

describe('the fixture collections: their migrations and their entities', () => {
  const t = useApp({ collections: WITH_FIXTURES });

  it('should agree: TypeORM finds nothing to change', async () => {
    expect(await schemaDiff(t)).toEqual([]);
  });
});

// With EXTRA_COLLECTIONS, the contract suite sends the examples of every collection already.
if (ADDED.length > 0) describeDocumentExamples(WITH_FIXTURES, 'fixtures-test-token-0123456789');

// On MySQL the suites share a database: the tables this suite adds and their migrations go with it.
afterAll(async () => {
  if (process.env.TEST_DATABASE !== 'mysql' || ADDED.length === 0) return;
  const dataSource = await new DataSource(
    dataSourceOptions(testDatabase(), [], migrationsOf(WITH_FIXTURES)),
  ).initialize();
  try {
    for (const _ of ADDED.flatMap((c) => c.migrations ?? []))
      await dataSource.undoLastMigration({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}, HOOK_TIMEOUT);
