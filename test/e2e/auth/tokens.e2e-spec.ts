/**
 * Access control with OpenID Connect tokens (CONTRACT §14), against a real provider on loopback
 * (oidc-provider, client credentials grant): AUTH_ISSUER with discovery, AUTH_AUDIENCE, the
 * static API_TOKEN beside it, reads open. Scopes per collection, RFC 6750 refusals in the
 * negotiated format, and every token a verifier must refuse — each refused request writes
 * nothing.
 */
import { createHmac, createPublicKey } from 'node:crypto';
import { JWK } from 'jose';
import { AUDIENCE, newKey } from '../../oidc/provider';
import { bearer, everything, useTokenApp } from './oidc';
import { ONE_OF_EACH } from '../support/fixtures';
import { JSON_TYPE, XML_TYPE } from '../support/http';

const API_TOKEN = 'static-api-token-0123456789';
const NEW_MARBLE = { name: 'Token Marble' };
const NEW_EMAIL = { email: 'bot@example.com', user_id: 1 };

const WRITE_REFUSED = 'Writes need a valid bearer token (Authorization: Bearer <token>)';
const invalid = (description: string) =>
  `Bearer realm="records", error="invalid_token", error_description="${description}"`;
const insufficient = (scope: string) =>
  'Bearer realm="records", error="insufficient_scope", ' +
  `error_description="the token lacks the scope this request needs", scope="${scope}"`;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('access control with OpenID Connect tokens', () => {
  const { oidc, t } = useTokenApp({ apiToken: API_TOKEN, seedEach: ONE_OF_EACH });

  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    t.request({ method: 'post', path, body, headers });

  describe('scopes', () => {
    it('should open the webhook subscriptions to webhooks:admin and the API token only, reads included', async () => {
      const writer = await oidc.provider.token('admin', ['records:read', 'records:write']);
      for (const method of ['get', 'post'] as const) {
        const res = await t.request({
          method,
          path: '/api/webhooks',
          body: method === 'post' ? { url: 'https://example.com/hook' } : undefined,
          headers: bearer(writer),
        });
        expect(res.status).toBe(403);
        expect(res.headers['www-authenticate']).toBe(insufficient('webhooks:admin'));
        expect(res.body).toEqual({
          message:
            'This token does not allow managing webhooks: it needs the scope webhooks:admin.',
        });
      }
      const admin = await oidc.provider.token('webhooks-admin', ['webhooks:admin']);
      const listed = await t.request({ path: '/api/webhooks', headers: bearer(admin) });
      expect(listed.status).toBe(200);
      const byToken = await t.request({
        path: '/api/webhooks',
        headers: { Authorization: `Bearer ${API_TOKEN}` },
      });
      expect(byToken.status).toBe(200);
      expect(await t.rows('webhook_subscriptions')).toEqual([]);
    });

    it('should let a marbles:write token create, change, act on and delete marbles', async () => {
      const token = await oidc.provider.token('marbles-bot', ['marbles:write']);
      const created = await post('/api/demo/marbles', NEW_MARBLE, bearer(token));
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const calls: [string, string, object | undefined, number][] = [
        ['patch', `/api/demo/marbles/${id}`, { radius_mm: 7 }, 200],
        ['put', `/api/demo/marbles/${id}`, { radius_mm: 8 }, 200],
        ['patch', `/api/demo/marbles/${id}/adjust_price`, { price: '3.5' }, 200],
        ['patch', `/api/demo/marbles/${id}/toggle_is_discounted`, undefined, 200],
        ['patch', '/api/demo/marbles', [{ id, radius_mm: 9 }], 200],
        ['post', '/api/demo/marbles', [{ name: 'Bulk One' }], 201],
        ['delete', '/api/demo/marbles', [id], 200],
      ];
      for (const [method, path, body, status] of calls) {
        const res = await t.request({
          method: method as 'post',
          path,
          body,
          headers: bearer(token),
        });
        expect({ method, path, status: res.status }).toEqual({ method, path, status });
      }
      expect((await t.rows('marbles')).map((r) => r.name)).toEqual(['Marble 001', 'Bulk One']);
    });

    it.each([
      ['POST', '/api/demo/emails', NEW_EMAIL, 'emails:write'],
      ['DELETE', '/api/demo/emails/1', undefined, 'emails:write'],
      ['PATCH', '/api/demo/phone_numbers/1', { number: '555 0101' }, 'phone_numbers:write'],
      ['DELETE', '/api/plain/movies/1', undefined, 'movies:write'],
      ['POST', '/api/demo/nowhere', { any: 1 }, 'records:write'],
    ])(
      'should refuse %s %s to a marbles:write token with 403 insufficient_scope, writing nothing',
      async (method, path, body, scope) => {
        const token = await oidc.provider.token('marbles-bot', ['marbles:write']);
        const before = await everything(t);
        const res = await t.request({
          method: method.toLowerCase() as 'post',
          path,
          body,
          headers: bearer(token),
        });
        expect(res.status).toBe(403);
        expect(res.headers['www-authenticate']).toBe(insufficient(scope));
        expect(res.headers['content-type']).toBe(JSON_TYPE);
        const reach = scope === 'records:write' ? 'here' : scope.split(':')[0];
        expect(res.body).toEqual({
          message:
            `This token does not allow writing ${reach === 'here' ? 'here' : `of ${reach}`}: ` +
            `it needs the scope ${scope}${scope === 'records:write' ? '' : ' or records:write'}.`,
        });
        expect(await everything(t)).toEqual(before);
      },
    );

    it('should answer 403 in XML to a client that asks for XML', async () => {
      const token = await oidc.provider.token('reader', ['records:read']);
      const res = await t.request({
        method: 'post',
        path: '/api/demo/marbles.xml',
        body: NEW_MARBLE,
        headers: bearer(token),
      });
      expect(res.status).toBe(403);
      expect(res.headers['content-type']).toBe(XML_TYPE);
      expect(res.text).toBe(
        '<?xml version="1.0" encoding="UTF-8"?>\n<hash><message>This token does not allow ' +
          'writing of marbles: it needs the scope marbles:write or records:write.</message></hash>\n',
      );
    });

    it('should let a records:write token write every collection', async () => {
      const token = await oidc.provider.token('admin', ['records:write']);
      const writes: [string, object][] = [
        ['/api/demo/marbles', NEW_MARBLE],
        ['/api/demo/emails', NEW_EMAIL],
        ['/api/demo/phone_numbers', { number: '555 0199', user_id: 1 }],
        ['/api/plain/movies', { name: 'Token Film' }],
      ];
      for (const [path, body] of writes) {
        expect((await post(path, body, bearer(token))).status).toBe(201);
      }
    });

    it('should refuse a token granted only profile, and one that asked for no collection scope', async () => {
      const token = await oidc.provider.token('nobody', ['profile']);
      const res = await post('/api/demo/marbles', NEW_MARBLE, bearer(token));
      expect(res.status).toBe(403);
      expect(res.headers['www-authenticate']).toBe(insufficient('marbles:write'));
    });

    it('should still take the static API_TOKEN beside the issuer', async () => {
      const res = await post('/api/demo/marbles', NEW_MARBLE, bearer(API_TOKEN));
      expect(res.status).toBe(201);
    });

    it('should answer a write without a token with 401 and the plain challenge', async () => {
      const res = await post('/api/demo/marbles', NEW_MARBLE);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="records"');
      expect(res.body).toEqual({ message: `${WRITE_REFUSED}.` });
    });

    it('should show the issuer reachable in readiness', async () => {
      const ready = await t.http().get('/health/ready');
      expect([ready.status, ready.body.details.issuer]).toEqual([
        200,
        { status: 'up', reachable: true },
      ]);
    });

    it('should keep reads open, and ignore a bad token there (AUTH_READS unset)', async () => {
      expect((await t.http().get('/api/demo/marbles')).status).toBe(200);
      const res = await t.http().get('/api/demo/marbles/1').set('Authorization', 'Bearer a.b.c');
      expect(res.status).toBe(200);
    });
  });

  describe('the tokens a verifier must refuse', () => {
    const now = () => Math.floor(Date.now() / 1000);

    /** POSTs a marble with this Authorization header: 401 invalid_token, nothing written. */
    async function refused(authorization: string, description: string, path = '/api/demo/marbles') {
      const before = await everything(t);
      const res = await t.request({
        method: 'post',
        path,
        body: NEW_MARBLE,
        headers: { Authorization: authorization },
      });
      expect({ status: res.status, challenge: res.headers['www-authenticate'] }).toEqual({
        status: 401,
        challenge: invalid(description),
      });
      expect(res.body).toEqual({
        message: `${WRITE_REFUSED}; this one is refused: ${description}.`,
      });
      expect(await everything(t)).toEqual(before);
    }

    /** The claims of a valid write token from the issuer, for ten minutes. */
    const writeClaims = () => ({
      iss: oidc.provider.issuer,
      aud: AUDIENCE,
      sub: 'x',
      exp: now() + 600,
      scope: 'records:write',
    });

    it('should refuse alg "none" (an unsigned token)', async () => {
      const claims = writeClaims();
      const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
      await refused(`Bearer ${unsigned}`, 'the token is not signed with an accepted algorithm');
    });

    it("should refuse an HMAC token signed with the issuer's public key", async () => {
      const [published] = (await oidc.provider.publishedKeys()) as (JWK & { kid: string })[];
      const pem = createPublicKey({ key: published as never, format: 'jwk' })
        .export({ type: 'spki', format: 'pem' })
        .toString();
      const claims = writeClaims();
      const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: published.kid })}.${b64(claims)}`;
      for (const secret of [pem, JSON.stringify(published)]) {
        const signature = createHmac('sha256', secret).update(input).digest('base64url');
        await refused(
          `Bearer ${input}.${signature}`,
          'the token is not signed with an accepted algorithm',
        );
      }
    });

    it('should refuse a token of another issuer', async () => {
      const token = await oidc.provider.forge({ iss: 'http://127.0.0.1:1' });
      await refused(`Bearer ${token}`, 'the token was issued by another issuer');
    });

    it('should refuse a token for another audience, or none', async () => {
      await refused(
        `Bearer ${await oidc.provider.forge({ aud: 'another-api' })}`,
        'the token is meant for another audience',
      );
      await refused(
        `Bearer ${await oidc.provider.forge({ aud: undefined })}`,
        'the token is meant for another audience',
      );
    });

    it('should refuse an expired token past the 60 s of skew, and take one within it', async () => {
      const expired = await oidc.provider.forge({ iat: now() - 900, exp: now() - 61 });
      await refused(`Bearer ${expired}`, 'the token has expired');
      const justNow = await oidc.provider.forge({ iat: now() - 900, exp: now() - 30 });
      expect((await post('/api/demo/marbles', NEW_MARBLE, bearer(justNow))).status).toBe(201);
    });

    it('should refuse a token without exp, or without sub', async () => {
      await refused(
        `Bearer ${await oidc.provider.forge({ exp: undefined })}`,
        `the token's exp claim is missing or wrong`,
      );
      await refused(
        `Bearer ${await oidc.provider.forge({ sub: undefined })}`,
        `the token's sub claim is missing or wrong`,
      );
    });

    it('should refuse a token not valid yet (nbf past the skew)', async () => {
      const token = await oidc.provider.forge({ nbf: now() + 300 });
      await refused(`Bearer ${token}`, 'the token is not valid yet');
    });

    it("should refuse a token signed by a foreign key under the issuer's kid", async () => {
      const foreign = { ...(await newKey('foreign')), kid: oidc.provider.signingKid };
      await refused(
        `Bearer ${await oidc.provider.forge({}, { key: foreign })}`,
        'the signature does not verify',
      );
    });

    it('should refuse a token signed by a foreign key under a kid of its own', async () => {
      const foreign = await newKey('foreign');
      await refused(
        `Bearer ${await oidc.provider.forge({}, { key: foreign })}`,
        'no key of the issuer matches the token',
      );
    });

    it("should refuse the issuer's own token with its claims changed", async () => {
      const token = await oidc.provider.token('reader', ['records:read']);
      const [header, , signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      const raised = `${header}.${b64({ ...claims, scope: 'records:write' })}.${signature}`;
      await refused(`Bearer ${raised}`, 'the signature does not verify');
    });

    it('should refuse a good token sent in the query string', async () => {
      const token = await oidc.provider.token('admin', ['records:write']);
      const before = await everything(t);
      const res = await post(`/api/demo/marbles?access_token=${token}`, NEW_MARBLE);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(
        invalid('a token in the URL is not accepted; send it in the Authorization header'),
      );
      expect(await everything(t)).toEqual(before);
    });

    it.each([
      ['the scheme alone', 'Bearer'],
      ['two tokens', 'Bearer a.b.c d.e.f'],
      ['a token with a space inside', 'Bearer eyJ hbGc.x.y'],
      ['characters no token has', 'Bearer abc!def'],
      ['a comma-joined second header', 'Bearer a.b.c, Bearer d.e.f'],
    ])('should refuse a malformed header: %s', async (_what, authorization) => {
      await refused(authorization, 'the Authorization header is not Bearer <token>');
    });

    it.each([
      ['three parts of nonsense', 'Bearer abc.def.ghi', 'the token is malformed'],
      ['one part', 'Bearer abcdef', 'the token is not valid'],
    ])('should refuse a token that is no JWT: %s', async (_what, authorization, description) => {
      await refused(authorization, description);
    });

    it('should answer another scheme with the plain challenge (no token was sent)', async () => {
      const res = await post('/api/demo/marbles', NEW_MARBLE, {
        Authorization: `Basic ${API_TOKEN}`,
      });
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="records"');
    });
  });

  describe('the OpenAPI document', () => {
    it('should describe the bearer JWT and openIdConnect schemes, and each operation’s scopes', async () => {
      const doc = (await t.http().get('/api/openapi.json')).body;
      expect(doc.components.securitySchemes).toEqual({
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: expect.stringContaining('a JWT of ' + oidc.provider.issuer),
        },
        oidc: {
          type: 'openIdConnect',
          openIdConnectUrl: `${oidc.provider.issuer}/.well-known/openid-configuration`,
          description: expect.any(String),
        },
      });
      const create = doc.paths['/api/demo/marbles'].post;
      expect(create.security).toEqual([
        { bearer: [] },
        { oidc: ['marbles:write'] },
        { oidc: ['records:write'] },
      ]);
      expect(Object.keys(create.responses)).toEqual(
        expect.arrayContaining(['201', '401', '403', '503']),
      );
      expect(doc.paths['/api/demo/marbles/{id}/adjust_price'].patch.security).toEqual([
        { bearer: [] },
        { oidc: ['marbles:write'] },
        { oidc: ['records:write'] },
      ]);
      expect(doc.paths['/api/demo/marbles'].get.security).toBeUndefined();
      expect(doc.paths['/health/ready'].get.security).toBeUndefined();
    });
  });
});
