#!/usr/bin/env node
/**
 * `npm run probe`: the reliability probe, repeatable. It starts a MariaDB of its own (a
 * `mariadbd --no-defaults` with its datadir, port and socket under a temporary folder, stopped by
 * its PID; no other database server is touched) and the service on it (dist/main.js, with an
 * API_TOKEN), then checks, each bounded in count and time and only on 127.0.0.1:
 *
 *  1. Acknowledged writes: four clients create marbles (a unique name each, half with an
 *     Idempotency-Key, a failed keyed create retried with its key) while the probe kills its
 *     mariadbd with SIGKILL and restarts it, then three times freezes it (SIGSTOP) 4 s and
 *     resumes it (SIGCONT). Every 201 must be a row at the end (lost = 0); a retried key must give
 *     exactly one row and never run the create twice (duplicates = 0). An unkeyed create answered
 *     503 "try again" must not be a row (written writes answered "unavailable" = 0), nor may a
 *     keyed one be replayed after nothing but "try again"; "may have been saved" may be either.
 *  2. If-Match races: on each single-record write (PUT, PATCH, DELETE, adjust_price,
 *     toggle_is_discounted), PROBE_RACERS concurrent requests with the same current ETag: exactly
 *     one 2xx, every other one 412.
 *  3. Token checks: every write route and method, with path variants and method spellings,
 *     without the token, with a wrong one, one a character short and with `Bearer` misspelled;
 *     no answer may be a 2xx and no table may change (CHECKSUM TABLE before and after).
 *  4. JSON flood: four clients send 1 MB of nested `[` in a loop while a fifth measures the p50
 *     of `GET /api/demo/marbles/1`, against the same p50 without them.
 *  5. Lock wait timeouts and killed queries (bench/probe/probe-locks.js): writers with and without
 *     keys while other sessions hold the rows they wait for and KILL QUERY ends the waits; then
 *     the pool reused. Every marble's version must have grown by its 2xx updates (no more, apart
 *     from "may have been saved"), keyed requests written once, no transaction left open.
 *
 * The whole run is on a mariadbd with innodb_lock_wait_timeout=2, below the service's write
 * deadline (QUERY_TIMEOUT_MS=2000 plus 1 s). Prints a table and exits 1 if an invariant is broken
 * (lost > 0, duplicates > 0, a "try again" that was written, a race without exactly one winner, a
 * write without the token, a half-committed write). The watchdog stops everything past 8 minutes.
 *
 * Usage: npm run probe, or `node bench/probe/probe.js` after `npm run build`.
 *
 * Environment:
 *   PROBE_PORT       port of the service, default 3120
 *   PROBE_RACERS     concurrent If-Match requests per route, default 40
 *   PROBE_SECONDS    length of the write load under the database's kill and freeze, default 30
 *   PROBE_LOCK_SECONDS  length of section 5's writes under held locks and kills, default 40
 *   BENCH_NODE       the Node the service runs on; default here: this machine's (`machine`)
 */
'use strict';

process.env.BENCH_NODE ??= 'machine';

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const lib = require('../lib');
const { HOST, send, writeOutcome } = require('./probe-http');
const { lockChaos, lockRows } = require('./probe-locks');
const { tokenChecks } = require('./probe-tokens');
const { startServer } = require('../../scripts/mariadb-pair');

const { fail } = lib;
const TOKEN = 'probe-token-7f3a9c2e51';
const DB = 'probe';
const DB_USER = 'probe';
const DB_PASSWORD = 'probe-secret';
/** The probe's mariadbd gives up a lock wait after this many seconds (below the write deadline). */
const LOCK_WAIT_S = 2;
/** Writes through the pool after the lock waits and kills of section 5. */
const REUSE_WRITES = 400;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const AUTH = { Authorization: `Bearer ${TOKEN}` };

// ---------------------------------------------------------------------------------------------
// 1. Acknowledged writes under kill -9 and SIGSTOP of the database

async function acknowledgedWrites(port, db, seconds) {
  const acknowledged = new Set(); // names answered 201
  const stats = {
    attempts: 0,
    created: 0,
    failed: 0,
    keyed: 0,
    retriedKeys: 0,
    duplicates: 0,
    unsettled: 0,
    settleMs: 0,
    replayedAfterTryAgain: 0,
  };
  const retried = new Map(); // key -> name
  // Unkeyed creates answered 503 (never retried): "try again" must mean nothing was written.
  const tryAgain = new Set();
  const maybeSaved = new Set(); // "may have been saved", or no answer
  const statuses = {};
  const count = (s) => (statuses[s] = (statuses[s] ?? 0) + 1);
  let running = true;

  async function create(name, key) {
    const headers = { ...AUTH };
    if (key) headers['Idempotency-Key'] = key;
    stats.attempts++;
    const res = await send(port, 'POST', '/api/demo/marbles', {
      headers,
      body: { name, radius_mm: 7 },
    });
    count(res.error ? 'no answer' : res.status);
    return res;
  }

  async function client(n) {
    for (let i = 0; running; i++) {
      const name = `probe-ack-${n}-${i}`;
      const key = i % 2 === 0 ? `probe-key-${n}-${i}` : undefined;
      if (key) stats.keyed++;
      let res = await create(name, key);
      const outcomes = [writeOutcome(res)];
      if (!key && outcomes[0] === 'tryAgain') tryAgain.add(name);
      if (!key && outcomes[0] === 'maybe') maybeSaved.add(name);
      if (key && res.status !== 201) {
        // A keyed create that failed is retried with its key until it is answered: the
        // service must either replay it or run it once.
        retried.set(key, name);
        const since = Date.now();
        const until = since + 90_000;
        while (res.status !== 201 && Date.now() < until) {
          if (res.status === 400 || res.status === 422) break;
          await sleep(500);
          res = await create(name, key);
          outcomes.push(writeOutcome(res));
        }
        // Replayed after nothing but "try again": one of those had been written.
        if (
          res.headers?.['idempotent-replayed'] === 'true' &&
          outcomes.slice(0, -1).every((o) => o === 'tryAgain')
        ) {
          stats.replayedAfterTryAgain++;
        }
        // The create ran again: the name's unique key refused it (the first one had been
        // written, the key did not know).
        if (res.status === 201) stats.settleMs = Math.max(stats.settleMs, Date.now() - since);
        if (/already exists/.test(res.text ?? '')) stats.duplicates++;
        else if (res.status !== 201) stats.unsettled++;
      }
      if (res.status === 201) {
        acknowledged.add(name);
        stats.created++;
      } else {
        stats.failed++;
        if (!res.error && res.status < 500 && res.status !== 409) {
          console.log(`  unexpected ${res.status} for ${name}: ${res.text.slice(0, 200)}`);
        }
        await sleep(100);
      }
    }
  }

  const chaos = (async () => {
    const t0 = Date.now();
    const at = async (s) => {
      const wait = t0 + s * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
    };
    await at(seconds * 0.15);
    console.log('  kill -9 mariadbd');
    await db.kill();
    await sleep(1500);
    await db.start();
    console.log('  mariadbd restarted');
    // Three freezes, each longer than a write's deadline: every one catches writes between
    // their COMMIT and the answer.
    for (const share of [0.4, 0.6, 0.8]) {
      await at(seconds * share);
      console.log('  SIGSTOP mariadbd');
      db.signal('SIGSTOP');
      await sleep(4000);
      db.signal('SIGCONT');
      console.log('  SIGCONT mariadbd');
    }
    await at(seconds);
    running = false;
  })();

  await Promise.all([chaos, ...[0, 1, 2, 3].map(client)]);
  const rows = await db.query(
    `SELECT name, COUNT(*) AS n FROM \`${DB}\`.marbles WHERE name LIKE 'probe-ack-%' GROUP BY name`,
  );
  const inDb = new Map(rows.map((r) => [r.name, Number(r.n)]));
  const lost = [...acknowledged].filter((name) => !inDb.has(name));
  stats.retriedKeys = retried.size;
  for (const name of retried.values()) if ((inDb.get(name) ?? 0) !== 1) stats.duplicates++;
  stats.rows = rows.length;
  const writtenTryAgain = [...tryAgain].filter((name) => inDb.has(name));
  return {
    ...stats,
    lost: lost.length,
    lostNames: lost.slice(0, 5),
    statuses,
    tryAgain: tryAgain.size,
    writtenTryAgain: writtenTryAgain.length,
    writtenTryAgainNames: writtenTryAgain.slice(0, 5),
    maybeSaved: maybeSaved.size,
    maybeWritten: [...maybeSaved].filter((name) => inDb.has(name)).length,
  };
}

// ---------------------------------------------------------------------------------------------
// 2. If-Match races

async function ifMatchRaces(port, racers) {
  const routes = [
    {
      label: 'PUT /marbles/{id}',
      method: 'PUT',
      suffix: '',
      body: (i, name) => ({ name, radius_mm: i + 1 }),
    },
    {
      label: 'PATCH /marbles/{id}',
      method: 'PATCH',
      suffix: '',
      body: (i) => ({ radius_mm: i + 1 }),
    },
    { label: 'DELETE /marbles/{id}', method: 'DELETE', suffix: '' },
    {
      label: 'PATCH …/adjust_price',
      method: 'PATCH',
      suffix: '/adjust_price',
      body: (i) => ({ price: `${i + 1}.5` }),
    },
    { label: 'PATCH …/toggle_is_discounted', method: 'PATCH', suffix: '/toggle_is_discounted' },
  ];
  const results = [];
  for (const route of routes) {
    const name = `probe-race-${route.method}-${route.suffix || 'record'}`;
    const made = await send(port, 'POST', '/api/demo/marbles', {
      headers: AUTH,
      body: { name, radius_mm: 3, price: '1.5' },
    });
    if (made.status !== 201) throw fail(`race setup: ${made.status} ${made.text}`);
    const id = made.json.id;
    const current = await send(port, 'GET', `/api/demo/marbles/${id}`);
    const etag = current.headers.etag;
    if (!etag) throw fail(`GET /api/demo/marbles/${id} has no ETag`);
    const answers = await Promise.all(
      Array.from({ length: racers }, (_, i) =>
        send(port, route.method, `/api/demo/marbles/${id}${route.suffix}`, {
          headers: { ...AUTH, 'If-Match': etag },
          body: route.body?.(i, name),
        }),
      ),
    );
    const won = answers.filter((a) => a.status >= 200 && a.status < 300).length;
    const refused = answers.filter((a) => a.status === 412).length;
    const others = {};
    for (const a of answers) {
      if (a.status === 412 || (a.status >= 200 && a.status < 300)) continue;
      const key = a.error ? 'no answer' : a.status;
      others[key] = (others[key] ?? 0) + 1;
    }
    results.push({ label: route.label, won, refused, other: racers - won - refused, others });
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// 4. JSON flood

async function p50(port, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  const until = Date.now() + seconds * 1000;
  let failed = 0;
  while (Date.now() < until) {
    const start = process.hrtime.bigint();
    const res = await send(port, 'GET', '/api/demo/marbles/1', { agent });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.status !== 200) failed++;
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], count: times.length, failed };
}

async function jsonFlood(port, seconds) {
  const baseline = await p50(port, seconds);
  const body = Buffer.alloc(1024 * 1024, '[');
  let running = true;
  let floods = 0;
  const floodStatuses = {};
  const attacker = async () => {
    while (running) {
      const status = await new Promise((resolve) => {
        const req = http.request(
          {
            host: HOST,
            port,
            path: '/api/demo/marbles',
            method: 'POST',
            agent: false,
            headers: { ...AUTH, 'Content-Type': 'application/json', 'Content-Length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode));
          },
        );
        req.setTimeout(15_000, () => req.destroy());
        req.on('error', () => resolve(0));
        req.end(body);
      });
      floods++;
      floodStatuses[status] = (floodStatuses[status] ?? 0) + 1;
    }
  };
  const attackers = [0, 1, 2, 3].map(attacker);
  await sleep(500);
  const attacked = await p50(port, seconds);
  running = false;
  await Promise.all(attackers);
  return { baseline, attacked, floods, floodStatuses };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  lib.watchdog('probe', 8 * 60_000);
  const port = lib.positiveInt('PROBE_PORT', 3120, 65535, 1024);
  const racers = lib.positiveInt('PROBE_RACERS', 40, 500, 2);
  const seconds = lib.positiveInt('PROBE_SECONDS', 30, 600, 10);
  const lockSeconds = lib.positiveInt('PROBE_LOCK_SECONDS', 40, 600, 5);
  const mainScript = path.join(lib.ROOT, 'dist/main.js');
  if (!fs.existsSync(mainScript)) throw fail('dist/ is missing: run `npm run build` first');
  if (await lib.portInUse(port)) throw fail(`port ${port} is in use (PROBE_PORT picks another)`);

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'records-probe-'));
  let db;
  let service;
  const cleanUp = () => {
    db?.signal('SIGCONT');
    db?.signal('SIGKILL');
  };
  process.on('exit', cleanUp);
  let ok = true;
  try {
    db = await startServer(root, 'probe', [`--innodb-lock-wait-timeout=${LOCK_WAIT_S}`]);
    await db.query(`CREATE DATABASE \`${DB}\` CHARACTER SET utf8mb4`);
    await db.query(`CREATE USER '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${DB_PASSWORD}'`);
    await db.query(`GRANT ALL ON \`${DB}\`.* TO '${DB_USER}'@'127.0.0.1'`);
    console.log(`Own mariadbd pid ${db.child.pid} on 127.0.0.1:${db.port} (${root})`);

    service = lib.startChild(`service (port ${port})`, [...lib.serviceNodeFlags(), mainScript], {
      DATABASE_URL: `mysql://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${db.port}/${DB}`,
      API_TOKEN: TOKEN,
      PORT: String(port),
      QUERY_TIMEOUT_MS: '2000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    });
    await lib.waitUntilAnswering(service, port, '/api/demo/marbles/1', 90_000);
    console.log(
      `Service pid ${service.proc.pid} on Node ${lib.serverNodeVersion()}, port ${port}\n`,
    );

    console.log(`1. Acknowledged writes (${seconds} s, kill -9 and SIGSTOP of mariadbd)`);
    const ack = await acknowledgedWrites(port, db, seconds);
    console.log(`  statuses: ${JSON.stringify(ack.statuses)}`);
    await lib.waitUntilAnswering(service, port, '/api/demo/marbles/1', 60_000);

    console.log(`2. If-Match races (${racers} concurrent requests per route)`);
    const races = await ifMatchRaces(port, racers);

    console.log('3. Token checks');
    const tokens = await tokenChecks(port, db, { dbName: DB, token: TOKEN });
    console.log(`  statuses: ${JSON.stringify(tokens.statuses)}`);

    console.log('4. JSON flood (4 clients, 1 MB of nested `[`, 8 s each way)');
    const flood = await jsonFlood(port, 8);
    console.log(`  flood answers: ${JSON.stringify(flood.floodStatuses)}`);

    console.log(
      `5. Lock wait timeouts and killed queries (${lockSeconds} s, ` +
        `innodb_lock_wait_timeout=${LOCK_WAIT_S}, then ${REUSE_WRITES} writes through the pool)`,
    );
    const locks = await lockChaos(port, db, {
      dbName: DB,
      dbUser: DB_USER,
      auth: AUTH,
      seconds: lockSeconds,
      reuse: REUSE_WRITES,
      service,
    });
    console.log(
      `  answers: ${JSON.stringify(locks.answers)}` +
        (Object.keys(locks.otherStatuses).length
          ? ` (other: ${JSON.stringify(locks.otherStatuses)})`
          : ''),
    );
    console.log(
      `  locks held: ${JSON.stringify(locks.holds)}; KILL QUERY: ${JSON.stringify(locks.kills)}`,
    );
    console.log(`  the service logged: ${JSON.stringify(locks.logged)}\n`);

    const rows = [];
    const check = (what, figure, good) => {
      rows.push([what, figure, good ? 'ok' : 'FAIL']);
      if (!good) ok = false;
    };
    check(
      'Creates: 201 answered / attempts',
      `${ack.created} / ${ack.attempts} (${ack.keyed} keyed)`,
      ack.created > 0,
    );
    check('Acknowledged writes lost', String(ack.lost), ack.lost === 0);
    check(
      'Unkeyed creates answered 503 "try again" / of them written',
      `${ack.tryAgain} / ${ack.writtenTryAgain}`,
      ack.writtenTryAgain === 0,
    );
    check(
      'Unkeyed creates answered "may have been saved" or not at all / of them written',
      `${ack.maybeSaved} / ${ack.maybeWritten}`,
      true,
    );
    check(
      'Keyed creates replayed after nothing but "try again"',
      String(ack.replayedAfterTryAgain),
      ack.replayedAfterTryAgain === 0,
    );
    check(
      'Keys retried after a failure / duplicates',
      `${ack.retriedKeys} / ${ack.duplicates}` +
        (ack.retriedKeys ? ` (answered 201 within ${(ack.settleMs / 1000).toFixed(1)} s)` : '') +
        (ack.unsettled ? ` (${ack.unsettled} never answered 201 in 90 s)` : ''),
      ack.duplicates === 0 && ack.unsettled === 0,
    );
    for (const r of races) {
      // The losers of a DELETE may find the record gone: 404, since preconditions only apply
      // to a request that would otherwise succeed (or fail its precondition).
      const gone = r.label.startsWith('DELETE') ? (r.others[404] ?? 0) : 0;
      check(
        `If-Match race ${r.label}: 2xx / 412 / other`,
        `${r.won} / ${r.refused} / ${r.other}` +
          (r.other
            ? ` (${Object.entries(r.others)
                .map(([s, n]) => `${n}× ${s}`)
                .join(', ')})`
            : ''),
        r.won === 1 && r.other === gone,
      );
    }
    check(
      'Writes without the token: attempts / 2xx to a write / tables changed',
      `${tokens.attempts} / ${tokens.accepted} / ${tokens.changed.length}`,
      tokens.accepted === 0 && tokens.changed.length === 0,
    );
    check(
      'GET /api/demo/marbles/1 p50: alone / under the JSON flood',
      `${flood.baseline.p50.toFixed(1)} ms / ${flood.attacked.p50.toFixed(1)} ms ` +
        `(${flood.floods} floods)`,
      flood.baseline.failed === 0 && flood.attacked.failed === 0,
    );
    lockRows(locks, check);
    console.log(lib.table(['Check', 'Figure', 'Verdict'], rows));
    const load = os.loadavg().map((l) => l.toFixed(2));
    console.log(`Load average at the end: ${load.join(', ')} (${os.cpus().length} CPUs)`);
    if (ack.lost) console.log(`Lost: ${ack.lostNames.join(', ')}`);
    if (ack.writtenTryAgain) {
      console.log(`Written, answered "try again": ${ack.writtenTryAgainNames.join(', ')}`);
    }
    if (tokens.changed.length) console.log(`Changed without the token: ${tokens.changed}`);
  } finally {
    if (service) await lib.stopChild(service);
    await db?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
  process.exitCode = ok ? 0 : 1;
}

lib.runMain('probe', main);
