/**
 * Rate limits shared through Redis (REDIS_URL): two instances of the service count against one
 * limit. A Redis that stops answering does not stop the API: each instance counts alone, a
 * warning is logged, readiness says so; once Redis answers again the counts are shared again.
 * The suite runs a redis-server of its own (and a key prefix of its own), so it can freeze it.
 */
import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { RedisServer } from '../../redis/redis-server';
import { HOOK_TIMEOUT, TestApp } from '../support/harness';
import { ONE_OF_EACH } from '../support/fixtures';

const DAY = 86_400;

describe('rate limits shared by two instances through Redis', () => {
  let redis: RedisServer;
  const instances = [new TestApp(), new TestApp()];
  const warnings: string[] = [];

  beforeAll(async () => {
    redis = await RedisServer.start();
    const keyPrefix = `records-test:${randomBytes(6).toString('hex')}:`;
    for (const t of instances) {
      await t.start({
        rateLimits: {
          all: { limit: 6, windowSeconds: DAY },
          redisUrl: redis.url,
          keyPrefix,
          // 500 ms in service; a loaded test machine may take longer to read a prompt answer.
          commandTimeoutMs: 3000,
        },
      });
      await t.seed(ONE_OF_EACH);
    }
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(function (
      this: Logger,
      message: unknown,
    ) {
      warnings.push(String(message));
    });
  }, HOOK_TIMEOUT);

  afterAll(async () => {
    jest.restoreAllMocks();
    for (const t of instances) await t.close();
    await redis?.stop();
  }, HOOK_TIMEOUT);

  const ready = async (t: TestApp) =>
    (await t.http().get('/health/ready')).body.details.rate_limits;

  it('should count the requests of one client on both instances against one limit', async () => {
    expect(await ready(instances[0])).toEqual({ status: 'up', counting: 'redis' });
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await instances[i % 2].http().get('/api/demo/marbles/1');
      expect(res.status).toBe(200);
      remaining.push(/^"all";r=(\d+);/.exec(res.headers['ratelimit'])![1]);
    }
    expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
    for (const t of instances) {
      const res = await t.http().get('/api/demo/marbles/1');
      expect(res.status).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('should keep answering when Redis stops answering, each instance counting alone, and say so', async () => {
    redis.freeze();
    try {
      const started = Date.now();
      // Counted here now: this instance's own count starts from nothing.
      const res = await instances[0].http().get('/api/demo/marbles/1');
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit']).toMatch(/^"all";r=5;t=\d+$/);
      expect(Date.now() - started).toBeLessThan(30_000);
      // In the service's words: how long it waited (this suite's 3000 ms; 500 in service).
      const problem = 'Redis did not answer within 3000 ms; each instance counts alone';
      expect(warnings).toContain(`rate limits: ${problem}`);
      const state = await ready(instances[0]);
      expect(state).toEqual({ status: 'up', counting: 'instance', problem });
      // Readiness stays 200: the API serves.
      expect((await instances[0].http().get('/health/ready')).status).toBe(200);
    } finally {
      redis.thaw();
    }
    // Back to Redis once its probe answers: the shared count (past its limit) again.
    const deadline = Date.now() + 20_000;
    while ((await ready(instances[0])).counting !== 'redis') {
      if (Date.now() > deadline) throw new Error('rate limits did not go back to Redis');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await instances[0].http().get('/api/demo/marbles/1')).status).toBe(429);
  });

  it("should keep answering when Redis is gone altogether, and say so in its own words, not ioredis's", async () => {
    await redis.stop();
    const res = await instances[1].http().get('/api/demo/marbles/1');
    expect(res.status).toBe(200);
    // No connection: refused (the reconnection's error), or closed when none came yet. Before,
    // "Stream isn't writeable and enableOfflineQueue options is false".
    expect(await ready(instances[1])).toEqual({
      status: 'up',
      counting: 'instance',
      problem: expect.stringMatching(
        /^no connection to Redis \((connection refused|the connection was closed)\); each instance counts alone$/,
      ),
    });
  });
});
