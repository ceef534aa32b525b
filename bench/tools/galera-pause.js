#!/usr/bin/env node
/**
 * `node bench/tools/galera-pause.js`: how long a Galera cluster holds its commits when a node dies or
 * freezes, for the project's eviction settings or others (docs/scaling.md, "Losing a node").
 * Starts a three-node cluster of its own (scripts/galera-cluster.js), then, ROUNDS times: one
 * connection commits one-row inserts through node2 one after the other while node1 is killed
 * (SIGKILL), and the longest wait for a commit from the kill on is the pause; node1 restarted,
 * the same while node3 is frozen (SIGSTOP) 8 s, then thawed. Prints each pause and the cluster's
 * EVS settings; the database server's own options come from the script, nothing else is touched.
 *
 * Usage: node bench/tools/galera-pause.js [--rounds N] [--port-base N] [--provider-option NAME=VALUE …]
 *   --rounds           kills and freezes, default 3
 *   --port-base        the cluster's ports (12 from there), default 25260, below the kernel's
 *                      range for outgoing connections
 *   --provider-option  a Galera option after the project's (`evs.suspect_timeout=PT5S`, as
 *                      scripts/galera-cluster.js --provider-option)
 * Needs mariadb-server, galera-4 and rsync.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { startCluster, missing } = require('../../scripts/galera-cluster');

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const TABLE = (cluster) => `\`${cluster.database}\`.pause_probe`;

/**
 * Commits one-row inserts into `table` through `node` until the returned stop is called, which
 * gives the longest wait for a commit counted from `since()` on (undefined: not yet).
 */
async function committing(node, table, since) {
  const connection = await node.connect();
  let stopped = false;
  let last = Date.now();
  let longest = 0;
  const loop = (async () => {
    while (!stopped) {
      await connection.query(`INSERT INTO ${table} (at) VALUES (?)`, [Date.now()]);
      const now = Date.now();
      const from = since();
      if (from !== undefined && now > from) longest = Math.max(longest, now - Math.max(last, from));
      last = now;
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    await connection.end();
    return longest;
  };
}

/** The pause of one round: `hurt` (kill or freeze) while commits run on node2. */
async function measure(cluster, hurt) {
  let from;
  const stop = await committing(cluster.node(1), TABLE(cluster), () => from);
  await pause(1500);
  from = Date.now();
  await hurt();
  await pause(8000);
  return stop();
}

async function main() {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      'port-base': { type: 'string', default: '25260' },
      'provider-option': { type: 'string', multiple: true, default: [] },
    },
  });
  const lacking = missing();
  if (lacking.length) throw new Error(`not installed: ${lacking.join(', ')}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'records-galera-pause-'));
  const cluster = await startCluster(path.join(root, 'cluster'), {
    basePort: Number(values['port-base']),
    providerOptions: values['provider-option'],
  });
  try {
    const [row] = await cluster.node(0).query("SHOW VARIABLES LIKE 'wsrep_provider_options'");
    const evs = String(row.Value)
      .split(';')
      .map((o) => o.trim())
      .filter((o) => /^evs\.(suspect|keepalive|inactive_check|join_retrans)/.test(o));
    console.log(evs.join('; '));
    await cluster
      .node(1)
      .query(`CREATE TABLE ${TABLE(cluster)} (id INT AUTO_INCREMENT PRIMARY KEY, at BIGINT)`);
    for (let round = 1; round <= Number(values.rounds); round++) {
      const killed = await measure(cluster, () => cluster.kill(0));
      console.log(`round ${round}: node1 killed, commits held ${killed} ms`);
      await cluster.restart(0);
      await cluster.waitSynced();
      const frozen = await measure(cluster, async () => cluster.freeze(2));
      console.log(`round ${round}: node3 frozen, commits held ${frozen} ms`);
      cluster.thaw(2);
      await cluster.node(2).waitSynced();
      await cluster.waitSynced();
    }
  } finally {
    await cluster.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
