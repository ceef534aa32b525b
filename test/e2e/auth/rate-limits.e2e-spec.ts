/**
 * Rate limits in one instance (no REDIS_URL): RATE_LIMIT counts every request of a client,
 * RATE_LIMIT_WRITES its writes; past either, 429 with Retry-After in the negotiated format,
 * nothing written. Every counted answer carries RateLimit-Policy and RateLimit
 * (draft-ietf-httpapi-ratelimit-headers-10). A client is its token's `sub`, else its address;
 * X-Forwarded-For only with TRUST_PROXY. Windows of a day here, so a test never straddles two.
 */
import { bearer, useTokenApp } from './oidc';
import { ApiDocs } from '../../sources';
import { useApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';
import { JSON_TYPE, XML_TYPE } from '../support/http';

const DAY = 86_400;
const POLICY = `"all";q=5;w=${DAY}, "writes";q=2;w=${DAY}`;

/** `"all";r=4;t=…` → { all: 4 }: the remaining quota of each policy named. */
function remaining(field: string | undefined): Record<string, number> {
  return Object.fromEntries(
    (field ?? '')
      .split(', ')
      .filter(Boolean)
      .map((item) => {
        const [, name, r] = /^"(\w+)";r=(\d+);t=\d+$/.exec(item)!;
        return [name, Number(r)];
      }),
  );
}

describe('rate limits, each instance counting alone', () => {
  describe('by address, and by token', () => {
    const { oidc, t } = useTokenApp({
      rateLimits: {
        all: { limit: 5, windowSeconds: DAY },
        writes: { limit: 2, windowSeconds: DAY },
      },
      seedEach: ONE_OF_EACH,
    });

    it('should count a client’s requests, then answer 429 with Retry-After, in JSON and XML', async () => {
      // Each test's requests come from one address: a fresh window of its own per test would
      // need a fresh app; the suite's first test counts from zero.
      const seen: Record<string, number>[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await t.http().get('/api/demo/marbles/1');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-policy']).toBe(POLICY);
        expect(res.headers['ratelimit']).toMatch(/^"all";r=\d+;t=\d+$/);
        seen.push(remaining(res.headers['ratelimit']));
      }
      expect(seen).toEqual([{ all: 4 }, { all: 3 }, { all: 2 }, { all: 1 }, { all: 0 }]);
      const over = await t.http().get('/api/demo/marbles/1');
      expect(over.status).toBe(429);
      expect(over.headers['content-type']).toBe(JSON_TYPE);
      const reset = Number(/;t=(\d+)$/.exec(over.headers['ratelimit'])![1]);
      expect(over.headers['retry-after']).toBe(String(reset));
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(DAY);
      expect(over.body).toEqual({
        message: `Too many requests: this client may send 5 every ${DAY} s; try again in ${reset} s.`,
      });
      const xml = await t.request({ path: '/api/demo/marbles.xml' });
      expect(xml.status).toBe(429);
      expect(xml.headers['content-type']).toBe(XML_TYPE);
      expect(xml.text).toContain('<hash><message>Too many requests: this client may send 5');
    });

    it('should not count the health routes, nor answer them 429', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await t.http().get('/health/live');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit']).toBeUndefined();
      }
    });

    it('should ignore X-Forwarded-For without TRUST_PROXY', async () => {
      const res = await t.http().get('/api/demo/marbles').set('X-Forwarded-For', '203.0.113.9');
      expect(res.status).toBe(429);
    });

    it('should count a token’s requests by its sub, apart from its address', async () => {
      const reader = await oidc.provider.token('reader', ['records:read']);
      const admin = await oidc.provider.token('admin', ['records:write']);
      const one = await t.request({ path: '/api/demo/marbles', headers: bearer(reader) });
      expect(one.status).toBe(200);
      expect(remaining(one.headers['ratelimit'])).toEqual({ all: 4 });
      const other = await t.request({ path: '/api/demo/marbles', headers: bearer(admin) });
      expect(remaining(other.headers['ratelimit'])).toEqual({ all: 4 });
      // A second token of the same client is the same sub: the same count.
      const again = await oidc.provider.token('reader', ['records:read']);
      const two = await t.request({ path: '/api/demo/marbles', headers: bearer(again) });
      expect(remaining(two.headers['ratelimit'])).toEqual({ all: 3 });
    });

    it('should limit writes apart (RATE_LIMIT_WRITES), writing nothing past it', async () => {
      const admin = await oidc.provider.token('admin', ['records:write']);
      const create = (name: string) =>
        t.request({
          method: 'post',
          path: '/api/demo/marbles',
          body: { name },
          headers: bearer(admin),
        });
      const first = await create('Limited One');
      expect(first.status).toBe(201);
      // The admin's read of the test before counts too.
      expect(remaining(first.headers['ratelimit'])).toEqual({ all: 3, writes: 1 });
      expect((await create('Limited Two')).status).toBe(201);
      const third = await create('Limited Three');
      expect(third.status).toBe(429);
      expect(third.body.message).toMatch(
        /^Too many writes: this client may send 2 every 86400 s; try again in \d+ s\.$/,
      );
      expect(remaining(third.headers['ratelimit'])).toEqual({ all: 1, writes: 0 });
      expect((await t.rows('marbles')).map((r) => r.name)).toEqual([
        'Marble 001',
        'Limited One',
        'Limited Two',
      ]);
    });

    it('should put the fields on refusals too (a 401 counts)', async () => {
      const res = await t.request({
        method: 'post',
        path: '/api/demo/marbles',
        body: { name: 'x' },
        headers: bearer('a.b.c'),
      });
      expect([401, 429]).toContain(res.status);
      expect(res.headers['ratelimit-policy']).toBe(POLICY);
      expect(res.headers['ratelimit']).toMatch(/^"all";r=\d+;t=\d+, "writes";r=\d+;t=\d+$/);
    });

    it('should document 429 on every operation but health', async () => {
      // Read in process: this address is past its limit by now.
      const doc = t.app.get(ApiDocs).serviceDocument as unknown as {
        paths: Record<string, Record<string, { responses: object }>>;
      };
      expect(Object.keys(doc.paths['/api/demo/marbles'].get.responses)).toContain('429');
      expect(Object.keys(doc.paths['/api/demo/marbles/{id}'].patch.responses)).toContain('429');
      expect(Object.keys(doc.paths['/health/live'].get.responses)).not.toContain('429');
    });
  });

  describe('behind a proxy (TRUST_PROXY)', () => {
    const t = useApp({
      trustProxy: true,
      rateLimits: { all: { limit: 2, windowSeconds: DAY } },
      seed: ONE_OF_EACH,
    });

    it('should count each X-Forwarded-For client alone', async () => {
      const from = (address: string) =>
        t.http().get('/api/demo/marbles').set('X-Forwarded-For', address);
      expect((await from('203.0.113.1')).status).toBe(200);
      expect((await from('203.0.113.1')).status).toBe(200);
      expect((await from('203.0.113.1')).status).toBe(429);
      // The last entry is the one the nearest proxy wrote: what came before, the client's own.
      expect((await from('198.51.100.7, 203.0.113.1')).status).toBe(429);
      const other = await from('203.0.113.1, 203.0.113.2');
      expect(other.status).toBe(200);
      expect(other.headers['ratelimit-policy']).toBe(`"all";q=2;w=${DAY}`);
      expect(remaining(other.headers['ratelimit'])).toEqual({ all: 1 });
    });
  });
});
