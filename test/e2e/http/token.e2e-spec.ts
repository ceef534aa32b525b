/**
 * Operations over HTTP, in-process: the write token. With API_TOKEN set, every write needs it
 * (401 with WWW-Authenticate otherwise, before the body is read, changing nothing); reads,
 * HEAD and OPTIONS stay open. Without it, writes need no token.
 */
import { useApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';
import { JSON_TYPE, XML_TYPE } from '../support/http';

const TOKEN = 'x'.repeat(32);
const TOKEN_MESSAGE = 'Writes need a valid bearer token (Authorization: Bearer <token>).';

describe('operations over HTTP', () => {
  describe('API token', () => {
    const t = useApp({ apiToken: TOKEN, seedEach: ONE_OF_EACH });

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

    /** POST to the phone numbers, with these headers. */
    function postPhone(
      body: string | object,
      options: { accept?: string; type?: string; headers?: Record<string, string> } = {},
    ) {
      return t.request({ method: 'post', path: '/api/demo/phone_numbers', ...options, body });
    }
    const BEARER = { headers: { Authorization: `Bearer ${TOKEN}` } };

    async function expectUntouched() {
      expect(await t.stored('phone_numbers')).toEqual([{ id: 1, number: '555 0100', user_id: 1 }]);
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
          'Bearer realm="records", error="invalid_token", error_description="the token is not valid"',
        );
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        expect(res.body).toEqual({
          message:
            'Writes need a valid bearer token (Authorization: Bearer <token>); this one is refused: the token is not valid.',
        });
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
      const res = await postPhone({ number: 'x' }, { accept: 'application/xml' });
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
      const res = await postPhone({ number: '555 0199', user_id: 1 }, BEARER);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        number: '555 0199',
        user: { id: 1, login: 'ann' },
      });
      expect(await t.stored('phone_numbers')).toEqual([
        { id: 1, number: '555 0100', user_id: 1 },
        { id: res.body.id, number: '555 0199', user_id: 1 },
      ]);
    });

    it('should accept the scheme in any case and the right token for PATCH and DELETE', async () => {
      const patch = await send(
        'PATCH',
        '/api/demo/marbles/1/toggle_is_discounted',
        undefined,
        `bearer ${TOKEN}`,
      );
      expect(patch.status).toBe(200);
      expect(patch.body).toEqual({ message: 'Is discounted toggled to true.' });
      const del = await send('DELETE', '/api/demo/phone_numbers/1', undefined, `Bearer ${TOKEN}`);
      expect(del.status).toBe(204);
      expect(await t.stored('phone_numbers')).toEqual([]);
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
      const res = await postPhone('{"number": ', { type: 'application/json' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: TOKEN_MESSAGE });
    });

    it('should answer an unauthenticated POST with an unsupported content type or a huge body with 401', async () => {
      const text = await postPhone('hello', { type: 'text/plain' });
      expect(text.status).toBe(401);
      const huge = await postPhone(`{"number": "${'9'.repeat(2 * 1024 * 1024)}"}`, {
        type: 'application/json',
      });
      expect(huge.status).toBe(401);
    });

    it('should answer an authenticated POST with malformed JSON with 400', async () => {
      const res = await postPhone('{"number": ', { type: 'application/json', ...BEARER });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'Malformed JSON in request body: unexpected end of input at line 1, column 12.',
      });
    });
  });

  describe('without an API token', () => {
    const t = useApp({ seed: ONE_OF_EACH });

    it('should accept a write with no Authorization header', async () => {
      const res = await t.request({
        method: 'post',
        path: '/api/demo/phone_numbers',
        body: { number: '555 0199', user_id: 1 },
      });
      expect(res.status).toBe(201);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
  });
});
