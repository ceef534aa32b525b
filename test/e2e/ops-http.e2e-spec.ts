/**
 * Operations over HTTP, in-process (the app as `configureApp` ships it): health, request ids,
 * the write token, CORS, compression, ETags, HEAD, and the OpenAPI document.
 */
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Response } from 'supertest';
import { startApp, TestApp } from './harness';

const JSON_TYPE = 'application/json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TOKEN = 'x'.repeat(32);
const TOKEN_MESSAGE = 'Writes need a valid bearer token (Authorization: Bearer <token>).';

const STAMP = '2024-05-01 12:00:00.000';

function marble(id: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: `Marble ${String(id).padStart(3, '0')}`,
    radius_mm: 1 + (id % 30),
    price: '9.20',
    is_discounted: false,
    created_at: STAMP,
    updated_at: STAMP,
    user_id: 1,
    description: `A hand-made marble number ${id}, with a description long enough to fill a page.`,
    picture: null,
    ...extra,
  };
}

/** One user, one e-mail, one phone number, one marble, one genre, one movie. */
async function insertFixture(t: TestApp): Promise<void> {
  await t.insert('users', [
    { id: 1, login: 'ann', email_id: null },
    { id: 2, login: 'bob', email_id: null },
  ]);
  await t.insert('emails', [{ id: 1, email: 'ann@example.com', is_primary: true, user_id: 1 }]);
  await t.insert('phone_numbers', [{ id: 1, number: '555 0100', user_id: 1 }]);
  await t.insert('marbles', [marble(1)]);
  await t.insert('genres', [{ id: 1, name: 'Drama' }]);
  await t.insert('movies', [
    {
      id: 1,
      name: 'Open Water',
      price: '12.50',
      main_genre_id: 1,
      created_at: STAMP,
      updated_at: STAMP,
    },
  ]);
  await t.insert('genres_movies', [{ movie_id: 1, genre_id: 1 }]);
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET over plain node:http: no client-side decompression, so the bytes are what was sent. */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('operations over HTTP', () => {
  describe('health', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(() => t.close());

    it('should answer GET /health/live with 200 {"status":"ok"}', async () => {
      const res = await t.http().get('/health/live');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      expect(res.text).toBe('{"status":"ok"}');
    });

    it('should answer GET /health/ready with 200 and the database up', async () => {
      const res = await t.http().get('/health/ready');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      expect(res.body.status).toBe('ok');
      expect(res.body.info).toEqual({ database: { status: 'up' } });
      expect(res.body.details).toEqual({ database: { status: 'up' } });
    });

    it('should answer GET /health/live.xml in XML', async () => {
      const res = await t.http().get('/health/live.xml');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(XML_TYPE);
      expect(res.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash><status>ok</status></hash>\n',
      );
    });
  });

  describe('X-Request-Id', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(() => t.close());

    it('should echo a sane incoming request id', async () => {
      const res = await t.http().get('/api/demo/emails/ping').set('X-Request-Id', 'req-42.a:b_C');
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toBe('req-42.a:b_C');
    });

    it('should echo a 128-character request id', async () => {
      const id = 'a'.repeat(128);
      const res = await t.http().get('/api/demo/emails/ping').set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toBe(id);
    });

    it('should generate a UUID when no request id is sent', async () => {
      const first = await t.http().get('/api/demo/emails/ping');
      const second = await t.http().get('/api/demo/emails/ping');
      expect(first.headers['x-request-id']).toMatch(UUID);
      expect(second.headers['x-request-id']).toMatch(UUID);
      expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
    });

    it.each([
      ['with spaces', 'abc def'],
      ['of 300 characters', 'x'.repeat(300)],
      ['of 129 characters', 'a'.repeat(129)],
      ['with markup', '<script>alert(1)</script>'],
      ['with quotes and a semicolon', 'a";b'],
    ])('should replace a hostile request id (%s) by a generated UUID', async (_what, id) => {
      const res = await t.http().get('/api/demo/emails/ping').set('X-Request-Id', id);
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('should set a request id on a 404 and on a 406 as well', async () => {
      const missing = await t.http().get('/api/demo/emails/999').set('X-Request-Id', 'missing-1');
      expect(missing.status).toBe(404);
      expect(missing.headers['x-request-id']).toBe('missing-1');
      const unsupported = await t.http().get('/api/demo/emails.csv').set('X-Request-Id', 'csv-1');
      expect(unsupported.status).toBe(406);
      expect(unsupported.headers['x-request-id']).toBe('csv-1');
    });
  });

  describe('API token', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ apiToken: TOKEN });
    });
    beforeEach(async () => {
      await t.reset();
      await insertFixture(t);
    });
    afterAll(() => t.close());

    const writes: [string, string, unknown][] = [
      ['POST', '/api/demo/phone_numbers', { number: '555 0199', user_id: 1 }],
      ['PUT', '/api/demo/phone_numbers', [{ id: 1, number: '555 0101' }]],
      ['PATCH', '/api/demo/phone_numbers', [{ id: 1, number: '555 0101' }]],
      ['DELETE', '/api/demo/phone_numbers', [1]],
      ['PUT', '/api/demo/phone_numbers/1', { number: '555 0101' }],
      ['PATCH', '/api/demo/phone_numbers/1', { number: '555 0101' }],
      ['DELETE', '/api/demo/phone_numbers/1', undefined],
      ['POST', '/api/demo/emails', { email: 'new@example.com', user_id: 1 }],
      ['DELETE', '/api/demo/emails/1', undefined],
      ['POST', '/api/demo/marbles', { name: 'Opal' }],
      ['PATCH', '/api/demo/marbles/1', { name: 'Opal' }],
      ['PATCH', '/api/demo/marbles/1/adjust_price', { price: '3.5' }],
      ['PATCH', '/api/demo/marbles/1/toggle_is_discounted', undefined],
      ['DELETE', '/api/demo/marbles', [1]],
      ['POST', '/api/plain/movies', { name: 'New Film' }],
      ['PATCH', '/api/plain/movies/1', { name: 'New Film' }],
      ['PUT', '/api/plain/movies/1', { name: 'New Film' }],
      ['DELETE', '/api/plain/movies/1', undefined],
      ['POST', '/api/demo/nowhere', { any: 1 }],
    ];

    function send(method: string, path: string, body: unknown, authorization?: string) {
      let req = t.http()[method.toLowerCase() as 'post'](path);
      if (authorization !== undefined) req = req.set('Authorization', authorization);
      return body === undefined ? req : req.send(body as object);
    }

    async function expectUntouched() {
      expect(await t.rows('phone_numbers')).toEqual([{ id: 1, number: '555 0100', user_id: 1 }]);
      expect((await t.rows('emails')).map((r) => r.email)).toEqual(['ann@example.com']);
      const marbles = await t.rows('marbles');
      expect(marbles.map((r) => [r.name, String(r.price), Number(r.is_discounted)])).toEqual([
        ['Marble 001', '9.20', 0],
      ]);
      expect((await t.rows('movies')).map((r) => r.name)).toEqual(['Open Water']);
    }

    it.each(writes)(
      'should answer %s %s without a token with 401, WWW-Authenticate and a JSON message, changing nothing',
      async (method, path, body) => {
        const res = await send(method, path, body);
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer realm="records"');
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        expect(res.text).toBe(JSON.stringify({ message: TOKEN_MESSAGE }));
        await expectUntouched();
      },
    );

    it.each(writes)(
      'should answer %s %s with a wrong token with 401 invalid_token',
      async (method, path, body) => {
        const res = await send(method, path, body, `Bearer ${'y'.repeat(32)}`);
        expect(res.status).toBe(401);
        expect(res.headers['www-authenticate']).toBe(
          'Bearer realm="records", error="invalid_token"',
        );
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        expect(res.body).toEqual({ message: TOKEN_MESSAGE });
        await expectUntouched();
      },
    );

    it.each([
      ['a prefix of the token', `Bearer ${TOKEN.slice(0, 31)}`],
      ['the token with an extra character', `Bearer ${TOKEN}x`],
      ['the token without the Bearer scheme', TOKEN],
      ['the token under the Basic scheme', `Basic ${TOKEN}`],
      ['an empty bearer', 'Bearer '],
      ['the token twice', `Bearer ${TOKEN} ${TOKEN}`],
    ])('should refuse %s with 401', async (_what, authorization) => {
      const res = await send(
        'POST',
        '/api/demo/phone_numbers',
        { number: '555 0199', user_id: 1 },
        authorization,
      );
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="records"/);
      await expectUntouched();
    });

    it('should answer 401 in XML when the client accepts XML', async () => {
      const res = await t
        .http()
        .post('/api/demo/phone_numbers')
        .set('Accept', 'application/xml')
        .send({ number: 'x' });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="records"');
      expect(res.headers['content-type']).toBe(XML_TYPE);
      expect(res.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n' +
          '<hash><message>Writes need a valid bearer token (Authorization: Bearer &lt;token&gt;).</message></hash>\n',
      );
    });

    it('should answer 401 in XML for a .xml suffix', async () => {
      const res = await t.http().delete('/api/demo/phone_numbers/1.xml');
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe(XML_TYPE);
      expect(res.text).toContain('<hash><message>Writes need a valid bearer token');
    });

    it('should let a write with the right token through (201, record saved)', async () => {
      const res = await t
        .http()
        .post('/api/demo/phone_numbers')
        .set('Authorization', `Bearer ${TOKEN}`)
        .send({ number: '555 0199', user_id: 1 });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        number: '555 0199',
        user: { id: 1, login: 'ann' },
      });
      expect(await t.rows('phone_numbers')).toEqual([
        { id: 1, number: '555 0100', user_id: 1 },
        { id: res.body.id, number: '555 0199', user_id: 1 },
      ]);
    });

    it('should accept the scheme in any case and the right token for PATCH and DELETE', async () => {
      const patch = await t
        .http()
        .patch('/api/demo/marbles/1/toggle_is_discounted')
        .set('Authorization', `bearer ${TOKEN}`);
      expect(patch.status).toBe(200);
      expect(patch.body).toEqual({ message: 'Is discounted toggled to true.' });
      const del = await t
        .http()
        .delete('/api/demo/phone_numbers/1')
        .set('Authorization', `Bearer ${TOKEN}`);
      expect(del.status).toBe(204);
      expect(await t.rows('phone_numbers')).toEqual([]);
    });

    it.each([
      ['/api/demo/phone_numbers'],
      ['/api/demo/phone_numbers/1'],
      ['/api/demo/emails/ping'],
      ['/api/plain/movies'],
      ['/health/live'],
      ['/api/openapi.json'],
    ])('should keep GET %s open without a token', async (path) => {
      const res = await t.http().get(path);
      expect(res.status).toBe(200);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('should keep HEAD and OPTIONS open without a token', async () => {
      const head = await t.http().head('/api/demo/phone_numbers/1');
      expect(head.status).toBe(200);
      const options = await t.http().options('/api/demo/phone_numbers');
      expect(options.status).toBe(200);
      expect(options.body.openapi).toMatch(/^3\./);
    });

    it('should answer an unauthenticated POST with malformed JSON with 401, not 400', async () => {
      const res = await t
        .http()
        .post('/api/demo/phone_numbers')
        .set('Content-Type', 'application/json')
        .send('{"number": ');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: TOKEN_MESSAGE });
    });

    it('should answer an unauthenticated POST with an unsupported content type or a huge body with 401', async () => {
      const text = await t
        .http()
        .post('/api/demo/phone_numbers')
        .set('Content-Type', 'text/plain')
        .send('hello');
      expect(text.status).toBe(401);
      const huge = await t
        .http()
        .post('/api/demo/phone_numbers')
        .set('Content-Type', 'application/json')
        .send(`{"number": "${'9'.repeat(2 * 1024 * 1024)}"}`);
      expect(huge.status).toBe(401);
    });

    it('should answer an authenticated POST with malformed JSON with 400', async () => {
      const res = await t
        .http()
        .post('/api/demo/phone_numbers')
        .set('Authorization', `Bearer ${TOKEN}`)
        .set('Content-Type', 'application/json')
        .send('{"number": ');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Malformed JSON in request body.' });
    });
  });

  describe('without an API token', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
      await insertFixture(t);
    });
    afterAll(() => t.close());

    it('should accept a write with no Authorization header', async () => {
      const res = await t
        .http()
        .post('/api/demo/phone_numbers')
        .send({ number: '555 0199', user_id: 1 });
      expect(res.status).toBe(201);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('CORS with an allowed origin', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ corsOrigins: ['https://a.example'] });
      await insertFixture(t);
    });
    afterAll(() => t.close());

    it('should answer a preflight from the allowed origin with Access-Control-Allow-Origin', async () => {
      const res = await t
        .http()
        .options('/api/demo/marbles')
        .set('Origin', 'https://a.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type,authorization');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://a.example');
      expect(res.headers['access-control-allow-methods'].split(',')).toEqual(
        expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      );
      expect(res.headers['access-control-allow-headers']).toBe('content-type,authorization');
      expect(res.headers['vary'].split(/,\s*/)).toEqual(expect.arrayContaining(['Origin']));
    });

    it('should answer a simple GET from the allowed origin with Access-Control-Allow-Origin and the exposed headers', async () => {
      const res = await t.http().get('/api/demo/marbles/1').set('Origin', 'https://a.example');
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://a.example');
      expect(res.headers['access-control-expose-headers']).toBe(
        'Location,X-Request-Id,ETag,Retry-After',
      );
      expect(res.headers['vary'].split(/,\s*/)).toEqual(
        expect.arrayContaining(['Accept', 'Origin']),
      );
    });

    it('should not allow another origin on a preflight or a GET', async () => {
      const preflight = await t
        .http()
        .options('/api/demo/marbles')
        .set('Origin', 'https://b.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const get = await t.http().get('/api/demo/marbles/1').set('Origin', 'https://b.example');
      expect(get.status).toBe(200);
      expect(get.headers['access-control-allow-origin']).toBeUndefined();
    });

    it.each([
      ['https://a.example.evil.com'],
      ['http://a.example'],
      ['https://A.example.'],
      ['null'],
    ])('should not allow the look-alike origin %s', async (origin) => {
      const res = await t
        .http()
        .options('/api/demo/marbles')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'DELETE');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('CORS with no origins', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp({ corsOrigins: [] });
      await insertFixture(t);
    });
    afterAll(() => t.close());

    it('should send no CORS header at all, on a preflight or a GET', async () => {
      const preflight = await t
        .http()
        .options('/api/demo/marbles')
        .set('Origin', 'https://a.example')
        .set('Access-Control-Request-Method', 'POST');
      const get = await t.http().get('/api/demo/marbles/1').set('Origin', 'https://a.example');
      expect(get.status).toBe(200);
      for (const res of [preflight, get]) {
        expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
    });

    it('should answer OPTIONS with the collection document rather than a preflight', async () => {
      const res = await t
        .http()
        .options('/api/demo/marbles')
        .set('Origin', 'https://a.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toMatch(/^3\./);
    });
  });

  describe('compression', () => {
    let t: TestApp;
    let port: number;
    beforeAll(async () => {
      t = await startApp();
      await t.insert('users', [{ id: 1, login: 'ann', email_id: null }]);
      await t.insert(
        'marbles',
        Array.from({ length: 100 }, (_, i) => marble(i + 1)),
      );
      await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
      port = (t.app.getHttpServer().address() as AddressInfo).port;
    });
    afterAll(() => t.close());

    const LIST = '/api/demo/marbles?page_size=40';

    it('should compress a large list with brotli when the client accepts br', async () => {
      const plain = await rawGet(port, LIST, { 'Accept-Encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(4096);
      const res = await rawGet(port, LIST, { 'Accept-Encoding': 'br' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers['vary']!.toString().split(/,\s*/)).toEqual(
        expect.arrayContaining(['Accept', 'Accept-Encoding']),
      );
      expect(res.body.length).toBeLessThan(plain.body.length);
      const decoded = brotliDecompressSync(res.body).toString('utf8');
      expect(decoded).toBe(plain.body.toString('utf8'));
      expect(JSON.parse(decoded).results).toHaveLength(40);
    });

    it('should compress a large list with gzip when the client accepts gzip', async () => {
      const plain = await rawGet(port, LIST, { 'Accept-Encoding': 'identity' });
      const res = await rawGet(port, LIST, { 'Accept-Encoding': 'gzip' });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.body.length).toBeLessThan(plain.body.length);
      expect(gunzipSync(res.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    });

    it('should decode transparently for a gzip-capable client (supertest)', async () => {
      const res = await t.http().get(LIST).set('Accept-Encoding', 'gzip');
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(res.body.results).toHaveLength(40);
      expect(res.body.results[0].name).toBe('Marble 001');
    });

    it('should compress a large XML list too', async () => {
      const res = await rawGet(port, '/api/demo/marbles.xml?page_size=40', {
        'Accept-Encoding': 'gzip',
      });
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(res.body).toString('utf8')).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?>\n<hash>/,
      );
    });

    it('should not compress a small body', async () => {
      for (const encoding of ['br', 'gzip', 'gzip, deflate, br']) {
        const res = await rawGet(port, '/api/demo/emails/ping', { 'Accept-Encoding': encoding });
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.body.toString('utf8')).toBe('{"message":"pong"}');
      }
    });

    it('should not compress for a client that accepts no encoding', async () => {
      const res = await rawGet(port, LIST, {});
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.body.toString('utf8')).results).toHaveLength(40);
    });
  });

  describe('ETag', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
      await insertFixture(t);
    });
    afterAll(() => t.close());

    it('should answer If-None-Match with the current ETag with 304 and an empty body, until the record changes', async () => {
      const first = await t.http().get('/api/demo/marbles/1');
      expect(first.status).toBe(200);
      const etag = first.headers['etag'];
      expect(etag).toMatch(/^(W\/)?"[^"]+"$/);

      const again = await t.http().get('/api/demo/marbles/1');
      expect(again.headers['etag']).toBe(etag);

      const notModified = await t.http().get('/api/demo/marbles/1').set('If-None-Match', etag);
      expect(notModified.status).toBe(304);
      expect(notModified.text).toBe('');
      expect(notModified.headers['content-length']).toBeUndefined();
      expect(notModified.headers['etag']).toBe(etag);

      const patch = await t.http().patch('/api/demo/marbles/1').send({ name: 'Renamed Marble' });
      expect(patch.status).toBe(200);

      const changed = await t.http().get('/api/demo/marbles/1').set('If-None-Match', etag);
      expect(changed.status).toBe(200);
      expect(changed.body.name).toBe('Renamed Marble');
      expect(changed.headers['etag']).toMatch(/^(W\/)?"[^"]+"$/);
      expect(changed.headers['etag']).not.toBe(etag);

      const newer = await t
        .http()
        .get('/api/demo/marbles/1')
        .set('If-None-Match', changed.headers['etag']);
      expect(newer.status).toBe(304);
    });

    it('should give the JSON and XML forms different ETags', async () => {
      const json = await t.http().get('/api/demo/marbles/1');
      const xml = await t.http().get('/api/demo/marbles/1.xml');
      expect(xml.headers['etag']).not.toBe(json.headers['etag']);
      const crossed = await t
        .http()
        .get('/api/demo/marbles/1.xml')
        .set('If-None-Match', json.headers['etag']);
      expect(crossed.status).toBe(200);
      expect(crossed.headers['content-type']).toBe(XML_TYPE);
    });

    it('should give a list an ETag and answer 304 for it', async () => {
      const list = await t.http().get('/api/demo/marbles');
      expect(list.headers['etag']).toMatch(/^(W\/)?"[^"]+"$/);
      const again = await t
        .http()
        .get('/api/demo/marbles')
        .set('If-None-Match', list.headers['etag']);
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });
  });

  describe('HEAD', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
      await insertFixture(t);
    });
    afterAll(() => t.close());

    const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
    const comparable = (res: Response) =>
      Object.fromEntries(Object.entries(res.headers).filter(([name]) => !VARYING.has(name)));

    it.each([
      ['emails index', '/api/demo/emails', 200],
      ['emails show', '/api/demo/emails/1', 200],
      ['emails ping', '/api/demo/emails/ping', 200],
      ['emails child_ping', '/api/demo/emails/child_ping', 200],
      ['marbles index', '/api/demo/marbles', 200],
      ['marbles show', '/api/demo/marbles/1', 200],
      ['phone_numbers index', '/api/demo/phone_numbers', 200],
      ['phone_numbers show', '/api/demo/phone_numbers/1', 200],
      ['phone_numbers ping', '/api/demo/phone_numbers/ping', 200],
      ['phone_numbers child_ping', '/api/demo/phone_numbers/child_ping', 200],
      ['movies index', '/api/plain/movies', 200],
      ['movies show', '/api/plain/movies/1', 200],
      ['movies index in XML', '/api/plain/movies.xml', 200],
      ['marbles show in XML', '/api/demo/marbles/1.xml', 200],
      ['a filtered page', '/api/demo/emails?is_primary=true&page_size=1', 200],
      ['a missing record', '/api/demo/marbles/999', 404],
      ['a missing route', '/api/demo/nowhere', 404],
      ['an unsupported format', '/api/demo/marbles.csv', 406],
      ['health live', '/health/live', 200],
      ['health ready', '/health/ready', 200],
    ])('should answer HEAD on %s like GET, without a body', async (_what, path, status) => {
      const get = await t.http().get(path).set('Accept-Encoding', 'identity');
      const head = await t.http().head(path).set('Accept-Encoding', 'identity');
      expect(get.status).toBe(status);
      expect(head.status).toBe(status);
      expect(comparable(head)).toEqual(comparable(get));
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.text)));
      expect(head.text).toBeUndefined();
      expect(Number(get.headers['content-length'])).toBeGreaterThan(0);
    });
  });

  describe('OpenAPI', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp();
    });
    afterAll(() => t.close());

    it('should serve an OpenAPI 3 document at /api/openapi.json naming every collection and /health', async () => {
      const res = await t.http().get('/api/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\.\d+\.\d+$/);
      expect(res.body.info.title).toBe('Record collections');
      const paths = Object.keys(res.body.paths);
      for (const path of [
        '/api/demo/emails',
        '/api/demo/emails/{id}',
        '/api/demo/emails/ping',
        '/api/demo/emails/child_ping',
        '/api/demo/marbles',
        '/api/demo/marbles/{id}',
        '/api/demo/marbles/{id}/adjust_price',
        '/api/demo/marbles/{id}/toggle_is_discounted',
        '/api/demo/phone_numbers',
        '/api/demo/phone_numbers/{id}',
        '/api/plain/movies',
        '/api/plain/movies/{id}',
        '/health/live',
        '/health/ready',
      ]) {
        expect(paths).toContain(path);
      }
      expect(Object.keys(res.body.components.securitySchemes ?? {})).toContain('bearer');
    });

    it('should serve the Swagger UI at /api/docs/ as HTML', async () => {
      const res = await t.http().get('/api/docs/');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('<html');
      expect(res.text).toContain('swagger-ui');
    });

    it('should serve the Swagger UI assets from this process', async () => {
      const res = await t.http().get('/api/docs/swagger-ui-bundle.js');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/javascript/);
      const page = await t.http().get('/api/docs/');
      expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)/);
    });
  });
});
