/**
 * AUTH_READS=required, with the keys from AUTH_JWKS_URL (no discovery): reads — lists, records,
 * probes, any path under a collection — need a read scope of their reach or a write scope of
 * the same reach; the front door, health, the OpenAPI document, Swagger UI and OPTIONS stay
 * open. And keys that rotate while the service runs.
 */
import request from 'supertest';
import { AUDIENCE, newKey } from '../../oidc/provider';
import { bearer, useKeysReady, useProvider } from './oidc';
import { useApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';

const READ_REFUSED = 'Reads need a valid bearer token (Authorization: Bearer <token>).';
const insufficient = (scope: string) =>
  'Bearer realm="records", error="insufficient_scope", ' +
  `error_description="the token lacks the scope this request needs", scope="${scope}"`;

describe('reads that need a token (AUTH_READS=required)', () => {
  const oidc = useProvider();
  const t = useApp(() => ({
    auth: { jwksUrl: oidc.provider.jwksUrl, audience: [AUDIENCE], readsRequired: true },
    seed: ONE_OF_EACH,
  }));
  useKeysReady(t);
  const get = (path: string, token?: string, accept?: string) =>
    t.request({ path, headers: token ? bearer(token) : {}, accept });

  /** The collections' routes want a token; the front door, health and the docs stay open. */
  const GUARDED = [
    '/api/demo/marbles',
    '/api/demo/marbles/1',
    '/api/demo/emails/ping',
    '/api/plain/movies.xml',
    '/api/demo/marbles/events',
  ];
  const OPEN = [
    '/',
    '/api',
    '/api.xml',
    '/health/live',
    '/health/ready',
    '/api/openapi.json',
    '/api/docs/',
  ];
  it.each([
    ...GUARDED.map((path) => [path, 401, 'Bearer realm="records"'] as const),
    ...OPEN.map((path) => [path, 200, undefined] as const),
  ])('should answer GET %s without a token with %i', async (path, status, challenge) => {
    const res = await get(path);
    expect([res.status, res.headers['www-authenticate']]).toEqual([status, challenge]);
  });

  it('should answer HEAD without a token with 401 too', async () => {
    const res = await t.http().head('/api/demo/marbles/1');
    expect(res.status).toBe(401);
  });

  it('should answer a browser without a token with the 401 page', async () => {
    // Plain supertest: the document describes JSON and XML, not the pages.
    const res = await request(t.app.getHttpServer())
      .get('/api/demo/marbles')
      .set('Accept', 'text/html');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="records"');
    expect(res.text).toContain(READ_REFUSED.replace('<token>', '&lt;token&gt;'));
  });

  it.each([
    ['marbles:read', 'marbles-reader', '/api/demo/marbles', 200],
    ['marbles:read', 'marbles-reader', '/api/demo/marbles/1', 200],
    ['marbles:read', 'marbles-reader', '/api/demo/marbles/999', 404],
    ['marbles:write', 'marbles-bot', '/api/demo/marbles/1', 200],
    ['records:read', 'reader', '/api/demo/emails', 200],
    ['records:read', 'reader', '/api/plain/movies/1', 200],
    ['records:write', 'admin', '/api/demo/phone_numbers', 200],
  ])('should let a %s token (%s) read %s', async (scope, client, path, status) => {
    const token = await oidc.provider.token(client, [scope]);
    expect((await get(path, token)).status).toBe(status);
  });

  it.each([
    ['marbles:read', 'marbles-reader', '/api/demo/emails', 'emails:read'],
    ['marbles:write', 'marbles-bot', '/api/plain/movies/1', 'movies:read'],
    ['emails:write', 'emails-bot', '/api/demo/marbles', 'marbles:read'],
    ['profile', 'nobody', '/api/demo/marbles', 'marbles:read'],
  ])('should refuse a %s token (%s) GET %s with 403', async (scope, client, path, needed) => {
    const token = await oidc.provider.token(client, [scope]);
    const res = await get(path, token);
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(insufficient(needed));
    const collection = needed.split(':')[0];
    expect(res.body).toEqual({
      message: `This token does not allow reading of ${collection}: it needs the scope ${needed} or records:read.`,
    });
  });

  it('should not let a read scope write', async () => {
    const token = await oidc.provider.token('reader', ['records:read']);
    const res = await t.request({
      method: 'post',
      path: '/api/demo/marbles',
      body: { name: 'Reader Marble' },
      headers: bearer(token),
    });
    expect(res.status).toBe(403);
    expect(await t.rows('marbles')).toHaveLength(1);
  });

  it('should keep OPTIONS open (the collection document, the CORS preflight)', async () => {
    const res = await t.http().options('/api/demo/marbles');
    expect(res.status).toBe(200);
  });

  it('should describe the bearer JWT without openIdConnect, and read scopes on reads', async () => {
    const doc = (await get('/api/openapi.json')).body;
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer']);
    const list = doc.paths['/api/demo/marbles'].get;
    expect(list.security).toEqual([{ bearer: [] }]);
    expect(list.description).toContain(
      'Needs a bearer token (a JWT with the scope marbles:read, records:read, marbles:write, records:write, any one of them).',
    );
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '401', '403']));
  });
});

describe('keys that rotate while the service runs', () => {
  const oidc = useProvider();
  const t = useApp(() => ({
    auth: {
      issuer: oidc.provider.issuer,
      audience: [AUDIENCE],
      readsRequired: false,
      // The JWKS is fetched again for an unknown kid at most once a second (30 s in service).
      jwksCooldownMs: 1000,
    },
    seed: ONE_OF_EACH,
  }));
  useKeysReady(t);

  /** Creates a marble with this token; the status. */
  const create = async (token: string, name: string) =>
    (
      await t.request({
        method: 'post',
        path: '/api/demo/marbles',
        body: { name },
        headers: bearer(token),
      })
    ).status;

  it('should take tokens of a new key without a restart, and refuse a retired key once it is gone', async () => {
    const before = await oidc.provider.token('admin', ['records:write']);
    expect(await create(before, 'Before Rotation')).toBe(201);

    const oldKid = oidc.provider.signingKid;
    const oldKeyJwk = oidc.provider.signingKey;
    const newKid = await oidc.provider.rotate();
    expect(newKid).not.toBe(oldKid);
    const after = await oidc.provider.token('admin', ['records:write']);
    expect(JSON.parse(Buffer.from(after.split('.')[0], 'base64url').toString()).kid).toBe(newKid);
    // Within the cooldown the unknown kid may be refused (401, nothing written); once it has
    // passed, the JWKS is fetched again and the token taken.
    const statuses: number[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const status = await create(after, `After Rotation ${statuses.length}`);
      statuses.push(status);
      if (status === 201) break;
      expect(status).toBe(401);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(statuses[statuses.length - 1]).toBe(201);
    // The old key is still published: a token of it still passes.
    const oldKey = await oidc.provider.forge({ sub: 'old-key-1' }, { key: oldKeyJwk });
    expect(await create(oldKey, 'Old Key')).toBe(201);

    // Retired: once the service fetches the JWKS again (a kid it does not know, after the
    // cooldown), a new token of the old key no longer passes.
    await oidc.provider.retire();
    const stranger = await oidc.provider.forge({}, { key: await newKey('stranger') });
    let refused = false;
    const until = Date.now() + 15_000;
    while (!refused && Date.now() < until) {
      expect(await create(stranger, 'Never')).toBe(401);
      const retired = await oidc.provider.forge(
        { sub: `old-key-${Date.now()}` },
        { key: oldKeyJwk },
      );
      const status = await create(retired, `Old Key ${Date.now()}`);
      refused = status === 401;
      if (!refused) {
        expect(status).toBe(201);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(refused).toBe(true);
    const names = (await t.rows('marbles')).map((r) => r.name as string);
    expect(names.slice(0, 4)).toEqual([
      'Marble 001',
      'Before Rotation',
      `After Rotation ${statuses.length - 1}`,
      'Old Key',
    ]);
    expect(names).not.toContain('Never');
  });
});
