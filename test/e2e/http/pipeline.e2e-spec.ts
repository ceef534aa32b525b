/**
 * The request pipeline `configureApp` builds once (rest/http/request/pipeline.ts): a capability
 * switched off adds no middleware at all (no check that finds it off runs on a request), a read
 * runs none of the change feed's, and switched on, each is in the pipeline where it belongs.
 */
import type { RequestHandler } from 'express';
import { APP_CONFIG } from '../../../src/config/config.module';
import { AppConfig, loadConfig } from '../../../src/config/configuration';
import { rememberRequest } from '../../../src/events/request-context';
import { refuseUnservedWrites } from '../../../src/rest/http/request/unserved-writes';
import { checkPercentEncoding } from '../../../src/rest/http/request/percent-encoding';
import { serveAssets } from '../../../src/rest/http/browsable/html-assets';
import { pipelineOf } from '../../../src/setup';
import { useApp } from '../support/harness';
import { USERS, marbleRow } from '../support/fixtures';

const SEED = { users: USERS, marbles: [marbleRow(1, 'Amber')] };
const TOKEN = 'x'.repeat(32);

/** Express's middleware layers (not routes) of the app, in order. */
function middlewareLayers(t: ReturnType<typeof useApp>): number {
  const express = t.app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: unknown; name: string }[] };
  };
  return express.router.stack.filter((layer) => !layer.route).length;
}

/**
 * The request context every request gets on a Galera cluster (the cluster pass: TEST_MYSQL_URL
 * naming several nodes): a client reads its own writes, one middleware for reads and writes.
 */
function clusterContext(t: ReturnType<typeof useApp>): RequestHandler[] {
  const { database } = t.app.get<AppConfig>(APP_CONFIG);
  const cluster = database.type === 'mysql' && database.nodes !== undefined;
  return cluster ? [pipelineOf(t.app)!.reads[0]] : [];
}

describe('request pipeline, every capability off', () => {
  const t = useApp({ seed: SEED });

  it('should hold only what every request needs, and no feed work for a read', () => {
    const pipeline = pipelineOf(t.app)!;
    expect(pipeline.head.map((h) => h.name)).toEqual(['securityHeaders', '', '']);
    // Assets, negotiation, host, percent-encoding, compression: no access control, no limiter.
    expect(pipeline.all).toHaveLength(5);
    expect(pipeline.all[0]).toBe(serveAssets);
    expect(pipeline.all[3]).toBe(checkPercentEncoding);
    // No tracer, no replicas (nor a cluster): a JSON read runs nothing more.
    const context = clusterContext(t);
    expect(pipeline.reads).toEqual(context);
    // The feed: its live notice on HTML pages, the request at hand for writes only.
    expect(pipeline.pages).toHaveLength(1);
    expect(pipeline.writes).toHaveLength(3 + context.length);
    expect(pipeline.writes[0]).toBe(refuseUnservedWrites);
    expect(pipeline.writes[2 + context.length]).toBe(rememberRequest);
  });

  it('should still answer reads and writes', async () => {
    const read = await t.http().get('/api/demo/marbles/1');
    expect([read.status, read.body.name]).toEqual([200, 'Amber']);
    const write = await t.http().post('/api/demo/marbles').send({ name: 'Jade' });
    expect(write.status).toBe(201);
    const events = await t.http().get('/api/demo/marbles/events?after=0&limit=10');
    expect(events.status).toBe(200);
  });
});

describe('request pipeline, capabilities on', () => {
  const t = useApp({
    seed: SEED,
    apiToken: TOKEN,
    corsOrigins: ['*'],
    rateLimits: { all: { limit: 1000, windowSeconds: 3600 } },
    events: { ...loadConfig({}).events, enabled: false },
  });

  it('should add each one switched on, and nothing of the feed switched off', () => {
    const pipeline = pipelineOf(t.app)!;
    // CORS in its own layer (Nest's enableCors) between compression and access control, which
    // leaves the front of `all` in a layer of its own too: identify, limit, enforce remain.
    expect(pipeline.all).toHaveLength(3);
    expect(pipeline.pages).toEqual([]);
    expect(pipeline.writes).toHaveLength(2 + clusterContext(t).length);
    expect(pipeline.writes).not.toContain(rememberRequest as RequestHandler);
  });

  it('should apply them: CORS, the token, the limit', async () => {
    const read = await t.http().get('/api/demo/marbles/1').set('Origin', 'https://a.example');
    expect([read.status, read.headers['access-control-allow-origin']]).toEqual([200, '*']);
    expect(read.headers['ratelimit-policy']).toBeDefined();
    const refused = await t.http().post('/api/demo/marbles').send({ name: 'Jade' });
    expect(refused.status).toBe(401);
    const written = await t
      .http()
      .post('/api/demo/marbles')
      .set('Authorization', `Bearer ${TOKEN}`)
      .send({ name: 'Jade' });
    expect(written.status).toBe(201);
  });
});

describe('request pipeline, Express layers', () => {
  const off = useApp({ seed: SEED });
  const cors = useApp({ seed: SEED, corsOrigins: ['*'] });

  it('should mount two middleware layers more with CORS on, and none for it off', () => {
    expect(middlewareLayers(cors) - middlewareLayers(off)).toBe(2);
  });
});
