#!/usr/bin/env node
/**
 * The atomic operations' rows (docs/benchmark.md, "Atomic operations"): `node bench/rows/operations.js`
 * after `npm run build`, on the benchmark database (BENCH_MYSQL_URL; its rows are replaced), the
 * service on a port of its own (3117), the image's Node line as `npm run bench` runs it.
 *
 *  - "10 creates: one request / 10 requests": BENCH_OPS_CLIENTS (4) clients in a closed loop for
 *    BENCH_DURATION (5) seconds, each sending either `POST /api/operations` with 10 marble
 *    creates or 10 single `POST /api/demo/marbles`, in alternating rounds (BENCH_ROUNDS, 3):
 *    records created per second; the target is at least 4x.
 *  - "100 operations, one request": BENCH_OPS_LARGE (50) requests one after another, each 100
 *    operations (50 creates named by ref, 50 adjust_price on them): p50, p99 and max.
 *  - "single create": with BENCH_OPS_REFERENCE=<another build's dist/main.js> (the branch point's,
 *    say), single creates on this build and on that one (port 3115), in alternating rounds: the
 *    single route's cost, which atomic operations must leave as it was.
 *
 * The clients are this process (keep-alive HTTP), not wrk: a single create costs the client about
 * as much as an operations request does, so the ratio leans, if at all, against the batch. Every
 * marble a round created is deleted after it, with its events.
 */
'use strict';

const http = require('node:http');
const path = require('node:path');
const lib = require('../lib');

const PORT = 3117;
const REFERENCE_PORT = 3115;
const SEEDED = 1000;

function settings() {
  return {
    db: lib.databaseSettings(),
    clients: lib.positiveInt('BENCH_OPS_CLIENTS', 4, 64),
    duration: lib.positiveInt('BENCH_DURATION', 5, 600),
    rounds: lib.positiveInt('BENCH_ROUNDS', 3, 20),
    large: lib.positiveInt('BENCH_OPS_LARGE', 50, 10_000),
    reference: process.env.BENCH_OPS_REFERENCE || undefined,
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request on a kept-alive connection: status, body, milliseconds. */
function send(port, method, urlPath, body) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: lib.HOST,
        port,
        path: urlPath,
        method,
        agent,
        headers: data
          ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) }
          : {},
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
            ms: Number(process.hrtime.bigint() - started) / 1e6,
          }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('no answer in 60 s')));
    req.on('error', reject);
    req.end(data);
  });
}

let serial = 0;
const name = () => `ops-bench-${process.pid}-${++serial}`;

async function expectStatus(res, status, what) {
  if (res.status !== status)
    throw lib.fail(`${what} answered ${res.status}: ${res.body.slice(0, 300)}`);
}

/** Records a second for `seconds`, `clients` loops each sending `one()` (records per call). */
async function closedLoop(clients, seconds, one) {
  const until = Date.now() + seconds * 1000;
  let records = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) records += await one();
    }),
  );
  return records / ((Date.now() - started) / 1000);
}

const batch = (port) => async () => {
  const operations = Array.from({ length: 10 }, () => ({
    op: 'create',
    collection: 'marbles',
    record: { name: name(), radius_mm: 3 },
  }));
  await expectStatus(
    await send(port, 'POST', '/api/operations', { operations }),
    200,
    'operations',
  );
  return 10;
};

const singles = (port) => async () => {
  for (let i = 0; i < 10; i++) {
    const res = await send(port, 'POST', '/api/demo/marbles', { name: name(), radius_mm: 3 });
    await expectStatus(res, 201, 'create');
  }
  return 10;
};

const single = (port) => async () => {
  await expectStatus(
    await send(port, 'POST', '/api/demo/marbles', { name: name(), radius_mm: 3 }),
    201,
    'create',
  );
  return 1;
};

/** Deletes what a round created: the marbles past the seeded ones, and every event. */
async function cleanUp(db) {
  const connection = await lib.connect(db, true);
  try {
    await connection.query('DELETE FROM marbles WHERE id > ?', [SEEDED]);
    for (const table of ['record_event_outbox', 'record_events']) {
      await connection.query(`DELETE FROM \`${table}\``).catch(() => undefined);
    }
  } finally {
    await connection.end();
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function start(script, port, db) {
  const child = lib.startChild(
    `service (${script}, port ${port})`,
    [...lib.serviceNodeFlags(), script],
    {
      DATABASE_URL: db.mysqlUrl,
      DEMO_DATA: 'false',
      PORT: String(port),
      HOST: lib.HOST,
      API_TOKEN: undefined,
      RATE_LIMIT: undefined,
      RATE_LIMIT_WRITES: undefined,
      AUTH_ISSUER: undefined,
      AUTH_JWKS_URL: undefined,
      LOG_LEVEL: 'warn',
    },
  );
  return { child, port };
}

async function main() {
  const s = settings();
  lib.watchdog(
    'bench/rows/operations.js',
    (s.rounds * 3 + 2) * (s.duration + 30) * 1000 + s.large * 2000 + 300_000,
  );
  for (const port of [PORT, REFERENCE_PORT]) {
    if (await lib.portInUse(port)) throw lib.fail(`port ${port} is already in use`);
  }
  console.log(`seeding ${SEEDED} marbles into ${lib.redact(s.db.mysqlUrl)} …`);
  await lib.seed(s.db, SEEDED);
  const servers = [start(path.join(lib.ROOT, 'dist/main.js'), PORT, s.db)];
  if (s.reference) servers.push(start(path.resolve(s.reference), REFERENCE_PORT, s.db));
  try {
    await Promise.all(
      servers.map((x) => lib.waitUntilAnswering(x.child, x.port, '/api/demo/marbles/1', 90_000)),
    );
    // Warm-up of each path.
    await closedLoop(s.clients, 2, batch(PORT));
    await closedLoop(s.clients, 2, singles(PORT));
    await cleanUp(s.db);

    const rates = { batch: [], singles: [] };
    for (let round = 0; round < s.rounds; round++) {
      const order = round % 2 === 0 ? ['batch', 'singles'] : ['singles', 'batch'];
      for (const kind of order) {
        const run = kind === 'batch' ? batch(PORT) : singles(PORT);
        rates[kind].push(await closedLoop(s.clients, s.duration, run));
        await cleanUp(s.db);
      }
    }

    const latencies = [];
    for (let i = 0; i < s.large; i++) {
      const operations = [];
      for (let j = 0; j < 50; j++) {
        operations.push({
          op: 'create',
          collection: 'marbles',
          ref: `m${j}`,
          record: { name: name() },
        });
      }
      for (let j = 0; j < 50; j++) {
        operations.push({
          op: 'adjust_price',
          collection: 'marbles',
          id: { ref: `m${j}` },
          record: { price: '12.5' },
        });
      }
      const res = await send(PORT, 'POST', '/api/operations', { operations });
      await expectStatus(res, 200, '100 operations');
      latencies.push(res.ms);
      if (i % 10 === 9) await cleanUp(s.db);
    }
    await cleanUp(s.db);
    latencies.sort((a, b) => a - b);

    const rows = [
      [
        `10 creates: one request / 10 requests (${s.clients} clients)`,
        `${fmt(median(rates.batch))} / ${fmt(median(rates.singles))} records/s`,
        `${fmt(median(rates.batch) / median(rates.singles), 2)}x`,
      ],
      [
        `100 operations in one request (50 creates, 50 adjust_price), ${s.large} requests`,
        `p50 ${fmt(percentile(latencies, 50), 1)} ms, p99 ${fmt(percentile(latencies, 99), 1)} ms, max ${fmt(latencies[latencies.length - 1], 1)} ms`,
        `${fmt(100_000 / percentile(latencies, 50))} operations/s`,
      ],
    ];

    if (s.reference) {
      const own = [];
      const ref = [];
      await closedLoop(s.clients, 2, single(REFERENCE_PORT));
      await cleanUp(s.db);
      for (let round = 0; round < s.rounds; round++) {
        const order =
          round % 2 === 0
            ? [
                [PORT, own],
                [REFERENCE_PORT, ref],
              ]
            : [
                [REFERENCE_PORT, ref],
                [PORT, own],
              ];
        for (const [port, into] of order) {
          into.push(await closedLoop(s.clients, s.duration, single(port)));
          await cleanUp(s.db);
        }
      }
      rows.push([
        `single create: this build / ${s.reference}`,
        `${fmt(median(own))} / ${fmt(median(ref))} req/s`,
        `${fmt(median(own) / median(ref), 2)}x`,
      ]);
    }
    console.log(
      `\nAtomic operations (MySQL, ${s.rounds} rounds of ${s.duration} s, medians)\n\n` +
        lib.table(['scenario', 'measured', 'ratio'], rows),
    );
    console.log(
      `\nrounds, records/s: one request ${rates.batch.map((r) => fmt(r)).join(', ')}; 10 requests ${rates.singles.map((r) => fmt(r)).join(', ')}`,
    );
  } finally {
    agent.destroy();
    await Promise.all(servers.map((x) => lib.stopChild(x.child)));
  }
}

if (require.main === module) lib.runMain('bench/rows/operations.js', main);

module.exports = { main };
