/**
 * Operations over HTTP, in-process (the app as `configureApp` ships it): health, request ids and
 * the OpenAPI document with its Swagger UI.
 */
import { useApp } from '../support/harness';
import { expectJson, expectXml } from '../support/http';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('operations over HTTP', () => {
  describe('health', () => {
    const t = useApp();

    it('should answer GET /health/live with 200 {"status":"ok"}', async () => {
      const res = await t.http().get('/health/live');
      expectJson(res, 200);
      expect(res.text).toBe('{"status":"ok"}');
    });

    it('should answer GET /health/ready with 200 and the database up', async () => {
      const res = await t.http().get('/health/ready');
      expectJson(res, 200);
      expect(res.body.status).toBe('ok');
      // On a Galera cluster it counts the nodes too (docs/scaling.md).
      const up = t.cluster ? { status: 'up', cluster: { synced: 3, nodes: 3 } } : { status: 'up' };
      expect(res.body.info).toEqual({ database: up });
      expect(res.body.details).toEqual({ database: up });
    });

    it('should answer GET /health/live.xml in XML', async () => {
      const res = await t.http().get('/health/live.xml');
      expectXml(res, 200);
      expect(res.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash><status>ok</status></hash>\n',
      );
    });
  });

  describe('X-Request-Id', () => {
    const t = useApp();

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
      const unsupported = await t.http().get('/api/demo/emails.tsv').set('X-Request-Id', 'tsv-1');
      expect(unsupported.status).toBe(406);
      expect(unsupported.headers['x-request-id']).toBe('tsv-1');
    });
  });

  describe('OpenAPI', () => {
    const t = useApp();

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
      // Without API_TOKEN writes are open: no security scheme (contract.e2e-spec has one with it).
      expect(res.body.components.securitySchemes).toBeUndefined();
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
