/**
 * Operations over HTTP, in-process: ETags with conditional GETs, and HEAD answered like GET
 * without a body on every read route.
 */
import type { Response } from 'supertest';
import { useApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';
import { XML_TYPE } from '../support/http';

describe('operations over HTTP', () => {
  describe('ETag', () => {
    const t = useApp({ seed: ONE_OF_EACH });

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

      const newer = await t.request({
        path: '/api/demo/marbles/1',
        headers: { 'If-None-Match': changed.headers['etag'] },
      });
      expect(newer.status).toBe(304);
    });

    it('should give a record one strong ETag in JSON and XML (it validates the record), and a list different weak ones', async () => {
      const json = await t.http().get('/api/demo/marbles/1');
      const xml = await t.http().get('/api/demo/marbles/1.xml');
      expect(json.headers['etag']).toMatch(/^"1\.\d+"$/);
      expect(xml.headers['etag']).toBe(json.headers['etag']);
      expect(xml.headers['content-type']).toBe(XML_TYPE);
      const crossed = await t.request({
        path: '/api/demo/marbles/1.xml',
        headers: { 'If-None-Match': json.headers['etag'] },
      });
      expect(crossed.status).toBe(304);
      const jsonList = await t.http().get('/api/demo/marbles');
      const xmlList = await t.http().get('/api/demo/marbles.xml');
      expect(jsonList.headers['etag']).toMatch(/^W\/"/);
      expect(xmlList.headers['etag']).not.toBe(jsonList.headers['etag']);
    });

    it('should give a list an ETag and answer 304 for it', async () => {
      const list = await t.http().get('/api/demo/marbles');
      expect(list.headers['etag']).toMatch(/^(W\/)?"[^"]+"$/);
      const again = await t.request({
        path: '/api/demo/marbles',
        headers: { 'If-None-Match': list.headers['etag'] },
      });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });
  });

  describe('HEAD', () => {
    const t = useApp({ seed: ONE_OF_EACH });

    // Per request: the date, the request id, the request's span (traceparent).
    const VARYING = new Set(['date', 'x-request-id', 'traceparent', 'connection', 'keep-alive']);
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
      ['an unsupported format', '/api/demo/marbles.tsv', 406],
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
});
