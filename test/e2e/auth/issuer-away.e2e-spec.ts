/**
 * AUTH_ISSUER out of reach: the service starts and stays ready (200), and /health/ready says so
 * in its own words, with what it means; a write with a token not verified before is 503 with
 * Retry-After (the token may be fine), while reads and the static API token are served. Ready
 * with a problem rather than 503, as with Redis away: every instance meets the same issuer, and
 * a 503 would take them all out of the balancer, what still works with them
 * (docs/access-control.md).
 */
import { createServer } from 'node:net';
import { newKey } from '../../oidc/provider';
import { importJWK, SignJWT } from 'jose';
import { useApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';

const API_TOKEN = 'static-api-token-0123456789';

/** A port of this machine nobody listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('an issuer out of reach (AUTH_ISSUER)', () => {
  let issuer = '';
  beforeAll(async () => {
    issuer = `http://127.0.0.1:${await closedPort()}`;
  });
  const t = useApp(() => ({
    auth: { issuer, audience: ['records-api'], readsRequired: false },
    apiToken: API_TOKEN,
    seed: ONE_OF_EACH,
  }));

  it('should stay ready and say in readiness that the issuer does not answer, and what that means', async () => {
    const ready = await t.http().get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.details.issuer).toEqual({
      status: 'up',
      reachable: false,
      problem:
        `the issuer ${issuer} does not answer (connection refused); a token not verified ` +
        'before cannot be checked until it answers (503 with Retry-After)',
    });
  });

  it('should answer a write with a token 503 with Retry-After, and serve reads and the API token', async () => {
    const key = await newKey('away');
    const token = await new SignJWT({ scope: 'records:write' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(issuer)
      .setAudience('records-api')
      .setSubject('someone')
      .setExpirationTime('10m')
      .sign(await importJWK(key, 'ES256'));
    const write = await t.request({
      method: 'post',
      path: '/api/demo/marbles',
      body: { name: 'Token Write' },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect([write.status, write.headers['retry-after'], write.body]).toEqual([
      503,
      '5',
      {
        message:
          "The identity provider's keys cannot be fetched just now, so the token cannot be checked; try again shortly.",
      },
    ]);
    expect((await t.request({ path: '/api/demo/marbles/1' })).status).toBe(200);
    const withApiToken = await t.request({
      method: 'post',
      path: '/api/demo/marbles',
      body: { name: 'API Token Write' },
      headers: { Authorization: `Bearer ${API_TOKEN}` },
    });
    expect(withApiToken.status).toBe(201);
  });
});
