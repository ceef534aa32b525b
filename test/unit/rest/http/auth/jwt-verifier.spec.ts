/**
 * The bound on a key removed from the issuer's JWKS (AUTH_JWKS_MAX_AGE): the verifier checks a
 * token against keys fetched at most that long ago, and remembers a verified token no longer, so
 * the removed key stops verifying any token, new or already seen, once that much time has passed
 * since the keys were fetched. A JWKS of the test's own on loopback; the verifier's clock is the
 * test's, so the bound is crossed to the millisecond without waiting.
 */
import { createServer, Server } from 'node:http';
import { exportJWK, generateKeyPair, JWK, SignJWT } from 'jose';
import {
  CONTACT_FRESH_MS,
  DEFAULT_JWKS_MAX_AGE_MS,
  DISCOVERY_RETRY_MS,
  InvalidToken,
  JwtVerifier,
} from '../../../../../src/rest/http/auth/jwt-verifier';

const AUDIENCE = 'records-api';

interface Key {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

const sign = (key: Key, sub: string) =>
  new SignJWT({ scope: 'records:write' })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setSubject(sub)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key.privateKey);

describe('JwtVerifier: a key removed from the JWKS', () => {
  let server: Server;
  let url: string;
  let published: Key[] = [];
  let fetches = 0;
  let first: Key;
  let second: Key;

  beforeAll(async () => {
    [first, second] = await Promise.all([newKey('first'), newKey('second')]);
    server = createServer((_req, res) => {
      fetches++;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/jwks`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    published = [first, second];
    fetches = 0;
  });

  it('should stop verifying it, for new and remembered tokens alike, once the keys are AUTH_JWKS_MAX_AGE old', async () => {
    let clock = Date.now();
    const verifier = new JwtVerifier({
      jwksUrl: url,
      audience: [AUDIENCE],
      maxAgeMs: 60_000,
      now: () => clock,
    });
    const seen = await sign(first, 'seen');
    expect((await verifier.verify(seen)).subject).toBe('seen');
    expect(fetches).toBe(1);

    published = [second];
    // Within the bound: the keys are not fetched again; the removed key still verifies.
    clock += 59_999;
    expect((await verifier.verify(await sign(first, 'within'))).subject).toBe('within');
    expect((await verifier.verify(seen)).subject).toBe('seen');
    expect(fetches).toBe(1);

    // At the bound: fetched again before the next check, and the removed key verifies nothing.
    clock += 1;
    await expect(verifier.verify(await sign(first, 'after'))).rejects.toEqual(
      new InvalidToken('no key of the issuer matches the token'),
    );
    await expect(verifier.verify(seen)).rejects.toEqual(
      new InvalidToken('no key of the issuer matches the token'),
    );
    expect(fetches).toBe(2);
    // The key still published verifies as before, without another fetch.
    expect((await verifier.verify(await sign(second, 'kept'))).subject).toBe('kept');
    expect(fetches).toBe(2);
  });

  it('should remember a verified token until its keys are that old, not until it expires', async () => {
    let clock = Date.now();
    const verifier = new JwtVerifier({
      jwksUrl: url,
      audience: [AUDIENCE],
      maxAgeMs: 60_000,
      now: () => clock,
    });
    const token = await sign(second, 'remembered');
    await verifier.verify(token);
    clock += 59_999;
    await verifier.verify(token);
    expect(fetches).toBe(1);
    clock += 1;
    // Checked again (its keys are due): one fetch, and still valid.
    expect((await verifier.verify(token)).subject).toBe('remembered');
    expect(fetches).toBe(2);
  });

  it('should keep 10 minutes as the bound when none is given', async () => {
    expect(DEFAULT_JWKS_MAX_AGE_MS).toBe(600_000);
    let clock = Date.now();
    const verifier = new JwtVerifier({ jwksUrl: url, audience: [AUDIENCE], now: () => clock });
    await verifier.verify(await sign(first, 'a'));
    published = [second];
    clock += 599_999;
    expect((await verifier.verify(await sign(first, 'b'))).subject).toBe('b');
    clock += 1;
    await expect(verifier.verify(await sign(first, 'c'))).rejects.toBeInstanceOf(InvalidToken);
  });
});

describe('JwtVerifier: where the issuer stands, for readiness', () => {
  it('should tell the issuer reachable, ask it again once that is old, and tell it away in the service’s words', async () => {
    const key = await newKey('only');
    let fetches = 0;
    const jwks = createServer((_req, res) => {
      fetches++;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ keys: [key.jwk] }));
    });
    const listen = (port = 0) =>
      new Promise<number>((resolve) =>
        jwks.listen(port, '127.0.0.1', () => resolve((jwks.address() as { port: number }).port)),
      );
    const port = await listen();
    let clock = Date.now();
    const verifier = new JwtVerifier({
      jwksUrl: `http://127.0.0.1:${port}/jwks`,
      audience: [AUDIENCE],
      now: () => clock,
    });
    try {
      await verifier.warmUp();
      // Answered lately: told without asking again.
      expect(await verifier.issuerState(1000)).toEqual({ reachable: true });
      expect(fetches).toBe(1);

      jwks.closeAllConnections();
      await new Promise((resolve) => jwks.close(resolve));
      clock += CONTACT_FRESH_MS;
      expect(await verifier.issuerState(1000)).toEqual({
        reachable: false,
        problem:
          "the issuer's JWKS does not answer (connection refused); a token not verified before " +
          'cannot be checked until it answers (503 with Retry-After)',
      });

      // Back: found again at the next readiness after DISCOVERY_RETRY_MS.
      await listen(port);
      clock += DISCOVERY_RETRY_MS - 1;
      expect((await verifier.issuerState(1000)).reachable).toBe(false);
      clock += 1;
      expect(await verifier.issuerState(1000)).toEqual({ reachable: true });
      expect(fetches).toBe(2);
    } finally {
      jwks.closeAllConnections();
      await new Promise((resolve) => jwks.close(resolve));
    }
  });
});
