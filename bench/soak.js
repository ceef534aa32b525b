#!/usr/bin/env node
/**
 * `npm run soak`: the service under steady load for a bounded time, watching its memory.
 *
 *  1. Seeds the benchmark database with SOAK_MARBLES marbles unless it already holds that many.
 *  2. Starts the service (as `npm start` runs it, port SOAK_PORT) on it.
 *  3. Measures its capacity on a mix of read routes (wrk, SOAK_CAPACITY_SECONDS, as fast as it
 *     answers), then runs the same mix at SOAK_LOAD_PERCENT of that rate (paced by bench/lua/soak.lua,
 *     since wrk2 is not packaged) for SOAK_MINUTES, one wrk run per minute.
 *  4. Prints one line per minute: requests/s, p50, p99, failed requests and the server's resident
 *     memory (VmRSS from /proc/PID/status, read every second): at the end of the minute, and the
 *     lowest of the minute, which is what the process keeps between garbage collections.
 *  5. Exits 1 if that lowest RSS grew by more than SOAK_MAX_RSS_GROWTH_MB from minute 2 to the
 *     last minute (from minute 1 when there are only 2; with 1 minute, shown, not judged), if any
 *     request failed, or if a minute got no result from wrk. It stops by itself: a watchdog ends
 *     it past its time budget.
 *
 * Usage: npm run soak, or `node bench/soak.js` after `npm run build`; SOAK_MINUTES=1 to try it.
 *
 * Environment:
 *   SOAK_MINUTES              minutes of paced load, default 10 (1 to 120)
 *   SOAK_LOAD_PERCENT         paced rate, percent of the measured capacity, default 50
 *   SOAK_CAPACITY_SECONDS     length of the capacity measurement, default 10
 *   SOAK_CONNECTIONS          connections, default 10
 *   SOAK_MAX_RSS_GROWTH_MB    allowed growth of the lowest RSS from minute 2 to the last,
 *                             default 32 (MiB)
 *   SOAK_MARBLES              marbles in the database, default 10000
 *   SOAK_PORT                 port of the service, default 3110 (out of the way of npm run bench)
 *   BENCH_MYSQL_URL           as for npm run bench (loopback, a database named *bench*)
 *   BENCH_WRK, BENCH_NODE,    as for npm run bench (by default the service runs on the image's
 *   LOG_LEVEL                 Node line)
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const lib = require('./lib');

const { fail } = lib;
const SOAK_SCRIPT = path.join(__dirname, 'lua', 'soak.lua');
/** The mix, in turn; `%d` runs 1..333, so pages, ids and searches vary (a cache keyed by URL shows). */
const MIX = [
  '/api/demo/marbles',
  '/api/demo/marbles?page=%d',
  '/api/demo/marbles.xml?page=%d&page_size=40',
  '/api/demo/marbles/%d',
  '/api/demo/emails',
  '/api/demo/emails.xml?page=%d',
  '/api/demo/emails?search=%d&ordering=-email',
  '/api/plain/movies',
  '/api/demo/emails/ping',
];

function loadSettings() {
  return {
    db: lib.databaseSettings(),
    minutes: lib.positiveInt('SOAK_MINUTES', 10, 120),
    loadPercent: lib.positiveInt('SOAK_LOAD_PERCENT', 50, 100),
    capacitySeconds: lib.positiveInt('SOAK_CAPACITY_SECONDS', 10, 300),
    connections: lib.positiveInt('SOAK_CONNECTIONS', 10, 1000),
    maxGrowthMiB: lib.positiveInt('SOAK_MAX_RSS_GROWTH_MB', 32, 100_000),
    marbles: lib.positiveInt('SOAK_MARBLES', 10_000, 50_000_000),
    port: lib.positiveInt('SOAK_PORT', 3110, 65535, 1024),
  };
}

const mib = (kib) => (kib === undefined ? '-' : (kib / 1024).toFixed(1));
const ms = (v) => (Number.isNaN(v) ? '-' : v.toFixed(2));

async function main() {
  const settings = loadSettings();
  const wrk = lib.checkWrk();
  const mainScript = path.join(lib.ROOT, 'dist/main.js');
  if (!fs.existsSync(mainScript)) throw fail('dist/ is missing: run `npm run build` first');
  const budget =
    lib.seedBudgetMs(settings.marbles) +
    120_000 +
    (settings.capacitySeconds + 5 + 60) * 1000 +
    settings.minutes * 120_000;
  lib.watchdog('soak', budget);

  await lib.createDatabase(settings.db);
  const held = await lib.marbleCount(settings.db);
  if (held === settings.marbles) {
    console.log(`Database ${lib.redact(settings.db.mysqlUrl)}: ${held} marbles, reused.`);
  } else {
    process.stdout.write(
      `Database ${lib.redact(settings.db.mysqlUrl)}: seeding ${settings.marbles} marbles...`,
    );
    await lib.seed(settings.db, settings.marbles);
    console.log(' done');
  }

  if (await lib.portInUse(settings.port)) {
    throw fail(`port ${settings.port} is already in use (SOAK_PORT picks another)`);
  }
  const env = {
    DATABASE_URL: settings.db.mysqlUrl,
    DEMO_DATA: 'false',
    PORT: String(settings.port),
  };
  const service = lib.startChild(
    `service (port ${settings.port})`,
    [...lib.serviceNodeFlags(), mainScript],
    env,
  );
  let ok = false;
  try {
    await lib.waitUntilAnswering(service, settings.port, '/api/demo/marbles/1', 90_000);
    const pid = service.proc.pid;
    const load = (rate, seconds) => {
      if (service.exit) {
        throw fail(`the service exited (code ${service.exit.code}):\n${lib.logTail(service)}`);
      }
      return lib.runWrk({
        port: settings.port,
        path: '/',
        connections: settings.connections,
        duration: seconds,
        script: SOAK_SCRIPT,
        scriptArgs: [String(rate), String(settings.connections), ...MIX],
      });
    };

    console.log(
      `${wrk}; Node ${lib.serverNodeVersion()}; service pid ${pid}, RSS ${mib(lib.rssKiB(pid))} MiB after start`,
    );
    await load(0, 5); // warm-up
    const capacity = await load(0, settings.capacitySeconds);
    const rate = Math.max(1, Math.round((capacity.rps * settings.loadPercent) / 100));
    console.log(
      `Capacity on the mix (${MIX.length} routes, ${settings.connections} connections, ` +
        `${settings.capacitySeconds} s): ${capacity.rps.toFixed(0)} req/s, p99 ${ms(capacity.p99)} ms`,
    );
    console.log(
      `Soak: ${settings.minutes} min at ${rate} req/s (${settings.loadPercent}%); ` +
        `RSS ${mib(lib.rssKiB(pid))} MiB at the start\n`,
    );

    const minutes = [];
    let lost = 0;
    for (let minute = 1; minute <= settings.minutes; minute++) {
      const label = `minute ${String(minute).padStart(3)}:`;
      let r;
      const sampler = sampleRss(pid);
      try {
        r = await load(rate, 60);
      } catch (error) {
        // wrk stopped from outside (the service is checked before every run): the minute is
        // lost, the memory trend is still worth finishing.
        if (!error.bench || service.exit) throw error;
        lost++;
        const rss = sampler.stop();
        minutes.push({ rss, failed: 0 });
        console.log(
          `${label} no result (${error.message.split(':')[0]})  RSS ${mib(rss.last)} MiB`,
        );
        continue;
      }
      const rss = sampler.stop();
      const failed = r.socketErrors + r.non2xx + r.timeouts;
      minutes.push({ ...r, rss, failed });
      console.log(
        `${label} ${r.rps.toFixed(0).padStart(6)} req/s` +
          `  p50 ${ms(r.p50).padStart(7)} ms  p99 ${ms(r.p99).padStart(7)} ms` +
          `  failed ${String(failed).padStart(4)}` +
          `  RSS ${mib(rss.last).padStart(7)} MiB (lowest ${mib(rss.min).padStart(7)})` +
          (failed
            ? `  (${r.non2xx} status >= 400, ${r.socketErrors} socket errors, ${r.timeouts} timeouts)`
            : ''),
      );
    }
    ok = judge(settings, minutes);
    if (lost > 0) {
      console.log(`FAIL: ${lost} minute(s) without a wrk result`);
      ok = false;
    }
  } finally {
    await lib.stopChild(service);
  }
  process.exitCode = ok ? 0 : 1;
}

/**
 * The server's RSS once a second while a minute runs: the last value, and the lowest, which is
 * what the process keeps between collections (a leak raises it; a heap that breathes does not).
 */
function sampleRss(pid) {
  let min;
  const take = () => {
    const kib = lib.rssKiB(pid);
    if (kib !== undefined && (min === undefined || kib < min)) min = kib;
    return kib;
  };
  const timer = setInterval(take, 1000);
  return {
    stop() {
      clearInterval(timer);
      const last = take();
      return { last, min };
    },
  };
}

/** Memory growth and failed requests: the verdict, printed. */
function judge(settings, minutes) {
  let ok = true;
  const failed = minutes.reduce((n, m) => n + m.failed, 0);
  if (failed > 0) {
    console.log(`\nFAIL: ${failed} requests failed (socket errors, timeouts or status >= 400)`);
    ok = false;
  }
  const last = minutes[minutes.length - 1];
  if (minutes.length === 1) {
    console.log(
      `\nLowest RSS ${mib(last.rss.min)} MiB in minute 1: too short to judge growth ` +
        '(from minute 2 to the end needs SOAK_MINUTES >= 3)',
    );
    return ok;
  }
  const from = minutes.length >= 3 ? 2 : 1;
  const start = minutes[from - 1].rss.min;
  const end = last.rss.min;
  if (start === undefined || end === undefined || last.rss.last === undefined) {
    console.log('\nFAIL: the service process is gone, no RSS to compare');
    return false;
  }
  const growth = (end - start) / 1024;
  const verdict = growth > settings.maxGrowthMiB ? 'FAIL' : 'ok';
  console.log(
    `\n${verdict}: lowest RSS ${mib(start)} MiB in minute ${from}, ${mib(end)} MiB in minute ` +
      `${minutes.length}: ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB ` +
      `(threshold +${settings.maxGrowthMiB} MiB, SOAK_MAX_RSS_GROWTH_MB)`,
  );
  return ok && verdict === 'ok';
}

lib.runMain('soak', main);
