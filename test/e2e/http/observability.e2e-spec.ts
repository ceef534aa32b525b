/**
 * Operations over HTTP, in-process: GET /metrics (Prometheus text format; requests by method,
 * route template and status, in flight, database pool and statement times, process metrics),
 * METRICS_TOKEN and METRICS_ENABLED; and W3C trace context on every response.
 */
import { ONE_OF_EACH } from '../support/fixtures';
import { useApp } from '../support/harness';

const PROMETHEUS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const TOKEN = 'm'.repeat(24);

/** The samples of a scrape: `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** The `# TYPE` of every metric of a scrape. */
function types(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(match[1], match[2]);
  return out;
}

describe('metrics', () => {
  const t = useApp({ seed: ONE_OF_EACH });

  it('should count requests by method, route template and status, never by raw path', async () => {
    await t.http().get('/api/demo/marbles/1').expect(200);
    await t.http().get('/api/demo/marbles/1.xml').expect(200);
    await t.http().get('/api/demo/marbles/99999').expect(404);
    await t.http().get('/api/demo/marbles?page_size=1').expect(200);
    await t.http().get('/api/demo/nowhere/42').expect(404);
    await t.http().post('/api/demo/nowhere').send({ a: 1 }).expect(404);
    await t.http().post('/api/demo/marbles').send({ name: 'Metric Opal' }).expect(201);

    const res = await t.http().get('/metrics').expect(200);
    expect(res.headers['content-type']).toBe(PROMETHEUS_TYPE);
    expect(res.headers['cache-control']).toBe('no-store');
    const got = samples(res.text);
    const count = (labels: string) => got.get(`http_requests_total{${labels}}`);
    expect(count('method="GET",route="/api/demo/marbles/:id",status="200"')).toBe(2);
    expect(count('method="GET",route="/api/demo/marbles/:id",status="404"')).toBe(1);
    expect(count('method="GET",route="/api/demo/marbles",status="200"')).toBe(1);
    expect(count('method="POST",route="/api/demo/marbles",status="201"')).toBe(1);
    expect(count('method="GET",route="(unmatched)",status="404"')).toBe(1);
    expect(count('method="POST",route="(unmatched)",status="404"')).toBe(1);
    // The histogram of the same series, with its buckets, sum and count.
    const series = 'method="GET",route="/api/demo/marbles/:id",status="200"';
    expect(got.get(`http_request_duration_seconds_count{${series}}`)).toBe(2);
    expect(got.get(`http_request_duration_seconds_bucket{${series},le="+Inf"}`)).toBe(2);
    expect(got.get(`http_request_duration_seconds_sum{${series}}`)).toBeGreaterThan(0);
    expect(got.get(`http_request_duration_seconds_sum{${series}}`)).toBeLessThan(60);
    // No label carries a raw path or a query.
    expect(res.text).not.toMatch(/route="[^"]*(\/1"|99999|nowhere|\?|\.xml)/);
    // The scrape itself is the one request in flight.
    expect(got.get('http_requests_in_flight')).toBe(1);

    const declared = types(res.text);
    for (const [name, type] of [
      ['http_requests_total', 'counter'],
      ['http_request_duration_seconds', 'histogram'],
      ['http_requests_in_flight', 'gauge'],
      ['db_query_duration_seconds', 'histogram'],
      ['db_pool_connections_in_use', 'gauge'],
      ['db_pool_connections_idle', 'gauge'],
      ['db_pool_waiting_requests', 'gauge'],
      ['process_cpu_user_seconds_total', 'counter'],
      ['process_resident_memory_bytes', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ]) {
      expect([name, declared.get(name)]).toEqual([name, type]);
    }
  });

  it('should time statements by pool and kind', async () => {
    await t.http().patch('/api/demo/marbles/1/toggle_is_discounted').expect(200);
    const got = samples((await t.http().get('/metrics').expect(200)).text);
    // Writes are timed as the primary's; on a cluster reads as their node's (node1-3, the names
    // of /health/ready), on one server as the primary's.
    const pools = t.cluster ? ['node1', 'node2', 'node3'] : ['primary'];
    const count = (pool: string, kind: string) =>
      got.get(`db_query_duration_seconds_count{pool="${pool}",kind="${kind}"}`) ?? 0;
    const reads = pools.filter((pool) => count(pool, 'read') > 0);
    expect(reads.length).toBeGreaterThan(0);
    expect(count('primary', 'write')).toBeGreaterThan(0);
    for (const pool of reads) {
      expect(
        got.get(`db_query_duration_seconds_bucket{pool="${pool}",kind="read",le="+Inf"}`),
      ).toBe(count(pool, 'read'));
    }
  });

  it('should report the connection pool on MySQL (SQLite has none)', async () => {
    // The change feed's sequencer may hold a connection for a moment of its own: read again
    // until none is in use (a connection never given back keeps it above 0, and fails).
    const pools = t.cluster ? ['node1', 'node2', 'node3'] : ['primary'];
    const inUse = () => pools.some((p) => got.get(`db_pool_connections_in_use{pool="${p}"}`));
    let got = samples((await t.http().get('/metrics').expect(200)).text);
    for (let tries = 0; tries < 50 && inUse(); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      got = samples((await t.http().get('/metrics').expect(200)).text);
    }
    const pool = [...got.keys()].filter((k) => k.startsWith('db_pool_'));
    if (t.dialect === 'mysql') {
      const gauges = [
        'db_pool_connections_idle',
        'db_pool_connections_in_use',
        'db_pool_waiting_requests',
      ];
      expect(pool.sort()).toEqual(gauges.flatMap((g) => pools.map((p) => `${g}{pool="${p}"}`)));
      expect(got.get(`db_pool_connections_idle{pool="${pools[0]}"}`)).toBeGreaterThanOrEqual(1);
      for (const p of pools) {
        expect(got.get(`db_pool_connections_in_use{pool="${p}"}`)).toBe(0);
        expect(got.get(`db_pool_waiting_requests{pool="${p}"}`)).toBe(0);
      }
    } else {
      expect(pool).toEqual([]);
    }
  });

  it('should answer the Prometheus format whatever Accept asks for', async () => {
    const res = await t.http().get('/metrics').set('Accept', 'application/xml').expect(200);
    expect(res.headers['content-type']).toBe(PROMETHEUS_TYPE);
  });
});

describe('metrics with METRICS_TOKEN', () => {
  const t = useApp({ metricsToken: TOKEN });

  it('should answer 401 without the token, and with a wrong one', async () => {
    const none = await t.http().get('/metrics').expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.body).toEqual({
      message: 'Metrics need a valid bearer token (Authorization: Bearer <token>).',
    });
    const wrong = await t
      .http()
      .get('/metrics')
      .set('Authorization', `Bearer ${'x'.repeat(24)}`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="metrics", error="invalid_token"');
  });

  it('should answer the metrics with the token', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.text).toContain('# TYPE http_requests_total counter');
    // The refused scrapes are counted too, under their route.
    expect(res.text).toMatch(
      /^http_requests_total\{method="GET",route="\/metrics",status="401"\} 2$/m,
    );
  });

  it('should leave the API open', async () => {
    await t.http().get('/api/demo/marbles').expect(200);
  });
});

describe('metrics with METRICS_ENABLED=false', () => {
  const t = useApp({ metricsEnabled: false });

  it('should have no /metrics route', async () => {
    const res = await t.http().get('/metrics').expect(404);
    expect(res.body).toEqual({ message: 'Not found.' });
  });
});

describe('trace context', () => {
  const t = useApp({ seed: ONE_OF_EACH });
  const TRACE = '0af7651916cd43dd8448eb211c80319c';
  const PARENT = 'b7ad6b7169203331';
  const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

  it("should continue the caller's trace with a span of its own, and pass tracestate on", async () => {
    const res = await t
      .http()
      .get('/api/demo/marbles/1')
      .set('traceparent', `00-${TRACE}-${PARENT}-01`)
      .set('tracestate', 'vendor=abc,other=1')
      .expect(200);
    const [, trace, span, flags] = TRACEPARENT.exec(res.headers.traceparent)!;
    expect(trace).toBe(TRACE);
    expect(span).not.toBe(PARENT);
    expect(span).not.toBe('0'.repeat(16));
    expect(flags).toBe('01');
    expect(res.headers.tracestate).toBe('vendor=abc,other=1');
  });

  it('should start a new trace without traceparent, each request its own', async () => {
    const one = await t.http().get('/api/demo/marbles/1').expect(200);
    const two = await t.http().get('/api/demo/marbles/1').expect(200);
    const a = TRACEPARENT.exec(one.headers.traceparent)!;
    const b = TRACEPARENT.exec(two.headers.traceparent)!;
    expect(a[1]).not.toBe(b[1]);
    expect(a[1]).not.toBe('0'.repeat(32));
    expect(one.headers.tracestate).toBeUndefined();
  });

  it.each([
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['a field too many in version 00', `00-${TRACE}-${PARENT}-01-extra`],
    ['garbage', 'not-a-trace'],
  ])('should ignore a traceparent with %s and start a new trace', async (_what, header) => {
    const res = await t
      .http()
      .get('/api/demo/marbles/1')
      .set('traceparent', header)
      .set('tracestate', 'vendor=abc')
      .expect(200);
    const [, trace] = TRACEPARENT.exec(res.headers.traceparent)!;
    expect(trace).not.toBe(TRACE);
    expect(res.headers.tracestate).toBeUndefined();
  });

  it('should accept a later version with more fields', async () => {
    const res = await t
      .http()
      .get('/api/demo/marbles/1')
      .set('traceparent', `01-${TRACE}-${PARENT}-00-future`)
      .expect(200);
    expect(TRACEPARENT.exec(res.headers.traceparent)!.slice(1, 4)).toEqual([
      TRACE,
      expect.any(String),
      '00',
    ]);
  });

  it('should put traceparent on errors too', async () => {
    const res = await t
      .http()
      .get('/api/demo/marbles/99999')
      .set('traceparent', `00-${TRACE}-${PARENT}-01`)
      .expect(404);
    expect(TRACEPARENT.exec(res.headers.traceparent)![1]).toBe(TRACE);
  });
});
