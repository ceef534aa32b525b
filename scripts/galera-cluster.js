#!/usr/bin/env node
/**
 * A three-node MariaDB Galera cluster of its own on this machine: each node a `mariadbd
 * --no-defaults` process with its datadir, socket, SQL port, group port, IST port and SST port,
 * all under one folder. Used by the cluster suite (test/ops/galera/) and, from the command line:
 *
 *   node scripts/galera-cluster.js start [--dir DIR] [--port-base N] [--database NAME] [--root-tcp]
 *        [--server-option NAME=VALUE …] [--provider-option NAME=VALUE …]
 *        starts the nodes in the background, prints DATABASE_URL, keeps their state in DIR;
 *        --root-tcp adds root@127.0.0.1 without a password (the e2e suites' TEST_MYSQL_URL);
 *        each --server-option is one more mariadbd option of every node (without its leading
 *        dashes: `--server-option wsrep-max-ws-rows=40`); each --provider-option one more
 *        Galera option of every node, after the project's own (`evs.suspect_timeout=PT5S`
 *        puts Galera's default back)
 *   node scripts/galera-cluster.js stop [--dir DIR]
 *        stops them (by the PIDs kept in DIR) and removes DIR
 *
 * DIR defaults to <tmp>/records-galera. With --port-base N (the suites pass theirs), node i
 * (0, 1, 2) listens on N+4i (SQL), N+4i+1 (group), N+4i+2 (IST), N+4i+3 (SST); without it, on
 * free ports. Choose N below the kernel's range for outgoing connections (32768-60999 on Linux):
 * a port of that range may be held by any client's connection, even a closed one (TIME_WAIT),
 * when a node (re)starts, and Galera's IST listener then cannot bind it. The cluster has a database `records` (or NAME) and a user `records` (password
 * `records-secret`) that may read the nodes' status.
 *
 * Needs Debian's mariadb-server, galera-4 and rsync. The rsync state transfer (SST) a joining
 * node receives runs as the server's user, so as root the datadirs belong to `mysql` and the
 * nodes run with --user=mysql; as another user, everything is that user's. The first node
 * bootstraps the cluster (--wsrep-new-cluster) on the first start only: a node restarted later
 * joins the others (IST, or SST when it is too far behind; a killed one first recovers its
 * position, as the packaged service does). Nothing here touches any other MariaDB server.
 *
 * Over 500 lines on purpose: one script a test can require and a person can run, with the node,
 * the cluster, the ports and the command line that only make sense together.
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { findBinary, freePort } = require('./mariadb-pair');
const { recordGroup, forgetGroup } = require('./run-sweep');

const USER = 'records';
const PASSWORD = 'records-secret';
const PROVIDER = '/usr/lib/galera/libgalera_smm.so';
const SIZE = 3;

/**
 * How soon the other nodes evict a node that stops answering (killed, frozen, cut off): until
 * they do, they hold every commit of the cluster. A node is suspected after evs.suspect_timeout
 * without a message from it (Galera's default 5 s); the others look for silence every
 * evs.inactive_check_period (0.5 s) and agree on the new view by join messages they send again
 * every evs.join_retrans_period (1 s), which adds up to a second to the wait. An idle node sends
 * a keepalive every evs.keepalive_period (1 s). Here a node is suspected after 2 s of silence,
 * eight keepalives of 0.25 s missed in a row, and the checks and join rounds run every 0.25 s:
 * a killed or frozen node held the survivors' commits 2.2-2.5 s, where a 3 s suspect_timeout
 * with the other defaults held them 4.0-4.5 s (bench/tools/galera-pause.js measures it; docs/scaling.md
 * says what to set on a real cluster).
 */
const EVICTION = [
  'evs.suspect_timeout=PT2S',
  'evs.keepalive_period=PT0.25S',
  'evs.inactive_check_period=PT0.25S',
  'evs.join_retrans_period=PT0.25S',
];

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Whether nodes run as the `mysql` user (we are root, and the user exists). */
function asMysql() {
  if (!process.getuid || process.getuid() !== 0) return false;
  return spawnSync('id', ['-u', 'mysql']).status === 0;
}

function chownToMysql(dir) {
  const result = spawnSync('chown', ['-R', 'mysql:mysql', dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`chown mysql ${dir}: ${result.stderr}`);
}

/**
 * The nodes run as `mysql`: it must pass through every folder above their own. A folder of ours
 * that others may not enter (mkdtemp makes them 0700) gets the right to pass (o+x), not to list.
 */
function letMysqlThrough(root) {
  for (let dir = path.resolve(root); ; dir = path.dirname(dir)) {
    const { mode, uid } = fs.statSync(dir);
    if ((mode & 0o001) === 0 && uid === process.getuid())
      fs.chmodSync(dir, (mode & 0o7777) | 0o011);
    if (path.dirname(dir) === dir) return;
  }
}

class GaleraNode {
  /**
   * @param {string} root the cluster's folder
   * @param {number} index 0, 1, 2
   * @param {{sql: number, group: number, ist: number, sst: number}} ports
   */
  constructor(root, index, ports, database) {
    this.index = index;
    this.name = `node${index + 1}`;
    this.database = database;
    this.ports = ports;
    this.dir = path.join(root, this.name);
    this.datadir = path.join(this.dir, 'data');
    this.socket = path.join(this.dir, 'mariadbd.sock');
    /** Set by the cluster: every node's group address. */
    this.peers = [];
    /** Set by the cluster: more mariadbd options (`name=value`, no leading dashes). */
    this.serverOptions = [];
    /** Set by the cluster: more Galera options (`name=value`), after EVICTION (the last wins). */
    this.providerOptions = [];
    this.pid = undefined;
    this.child = undefined;
    this.exited = Promise.resolve();
  }

  get port() {
    return this.ports.sql;
  }

  /** host:port of its SQL port. */
  get address() {
    return `127.0.0.1:${this.ports.sql}`;
  }

  /** mysql://records:…@127.0.0.1:port/records, this node alone. */
  url(user = USER, password = PASSWORD) {
    return `mysql://${user}:${password}@${this.address}/${this.database}`;
  }

  args(bootstrap) {
    const { group, ist, sst, sql } = this.ports;
    const provider = [
      `gmcast.listen_addr=tcp://127.0.0.1:${group}`,
      `ist.recv_addr=127.0.0.1:${ist}`,
      'gcache.size=64M',
      ...EVICTION,
      ...this.providerOptions,
    ].join(';');
    const args = [
      '--no-defaults',
      `--datadir=${this.datadir}`,
      `--socket=${this.socket}`,
      `--pid-file=${path.join(this.dir, 'mariadbd.pid')}`,
      `--port=${sql}`,
      '--bind-address=127.0.0.1',
      `--log-error=${path.join(this.dir, 'error.log')}`,
      `--tmpdir=${path.join(this.dir, 'tmp')}`,
      '--character-set-server=utf8mb4',
      '--skip-name-resolve',
      '--performance-schema=OFF',
      '--innodb-buffer-pool-size=64M',
      '--innodb-log-file-size=16M',
      '--binlog-format=ROW',
      '--default-storage-engine=InnoDB',
      '--innodb-autoinc-lock-mode=2',
      '--wsrep-on=ON',
      `--wsrep-provider=${PROVIDER}`,
      `--wsrep-cluster-address=gcomm://${this.peers.join(',')}`,
      '--wsrep-cluster-name=records',
      `--wsrep-node-name=${this.name}`,
      '--wsrep-node-address=127.0.0.1',
      `--wsrep-provider-options=${provider}`,
      '--wsrep-sst-method=rsync',
      `--wsrep-sst-receive-address=127.0.0.1:${sst}`,
    ];
    for (const option of this.serverOptions) args.push(`--${option}`);
    if (asMysql()) args.push('--user=mysql');
    if (bootstrap) args.push('--wsrep-new-cluster');
    return args;
  }

  /** Whether its process runs (frozen counts as running). */
  get running() {
    if (!this.pid) return false;
    try {
      process.kill(this.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Starts mariadbd (again, after a stop or kill: same datadir, same ports) in a process group of
   * its own, and waits until the node answers and is Synced.
   */
  async start({ bootstrap = false, timeoutMs = 120_000 } = {}) {
    const args = this.args(bootstrap);
    const position = bootstrap ? undefined : await this.recoveredPosition();
    if (position) args.push(`--wsrep-start-position=${position}`);
    const child = spawn(findBinary('mariadbd'), args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    this.child = child;
    this.pid = child.pid;
    // Within a test run (scripts/test.js), the group is recorded in the run's folder, so that a
    // run stopped or killed takes the node with it (scripts/run-sweep.js).
    recordGroup(child.pid);
    this.exited = new Promise((resolve) =>
      child.on('close', () => {
        forgetGroup(child.pid);
        resolve();
      }),
    );
    let closed = false;
    void this.exited.then(() => (closed = true));
    await this.waitSynced(timeoutMs, () => {
      if (closed) throw new Error(`${this.name} exited at start: ${stderr}${this.log()}`);
    });
  }

  /**
   * After a kill (or crash), the position in the cluster's history that the node's InnoDB holds,
   * `uuid:seqno`, found by `mariadbd --wsrep-recover` as the packaged service's galera_recovery
   * finds it before every start; undefined after a clean stop (grastate.dat knows it) or before
   * the first start. Without it, a killed node says seqno -1 and is sent the whole datadir (SST),
   * and the rsync donor keeps its tables locked while it copies: a donor that was the writer
   * held the writes for as long (6 s on a loaded machine). With it, the node asks only for the
   * write-sets it missed, from a donor's gcache (IST), which blocks nothing. Run as a child that
   * is waited for, not synchronously: a test's writers go on meanwhile.
   */
  async recoveredPosition() {
    let grastate;
    try {
      grastate = fs.readFileSync(path.join(this.datadir, 'grastate.dat'), 'utf8');
    } catch {
      return undefined;
    }
    if (!/^seqno:\s+-1\s*$/m.test(grastate)) return undefined;
    const log = path.join(this.dir, 'recover.log');
    fs.rmSync(log, { force: true });
    const recovery = spawn(
      findBinary('mariadbd'),
      [...this.args(false), '--wsrep-recover', `--log-error=${log}`],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => recovery.on('close', resolve));
    const said = () => {
      try {
        return /WSREP: Recovered position: ([0-9a-f-]{36}:\d+)/.exec(fs.readFileSync(log, 'utf8'));
      } catch {
        return null;
      }
    };
    let found = null;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await pause(100)) {
      found = said();
      if (found || recovery.exitCode !== null) break;
    }
    // Having said it, the recovery may hang in its shutdown (seen after a kill), holding the
    // node's SQL port: it is ended as the kill ended the node, and InnoDB recovers again.
    recovery.kill('SIGKILL');
    await exited;
    return found?.[1];
  }

  /**
   * Waits until the node answers and reports wsrep_local_state_comment = Synced in the primary
   * component; `check` may throw to give up early.
   */
  async waitSynced(timeoutMs = 120_000, check = () => undefined) {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer';
    for (;;) {
      check();
      try {
        const state = await this.state();
        if (state.local === 'Synced' && state.cluster === 'Primary') return;
        last = `${state.local}, ${state.cluster}`;
      } catch (error) {
        last = error.message;
      }
      if (Date.now() > deadline) {
        throw new Error(`${this.name} not Synced within ${timeoutMs} ms (${last})${this.log()}`);
      }
      await pause(100);
    }
  }

  /** wsrep_local_state_comment, wsrep_cluster_status and wsrep_cluster_size, as root. */
  async state() {
    const rows = await this.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state_comment', " +
        "'wsrep_cluster_status', 'wsrep_cluster_size')",
    );
    const value = (name) => rows.find((r) => r.Variable_name === name)?.Value;
    return {
      local: value('wsrep_local_state_comment'),
      cluster: value('wsrep_cluster_status'),
      size: Number(value('wsrep_cluster_size')),
    };
  }

  /** A connection as root through the socket. */
  connect() {
    const mysql = require('mysql2/promise');
    return mysql.createConnection({ socketPath: this.socket, user: 'root', connectTimeout: 2000 });
  }

  /** One statement as root; the rows. */
  async query(sql, parameters = []) {
    const connection = await this.connect();
    try {
      const [rows] = await connection.query({ sql, timeout: 5000 }, parameters);
      return rows;
    } finally {
      connection.destroy();
    }
  }

  /** Sends `name` (SIGSTOP, SIGCONT, …) to the running server; nothing once it has exited. */
  signal(name) {
    if (this.running) process.kill(this.pid, name);
  }

  /** SIGSTOP: the process keeps its sockets and answers nothing. */
  freeze() {
    this.signal('SIGSTOP');
  }

  /** SIGCONT after a freeze. */
  thaw() {
    this.signal('SIGCONT');
  }

  /** SIGTERM (after a SIGCONT, should it be stopped) and wait for the exit. */
  async stop() {
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    await this.gone();
  }

  /** SIGKILL (kill -9) and wait for the exit. */
  async kill() {
    this.signal('SIGKILL');
    await this.gone();
  }

  /** Waits for the exit: our child's, or (from the command line) the PID's. */
  async gone(timeoutMs = 60_000) {
    if (this.child) {
      await this.exited;
      return;
    }
    const deadline = Date.now() + timeoutMs;
    while (this.running && Date.now() < deadline) await pause(100);
  }

  log() {
    try {
      const text = fs.readFileSync(path.join(this.dir, 'error.log'), 'utf8').slice(-3000);
      return `\n--- ${this.name} error log\n${text}`;
    } catch {
      return '';
    }
  }
}

class GaleraCluster {
  constructor(root, nodes, database) {
    this.root = root;
    this.nodes = nodes;
    this.database = database;
  }

  /** The service's DATABASE_URL: every node, in order, in one URL. */
  url(user = USER, password = PASSWORD) {
    const hosts = this.nodes.map((n) => n.address).join(',');
    return `mysql://${user}:${password}@${hosts}/${this.database}`;
  }

  node(index) {
    const node = this.nodes[index];
    if (!node) throw new Error(`no node ${index} (0-${this.nodes.length - 1})`);
    return node;
  }

  kill(index) {
    return this.node(index).kill();
  }

  /** Starts a stopped or killed node again; it rejoins and is Synced when this settles. */
  restart(index, timeoutMs) {
    return this.node(index).start({ timeoutMs });
  }

  freeze(index) {
    this.node(index).freeze();
  }

  thaw(index) {
    this.node(index).thaw();
  }

  /** Waits until every running node is Synced and they see each other (cluster size). */
  async waitSynced(timeoutMs = 120_000) {
    const running = this.nodes.filter((n) => n.running);
    await Promise.all(running.map((n) => n.waitSynced(timeoutMs)));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const sizes = await Promise.all(running.map((n) => n.state().then((s) => s.size)));
      if (sizes.every((s) => s === running.length)) return;
      if (Date.now() > deadline) throw new Error(`cluster sizes ${sizes} not ${running.length}`);
      await pause(100);
    }
  }

  /** Stops every node (thawed first) and waits for them to exit. */
  async stop() {
    // The last to stop is the one that may bootstrap next time; stopped in reverse, it is node1.
    for (const node of [...this.nodes].reverse()) await node.stop();
  }

  /** What `stop` from the command line needs. */
  save() {
    const state = {
      database: this.database,
      nodes: this.nodes.map((n) => ({ ports: n.ports, pid: n.pid })),
    };
    fs.writeFileSync(path.join(this.root, 'state.json'), JSON.stringify(state, null, 2));
  }

  static load(root) {
    const state = JSON.parse(fs.readFileSync(path.join(root, 'state.json'), 'utf8'));
    const nodes = state.nodes.map((n, i) => {
      const node = new GaleraNode(root, i, n.ports, state.database);
      node.pid = n.pid;
      return node;
    });
    const peers = nodes.map((n) => `127.0.0.1:${n.ports.group}`);
    for (const node of nodes) node.peers = peers;
    return new GaleraCluster(root, nodes, state.database);
  }
}

/** What this machine lacks to run a cluster (binaries, the Galera library), by name. */
function missing() {
  const lacking = ['mariadbd', 'mariadb-install-db', 'rsync', 'wsrep_sst_rsync'].filter(
    (name) => !findBinary(name),
  );
  if (!fs.existsSync(PROVIDER)) lacking.push('galera-4');
  return lacking;
}

/** Whether nothing holds `port` on the loopback (a listener, or a socket bound to it). */
function bindable(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      server.close(() => resolve(true)),
    );
  });
}

/** How long a port of the cluster's may stay taken before the start gives up. */
const PORT_WAIT_MS = 30_000;

const TCP_STATES = {
  '01': 'ESTABLISHED',
  '02': 'SYN_SENT',
  '03': 'SYN_RECV',
  '04': 'FIN_WAIT1',
  '05': 'FIN_WAIT2',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '09': 'LAST_ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
};

/**
 * The sockets bound to local `port` and the processes holding them, from /proc (Linux), for the
 * error that names a taken port: "LISTEN by 1234 (mariadbd --port=…)", "TIME_WAIT".
 */
function holdersOf(port) {
  const found = [];
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines = [];
    try {
      lines = fs.readFileSync(table, 'utf8').trim().split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields[1].split(':')[1] !== hex) continue;
      const state = TCP_STATES[fields[3]] ?? fields[3];
      const owner = ownerOf(fields[9]);
      found.push(owner ? `${state} by ${owner}` : state);
    }
  }
  return found.length ? found.join(', ') : 'no socket of it is listed any more';
}

/** The process holding socket `inode`: "pid (command line)", or undefined. */
function ownerOf(inode) {
  if (!inode || inode === '0') return undefined;
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
        if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) !== `socket:[${inode}]`) continue;
        const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        return `${pid} (${args.trim().slice(0, 160)})`;
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return undefined;
}

/** The kernel's range of ports for outgoing connections, where any client may take a port. */
function ephemeralRange() {
  try {
    const [low, high] = fs
      .readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    return [Number(low), Number(high)];
  } catch {
    return [32768, 60999];
  }
}

async function portsFor(basePort, index) {
  if (basePort) {
    const first = basePort + 4 * index;
    const ports = { sql: first, group: first + 1, ist: first + 2, sst: first + 3 };
    // Galera's IST listener cannot bind a port that a closed connection still holds
    // (TIME_WAIT): ports for outgoing connections are a poor choice, and a taken one is named.
    // A port the last user (the suite before, its servers going down) still holds is waited
    // for, up to PORT_WAIT_MS, before it is named with what holds it.
    for (const port of Object.values(ports)) {
      const until = Date.now() + PORT_WAIT_MS;
      while (!(await bindable(port))) {
        if (Date.now() >= until) {
          const [low, high] = ephemeralRange();
          const hint =
            port >= low && port <= high
              ? ` (outgoing connections use ${low}-${high}: choose a base below)`
              : '';
          throw new Error(`port ${port} is in use${hint}: ${holdersOf(port)}`);
        }
        await pause(250);
      }
    }
    return ports;
  }
  return {
    sql: await freePort(),
    group: await freePort(),
    ist: await freePort(),
    sst: await freePort(),
  };
}

/** Creates a datadir with mariadb-install-db (root through the socket, no test db). */
function install(datadir, tmpdir) {
  fs.mkdirSync(datadir, { recursive: true });
  const result = spawnSync(
    findBinary('mariadb-install-db'),
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      `--tmpdir=${tmpdir}`,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
      '--innodb-log-file-size=16M',
      ...(asMysql() ? ['--user=mysql'] : []),
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) {
    throw new Error(`mariadb-install-db failed: ${result.stdout}${result.stderr}`);
  }
}

/**
 * Starts a cluster under `root` (a folder the caller owns and removes): the first node
 * bootstraps it, the others join by state transfer one after the other; settles when all three
 * are Synced, with the database and the service's user made.
 */
async function startCluster(
  root,
  {
    basePort,
    database = 'records',
    size = SIZE,
    rootOverTcp = false,
    serverOptions = [],
    providerOptions = [],
  } = {},
) {
  const lacking = missing();
  if (lacking.length) {
    throw new Error(
      `not installed: ${lacking.join(', ')} (apt-get install mariadb-server galera-4 rsync)`,
    );
  }
  fs.mkdirSync(root, { recursive: true });
  if (asMysql()) letMysqlThrough(root);
  const nodes = [];
  for (let i = 0; i < size; i++)
    nodes.push(new GaleraNode(root, i, await portsFor(basePort, i), database));
  const peers = nodes.map((n) => `127.0.0.1:${n.ports.group}`);
  // Temporary tables in a folder of each node's own, not the machine's /tmp.
  for (const node of nodes) {
    node.peers = peers;
    node.serverOptions = serverOptions;
    node.providerOptions = providerOptions;
    fs.mkdirSync(path.join(node.dir, 'tmp'), { recursive: true });
  }
  if (asMysql()) chownToMysql(nodes[0].dir);
  install(nodes[0].datadir, path.join(nodes[0].dir, 'tmp'));
  // The joiners start from the same system tables; their data arrives by SST.
  for (const node of nodes.slice(1)) fs.cpSync(nodes[0].datadir, node.datadir, { recursive: true });
  if (asMysql()) for (const node of nodes) chownToMysql(node.dir);
  const cluster = new GaleraCluster(root, nodes, database);
  try {
    await nodes[0].start({ bootstrap: true });
    const first = nodes[0];
    await first.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
    await first.query(`CREATE USER '${USER}'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
    await first.query(`GRANT ALL ON \`${database}\`.* TO '${USER}'@'127.0.0.1'`);
    // SHOW STATUS needs no grant; SHOW REPLICA STATUS (the replica check) needs this one.
    await first.query(`GRANT SLAVE MONITOR ON *.* TO '${USER}'@'127.0.0.1'`);
    // For the e2e suites, which create and drop their database through the first node.
    if (rootOverTcp) {
      await first.query(`CREATE USER 'root'@'127.0.0.1'`);
      await first.query(`GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION`);
    }
    // Joiners one at a time: two SSTs from one donor at once would queue anyway.
    for (const node of nodes.slice(1)) await node.start();
    await cluster.waitSynced();
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
  return cluster;
}

module.exports = { startCluster, GaleraCluster, missing, USER, PASSWORD, EVICTION };

if (require.main === module) {
  const { values, positionals } = require('node:util').parseArgs({
    allowPositionals: true,
    options: {
      dir: { type: 'string', default: path.join(os.tmpdir(), 'records-galera') },
      'port-base': { type: 'string' },
      database: { type: 'string', default: 'records' },
      'root-tcp': { type: 'boolean', default: false },
      'server-option': { type: 'string', multiple: true, default: [] },
      'provider-option': { type: 'string', multiple: true, default: [] },
    },
  });
  const root = path.resolve(values.dir);
  const command = positionals[0];
  const fail = (message) => {
    console.error(message);
    process.exit(1);
  };
  if (command === 'start') {
    if (fs.existsSync(path.join(root, 'state.json'))) {
      fail(`${root} holds a cluster already: node scripts/galera-cluster.js stop --dir ${root}`);
    }
    const basePort = values['port-base'] ? Number(values['port-base']) : undefined;
    startCluster(root, {
      basePort,
      database: values.database,
      rootOverTcp: values['root-tcp'],
      serverOptions: values['server-option'],
      providerOptions: values['provider-option'],
    }).then(
      (cluster) => {
        cluster.save();
        for (const node of cluster.nodes) {
          console.log(`${node.name}  ${node.address}  (pid ${node.pid})`);
        }
        console.log(`DATABASE_URL=${cluster.url()}`);
        console.log(`stop: node scripts/galera-cluster.js stop --dir ${root}`);
        // The nodes run on in their own process groups.
        process.exit(0);
      },
      (error) => {
        fs.rmSync(root, { recursive: true, force: true });
        fail(error.message);
      },
    );
  } else if (command === 'stop') {
    if (!fs.existsSync(path.join(root, 'state.json'))) fail(`no cluster in ${root}`);
    const cluster = GaleraCluster.load(root);
    cluster.stop().then(
      () => {
        fs.rmSync(root, { recursive: true, force: true });
        console.log(`stopped; ${root} removed`);
      },
      (error) => fail(error.message),
    );
  } else {
    fail(
      'usage: node scripts/galera-cluster.js start|stop [--dir DIR] [--port-base N] [--database NAME] [--root-tcp] [--server-option NAME=VALUE …] [--provider-option NAME=VALUE …]',
    );
  }
}
