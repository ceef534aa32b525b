/**
 * The change feed's rows of `npm run bench` (the "events to N consumers" rows; docs/benchmark.md,
 * "Change feed"). For each number of consumers, on one instance of the service of its own:
 *
 *  1. opens N Server-Sent Event streams on `GET /api/events` (plain node:http, one socket each,
 *     `Accept: text/event-stream`; a stream counts as open once the server's first comment line
 *     has arrived), then leaves them idle for BENCH_FEED_IDLE seconds: the service's database
 *     statements per second (the `db_query_duration_seconds_count` series of its /metrics, every
 *     pool and kind) and its CPU and resident memory, with N streams open and nothing written;
 *  2. creates BENCH_FEED_WRITES marbles at a steady BENCH_FEED_RATE a second (open loop: a write
 *     is sent on schedule whether or not the previous one was answered), and takes, for every
 *     consumer and every write, the delay from the write's 201 (its whole answer received) to
 *     the event of that record arriving on that consumer's stream (its `data:` line parsed). An
 *     event may arrive before its 201 (the write is committed before it is answered): its delay
 *     is then negative, and counted as it is;
 *  3. waits until every consumer has every event (at most BENCH_FEED_WAIT seconds after the last
 *     201) and reports the delays' percentiles, the events missing, the statements per second
 *     and the service's CPU while writing, and its RSS.
 *
 * Nothing here assumes how the service finds new events (a poll interval, a nudge on commit):
 * it measures what the code does. The consumers and the writer share this process, whose event
 * loop delay is reported beside the delays: when it is large, part of the delay is the client's.
 */
'use strict';

const http = require('node:http');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const lib = require('../lib');

const { fail } = lib;

const FEED_PATH = '/api/events';
const WRITE_PATH = '/api/demo/marbles';
/** Streams opened at once: a burst of a thousand connections would overflow the listen backlog. */
const OPEN_BATCH = 50;

/** The numbers of consumers measured, BENCH_FEED_CONSUMERS (default 1,100,1000). */
function feedLevels() {
  const raw = process.env.BENCH_FEED_CONSUMERS || '1,100,1000';
  const levels = raw.split(',').map((s) => s.trim());
  if (!levels.every((s) => /^[1-9]\d{0,4}$/.test(s))) {
    throw fail(`BENCH_FEED_CONSUMERS must be whole numbers from 1 to 99999, got "${raw}"`);
  }
  return levels.map(Number);
}

/** One scenario per number of consumers; BENCH_ONLY matches their names. */
function feedScenarios() {
  return feedLevels().map((consumers) => ({
    name: `events to ${consumers} consumer${consumers === 1 ? '' : 's'}`,
    consumers,
    service: 'serviceFeed',
    feed: true,
    /** The target: p99 under 500 ms at 1,000 consumers. */
    p99Target: consumers >= 1000 ? 500 : undefined,
  }));
}

function feedSettings() {
  return {
    rate: lib.positiveInt('BENCH_FEED_RATE', 20, 1000),
    writes: lib.positiveInt('BENCH_FEED_WRITES', 200, 100_000),
    idle: lib.positiveInt('BENCH_FEED_IDLE', 5, 600),
    wait: lib.positiveInt('BENCH_FEED_WAIT', 10, 600),
  };
}

/** Milliseconds the feed rows may take, for the run's watchdog. */
function feedBudgetMs(scenarios) {
  const s = feedSettings();
  const perLevel = (n) => 60_000 + n * 100 + (s.idle + s.writes / s.rate + s.wait + 30) * 1000;
  return scenarios.reduce((ms, scenario) => ms + perLevel(scenario.consumers), 0);
}

// ---------------------------------------------------------------------------------------------
// Consumers

/**
 * One stream. Resolves once the server's first comment line has arrived (the stream is live
 * from then on); `onEvent(data, at)` is called with each event's `data:` text and the moment
 * its chunk was read.
 */
function openConsumer(port, onEvent) {
  return new Promise((resolve, reject) => {
    const consumer = { closed: false, close: () => req.destroy() };
    const req = http.request(
      {
        host: lib.HOST,
        port,
        path: FEED_PATH,
        headers: { Accept: 'text/event-stream' },
        agent: false,
      },
      (res) => {
        const type = res.headers['content-type'] || '';
        if (res.statusCode !== 200 || !type.startsWith('text/event-stream')) {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () =>
            reject(
              fail(
                `GET ${FEED_PATH} (event stream) answered ${res.statusCode} ${type}: ` +
                  Buffer.concat(chunks).toString().slice(0, 300),
              ),
            ),
          );
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        let open = false;
        res.on('data', (chunk) => {
          const at = performance.now();
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!open) {
              open = true;
              resolve(consumer);
            }
            const data = /^data: (.*)$/m.exec(block);
            if (data) onEvent(data[1], at);
          }
        });
        res.on('close', () => (consumer.closed = true));
      },
    );
    req.on('error', (error) => {
      consumer.closed = true;
      reject(fail(`GET ${FEED_PATH} (event stream): ${error.message}`));
    });
    req.setTimeout(60_000, () => {
      if (!consumer.closed && !consumer.opened) req.destroy(new Error('no answer in 60 s'));
    });
    req.end();
  }).then((consumer) => {
    consumer.opened = true;
    return consumer;
  });
}

async function openConsumers(port, n, onEvent) {
  const consumers = [];
  try {
    for (let i = 0; i < n; i += OPEN_BATCH) {
      const batch = Math.min(OPEN_BATCH, n - i);
      consumers.push(
        ...(await Promise.all(Array.from({ length: batch }, () => openConsumer(port, onEvent)))),
      );
    }
  } catch (error) {
    for (const c of consumers) c.close();
    throw error;
  }
  return consumers;
}

// ---------------------------------------------------------------------------------------------
// The service's side: statements, CPU, memory

/** The service's statements so far: the sum of every `db_query_duration_seconds_count` series. */
async function statements(port) {
  const res = await lib.get(port, '/metrics', {}, 30_000);
  if (res.status !== 200) throw fail(`GET /metrics answered ${res.status}: ${res.body}`);
  let total = 0;
  let seen = false;
  for (const line of res.body.toString('utf8').split('\n')) {
    const match = /^db_query_duration_seconds_count(?:\{[^}]*\})? (\S+)$/.exec(line);
    if (match) {
      total += Number(match[1]);
      seen = true;
    }
  }
  if (!seen) throw fail('GET /metrics has no db_query_duration_seconds_count series');
  return total;
}

/** What the service has done so far: statements, CPU ms, at a moment (ms). */
async function sample(server) {
  const count = await statements(server.port);
  return { statements: count, cpuMs: lib.cpuMs(server.pid), at: performance.now() };
}

/** Per second between two samples (the /metrics request itself runs no statement). */
function rates(from, to) {
  const seconds = (to.at - from.at) / 1000;
  return {
    statements: (to.statements - from.statements) / seconds,
    cpuMsPerSecond: (to.cpuMs - from.cpuMs) / seconds,
  };
}

// ---------------------------------------------------------------------------------------------
// One level

const sleep = lib.sleep;

/** Resolves once `done()` holds, looking every 20 ms, or after `ms` (resolving false). */
async function until(done, ms) {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

async function measureLevel(server, scenario, settings, tag) {
  const n = scenario.consumers;
  /** Per record id written: when its 201 came, when its event reached each consumer. */
  const records = new Map();
  let foreign = 0;
  const entry = (id) => {
    let record = records.get(id);
    if (!record) records.set(id, (record = { ackAt: undefined, arrivals: [] }));
    return record;
  };
  let delivered = 0;
  const onEvent = (data, at) => {
    const match = /"record_id":(\d+)/.exec(data);
    const id = match && Number(match[1]);
    if (id === null || (!records.has(id) && !writing)) {
      foreign++;
      return;
    }
    entry(id).arrivals.push(at);
    delivered++;
  };
  let writing = false;
  const consumers = await openConsumers(server.port, n, onEvent);
  try {
    const rssOpen = lib.rssKiB(server.pid);
    // Idle: N streams open, nothing written.
    const idleFrom = await sample(server);
    await sleep(settings.idle * 1000);
    const idle = rates(idleFrom, await sample(server));
    const rssIdle = lib.rssKiB(server.pid);

    // Writing: `writes` creates at `rate` a second.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    writing = true;
    const writeFrom = await sample(server);
    const started = performance.now();
    const interval = 1000 / settings.rate;
    const sent = [];
    const refused = [];
    for (let i = 0; i < settings.writes; i++) {
      const wait = started + i * interval - performance.now();
      if (wait > 0) await sleep(wait);
      const body = JSON.stringify({
        name: `bench-${tag}-${i}`,
        radius_mm: 12,
        price: '12.5',
        user_id: 3,
      });
      sent.push(
        lib.request(server.port, 'POST', WRITE_PATH, { body, timeoutMs: 60_000 }).then(
          (res) => {
            const at = performance.now();
            const id = /\/(\d+)$/.exec(res.headers.location || '');
            if (res.status !== 201 || !id) {
              refused.push(`${res.status} ${res.body.toString().slice(0, 200)}`);
              return;
            }
            entry(Number(id[1])).ackAt = at;
          },
          (error) => refused.push(error.message),
        ),
      );
    }
    await Promise.all(sent);
    const lastAck = performance.now();
    const written = settings.writes - refused.length;
    const complete = await until(() => delivered >= written * n, settings.wait * 1000);
    const writeTo = await sample(server);
    writing = false;
    loop.disable();
    const busy = rates(writeFrom, writeTo);
    const statementsPerCreate = (writeTo.statements - writeFrom.statements) / settings.writes;
    const rssAfter = lib.rssKiB(server.pid);

    const delays = [];
    /** Per event, its first arrival at any consumer: the feed's path before the fan-out. */
    const firsts = [];
    let duplicates = 0;
    for (const record of records.values()) {
      if (record.ackAt === undefined) continue;
      duplicates += Math.max(0, record.arrivals.length - n);
      for (const at of record.arrivals) delays.push(at - record.ackAt);
      if (record.arrivals.length) firsts.push(Math.min(...record.arrivals) - record.ackAt);
    }
    delays.sort((a, b) => a - b);
    firsts.sort((a, b) => a - b);
    const closedEarly = consumers.filter((c) => c.closed).length;
    return {
      scenario,
      consumers: n,
      written,
      refused,
      expected: written * n,
      delivered: delays.length,
      duplicates,
      foreign,
      complete,
      closedEarly,
      p50: percentile(delays, 0.5),
      p99: percentile(delays, 0.99),
      max: delays.length ? delays[delays.length - 1] : NaN,
      firstP50: percentile(firsts, 0.5),
      firstP99: percentile(firsts, 0.99),
      writeSeconds: (lastAck - started) / 1000,
      idle,
      busy,
      statementsPerCreate,
      rssOpen,
      rssIdle,
      rssAfter,
      clientLoopP99: loop.percentile(99) / 1e6,
    };
  } finally {
    for (const c of consumers) c.close();
  }
}

/** Nearest-rank percentile of sorted values (NaN for none). */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

// ---------------------------------------------------------------------------------------------
// The rows

/**
 * Measures every scenario (a number of consumers) on `server` ({ port, pid }), in the order
 * given, after a warm-up level of one consumer that is not reported. `cleanUp()` removes what
 * the writes added; it runs after each level.
 */
async function measureFeed(server, scenarios, { cleanUp }) {
  const settings = feedSettings();
  const tag = Date.now().toString(36);
  console.log(
    `\nChange feed: ${scenarios.map((s) => s.consumers).join(', ')} consumers on ` +
      `GET ${FEED_PATH} (one instance, port ${server.port}); ${settings.writes} creates at ` +
      `${settings.rate}/s per level, ${settings.idle} s idle before.`,
  );
  process.stdout.write('  warm-up (1 consumer, not reported) ');
  const warm = { ...settings, writes: Math.min(settings.writes, 2 * settings.rate), idle: 1 };
  await measureLevel(server, { consumers: 1 }, warm, `${tag}w`);
  await cleanUp();
  console.log('done');
  // No stream open (the warm-up's is closed): what the feed costs an instance nobody reads.
  const before = await sample(server);
  await sleep(settings.idle * 1000);
  const quiet = { ...rates(before, await sample(server)), rss: lib.rssKiB(server.pid) };
  const rows = [];
  for (const [i, scenario] of scenarios.entries()) {
    process.stdout.write(`  ${scenario.name.padEnd(34)}`);
    const row = await measureLevel(server, scenario, settings, `${tag}${i}`);
    await cleanUp();
    console.log(
      `delay p50 ${ms(row.p50)} ms, p99 ${ms(row.p99)} ms; ` +
        `${row.delivered} of ${row.expected} events`,
    );
    rows.push(row);
  }
  return { settings, quiet, rows };
}

const ms = (v) => (Number.isNaN(v) ? '-' : Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(1));
const mib = (kib) => (kib === undefined ? '-' : (kib / 1024).toFixed(1));
const perSecond = (v) => v.toFixed(1);

/** Prints the rows as a Markdown table; false when an event went missing or a write failed. */
function printFeed({ settings, quiet, rows }) {
  const header = [
    'consumers',
    'events',
    'creates/s',
    'delay p50 ms',
    'p99 ms',
    'max ms',
    'first p50',
    'first p99',
    'statements/s idle',
    'per create',
    'CPU ms/s idle',
    'writing',
    'RSS MiB idle',
    'after writes',
    'client loop p99 ms',
    'target',
  ];
  const body = rows.map((r) => [
    String(r.consumers),
    `${r.delivered} / ${r.expected}`,
    perSecond(r.written / r.writeSeconds),
    ms(r.p50),
    ms(r.p99),
    ms(r.max),
    ms(r.firstP50),
    ms(r.firstP99),
    perSecond(r.idle.statements),
    perSecond(r.statementsPerCreate),
    perSecond(r.idle.cpuMsPerSecond),
    perSecond(r.busy.cpuMsPerSecond),
    mib(r.rssIdle),
    mib(r.rssAfter),
    ms(r.clientLoopP99),
    r.scenario.p99Target === undefined
      ? ''
      : `p99 < ${r.scenario.p99Target} ${r.p99 < r.scenario.p99Target && r.complete ? 'met' : 'MISSED'}`,
  ]);
  console.log(
    `\nChange feed: per row, N streams on GET ${FEED_PATH} of one instance, ` +
      `${settings.idle} s idle, then ${settings.writes} creates at ${settings.rate}/s. ` +
      'events: delivered / (creates answered 201 x consumers); creates/s: as sent, from the ' +
      'first to the last 201; delay: from the 201 to the ' +
      "event's data line at each consumer (nearest rank over every consumer and event), first: " +
      "to each event's first arrival at any consumer (the path before the fan-out); " +
      'statements: the sum of db_query_duration_seconds_count on /metrics, a second while ' +
      "idle, and per create while writing (everything the instance sent: the creates' own, " +
      "the sequencer's, the reader's); CPU ms/s: the service process; RSS: " +
      'after the idle seconds and after the writes; client loop p99: the event loop delay of ' +
      'this process (the consumers and the writer), while writing.\n',
  );
  console.log(
    `Before any stream: ${perSecond(quiet.statements)} statements/s, ` +
      `${perSecond(quiet.cpuMsPerSecond)} CPU ms/s, RSS ${mib(quiet.rss)} MiB.\n`,
  );
  console.log(lib.table(header, body));
  const problems = rows.flatMap((r) => [
    ...(r.refused.length
      ? [`${r.scenario.name}: ${r.refused.length} creates failed, e.g. ${r.refused[0]}`]
      : []),
    ...(r.complete ? [] : [`${r.scenario.name}: ${r.expected - r.delivered} events never arrived`]),
    ...(r.closedEarly ? [`${r.scenario.name}: ${r.closedEarly} streams closed early`] : []),
    ...(r.duplicates ? [`${r.scenario.name}: ${r.duplicates} events arrived twice`] : []),
    ...(r.foreign ? [`${r.scenario.name}: ${r.foreign} events of other writes`] : []),
  ]);
  if (problems.length) console.log(`\nWARNING:\n  ${problems.join('\n  ')}`);
  return !rows.some((r) => r.refused.length || !r.complete || r.closedEarly);
}

module.exports = { feedScenarios, feedBudgetMs, measureFeed, printFeed, openConsumers };
