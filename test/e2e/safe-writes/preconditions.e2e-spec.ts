/**
 * Preconditions on records: the strong ETag of every single-record response, the same in JSON and
 * XML and new after every write; If-Match on PUT, PATCH, DELETE and the marble actions (stale: 412,
 * nothing changed; `*`: the record must exist); one 200 out of ten concurrent writes with the same
 * If-Match; REQUIRE_IF_MATCH (428).
 */
import type { Response } from 'supertest';
import { TestApp, useApp } from '../support/harness';
import { ONE_OF_EACH, USERS, marbleRow } from '../support/fixtures';
import {
  XML_TYPE,
  expectError,
  expectJson,
  expectNoLeak,
  expectXml,
  xmlMessage,
} from '../support/http';

const AMBER = marbleRow(7, 'Amber', { price: '9.23', user_id: 1 });
const STRONG = /^"\d+\.\d+"$/;
const STALE = (id: number) =>
  `Marble ${id} has changed since the version If-Match names; nothing was changed.`;
const IF_MATCH_HERE =
  'If-Match applies to writes of one record (PUT, PATCH, DELETE of /:id and the record actions), not here.';
const MALFORMED =
  'Malformed If-Match header: send "*" or entity tags as the ETag header gave them.';
const NEEDS =
  'This write needs an If-Match header with the record\'s ETag (or "*"): read the record first.';

async function etagOf(t: TestApp, path: string): Promise<string> {
  const res = await t.http().get(path);
  expect(res.status).toBe(200);
  return res.headers.etag as string;
}

async function version(t: TestApp, table: string, id: number): Promise<number> {
  const [row] = await t.query(`SELECT version FROM ${table} WHERE id = ?`, [id]);
  return Number(row.version);
}

/** The single-record writes of a marble, each with what it sends. */
const WRITES: { name: string; method: 'put' | 'patch' | 'delete'; path: string; body?: object }[] =
  [
    { name: 'PUT', method: 'put', path: '/api/demo/marbles/7', body: { radius_mm: 12 } },
    { name: 'PATCH', method: 'patch', path: '/api/demo/marbles/7', body: { name: 'Onyx' } },
    { name: 'DELETE', method: 'delete', path: '/api/demo/marbles/7' },
    {
      name: 'adjust_price',
      method: 'patch',
      path: '/api/demo/marbles/7/adjust_price',
      body: { price: '1.5' },
    },
    {
      name: 'toggle_is_discounted',
      method: 'patch',
      path: '/api/demo/marbles/7/toggle_is_discounted',
    },
  ];

describe('write: preconditions (ETag, If-Match)', () => {
  const t = useApp({ seedEach: { users: USERS, marbles: [AMBER] } });

  describe('ETag', () => {
    it('should give show a strong ETag, the same in JSON and XML, and answer If-None-Match with 304', async () => {
      const json = await t.http().get('/api/demo/marbles/7');
      const xml = await t.http().get('/api/demo/marbles/7.xml');
      expect(json.headers.etag).toBe('"7.1"');
      expect(xml.headers.etag).toBe('"7.1"');
      expectXml(xml);
      const cached = await t.http().get('/api/demo/marbles/7').set('If-None-Match', '"7.1"');
      expect([cached.status, cached.text]).toEqual([304, '']);
    });

    it('should give create, update and the actions the new ETag, the one show then answers', async () => {
      const created = await t.http().post('/api/demo/marbles').send({ name: 'Jade' });
      expectJson(created, 201);
      expect(created.headers.etag).toBe(`"${created.body.id}.1"`);
      expect(await etagOf(t, `/api/demo/marbles/${created.body.id}`)).toBe(created.headers.etag);

      // Its id, whatever it is: ids are unique, not consecutive (3 apart on a Galera cluster).
      const id = created.body.id as number;
      const tags = [created.headers.etag as string];
      const steps = [
        () => t.http().patch(`/api/demo/marbles/${id}`).send({ radius_mm: 3 }),
        // The same values again: still a write, still a new tag.
        () => t.http().put(`/api/demo/marbles/${id}`).send({ radius_mm: 3 }),
        () => t.http().patch(`/api/demo/marbles/${id}/adjust_price`).send({ price: '2' }),
        () => t.http().patch(`/api/demo/marbles/${id}/toggle_is_discounted`),
        () =>
          t
            .http()
            .patch(`/api/demo/marbles/${id}.xml`)
            .set('Content-Type', 'application/xml')
            .send('<marble><name>Jade 2</name></marble>'),
      ];
      for (const step of steps) {
        const res = await step();
        expect(res.status).toBe(200);
        expect(res.headers.etag).toMatch(STRONG);
        expect(tags).not.toContain(res.headers.etag);
        expect(await etagOf(t, `/api/demo/marbles/${id}`)).toBe(res.headers.etag);
        expect(await etagOf(t, `/api/demo/marbles/${id}.xml`)).toBe(res.headers.etag);
        tags.push(res.headers.etag as string);
      }
      expect(tags).toEqual([1, 2, 3, 4, 5, 6].map((v) => `"${id}.${v}"`));
    });

    it('should move the tag of a record a bulk update changes', async () => {
      const res = await t
        .http()
        .patch('/api/demo/marbles')
        .send([{ id: 7, radius_mm: 2 }]);
      expectJson(res, 200);
      expect(await etagOf(t, '/api/demo/marbles/7')).toBe('"7.2"');
    });
  });

  describe('If-Match', () => {
    for (const write of WRITES) {
      it(`should refuse ${write.name} with a stale tag: 412 in JSON and XML, nothing changed`, async () => {
        const before = await t.stored('marbles');
        const stale = await t
          .request({ method: write.method, path: write.path, body: write.body })
          .set('If-Match', '"7.0"');
        expectError(stale, 412, { message: STALE(7) });
        expect(stale.headers.etag).toBeUndefined();

        const xml = await t
          .request({
            method: write.method,
            path: write.path,
            body: write.body,
            accept: 'application/xml',
          })
          .set('If-Match', '"7.0", "9.1"');
        expectXml(xml, 412);
        expect(xml.text).toBe(xmlMessage(STALE(7)));
        expect(await t.stored('marbles')).toEqual(before);
        expect(await version(t, 'marbles', 7)).toBe(1);
      });

      it(`should let ${write.name} through with the current tag, among others, or *`, async () => {
        const res = await t
          .request({ method: write.method, path: write.path, body: write.body })
          .set('If-Match', '"7.0", "7.1"');
        expect(res.status).toBe(write.method === 'delete' ? 204 : 200);
        if (write.method === 'delete') {
          expect(await t.stored('marbles')).toEqual([]);
          return;
        }
        expect(res.headers.etag).toBe('"7.2"');
        const star = await t
          .request({ method: write.method, path: write.path, body: write.body })
          .set('If-Match', '*');
        expect([star.status, star.headers.etag]).toEqual([200, '"7.3"']);
      });
    }

    it("should delete with the tag of a field selection of the current version, not another record's", async () => {
      const selected = await etagOf(t, '/api/demo/marbles/7?fields=name');
      expect(selected).toMatch(/^"7\.1-[0-9a-f]+"$/);
      const other = await t.http().delete('/api/demo/marbles/7').set('If-Match', '"2.1"');
      expectError(other, 412, {
        message:
          'If-Match names no version of Marble 7 ("2.1"; its tags are "7.<version>"): send the ' +
          'ETag a response for Marble 7 gave; nothing was changed.',
      });
      // A tag that is no record's at all says the same, and so does a PATCH.
      const opaque = await t.http().patch('/api/demo/marbles/7').set('If-Match', '"v1"').send({});
      expectError(opaque, 412, {
        message:
          'If-Match names no version of Marble 7 ("v1"; its tags are "7.<version>"): send the ' +
          'ETag a response for Marble 7 gave; nothing was changed.',
      });
      const res = await t.http().delete('/api/demo/marbles/7').set('If-Match', selected);
      expect(res.status).toBe(204);
      expect(await t.stored('marbles')).toEqual([]);
    });

    it('should not match a weak tag (If-Match compares strongly), and say so', async () => {
      const res = await t.http().patch('/api/demo/marbles/7').set('If-Match', 'W/"7.1"').send({});
      expectError(res, 412, {
        message:
          'If-Match sends only weak entity tags (W/"7.1"), which never match: send the ETag of ' +
          'Marble 7 as a response gave it, without W/; nothing was changed.',
      });
      // Beside a strong tag of an older version, the strong tag decides the message.
      const mixed = await t
        .http()
        .patch('/api/demo/marbles/7')
        .set('If-Match', 'W/"7.1", "7.0"')
        .send({});
      expectError(mixed, 412, { message: STALE(7) });
      expect(await version(t, 'marbles', 7)).toBe(1);
    });

    it('should say when If-Match names a version the record has not reached', async () => {
      for (const header of ['"7.5"', '"7.5", "9.1"', '"7.3-0badcafe", "7.0"']) {
        const res = await t.http().delete('/api/demo/marbles/7').set('If-Match', header);
        const ahead = header.includes('7.5') ? 5 : 3;
        expectError(res, 412, {
          message:
            `If-Match names version ${ahead} of Marble 7, which it has not reached (it is at ` +
            'version 1): send the ETag a response gave; nothing was changed.',
        });
      }
      expect(await version(t, 'marbles', 7)).toBe(1);
    });

    it('should answer 404 for a record that does not exist, with * or a tag', async () => {
      for (const tag of ['*', '"99.1"']) {
        const res = await t.http().patch('/api/demo/marbles/99').set('If-Match', tag).send({});
        expectError(res, 404, { message: 'Marble 99 not found.' });
        const gone = await t.http().delete('/api/demo/marbles/99').set('If-Match', tag);
        expectError(gone, 404, { message: 'Marble 99 not found.' });
      }
    });

    it('should refuse a malformed If-Match with 400', async () => {
      for (const header of ['7.1', '"7.1', 'abc, "7.1"', '**', '']) {
        const res = await t.http().patch('/api/demo/marbles/7').set('If-Match', header).send({});
        expectError(res, 400, { message: MALFORMED });
      }
      expect(await version(t, 'marbles', 7)).toBe(1);
    });

    it('should refuse If-Match on create and the bulk writes with 400 (a tag names one record)', async () => {
      const calls: [string, 'post' | 'put' | 'patch' | 'delete', object][] = [
        ['/api/demo/marbles', 'post', { name: 'Ruby' }],
        ['/api/demo/marbles', 'post', [{ name: 'Ruby' }]],
        ['/api/demo/marbles', 'put', [{ id: 7, radius_mm: 4 }]],
        ['/api/demo/marbles', 'patch', [{ id: 7, radius_mm: 4 }]],
        ['/api/demo/marbles', 'delete', [7]],
      ];
      for (const [path, method, body] of calls) {
        const res = await t.request({ method, path, body }).set('If-Match', '"7.1"');
        expectError(res, 400, { message: IF_MATCH_HERE });
      }
      expect(await t.stored('marbles')).toEqual([AMBER]);
    });

    it('should give exactly one of 10 concurrent PATCHes with the same If-Match 200, the others 412', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t
            .http()
            .patch('/api/demo/marbles/7')
            .set('If-Match', '"7.1"')
            .send({ radius_mm: 20 + i }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array(9).fill(412)]);
      const winner = responses.find((r) => r.status === 200)!;
      expect(winner.headers.etag).toBe('"7.2"');
      const [stored] = await t.stored('marbles');
      expect(stored.radius_mm).toBe(winner.body.radius_mm);
      expect(await version(t, 'marbles', 7)).toBe(2);
      for (const res of responses) expectNoLeak(res);
    }, 30_000);

    it('should give exactly one of 10 concurrent toggles with the same If-Match 200', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.http().patch('/api/demo/marbles/7/toggle_is_discounted').set('If-Match', '"7.1"'),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(412)]);
      expect((await t.stored('marbles'))[0].is_discounted).toBe(true);
    }, 30_000);

    it('should apply If-Match to the other collections too', async () => {
      await t.insertAll(ONE_OF_EACH_BUT_USERS);
      for (const path of [
        '/api/demo/emails/1',
        '/api/demo/phone_numbers/1',
        '/api/plain/movies/1',
      ]) {
        const tag = await etagOf(t, path);
        expect(tag).toBe('"1.1"');
        const stale = await t.http().patch(path).set('If-Match', '"1.0"').send({});
        expect(stale.status).toBe(412);
        const fresh = await t.http().patch(path).set('If-Match', tag).send({});
        expect([fresh.status, fresh.headers.etag]).toEqual([200, '"1.2"']);
        const xml = await t.http().get(`${path}.xml`);
        expect([xml.headers['content-type'], xml.headers.etag]).toEqual([XML_TYPE, '"1.2"']);
      }
    });
  });
});

const { users: _users, ...ONE_OF_EACH_BUT_USERS } = ONE_OF_EACH;

describe('write: REQUIRE_IF_MATCH=true', () => {
  const t = useApp({ requireIfMatch: true, seedEach: { users: USERS, marbles: [AMBER] } });

  function expectRequired(res: Response, format: 'json' | 'xml') {
    if (format === 'json') expectError(res, 428, { message: NEEDS });
    else {
      expectXml(res, 428);
      expect(res.text).toBe(xmlMessage(NEEDS));
    }
  }

  for (const write of WRITES) {
    it(`should refuse ${write.name} without If-Match with 428, in JSON and XML`, async () => {
      expectRequired(
        await t.request({ method: write.method, path: write.path, body: write.body }),
        'json',
      );
      const xml = await t.request({
        method: write.method,
        path: write.path,
        body: write.body,
        accept: 'application/xml',
      });
      expectRequired(xml, 'xml');
      expect(await t.stored('marbles')).toEqual([AMBER]);
      const allowed = await t
        .request({ method: write.method, path: write.path, body: write.body })
        .set('If-Match', '"7.1"');
      expect(allowed.status).toBe(write.method === 'delete' ? 204 : 200);
    });
  }

  it('should leave create and the bulk writes alone', async () => {
    expect((await t.http().post('/api/demo/marbles').send({ name: 'Ruby' })).status).toBe(201);
    expect(
      (
        await t
          .http()
          .patch('/api/demo/marbles')
          .send([{ id: 7, radius_mm: 3 }])
      ).status,
    ).toBe(200);
    expect((await t.http().delete('/api/demo/marbles').send([7])).status).toBe(200);
  });
});

describe('write: safe writes in the OpenAPI document', () => {
  const t = useApp();

  type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('should document If-Match, Idempotency-Key, their statuses and the ETag of records', async () => {
    const res = await t.http().get('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body as Json;
    const resolve = (p: Json) =>
      p.$ref ? doc.components.parameters[(p.$ref as string).split('/').pop()!] : p;
    const headersOf = (op: Json) =>
      (op.parameters as Json[])
        .map(resolve)
        .filter((p) => p.in === 'header')
        .map((p) => p.name)
        .sort();
    const statusesOf = (op: Json) => Object.keys(op.responses);

    const record = doc.paths['/api/demo/marbles/{id}'];
    expect(record.get.responses['200'].headers).toHaveProperty('ETag');
    expect(headersOf(record.get)).toEqual([]);
    for (const method of ['put', 'patch', 'delete']) {
      expect([method, headersOf(record[method])]).toEqual([
        method,
        ['Idempotency-Key', 'If-Match'],
      ]);
      expect(statusesOf(record[method])).toEqual(
        expect.arrayContaining(['409', '412', '422', '428']),
      );
    }
    expect(record.patch.responses['200'].headers).toHaveProperty('ETag');
    for (const action of ['adjust_price', 'toggle_is_discounted']) {
      const op = doc.paths[`/api/demo/marbles/{id}/${action}`].patch;
      expect(headersOf(op)).toEqual(['Idempotency-Key', 'If-Match']);
      expect(statusesOf(op)).toEqual(expect.arrayContaining(['200', '409', '412', '422', '428']));
      expect(op.responses['200'].headers).toHaveProperty('ETag');
    }
    const collection = doc.paths['/api/demo/marbles'];
    for (const method of ['post', 'put', 'patch', 'delete']) {
      expect([method, headersOf(collection[method])]).toEqual([method, ['Idempotency-Key']]);
      expect(statusesOf(collection[method])).toEqual(expect.arrayContaining(['409', '422']));
      expect(statusesOf(collection[method])).not.toContain('412');
    }
    expect(collection.post.responses['201'].headers).toHaveProperty('ETag');
    expect(doc.components.responses.PreconditionFailed.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });
});
