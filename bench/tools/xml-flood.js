#!/usr/bin/env node
/**
 * `node bench/tools/xml-flood.js` (after `npm run build`): what hostile XML bodies cost everyone else.
 *
 * Starts the service on a fresh SQLite file (demo data), then for XML_FLOOD_SECONDS (default 10)
 * measures the latency of GET /api/demo/marbles/1, one request at a time: first alone, then while
 * XML_FLOOD_CLIENTS (default 4) clients each POST, one after another, a body of 100,000 nested
 * elements (`<a><a>…</a></a>`, 700 kB). Prints p50 and p99 of the GETs in both phases, and the
 * floods' statuses and mean time per rejected body.
 *
 * Environment: XML_FLOOD_SECONDS, XML_FLOOD_CLIENTS, XML_FLOOD_PORT (default 3121).
 */
const { spawn } = require('node:child_process');
const http = require('node:http');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const SECONDS = Number(process.env.XML_FLOOD_SECONDS ?? 10);
const CLIENTS = Number(process.env.XML_FLOOD_CLIENTS ?? 4);
const PORT = Number(process.env.XML_FLOOD_PORT ?? 3121);
const NESTED = 100_000;
const BODY = Buffer.from('<a>'.repeat(NESTED) + '</a>'.repeat(NESTED));
const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 1 });

function request(method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      { host: '127.0.0.1', port: PORT, method, path, agent, headers },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function waitForServer() {
  const end = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await request('GET', '/health/ready')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error('the service did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Latencies of sequential GETs for `seconds`. */
async function measureGets(seconds) {
  const times = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) times.push((await request('GET', '/api/demo/marbles/1')).ms);
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { n: times.length, p50: at(0.5), p99: at(0.99) };
}

async function flood(seconds, statuses, times) {
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const res = await request('POST', '/api/demo/marbles.xml', BODY, {
      'Content-Type': 'application/xml',
      'Content-Length': BODY.length,
    });
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    times.push(res.ms);
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'xml-flood-'));
  const server = spawn(process.execPath, ['dist/main.js'], {
    env: {
      ...process.env,
      PORT: String(PORT),
      DATABASE_URL: `sqlite:${join(dir, 'flood.sqlite')}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitForServer();
    await measureGets(1); // warm-up
    const alone = await measureGets(SECONDS);
    const statuses = {};
    const times = [];
    const floods = Array.from({ length: CLIENTS }, () => flood(SECONDS, statuses, times));
    const loaded = await measureGets(SECONDS);
    await Promise.all(floods);
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    console.log(
      `body: ${BODY.length} bytes, ${NESTED} nested elements; ${CLIENTS} flooding clients, ${SECONDS} s`,
    );
    console.log(
      `GET /api/demo/marbles/1 alone:      n=${alone.n} p50=${alone.p50.toFixed(2)} ms p99=${alone.p99.toFixed(2)} ms`,
    );
    console.log(
      `GET /api/demo/marbles/1 with flood: n=${loaded.n} p50=${loaded.p50.toFixed(2)} ms p99=${loaded.p99.toFixed(2)} ms`,
    );
    console.log(
      `flood: ${times.length} bodies, statuses ${JSON.stringify(statuses)}, mean ${mean.toFixed(2)} ms per body (upload included)`,
    );
  } finally {
    server.kill('SIGTERM');
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
