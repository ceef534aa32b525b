/**
 * Security headers and small leaks: `X-Content-Type-Options: nosniff` on every answer,
 * `Cache-Control: no-store` on writes and errors, no framing of the documentation page, and
 * CORS_ORIGINS=* answering `*` itself: never an echo of the Origin (not even `null`), never
 * credentials.
 */
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';

const SEED = { users: USERS, marbles: [marbleRow(1, 'Amber')] };

describe('security headers', () => {
  const t = useApp({ seedEach: SEED });

  it('should send nosniff on every answer, and no-store on writes and errors only', async () => {
    const answers = {
      read: await t.http().get('/api/demo/marbles/1'),
      list: await t.http().get('/api/demo/marbles.xml'),
      write: await t.http().post('/api/demo/marbles').send({ name: 'Jade' }),
      invalid: await t.http().post('/api/demo/marbles').send({ radius_mm: 'x' }),
      missing: await t.http().get('/api/demo/marbles/99'),
      unknown: await t.http().get('/nowhere'),
      health: await t.http().get('/health/live'),
      metrics: await t.http().get('/metrics'),
    };
    const seen = Object.fromEntries(
      Object.entries(answers).map(([name, res]) => [
        name,
        [res.status, res.headers['x-content-type-options'], res.headers['cache-control']],
      ]),
    );
    expect(seen).toEqual({
      read: [200, 'nosniff', undefined],
      list: [200, 'nosniff', undefined],
      write: [201, 'nosniff', 'no-store'],
      invalid: [400, 'nosniff', 'no-store'],
      missing: [404, 'nosniff', 'no-store'],
      unknown: [404, 'nosniff', 'no-store'],
      health: [200, 'nosniff', undefined],
      metrics: [200, 'nosniff', 'no-store'],
    });
  });

  it('should forbid framing the documentation page', async () => {
    const res = await t.http().get('/api/docs/');
    expect(res.status).toBe(200);
    expect([
      res.headers['x-frame-options'],
      res.headers['content-security-policy'],
      res.headers['x-content-type-options'],
    ]).toEqual(['DENY', "frame-ancestors 'none'", 'nosniff']);
    const api = await t.http().get('/api/demo/marbles/1');
    expect(api.headers['x-frame-options']).toBeUndefined();
  });
});

describe('CORS_ORIGINS=*', () => {
  const t = useApp({ seedEach: SEED, corsOrigins: ['*'] });

  it('should answer * to any origin, null included, and never allow credentials', async () => {
    for (const origin of ['https://a.example', 'null']) {
      const get = await t.http().get('/api/demo/marbles/1').set('Origin', origin);
      const preflight = await t
        .http()
        .options('/api/demo/marbles/1')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'PATCH');
      for (const res of [get, preflight]) {
        expect([
          origin,
          res.headers['access-control-allow-origin'],
          res.headers['access-control-allow-credentials'],
        ]).toEqual([origin, '*', undefined]);
      }
    }
  });
});
