/**
 * Errors of the read side: 404 for missing records, ids that are not positive integers and unknown
 * routes; 405 with Allow for a known path and a method it does not serve.
 */
import request, { type Response } from 'supertest';
import { useApp } from '../support/harness';
import { ONE_OF_EACH, RECORD_PATHS } from '../support/fixtures';
import {
  ANY_XML_MESSAGE,
  JSON_TYPE,
  allowOf,
  expectMessage,
  itAnswersMessage,
  expectNegotiatedJson,
  expectNegotiatedXml,
  xmlMessage,
} from '../support/http';

/** An Allow header that offers GET and HEAD, and not `method`. */
function expectAllowWithout(res: Response, method: string): void {
  const allow = allowOf(res.headers['allow']);
  expect(allow).toEqual(expect.arrayContaining(['GET', 'HEAD']));
  expect(allow).not.toContain(method);
}

/** Routes that only read, one of each kind. */
const READ_ROUTES = [
  '/api/plain/movies',
  '/api/plain/movies/1',
  '/api/demo/emails',
  '/api/demo/emails/ping',
];

/** Record paths whose id is not a positive integer. */
const NOT_POSITIVE_IDS = [
  '/api/demo/emails/abc',
  '/api/demo/emails/0',
  '/api/demo/emails/-1',
  '/api/demo/emails/1e3',
  '/api/demo/emails/%201',
  '/api/demo/emails/99999999999999999999',
  '/api/demo/marbles/abc',
  '/api/demo/marbles/0',
  '/api/demo/phone_numbers/abc',
  '/api/plain/movies/abc',
  '/api/plain/movies/0',
];

/** Paths no route serves. */
const UNKNOWN_ROUTES = [
  '/api/demo',
  '/api/demo/nothing',
  '/api/demo/users',
  '/api/demo/genres',
  '/api/plain/emails',
  '/api/demo/movies',
  '/api/demo/marbles/1/nothing',
  '/api/demo/emails/1/ping',
  '/api/plain/movies/1/users',
];

describe('read side: errors', () => {
  const t = useApp({ seed: ONE_OF_EACH });
  const itAnswersGet404 = (paths: string[]) =>
    itAnswersMessage(t, paths, 'should answer GET %s with 404 and a JSON message', 404);

  describe('missing records', () => {
    it.each([
      ['/api/demo/marbles/99', 'Marble 99 not found.'],
      ['/api/demo/emails/99', 'Email 99 not found.'],
      ['/api/demo/phone_numbers/99', 'Phone number 99 not found.'],
      ['/api/plain/movies/99', 'Movie 99 not found.'],
    ])('should answer GET %s with 404 and a message naming the record', async (path, message) => {
      const res = await t.http().get(path);
      expectNegotiatedJson(res, 404);
      expect(res.text).toBe(JSON.stringify({ message }));
    });

    it('should answer a missing record in XML under a hash root', async () => {
      const res = await t.http().get('/api/demo/marbles/99.xml');
      expectNegotiatedXml(res, 404);
      expect(res.text).toBe(xmlMessage('Marble 99 not found.'));
      const accepted = await t.http().get('/api/demo/marbles/99').set('Accept', 'text/xml');
      expectNegotiatedXml(accepted, 404);
      expect(accepted.text).toBe(res.text);
    });

    it('should answer a missing record with the .json suffix in JSON', async () => {
      const res = await t.http().get('/api/plain/movies/99.json').set('Accept', 'application/xml');
      expectNegotiatedJson(res, 404);
      expect(res.body).toStrictEqual({ message: 'Movie 99 not found.' });
    });

    it('should still find the records that exist', async () => {
      for (const path of RECORD_PATHS) {
        const res = await t.http().get(path);
        expectNegotiatedJson(res);
        expect(res.body.id).toBe(1);
      }
    });
  });

  describe('ids that are not positive integers', () => {
    itAnswersGet404(NOT_POSITIVE_IDS);

    it('should name the id in the message', async () => {
      const res = await t.http().get('/api/demo/emails/abc');
      expect(res.body).toStrictEqual({ message: 'Email abc not found.' });
      const zero = await t.http().get('/api/demo/marbles/0.xml');
      expectNegotiatedXml(zero, 404);
      expect(zero.text).toBe(xmlMessage('Marble 0 not found.'));
    });

    it("should answer an id that is not percent-encoded UTF-8 with the record's 404, in every format", async () => {
      for (const [path, message] of [
        ['/api/demo/marbles/%ff', 'Marble %ff not found.'],
        ['/api/demo/emails/%E2%82', 'Email %E2%82 not found.'],
        ['/api/plain/movies/%zz', 'Movie %zz not found.'],
      ]) {
        const res = await t.http().get(path);
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 404,
          body: { message },
        });
      }
      const xml = await t.http().get('/api/demo/marbles/%ff.xml');
      expectNegotiatedXml(xml, 404);
      expect(xml.text).toBe(xmlMessage('Marble %ff not found.'));
      // The page is no part of the OpenAPI document: asked without the contract check.
      const page = await request(t.app.getHttpServer())
        .get('/api/demo/marbles/%ff')
        .set('Accept', 'text/html');
      expect([page.status, page.headers['content-type']]).toEqual([
        404,
        'text/html; charset=utf-8',
      ]);
      expect(page.text).toContain('Marble %ff not found.');
      const write = await t.http().delete('/api/demo/marbles/%ff');
      expect([write.status, write.body]).toEqual([404, { message: 'Marble %ff not found.' }]);
    });

    it('should answer 404 or 405 for a movie probe route, which movies do not have', async () => {
      const res = await t.http().get('/api/plain/movies/ping');
      expect([404, 405]).toContain(res.status);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      expect(res.body).toStrictEqual({ message: expect.any(String) });
    });

    it('should answer 404 for a marble probe route, which marbles do not have', async () => {
      const res = await t.http().get('/api/demo/marbles/ping');
      expectMessage(res, 404);
    });
  });

  describe('query parameters that are not percent-encoded UTF-8', () => {
    it('should answer 400 naming the parameter and the byte, as for a body', async () => {
      for (const [query, message] of [
        [
          'name=%ff',
          'Query parameter name is not valid percent-encoded UTF-8: byte 0xFF at offset 0 of its value.',
        ],
        [
          'page=1&search=caf%C3',
          'Query parameter search is not valid percent-encoded UTF-8: byte 0xC3 at offset 3 of its value.',
        ],
        [
          'na%e9me=x',
          'Query parameter na%e9me is not valid percent-encoded UTF-8: byte 0xE9 at offset 2 of its name.',
        ],
      ]) {
        const res = await t.http().get(`/api/demo/marbles?${query}`);
        expect({ query, status: res.status, body: res.body }).toEqual({
          query,
          status: 400,
          body: { message },
        });
      }
      const xml = await t.http().get('/api/demo/marbles.xml?name=%ff');
      expectNegotiatedXml(xml, 400);
      expect(xml.text).toBe(
        xmlMessage(
          'Query parameter name is not valid percent-encoded UTF-8: byte 0xFF at offset 0 of its value.',
        ),
      );
    });

    it('should read UTF-8 escapes, and a % that starts no escape as the character', async () => {
      for (const query of ['name=caf%C3%A9', 'search=100%', 'search=a+b%20c']) {
        const res = await t.http().get(`/api/demo/marbles?${query}`);
        expect({ query, status: res.status }).toEqual({ query, status: 200 });
      }
    });
  });

  describe('unknown routes', () => {
    itAnswersGet404(UNKNOWN_ROUTES);

    it('should answer an unknown route in the negotiated format', async () => {
      const res = await t.http().get('/api/demo/nothing.xml');
      expectNegotiatedXml(res, 404);
      expect(res.text).toMatch(ANY_XML_MESSAGE);
    });
  });

  describe('methods not served', () => {
    it('should serve HEAD on the read routes, as Allow announces', async () => {
      for (const path of READ_ROUTES) {
        const res = await t.http().head(path);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        expect(res.text ?? '').toBe('');
      }
    });

    it.each(['PUT', 'DELETE', 'PATCH'] as const)(
      'should answer %s /api/plain/movies with 405 and an Allow header',
      async (method) => {
        const res = await t.request({
          method: method.toLowerCase() as 'put' | 'delete' | 'patch',
          path: '/api/plain/movies',
          type: 'application/json',
          body: '[]',
        });
        expectMessage(res, 405);
        expectAllowWithout(res, method);
      },
    );

    it('should answer 405 with Allow on a suffixed path, in the suffix format', async () => {
      const res = await t.http().delete('/api/plain/movies.xml');
      expectNegotiatedXml(res, 405);
      expect(res.text).toMatch(ANY_XML_MESSAGE);
      expectAllowWithout(res, 'DELETE');
    });

    it('should answer 405 with Allow on the probe routes, which only read', async () => {
      for (const path of ['/api/demo/emails/child_ping', '/api/demo/phone_numbers/child_ping']) {
        const res = await t.http().post(path);
        expectNegotiatedJson(res, 405);
        expectAllowWithout(res, 'POST');
      }
    });
  });
});
