#!/usr/bin/env node
/**
 * `node bench/tools/statements.js` (after `npm run build`): what each write of the service costs the
 * database, counted exactly. The service talks to MySQL through a small proxy here that reads
 * the client's side of the MySQL protocol and records every command it sends (each packet that
 * starts a command: COM_QUERY with its SQL, a prepared statement's execution, a ping), so
 * START TRANSACTION, COMMIT and ROLLBACK count as what they are: round trips to the server.
 * Each write is sent alone, on an otherwise idle service, and the commands between its request
 * and its answer are its own.
 *
 * It prints, for create, update (PATCH), update with If-Match, adjust_price (with and without
 * If-Match), delete (with and without If-Match), each without and with an Idempotency-Key, the
 * number of statements and their SQL (with --sql).
 *
 * Environment: BENCH_MYSQL_URL as for bench/run.js (the database is seeded afresh with 300
 * marbles unless it holds them: its rows are replaced), BENCH_NODE as for bench/run.js.
 */
'use strict';

const net = require('node:net');
const path = require('node:path');
const lib = require('../lib');

const PROXY_PORT = 3110;
const SERVICE_PORT = 3111;
const MARBLES = 300;
const COMMANDS = { 0x03: 'query', 0x0e: 'ping', 0x16: 'prepare', 0x17: 'execute', 0x19: 'close' };

/** A TCP proxy to the database that records every command a client sends. */
function startProxy(target) {
  const log = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    let pending = Buffer.alloc(0);
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      // Packets: 3 bytes of length, a sequence number; a command is a packet numbered 0.
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3);
        if (pending.length < 4 + length) break;
        const sequence = pending[3];
        if (sequence === 0 && length > 0) {
          const command = pending[4];
          const kind = COMMANDS[command] ?? `command ${command}`;
          const text = command === 0x03 ? pending.subarray(5, 4 + length).toString('utf8') : kind;
          log.push(text);
        }
        pending = pending.subarray(4 + length);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  return new Promise((resolve) =>
    server.listen(PROXY_PORT, lib.HOST, () => resolve({ server, log })),
  );
}

const WRITES = [
  ['create', 'POST', () => '/api/demo/marbles', (n) => ({ name: `stmt-${n}`, user_id: 3 })],
  ['update (PATCH 2 fields)', 'PATCH', (id) => `/api/demo/marbles/${id}`, (n) => patch(n)],
  ['update with If-Match', 'PATCH', (id) => `/api/demo/marbles/${id}`, (n) => patch(n), true],
  ['adjust_price', 'PATCH', (id) => `/api/demo/marbles/${id}/adjust_price`, (n) => price(n)],
  [
    'adjust_price with If-Match',
    'PATCH',
    (id) => `/api/demo/marbles/${id}/adjust_price`,
    (n) => price(n),
    true,
  ],
  ['delete', 'DELETE', (id) => `/api/demo/marbles/${id}`],
  ['delete with If-Match', 'DELETE', (id) => `/api/demo/marbles/${id}`, undefined, true],
];

const patch = (n) => ({ radius_mm: 1 + (n % 40), price: `${1 + (n % 90)}.5` });
const price = (n) => ({ price: `${2 + (n % 90)}.25` });

async function main() {
  const db = lib.databaseSettings();
  const showSql = process.argv.includes('--sql');
  await lib.createDatabase(db);
  if ((await lib.marbleCount(db)) !== MARBLES) await lib.seed(db, MARBLES);
  const proxy = await startProxy({ host: db.url.hostname, port: Number(db.url.port || 3306) });
  const proxied = new URL(db.mysqlUrl);
  proxied.host = `${lib.HOST}:${PROXY_PORT}`;
  const service = lib.startChild(
    'service',
    [...lib.serviceNodeFlags(), path.join(lib.ROOT, 'dist/main.js')],
    {
      DATABASE_URL: proxied.toString(),
      DATABASE_REPLICA_URLS: '',
      DEMO_DATA: 'false',
      PORT: String(SERVICE_PORT),
      HOST: lib.HOST,
      LOG_LEVEL: 'warn',
    },
  );
  try {
    await lib.waitUntilAnswering(service, SERVICE_PORT, '/api/demo/marbles/1', 90_000);
    const rows = [];
    let n = 0;
    let nextId = 10;
    for (const [name, method, url, body, ifMatch] of WRITES) {
      for (const key of [false, true]) {
        n++;
        const id = nextId++;
        const headers = {};
        if (key) headers['Idempotency-Key'] = `statements-${Date.now()}-${n}`;
        if (ifMatch) {
          const current = await lib.get(SERVICE_PORT, `/api/demo/marbles/${id}`);
          headers['If-Match'] = current.headers.etag;
        }
        // Whatever the service's own timers run meanwhile is not this write's.
        await lib.sleep(50);
        proxy.log.length = 0;
        const answer = await lib.request(SERVICE_PORT, method, url(id), {
          headers,
          body: body ? JSON.stringify(body(n)) : undefined,
        });
        if (answer.status >= 300) {
          throw lib.fail(`${method} ${url(id)} answered ${answer.status}: ${answer.body}`);
        }
        const statements = [...proxy.log];
        rows.push([`${name}${key ? ', Idempotency-Key' : ''}`, String(statements.length)]);
        if (showSql) {
          console.log(`\n${rows.at(-1)[0]}:`);
          for (const sql of statements) console.log(`  ${sql.slice(0, 160)}`);
        }
      }
    }
    console.log(
      `\nStatements per write (MySQL commands, START TRANSACTION and COMMIT included):\n`,
    );
    console.log(lib.table(['write', 'statements'], rows));
  } finally {
    await lib.stopChild(service);
    proxy.server.close();
  }
}

lib.runMain('statements', main);
