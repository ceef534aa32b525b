/**
 * The webhooks' rows of `npm run bench` (docs/benchmark.md, "Webhooks"), on one instance of the
 * service of its own (WEBHOOK_ALLOW_PRIVATE=true: the receivers are on loopback):
 *
 *  - "create, 10 webhooks / none": the write rows' load (wrk, bench/write.lua's creates, the
 *    write rows' connections) in alternating rounds, with BENCH_WEBHOOKS subscriptions (10) to
 *    every marble event and with none (the same instance, its subscriptions deleted). Writes
 *    req/s and CPU per request with and without; the target is >= 0.9 of none.
 *  - "delivery lag, 10 webhooks": for every event of the rounds with subscriptions and every
 *    subscription, the time from the write (the event's `at`) to its arrival at the receiver;
 *    p50, p99 and max, how many arrived during the run and how many once the backlog was
 *    drained (at most BENCH_WEBHOOK_WAIT seconds after the run).
 *
 * The receivers are one HTTP server in this process (a path per subscription, 204 at once, no
 * signature check: what it costs is the bench's, not the service's); wrk is C. On a machine of
 * two cores, the service, the database, wrk and the receivers share them: the rows measure what
 * ten subscriptions that each take every event cost a service writing as fast as it can.
 */
'use strict';

const http = require('node:http');
const lib = require('./lib');

const { fail } = lib;

/** WEBHOOK_ALLOW_PRIVATE=true and no access control: the routes are open (docs/webhooks.md). */
const AUTH = { 'Content-Type': 'application/json' };

function webhookSettings() {
  return {
    subscriptions: lib.positiveInt('BENCH_WEBHOOKS', 10, 100),
    wait: lib.positiveInt('BENCH_WEBHOOK_WAIT', 60, 3600),
  };
}

/** The rows, for BENCH_ONLY. */
function webhookScenarios() {
  const { subscriptions } = webhookSettings();
  return [
    {
      name: `create, ${subscriptions} webhooks / none`,
      service: 'serviceWebhooks',
      webhooks: true,
    },
  ];
}

function webhookBudgetMs(scenarios, settings) {
  if (scenarios.length === 0) return 0;
  const { wait } = webhookSettings();
  const runs = (settings.rounds * 2 + 2) * (settings.duration + 10);
  return (runs + settings.rounds * wait + 120) * 1000;
}

/** One server for every subscription: arrivals by path. */
async function startReceivers() {
  const arrivals = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(204).end();
      arrivals.push({ path: req.url, id: req.headers['webhook-id'], at, body: chunks });
    });
  });
  server.keepAliveTimeout = 120_000;
  await new Promise((resolve) => server.listen(0, lib.HOST, resolve));
  return {
    arrivals,
    url: (p) => `http://${lib.HOST}:${server.address().port}${p}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

async function call(port, method, urlPath, body) {
  const res = await lib.request(port, method, urlPath, {
    headers: AUTH,
    body: body === undefined ? undefined : JSON.stringify(body),
    timeoutMs: 30_000,
  });
  if (res.status >= 300) {
    throw fail(`${method} ${urlPath} answered ${res.status}: ${res.body.toString().slice(0, 300)}`);
  }
  return res.status === 204 ? undefined : JSON.parse(res.body.toString());
}

async function subscribe(port, receivers, n, round) {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const sub = await call(port, 'POST', '/api/webhooks', {
      url: receivers.url(`/r${round}/s${i}`),
      collections: ['marbles'],
    });
    ids.push(sub.id);
  }
  return ids;
}

async function unsubscribeAll(port) {
  const { results } = await call(port, 'GET', '/api/webhooks');
  for (const sub of results) await call(port, 'DELETE', `/api/webhooks/${sub.id}`);
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * `server`: { port, pid }. `load(duration)`: one wrk run of creates (the write rows' own, with
 * its preparation), resolving to wrk's result. `cleanUp()`: the write rows' clean-up.
 */
async function measureWebhooks(server, scenarios, settings, { load, cleanUp }) {
  const { subscriptions, wait } = webhookSettings();
  const receivers = await startReceivers();
  const rounds = { with: [], without: [] };
  const lags = [];
  let expected = 0;
  let arrivedInRun = 0;
  let arrived = 0;
  let drainMs = 0;
  try {
    await unsubscribeAll(server.port);
    // Warm-up: both kinds once, not counted.
    for (const withHooks of [true, false]) {
      if (withHooks) await subscribe(server.port, receivers, subscriptions, 'warm');
      await load(settings.warmup || 2);
      await unsubscribeAll(server.port);
      await cleanUp();
    }
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const withHooks of order) {
        const before = receivers.arrivals.length;
        if (withHooks) await subscribe(server.port, receivers, subscriptions, round);
        const cpuBefore = lib.cpuMs(server.pid);
        const result = await load(settings.duration);
        result.cpuMs = lib.cpuMs(server.pid) - cpuBefore;
        (withHooks ? rounds.with : rounds.without).push(result);
        if (withHooks) {
          const inRun = receivers.arrivals.length - before;
          const want = result.requests * subscriptions;
          const started = Date.now();
          while (receivers.arrivals.length - before < want && Date.now() - started < wait * 1000) {
            await lib.sleep(100);
          }
          drainMs = Math.max(drainMs, Date.now() - started);
          const mine = receivers.arrivals.slice(before);
          expected += want;
          arrivedInRun += inRun;
          arrived += new Set(mine.map((a) => `${a.path} ${a.id}`)).size;
          for (const a of mine) {
            const event = JSON.parse(Buffer.concat(a.body).toString());
            lags.push(a.at - Date.parse(event.at));
          }
          await unsubscribeAll(server.port);
        }
        await cleanUp();
      }
    }
  } finally {
    await unsubscribeAll(server.port).catch(() => undefined);
    await receivers.stop();
  }
  lags.sort((a, b) => a - b);
  const sum = (runs, field) => runs.reduce((s, r) => s + r[field], 0);
  const rate = (runs) => sum(runs, 'requests') / sum(runs, 'seconds');
  const cpu = (runs) => sum(runs, 'cpuMs') / sum(runs, 'requests');
  return {
    name: scenarios[0].name,
    subscriptions,
    with: { rps: rate(rounds.with), cpu: cpu(rounds.with), runs: rounds.with.map((r) => r.rps) },
    without: {
      rps: rate(rounds.without),
      cpu: cpu(rounds.without),
      runs: rounds.without.map((r) => r.rps),
    },
    lag: {
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1],
    },
    expected,
    arrivedInRun,
    arrived,
    drainMs,
  };
}

function printWebhooks(r) {
  const fixed = (n) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 2) : '-');
  const ratio = r.with.rps / r.without.rps;
  const met = ratio >= 0.9;
  console.log(
    `\nWebhooks (${r.subscriptions} subscriptions to every marble event, receivers on loopback):`,
  );
  console.log(
    '| scenario | with req/s | none req/s | req/s ratio | CPU ms/req with / none | target |',
  );
  console.log('|---|---:|---:|---:|---:|---|');
  console.log(
    `| ${r.name} | ${fixed(r.with.rps)} (${r.with.runs.map(fixed).join(' / ')}) | ` +
      `${fixed(r.without.rps)} (${r.without.runs.map(fixed).join(' / ')}) | ${ratio.toFixed(2)} | ` +
      `${fixed(r.with.cpu)} / ${fixed(r.without.cpu)} | >= 0.9 ${met ? 'met' : 'MISSED'} |`,
  );
  console.log(
    `| delivery lag, ${r.subscriptions} webhooks | p50 ${fixed(r.lag.p50)} ms, p99 ${fixed(r.lag.p99)} ms, ` +
      `max ${fixed(r.lag.max)} ms | deliveries: ${r.expected} due, ${r.arrivedInRun} during the runs, ` +
      `${r.arrived} in all (drained within ${(r.drainMs / 1000).toFixed(1)} s) | | | |`,
  );
  return met && r.arrived === r.expected;
}

module.exports = {
  webhookScenarios,
  webhookBudgetMs,
  measureWebhooks,
  printWebhooks,
};
