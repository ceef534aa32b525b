/**
 * The webhooks' rows of `npm run bench` (docs/benchmark.md, "Webhooks"), on one instance of the
 * service of its own (WEBHOOK_ALLOW_PRIVATE=true: the receivers are on loopback):
 *
 *  - "create, 10 webhooks / none": the write rows' load (wrk, bench/lua/write.lua's creates, the
 *    write rows' connections) in alternating rounds, with BENCH_WEBHOOKS subscriptions (10) to
 *    every marble event and with none (the same instance, its subscriptions deleted). Writes
 *    req/s and CPU per request with and without; the target is >= 0.9 of none.
 *    A third kind of round has the 10 subscriptions on another collection (e-mails): active, but
 *    given none of the writes' events, what subscriptions cost by being there.
 *  - "delivery lag, 10 webhooks": for every event of the rounds with subscriptions and every
 *    subscription, the time from the write (the event's `at`) to its arrival at the receiver;
 *    p50, p99 and max, how many arrived during the run and how many once the backlog was
 *    drained (at most BENCH_WEBHOOK_WAIT seconds after the run).
 *  - "delivery lag at N writes/s": the same delays, with BENCH_WEBHOOK_WRITES creates sent at a
 *    steady BENCH_WEBHOOK_RATE a second (100; open loop, from this process), not as fast as the
 *    service takes them: what a receiver sees when the service is not saturated.
 *  - "create, 10 webhooks delivered by another instance / none": the roles split
 *    (docs/webhooks.md, "Instances that only deliver"): the instance wrk writes to runs with
 *    WEBHOOK_DELIVERY=false, a second instance delivers every subscription. On this machine the
 *    second shares the two cores, so it runs at a lower priority (nice DELIVERER_NICE), standing
 *    for a core of its own: the writes go first, the deliveries take what is left and catch up
 *    after. Rounds "every" and "none" on the writing instance; the same lags, and the
 *    deliverer's CPU per create.
 *
 * The receivers are one HTTP server in this process (a path per subscription, 204 at once, no
 * signature check: what it costs is the bench's, not the service's); wrk is C. On a machine of
 * two cores, the service, the database, wrk and the receivers share them: the rows measure what
 * ten subscriptions that each take every event cost a service writing as fast as it can.
 */
'use strict';

const http = require('node:http');
const lib = require('../lib');

const { fail } = lib;

/** WEBHOOK_ALLOW_PRIVATE=true and no access control: the routes are open (docs/webhooks.md). */
const AUTH = { 'Content-Type': 'application/json' };

function webhookSettings() {
  return {
    subscriptions: lib.positiveInt('BENCH_WEBHOOKS', 10, 100),
    wait: lib.positiveInt('BENCH_WEBHOOK_WAIT', 60, 3600),
    rate: lib.positiveInt('BENCH_WEBHOOK_RATE', 100, 10_000),
    writes: lib.positiveInt('BENCH_WEBHOOK_WRITES', 500, 100_000),
  };
}

/** The deliverer's priority in the split rows (os.setPriority: 19 is the lowest). */
const DELIVERER_NICE = 10;

/** The rows, for BENCH_ONLY; each its own run, on servers of its own (`groups`). */
function webhookScenarios() {
  const { subscriptions } = webhookSettings();
  return [
    {
      name: `create, ${subscriptions} webhooks / none`,
      service: 'serviceWebhooks',
      webhooks: true,
    },
    {
      name: `create, ${subscriptions} webhooks delivered by another instance / none`,
      service: 'serviceWebhooksWriter',
      // Started beside it (bench/run.js starts the references too): the instance that delivers.
      reference: 'serviceWebhooksDeliverer',
      webhooks: true,
      elsewhere: true,
    },
  ];
}

/** The scenarios measured on one set of servers each (a delivering instance would take all). */
function webhookGroups(scenarios) {
  return scenarios.map((scenario) => [scenario]);
}

function webhookBudgetMs(scenarios, settings) {
  if (scenarios.length === 0) return 0;
  const { wait, rate, writes } = webhookSettings();
  const once = (settings.rounds * 3 + 3) * (settings.duration + 15);
  const per = once + (settings.rounds + 1) * wait + writes / rate + 180;
  return per * scenarios.length * 1000;
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

async function subscribe(port, receivers, n, round, collection = 'marbles') {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const sub = await call(port, 'POST', '/api/webhooks', {
      url: receivers.url(`/r${round}/s${i}`),
      collections: [collection],
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
async function measureWebhooks(server, scenarios, settings, { load, cleanUp, deliverer }) {
  const { subscriptions, wait, rate, writes } = webhookSettings();
  const { elsewhere } = scenarios[0];
  const receivers = await startReceivers();
  const rounds = { every: [], none: [], other: [] };
  let delivererCpuMs = 0;
  const lags = [];
  const steadyLags = [];
  let expected = 0;
  let arrivedInRun = 0;
  let arrived = 0;
  let drainMs = 0;
  let steady = { due: 0, arrived: 0 };
  /** Waits for `want` arrivals after `before`; their lags, and how long the wait took. */
  const collect = async (before, want, into) => {
    const started = Date.now();
    while (receivers.arrivals.length - before < want && Date.now() - started < wait * 1000) {
      await lib.sleep(100);
    }
    const mine = receivers.arrivals.slice(before);
    for (const a of mine) {
      const event = JSON.parse(Buffer.concat(a.body).toString());
      into.push(a.at - Date.parse(event.at));
    }
    return {
      waited: Date.now() - started,
      got: new Set(mine.map((a) => `${a.path} ${a.id}`)).size,
    };
  };
  try {
    await unsubscribeAll(server.port);
    const kinds = elsewhere ? ['every', 'none'] : ['every', 'none', 'other'];
    // Warm-up: each kind once, not counted.
    for (const kind of kinds) {
      if (kind !== 'none') {
        await subscribe(server.port, receivers, subscriptions, `w${kind}`, collectionOf(kind));
      }
      await load(settings.warmup || 2);
      await unsubscribeAll(server.port);
      await cleanUp();
    }
    for (let round = 0; round < settings.rounds; round++) {
      // Each kind first, second and last in turn.
      const order = kinds.map((_, i) => kinds[(i + round) % kinds.length]);
      for (const kind of order) {
        const before = receivers.arrivals.length;
        if (kind !== 'none') {
          await subscribe(
            server.port,
            receivers,
            subscriptions,
            `${round}${kind}`,
            collectionOf(kind),
          );
        }
        const cpuBefore = lib.cpuMs(server.pid);
        const delivererBefore = deliverer ? lib.cpuMs(deliverer.pid) : 0;
        const result = await load(settings.duration);
        result.cpuMs = lib.cpuMs(server.pid) - cpuBefore;
        rounds[kind].push(result);
        if (kind === 'every') {
          const inRun = receivers.arrivals.length - before;
          const want = result.requests * subscriptions;
          const { waited, got } = await collect(before, want, lags);
          // The deliverer's CPU for the round's events: during the run and the backlog after.
          if (deliverer) delivererCpuMs += lib.cpuMs(deliverer.pid) - delivererBefore;
          drainMs = Math.max(drainMs, waited);
          expected += want;
          arrivedInRun += inRun;
          arrived += got;
        }
        if (kind !== 'none') await unsubscribeAll(server.port);
        await cleanUp();
      }
    }
    // Steady writes, not as fast as they are taken.
    const before = receivers.arrivals.length;
    await subscribe(server.port, receivers, subscriptions, 'steady');
    const sent = [];
    const started = performance.now();
    for (let i = 0; i < writes; i++) {
      const due = started + (i * 1000) / rate;
      const now = performance.now();
      if (due > now) await lib.sleep(due - now);
      sent.push(
        lib.request(server.port, 'POST', '/api/demo/marbles', {
          headers: AUTH,
          body: JSON.stringify({ name: `bench-webhook-steady-${Date.now()}-${i}` }),
          timeoutMs: 30_000,
        }),
      );
    }
    const answers = await Promise.all(sent);
    const created = answers.filter((r) => r.status === 201).length;
    const got = await collect(before, created * subscriptions, steadyLags);
    steady = { due: created * subscriptions, arrived: got.got };
    await unsubscribeAll(server.port);
    await cleanUp();
  } finally {
    await unsubscribeAll(server.port).catch(() => undefined);
    await receivers.stop();
  }
  lags.sort((a, b) => a - b);
  steadyLags.sort((a, b) => a - b);
  const sum = (runs, field) => runs.reduce((s, r) => s + r[field], 0);
  const summary = (runs) => ({
    rps: sum(runs, 'requests') / sum(runs, 'seconds'),
    cpu: sum(runs, 'cpuMs') / sum(runs, 'requests'),
    runs: runs.map((r) => r.rps),
  });
  const spread = (sorted) => ({
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1],
  });
  return {
    name: scenarios[0].name,
    elsewhere,
    delivererCpu: delivererCpuMs / sum(rounds.every, 'requests'),
    subscriptions,
    every: summary(rounds.every),
    none: summary(rounds.none),
    other: summary(rounds.other),
    lag: spread(lags),
    expected,
    arrivedInRun,
    arrived,
    drainMs,
    rate,
    steady: { ...steady, lag: spread(steadyLags) },
  };
}

/** The collection of a kind of round's subscriptions: the written one, or another. */
function collectionOf(kind) {
  return kind === 'every' ? 'marbles' : 'emails';
}

function printWebhooks(r) {
  const fixed = (n) => (Number.isFinite(n) ? n.toFixed(n >= 100 ? 0 : 2) : '-');
  const n = r.subscriptions;
  const row = (name, a, b, target) => {
    const ratio = a.rps / b.rps;
    const verdict = target ? ` >= ${target} ${ratio >= target ? 'met' : 'MISSED'}` : '';
    console.log(
      `| ${name} | ${fixed(a.rps)} (${a.runs.map(fixed).join(' / ')}) | ` +
        `${fixed(b.rps)} (${b.runs.map(fixed).join(' / ')}) | ${ratio.toFixed(2)} | ` +
        `${fixed(a.cpu)} / ${fixed(b.cpu)} |${verdict} |`,
    );
    return !target || ratio >= target;
  };
  console.log(`\nWebhooks (${n} subscriptions, receivers on loopback in the bench's process):`);
  console.log('| scenario | req/s (rounds) | none req/s (rounds) | ratio | CPU ms/req | target |');
  console.log('|---|---:|---:|---:|---:|---|');
  let met;
  if (r.elsewhere) {
    met = row(
      `create, ${n} webhooks taking every event, delivered by another instance (nice ${DELIVERER_NICE}) / none`,
      r.every,
      r.none,
      0.9,
    );
    console.log(
      `The writing instance's CPU per create, none / with: ${(r.none.cpu / r.every.cpu).toFixed(2)}` +
        ` (>= 0.9 ${r.none.cpu / r.every.cpu >= 0.9 ? 'met' : 'MISSED'}); the delivering` +
        ` instance's: ${fixed(r.delivererCpu)} ms per create`,
    );
  } else {
    met = row(`create, ${n} webhooks taking every event / none`, r.every, r.none, 0.9);
    row(`create, ${n} webhooks on another collection / none`, r.other, r.none);
  }
  const lag = (l) => `p50 ${fixed(l.p50)} ms, p99 ${fixed(l.p99)} ms, max ${fixed(l.max)} ms`;
  console.log(
    `\nDelivery lag, ${n} webhooks, under the write rows' load: ${lag(r.lag)}; deliveries ` +
      `${r.expected} due (wrk's count), ${r.arrivedInRun} during the runs, ${r.arrived} in all ` +
      `(the backlog drained within ${(r.drainMs / 1000).toFixed(1)} s)`,
  );
  console.log(
    `Delivery lag, ${n} webhooks, at ${r.rate} creates/s: ${lag(r.steady.lag)}; ` +
      `${r.steady.arrived} of ${r.steady.due} deliveries`,
  );
  return met && r.arrived >= r.expected && r.steady.arrived === r.steady.due;
}

module.exports = {
  DELIVERER_NICE,
  webhookGroups,
  webhookScenarios,
  webhookBudgetMs,
  measureWebhooks,
  printWebhooks,
};
