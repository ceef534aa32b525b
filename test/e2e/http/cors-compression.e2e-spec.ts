/**
 * Operations over HTTP, in-process: CORS for the configured origins only, and compression of
 * large bodies (brotli or gzip, as the client accepts), checked on the bytes sent.
 */
import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { useApp } from '../support/harness';
import { ONE_OF_EACH, numberedMarble, userRows } from '../support/fixtures';

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
  describe('CORS with an allowed origin', () => {
    const t = useApp({ corsOrigins: ['https://a.example'], seed: ONE_OF_EACH });

    it('should answer a preflight from the allowed origin with Access-Control-Allow-Origin', async () => {
      const res = await t.request({
        method: 'options',
        path: '/api/demo/marbles',
        headers: {
          Origin: 'https://a.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,authorization',
        },
      });
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
        'Location,X-Request-Id,ETag,Retry-After,traceparent,tracestate,Idempotent-Replayed,Link,' +
          'RateLimit,RateLimit-Policy',
      );
      expect(res.headers['vary'].split(/,\s*/)).toEqual(
        expect.arrayContaining(['Accept', 'Origin']),
      );
    });

    it('should not allow another origin on a preflight or a GET', async () => {
      const preflight = await t.request({
        method: 'options',
        path: '/api/demo/marbles',
        headers: { Origin: 'https://b.example', 'Access-Control-Request-Method': 'POST' },
      });
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
      const res = await t.request({
        method: 'options',
        path: '/api/demo/marbles',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'DELETE' },
      });
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  describe('CORS with no origins', () => {
    const t = useApp({ corsOrigins: [], seed: ONE_OF_EACH });

    it('should send no CORS header at all, on a preflight or a GET', async () => {
      const preflight = await t.request({
        method: 'options',
        path: '/api/demo/marbles',
        headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'POST' },
      });
      const get = await t.http().get('/api/demo/marbles/1').set('Origin', 'https://a.example');
      expect(get.status).toBe(200);
      for (const res of [preflight, get]) {
        expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      }
    });

    it('should answer OPTIONS with the collection document rather than a preflight', async () => {
      const res = await t.request({
        method: 'options',
        path: '/api/demo/marbles',
        headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'POST' },
      });
      expect(res.status).toBe(200);
      expect(res.body.openapi).toMatch(/^3\./);
    });
  });

  describe('compression', () => {
    const t = useApp({
      seed: {
        users: userRows('ann'),
        marbles: Array.from({ length: 100 }, (_, i) => numberedMarble(i + 1)),
      },
    });
    let port: number;
    beforeAll(async () => {
      await new Promise<void>((resolve) => t.app.getHttpServer().listen(0, '127.0.0.1', resolve));
      port = (t.app.getHttpServer().address() as AddressInfo).port;
    });

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
});
