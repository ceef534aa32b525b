import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/configuration';
import { COLLECTION_NAMES } from '../../sources';

describe('configuration: access control and rate limits', () => {
  it('should protect nothing and limit nothing by default', () => {
    const config = loadConfig({});
    expect(config.auth).toEqual({
      issuer: undefined,
      jwksUrl: undefined,
      audience: [],
      readsRequired: false,
      jwksMaxAgeMs: 600_000,
    });
    expect(config.rateLimits).toEqual({ all: undefined, writes: undefined, redisUrl: undefined });
  });

  it('should read an issuer, a JWKS URL, audiences and AUTH_READS', () => {
    const config = loadConfig({
      AUTH_ISSUER: 'https://id.example.com/realms/main/',
      AUTH_JWKS_URL: 'https://id.example.com/keys',
      AUTH_AUDIENCE: 'records-api, other-api',
      AUTH_READS: 'required',
    });
    expect(config.auth).toEqual({
      // As given: an issuer's identifier is compared with `iss` exactly, trailing slash and all.
      issuer: 'https://id.example.com/realms/main/',
      jwksUrl: 'https://id.example.com/keys',
      audience: ['records-api', 'other-api'],
      readsRequired: true,
      jwksMaxAgeMs: 600_000,
    });
  });

  it('should read AUTH_JWKS_MAX_AGE, the bound on a key removed from the JWKS, as a duration', () => {
    const maxAge = (value: string) =>
      loadConfig({
        AUTH_JWKS_URL: 'https://id.example.com/keys',
        AUTH_AUDIENCE: 'records-api',
        AUTH_JWKS_MAX_AGE: value,
      }).auth.jwksMaxAgeMs;
    expect([maxAge('5m'), maxAge('90'), maxAge('2s'), maxAge('1d')]).toEqual([
      300_000, 90_000, 2000, 86_400_000,
    ]);
  });

  it.each([
    [
      { AUTH_ISSUER: 'id.example.com', AUTH_AUDIENCE: 'records-api' },
      'AUTH_ISSUER must be an http:// or https:// URL (no query), got "id.example.com"',
    ],
    [
      { AUTH_ISSUER: 'https://id.example.com' },
      'AUTH_AUDIENCE must be set with AUTH_ISSUER or AUTH_JWKS_URL (the aud tokens carry)',
    ],
    [
      { AUTH_AUDIENCE: 'records-api' },
      'AUTH_AUDIENCE needs AUTH_ISSUER or AUTH_JWKS_URL (where the keys come from)',
    ],
    [
      { AUTH_READS: 'required' },
      'AUTH_READS=required needs API_TOKEN, AUTH_ISSUER or AUTH_JWKS_URL',
    ],
    [
      { AUTH_READS: 'closed', API_TOKEN: 'x'.repeat(20) },
      'AUTH_READS must be required or open, got "closed"',
    ],
    [
      { RATE_LIMIT: '600' },
      'RATE_LIMIT must be requests/window, such as 600/60s, 100/1m or 5000/1h, got "600"',
    ],
    [
      { RATE_LIMIT_WRITES: '0/60s' },
      'RATE_LIMIT_WRITES must be requests/window, such as 60/60s, 10/1m or 500/1h, got "0/60s"',
    ],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL must be a redis:// or rediss:// URL'],
    [
      { AUTH_JWKS_MAX_AGE: 'soon' },
      'AUTH_JWKS_MAX_AGE must be a duration: seconds, or a number with s, m, h or d, got "soon"',
    ],
    [{ AUTH_JWKS_MAX_AGE: '2d' }, 'AUTH_JWKS_MAX_AGE must be at most 1d, got "2d"'],
    [
      { AUTH_JWKS_MAX_AGE: '0s' },
      'AUTH_JWKS_MAX_AGE must be a duration: seconds, or a number with s, m, h or d, got "0s"',
    ],
  ])('should refuse %j in one line', (env, message) => {
    expect(() => loadConfig(env)).toThrow(`Invalid configuration: ${message}.`);
  });

  it('should not repeat a REDIS_URL (it may hold a password)', () => {
    expect(() => loadConfig({ REDIS_URL: 'http://user:s3cret@cache' })).toThrow(
      /^Invalid configuration: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL\.$/,
    );
  });

  it('should read limits per window of seconds, minutes or hours', () => {
    const config = loadConfig({
      RATE_LIMIT: '600/60s',
      RATE_LIMIT_WRITES: '100/1h',
      REDIS_URL: 'redis://cache:6379',
    });
    expect(config.rateLimits).toEqual({
      all: { limit: 600, windowSeconds: 60 },
      writes: { limit: 100, windowSeconds: 3600 },
      redisUrl: 'redis://cache:6379',
    });
    expect(loadConfig({ RATE_LIMIT: '5/2m' }).rateLimits.all).toEqual({
      limit: 5,
      windowSeconds: 120,
    });
  });
});

describe('the development issuer (npm run dev:issuer, scripts/dev-issuer.json)', () => {
  const settings = JSON.parse(
    readFileSync(join(__dirname, '../../../scripts/dev-issuer.json'), 'utf8'),
  ) as { audience: string; collections: string[]; clients: { id: string; scopes: string[] }[] };

  // records:read and records:write cover every collection, one added by its folder too; the
  // scopes of one collection are offered for the collections the file names, each one served.
  it('should name only collections the service serves, each with a scope of its own', () => {
    expect(settings.collections.filter((c) => !COLLECTION_NAMES.includes(c))).toEqual([]);
    expect(settings.collections).toEqual(expect.arrayContaining(['marbles']));
  });

  it("should have the walkthrough's client marbles-bot, allowed marbles:write, for tokens of records-api", () => {
    expect(settings.audience).toBe('records-api');
    expect(settings.clients.find((c) => c.id === 'marbles-bot')?.scopes).toContain('marbles:write');
  });
});
