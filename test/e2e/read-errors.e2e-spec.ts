/**
 * Errors of the read side (CONTRACT §1, §5): 404 for missing records, ids that are not positive
 * integers and unknown routes; 405 with Allow for a known path and a method it does not serve.
 */
import { startApp, TestApp } from './harness';
import { expectJson, expectXml, insertUsers, xmlDocument } from './read-helpers';

/** The methods of an Allow header. */
function allowOf(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
}

describe('read side: errors', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp();
    await insertUsers(t, ['ann']);
    await t.insert('emails', [{ id: 1, email: 'ann@example.com', is_primary: false, user_id: 1 }]);
    await t.insert('phone_numbers', [{ id: 1, number: '555 0100', user_id: 1 }]);
    await t.insert('marbles', [
      {
        id: 1,
        name: 'Amber Swirl',
        radius_mm: 12,
        price: '9.20',
        is_discounted: false,
        created_at: '2024-05-01 12:00:00.000',
        updated_at: '2024-05-01 12:00:00.000',
        user_id: null,
        description: '',
        picture: null,
      },
    ]);
    await t.insert('movies', [
      {
        id: 1,
        name: 'Midnight Harbor',
        price: null,
        main_genre_id: null,
        created_at: '2024-03-01 10:00:00.000',
        updated_at: '2024-03-01 10:00:00.000',
      },
    ]);
  });

  afterAll(() => t.close());

  describe('missing records', () => {
    it.each([
      ['/api/demo/marbles/99', 'Marble 99 not found.'],
      ['/api/demo/emails/99', 'Email 99 not found.'],
      ['/api/demo/phone_numbers/99', 'Phone number 99 not found.'],
      ['/api/plain/movies/99', 'Movie 99 not found.'],
    ])('should answer GET %s with 404 and a message naming the record', async (path, message) => {
      const res = await t.http().get(path);
      expectJson(res, 404);
      expect(res.text).toBe(JSON.stringify({ message }));
    });

    it('should answer a missing record in XML under a hash root', async () => {
      const res = await t.http().get('/api/demo/marbles/99.xml');
      expectXml(res, 404);
      expect(res.text).toBe(xmlDocument('<hash><message>Marble 99 not found.</message></hash>'));
      const accepted = await t.http().get('/api/demo/marbles/99').set('Accept', 'text/xml');
      expectXml(accepted, 404);
      expect(accepted.text).toBe(res.text);
    });

    it('should answer a missing record with the .json suffix in JSON', async () => {
      const res = await t.http().get('/api/plain/movies/99.json').set('Accept', 'application/xml');
      expectJson(res, 404);
      expect(res.body).toStrictEqual({ message: 'Movie 99 not found.' });
    });

    it('should still find the records that exist', async () => {
      for (const path of [
        '/api/demo/marbles/1',
        '/api/demo/emails/1',
        '/api/demo/phone_numbers/1',
        '/api/plain/movies/1',
      ]) {
        const res = await t.http().get(path);
        expectJson(res);
        expect(res.body.id).toBe(1);
      }
    });
  });

  describe('ids that are not positive integers', () => {
    it.each([
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
    ])('should answer GET %s with 404 and a JSON message', async (path) => {
      const res = await t.http().get(path);
      expectJson(res, 404);
      expect(res.body).toStrictEqual({ message: expect.any(String) });
    });

    it('should name the id in the message', async () => {
      const res = await t.http().get('/api/demo/emails/abc');
      expect(res.body).toStrictEqual({ message: 'Email abc not found.' });
      const zero = await t.http().get('/api/demo/marbles/0.xml');
      expectXml(zero, 404);
      expect(zero.text).toBe(xmlDocument('<hash><message>Marble 0 not found.</message></hash>'));
    });

    it('should answer 404 or 405 for a movie probe route, which movies do not have', async () => {
      const res = await t.http().get('/api/plain/movies/ping');
      expect([404, 405]).toContain(res.status);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toStrictEqual({ message: expect.any(String) });
    });

    it('should answer 404 for a marble probe route, which marbles do not have', async () => {
      const res = await t.http().get('/api/demo/marbles/ping');
      expectJson(res, 404);
      expect(res.body).toStrictEqual({ message: expect.any(String) });
    });
  });

  describe('unknown routes', () => {
    it.each([
      '/',
      '/api',
      '/api/demo',
      '/api/demo/nothing',
      '/api/demo/users',
      '/api/demo/genres',
      '/api/plain/emails',
      '/api/demo/movies',
      '/api/demo/marbles/1/nothing',
      '/api/demo/emails/1/ping',
      '/api/plain/movies/1/users',
    ])('should answer GET %s with 404 and a JSON message', async (path) => {
      const res = await t.http().get(path);
      expectJson(res, 404);
      expect(res.body).toStrictEqual({ message: expect.any(String) });
    });

    it('should answer an unknown route in the negotiated format', async () => {
      const res = await t.http().get('/api/demo/nothing.xml');
      expectXml(res, 404);
      expect(res.text).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><message>[^<]+<\/message><\/hash>\n$/,
      );
    });
  });

  describe('methods not served', () => {
    it('should serve HEAD on the read routes, as Allow announces', async () => {
      for (const path of [
        '/api/plain/movies',
        '/api/plain/movies/1',
        '/api/demo/emails',
        '/api/demo/emails/ping',
      ]) {
        const res = await t.http().head(path);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.text ?? '').toBe('');
      }
    });

    it.each(['PUT', 'DELETE', 'PATCH'] as const)(
      'should answer %s /api/plain/movies with 405 and an Allow header',
      async (method) => {
        const res = await t
          .http()
          [method.toLowerCase() as 'put' | 'delete' | 'patch']('/api/plain/movies')
          .set('Content-Type', 'application/json')
          .send('[]');
        expectJson(res, 405);
        expect(res.body).toStrictEqual({ message: expect.any(String) });
        const allow = allowOf(res.headers['allow']);
        expect(allow).toEqual(expect.arrayContaining(['GET', 'HEAD']));
        expect(allow).not.toContain(method);
      },
    );

    it('should answer 405 with Allow on a suffixed path, in the suffix format', async () => {
      const res = await t.http().delete('/api/plain/movies.xml');
      expectXml(res, 405);
      expect(res.text).toMatch(
        /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<hash><message>[^<]+<\/message><\/hash>\n$/,
      );
      const allow = allowOf(res.headers['allow']);
      expect(allow).toEqual(expect.arrayContaining(['GET', 'HEAD']));
      expect(allow).not.toContain('DELETE');
    });

    it('should answer 405 with Allow on the probe routes, which only read', async () => {
      for (const path of ['/api/demo/emails/child_ping', '/api/demo/phone_numbers/child_ping']) {
        const res = await t.http().post(path);
        expectJson(res, 405);
        const allow = allowOf(res.headers['allow']);
        expect(allow).toEqual(expect.arrayContaining(['GET', 'HEAD']));
        expect(allow).not.toContain('POST');
      }
    });
  });
});
