/**
 * `node bench/run.js --cluster` (`npm run bench -- --cluster`): the service on a three-node
 * Galera cluster against the same service on one Galera node, in one run, and the cost of causal
 * reads. Both databases are started here by scripts/galera-cluster.js, with the same server
 * options (the one node is a cluster of one: what the two other nodes cost, and nothing else):
 *
 *  1. Starts the three nodes (SQL ports BENCH_CLUSTER_PORT_BASE, +4, +8) and the one node (+12),
 *     seeds each with BENCH_MARBLES marbles (`node dist/seed.js`, through the first node).
 *  2. Starts the service four times (ports 3120 to 3123, plus BENCH_PORT_OFFSET):
 *     DATABASE_URL naming the three nodes (writes through the first, reads round robin over the
 *     three, causal off the writer: the default CLUSTER_READS=causal), naming the one node,
 *     naming the three nodes with CLUSTER_READS=after-write, and naming the first of the three
 *     alone (the diagnostic row, last).
 *  3. Measures each row with wrk, a warm-up of each side, then BENCH_ROUNDS rounds that alternate
 *     the order (three nodes then one, then one then three, ...): req/s over all rounds and the
 *     median p50. Rows: a page of marbles, one marble, a create, a PATCH of a marble (writes go
 *     to one node, certified by the three); and on the three nodes, one marble read causally
 *     (`wsrep_sync_wait=1` off the writer, the default) against the same with
 *     CLUSTER_READS=after-write (no wait for a client without the cookie); last, one marble on
 *     the three-node cluster through node1 alone against the one node (a diagnostic: what the
 *     reads' spreading over three processes on this machine costs).
 *     Targets (issue 28): writes >= 0.6x, reads >= 0.9x.
 *
 * Environment: BENCH_ROUNDS (default 3), BENCH_DURATION (seconds per run, default 5),
 * BENCH_WARMUP (default 2), BENCH_CONNECTIONS (default 10), BENCH_MARBLES (default 10000),
 * BENCH_PORT_OFFSET, BENCH_CLUSTER_PORT_BASE (default 25200: 16 ports from there, below the
 * kernel's range for outgoing connections). Needs mariadb-server, galera-4, rsync and wrk.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lib = require('../lib');
const { startCluster, missing } = require('../../scripts/galera-cluster');

const { ROOT, fail } = lib;
const DATABASE = 'records_bench';
const SCRIPT = path.join(__dirname, '..', 'lua', 'cluster.lua');

/** The ids a PATCH run cycles over, taken from the seeded marbles of each side. */
const UPDATED = 200;

function settings() {
  const offset = lib.positiveInt('BENCH_PORT_OFFSET', 0, 60_000, 0);
  return {
    rounds: lib.positiveInt('BENCH_ROUNDS', 3, 50),
    duration: lib.positiveInt('BENCH_DURATION', 5, 600),
    warmup: lib.positiveInt('BENCH_WARMUP', 2, 600, 0),
    connections: lib.positiveInt('BENCH_CONNECTIONS', 10, 1000),
    marbles: lib.positiveInt('BENCH_MARBLES', 10_000, 50_000_000),
    portBase: lib.positiveInt('BENCH_CLUSTER_PORT_BASE', 25_200, 32_000),
    ports: {
      three: 3120 + offset,
      one: 3121 + offset,
      afterWrite: 3122 + offset,
      firstNode: 3123 + offset,
    },
  };
}

/** The benchmark database as lib.seed wants it: root through `node`'s SQL port. */
function databaseOf(node) {
  const mysqlUrl = `mysql://root@${node.address}/${DATABASE}`;
  return { mysqlUrl, url: new URL(mysqlUrl), database: DATABASE };
}

function startService(name, port, databaseUrl, clusterReads = 'causal') {
  const child = lib.startChild(
    `service on ${name} (port ${port})`,
    [...lib.serviceNodeFlags(), path.join(ROOT, 'dist/main.js')],
    {
      DATABASE_URL: databaseUrl,
      DEMO_DATA: 'false',
      PORT: String(port),
      HOST: lib.HOST,
      REPLICA_READ_AFTER_WRITE: '3600',
      CLUSTER_READS: clusterReads,
      EVENTS_ENABLED: undefined,
      RATE_LIMIT: undefined,
      RATE_LIMIT_WRITES: undefined,
      AUTH_READS: undefined,
    },
  );
  return { name, port, child };
}

/** Some marble ids of a side's database, spread over the table. */
async function someIds(node, count) {
  const rows = await node.query(
    `SELECT id FROM \`${DATABASE}\`.marbles ORDER BY id LIMIT ${count * 10}`,
  );
  return rows.filter((_, i) => i % 10 === 0).map((r) => Number(r.id));
}

/** One wrk run of `row` on `side`. */
function runOnce(config, row, side, duration) {
  return lib.runWrk({
    port: side.service.port,
    path: row.path(side),
    connections: config.connections,
    // One thread: bench/lua/cluster.lua's names are unique per run by its counter alone.
    threads: 1,
    duration,
    headers: row.headers?.(side) ?? {},
    ...(row.mode ? { script: SCRIPT, scriptArgs: row.args(side) } : {}),
  });
}

/** Warm-up, then alternating rounds of `a` and `b`; req/s and median p50 of each. */
async function measure(config, row, a, b) {
  if (config.warmup > 0) {
    await runOnce(config, row.a ?? row, a, config.warmup);
    await runOnce(config, row.b ?? row, b, config.warmup);
  }
  const runs = { a: [], b: [] };
  for (let round = 0; round < config.rounds; round++) {
    const order = round % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
    for (const which of order) {
      const side = which === 'a' ? a : b;
      const result = await runOnce(config, row[which] ?? row, side, config.duration);
      if (result.non2xx || result.socketErrors || result.timeouts) {
        throw fail(`${row.name} on ${side.name}: errors in wrk's run\n${result.output}`);
      }
      runs[which].push(result);
    }
  }
  const summary = (list) => ({
    rps: list.reduce((n, r) => n + r.requests, 0) / list.reduce((s, r) => s + r.seconds, 0),
    p50: list.map((r) => r.p50).sort((x, y) => x - y)[Math.floor(list.length / 2)],
    spread: list.map((r) => Math.round(r.rps)).join('/'),
  });
  return { a: summary(runs.a), b: summary(runs.b) };
}

const marble = (side) => `/api/demo/marbles/${side.ids[0]}`;
let runCount = 0;
const ROWS = [
  { name: 'marbles page 1', kind: 'read', path: () => '/api/demo/marbles' },
  { name: 'one marble', kind: 'read', path: marble },
  {
    name: 'create',
    kind: 'write',
    mode: 'create',
    path: () => '/api/demo/marbles',
    args: () => ['create', `${process.pid}-${++runCount}`, ''],
  },
  {
    name: 'PATCH one marble',
    kind: 'write',
    mode: 'update',
    path: () => '/api/demo/marbles',
    args: (side) => ['update', String(++runCount), side.ids.join(',')],
  },
];

/**
 * The causal row: on the three nodes, one marble as the default CLUSTER_READS=causal reads it (a)
 * and as CLUSTER_READS=after-write reads it for a client without the cookie (b, no wait).
 */
const CAUSAL = {
  name: 'one marble: CLUSTER_READS=causal / after-write',
  path: marble,
};

/**
 * The diagnostic row: one marble on the three-node cluster read through its first node alone
 * (DATABASE_URL naming node1) against the one node. Near 1, the one-marble row's gap is the
 * reads spread over three mariadbd processes on this machine's cores, not the cluster.
 */
const FIRST_NODE = {
  name: 'one marble: node1 of the three alone / one node',
  path: marble,
};

/** A table line of a measured pair: req/s and rounds of each side, the ratio, the target, p50s. */
function lineOf(name, { a, b }, row = {}) {
  const target = row.kind ? `>= ${row.kind === 'write' ? 0.6 : 0.9}` : '';
  return [
    name,
    `${Math.round(a.rps)} (${a.spread})`,
    `${Math.round(b.rps)} (${b.spread})`,
    (a.rps / b.rps).toFixed(2),
    target,
    `${a.p50.toFixed(1)} / ${b.p50.toFixed(1)}`,
  ];
}

async function main() {
  const config = settings();
  const wrk = lib.checkWrk();
  const lacking = missing();
  if (lacking.length) throw fail(`not installed: ${lacking.join(', ')}`);
  if (!fs.existsSync(path.join(ROOT, 'dist/main.js'))) {
    throw fail('dist/ is missing: run `npm run build` first (npm run bench does)');
  }
  const rows = ROWS.length + 2;
  const perRow = (config.warmup + config.rounds * config.duration) * 2 + 30;
  lib.watchdog('bench --cluster', 600_000 + rows * perRow * 1000);
  console.log(
    `${wrk}; ${os.cpus().length} cores; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}; ` +
      `${config.rounds} rounds of ${config.duration} s, ${config.connections} connections, ${config.marbles} marbles`,
  );
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'records-bench-cluster-'));
  const clusters = [];
  const services = [];
  try {
    const three = await startCluster(path.join(root, 'three'), {
      basePort: config.portBase,
      database: DATABASE,
      rootOverTcp: true,
    });
    clusters.push(three);
    const one = await startCluster(path.join(root, 'one'), {
      basePort: config.portBase + 12,
      database: DATABASE,
      size: 1,
      rootOverTcp: true,
    });
    clusters.push(one);
    console.log('Seeding both …');
    await lib.seed(databaseOf(three.nodes[0]), config.marbles);
    await lib.seed(databaseOf(one.nodes[0]), config.marbles);
    const sides = {
      three: { name: 'three nodes', cluster: three, ids: await someIds(three.nodes[0], UPDATED) },
      one: { name: 'one node', cluster: one, ids: await someIds(one.nodes[0], UPDATED) },
    };
    for (const key of ['three', 'one']) {
      const side = sides[key];
      side.service = startService(side.name, config.ports[key], side.cluster.url());
      services.push(side.service);
    }
    const afterWrite = { ...sides.three, name: 'three nodes, CLUSTER_READS=after-write' };
    afterWrite.service = startService(
      afterWrite.name,
      config.ports.afterWrite,
      three.url(),
      'after-write',
    );
    services.push(afterWrite.service);
    // The diagnostic row: the three-node cluster through its first node alone (a one-node
    // DATABASE_URL), every read on one mariadbd as on the one-node side.
    const firstNode = { ...sides.three, name: 'node1 of the three alone' };
    firstNode.service = startService(firstNode.name, config.ports.firstNode, three.nodes[0].url());
    services.push(firstNode.service);
    await Promise.all(
      services.map((s) => lib.waitUntilAnswering(s.child, s.port, '/health/ready', 90_000)),
    );
    const lines = [];
    for (const row of ROWS) {
      const line = lineOf(row.name, await measure(config, row, sides.three, sides.one), row);
      lines.push(line);
      console.log(`${row.name}: ${line.slice(1).join('  ')}`);
    }
    lines.push(lineOf(CAUSAL.name, await measure(config, CAUSAL, sides.three, afterWrite)));
    lines.push(lineOf(FIRST_NODE.name, await measure(config, FIRST_NODE, firstNode, sides.one)));
    console.log(
      '\n' +
        lib.table(
          [
            'row',
            'three nodes req/s (rounds)',
            'one node req/s (rounds)',
            'ratio',
            'target',
            'p50 ms',
          ],
          lines,
        ),
    );
    console.log(
      '(the causal row: both columns on the three nodes, CLUSTER_READS=causal / after-write;\n' +
        ' the last row: the three-node cluster through node1 alone / the one node)',
    );
  } finally {
    await Promise.all(services.map((s) => lib.stopChild(s.child)));
    for (const cluster of clusters) await cluster.stop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
}

module.exports = { main };
