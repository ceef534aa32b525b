#!/usr/bin/env node
/**
 * A MariaDB primary and a GTID replica of it, each a `mariadbd --no-defaults` process of its own
 * on a free loopback port, with its datadir and socket under a temporary folder. Used by the
 * replica suite (test/ops/replicas/) and, from the command line, for the benchmark with a
 * replica:
 *
 *   node scripts/mariadb-pair.js [--database NAME]
 *                                      starts the pair, prints the URLs, stops it on Ctrl-C
 *
 * The pair has a database `records` (or NAME) and a user `records` (password `records-secret`) that may
 * read the replica's replication status. Nothing here touches any other MariaDB server.
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const USER = 'records';
const PASSWORD = 'records-secret';

/** A binary from the PATH or the sbin folders (mariadbd and nginx live there), or undefined. */
function findBinary(name) {
  const dirs = [...(process.env.PATH || '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/** Options every server of the pair starts with: small, and only on the loopback. */
function serverArgs(server) {
  const args = [
    '--no-defaults',
    `--datadir=${server.datadir}`,
    `--socket=${server.socket}`,
    `--pid-file=${path.join(server.dir, 'mariadbd.pid')}`,
    `--port=${server.port}`,
    '--bind-address=127.0.0.1',
    `--server-id=${server.serverId}`,
    `--log-basename=${server.name}`,
    `--log-error=${path.join(server.dir, 'error.log')}`,
    '--innodb-buffer-pool-size=64M',
    '--innodb-log-file-size=16M',
    '--character-set-server=utf8mb4',
    '--skip-name-resolve',
  ];
  if (server.primary === true) args.push('--log-bin', '--binlog-format=ROW');
  else if (server.primary === false) args.push('--read-only', '--relay-log-recovery');
  if (process.getuid && process.getuid() === 0) args.push('--user=root');
  return [...args, ...server.extraArgs];
}

class MariaDbServer {
  constructor(root, name, serverId, primary, database, extraArgs = []) {
    this.database = database;
    /** More server options (e.g. `--innodb-lock-wait-timeout=2`), kept across restarts. */
    this.extraArgs = extraArgs;
    this.name = name;
    this.serverId = serverId;
    this.primary = primary;
    this.dir = path.join(root, name);
    this.datadir = path.join(this.dir, 'data');
    this.socket = path.join(this.dir, 'mariadbd.sock');
    this.port = 0;
    this.child = undefined;
    this.exited = Promise.resolve();
  }

  get pid() {
    return this.child?.pid;
  }

  /** mysql://records:…@127.0.0.1:port/records */
  url(user = USER, password = PASSWORD) {
    return `mysql://${user}:${password}@127.0.0.1:${this.port}/${this.database}`;
  }

  /** Starts mariadbd (again, after a stop or kill: same datadir, same port). */
  async start(timeoutMs = 60_000) {
    if (!this.port) this.port = await freePort();
    const child = spawn(findBinary('mariadbd'), serverArgs(this), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    this.child = child;
    this.exited = new Promise((resolve) => child.on('close', () => resolve()));
    let closed = false;
    void this.exited.then(() => (closed = true));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (closed) throw new Error(`mariadbd ${this.name} exited at start: ${stderr}${this.log()}`);
      try {
        const connection = await this.connect();
        await connection.end();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`mariadbd ${this.name} not up: ${this.log()}`);
        await pause(100);
      }
    }
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
      const [rows] = await connection.query(sql, parameters);
      return rows;
    } finally {
      await connection.end();
    }
  }

  /** A global status counter, e.g. Com_select. */
  async status(name) {
    const [row] = await this.query('SHOW GLOBAL STATUS LIKE ?', [name]);
    return Number(row.Value);
  }

  /** Sends `name` (SIGSTOP, SIGCONT, …) to the running server; nothing once it has exited. */
  signal(name) {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill(name);
    }
  }

  /** SIGTERM (after a SIGCONT, should it be stopped) and wait for the exit. */
  async stop() {
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    await this.exited;
  }

  /** SIGKILL (kill -9) and wait for the exit. */
  async kill() {
    this.signal('SIGKILL');
    await this.exited;
  }

  log() {
    try {
      return `\n--- ${this.name} error log\n${fs.readFileSync(path.join(this.dir, 'error.log'), 'utf8').slice(-3000)}`;
    } catch {
      return '';
    }
  }
}

/** Whether this machine can run the pair: the MariaDB server binaries are installed. */
function missingBinaries() {
  return ['mariadbd', 'mariadb-install-db'].filter((name) => !findBinary(name));
}

/**
 * Creates the datadir once (mariadb-install-db), copies it for the replica, starts both, and
 * makes the second a GTID replica of the first. `root` is a folder the caller owns and removes.
 */
async function startPair(root, database = 'records') {
  const primary = new MariaDbServer(root, 'primary', 1, true, database);
  const replica = new MariaDbServer(root, 'replica', 2, false, database);
  install(primary);
  fs.mkdirSync(replica.dir, { recursive: true });
  fs.cpSync(primary.datadir, replica.datadir, { recursive: true });
  try {
    await Promise.all([primary.start(), replica.start()]);
    await replicate(primary, replica);
  } catch (error) {
    await Promise.all([primary.stop(), replica.stop()]);
    throw error;
  }
  return { primary, replica };
}

/**
 * One server of its own, neither primary nor replica, started and answering as root through its
 * socket (`query`); `root` is a folder the caller owns and removes. `args`: more server options,
 * also on a restart.
 */
async function startServer(root, name = 'server', args = []) {
  const server = new MariaDbServer(root, name, 1, null, undefined, args);
  install(server);
  await server.start();
  return server;
}

/** Creates the server's datadir with mariadb-install-db (root through the socket, no test db). */
function install(server) {
  const missing = missingBinaries();
  if (missing.length)
    throw new Error(`not installed: ${missing.join(', ')} (apt-get install mariadb-server)`);
  fs.mkdirSync(server.dir, { recursive: true });
  const result = spawnSync(
    findBinary('mariadb-install-db'),
    [
      '--no-defaults',
      `--datadir=${server.datadir}`,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
      '--innodb-log-file-size=16M',
      ...(process.getuid && process.getuid() === 0 ? ['--user=root'] : []),
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) {
    throw new Error(`mariadb-install-db failed: ${result.stdout}${result.stderr}`);
  }
}

/** Makes `replica` a GTID replica of `primary`, with the database and the service's user. */
async function replicate(primary, replica) {
  await primary.query("CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'repl'");
  await primary.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'");
  await replica.query(
    `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primary.port}, ` +
      "MASTER_USER='repl', MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos",
  );
  await replica.query('START SLAVE');
  // Made on the primary, so they reach the replica through replication.
  const database = primary.database;
  await primary.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await primary.query(`CREATE USER '${USER}'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
  await primary.query(`GRANT ALL ON \`${database}\`.* TO '${USER}'@'127.0.0.1'`);
  await primary.query(`GRANT SLAVE MONITOR ON *.* TO '${USER}'@'127.0.0.1'`);
  await caughtUp(primary, replica);
}

/** Waits until the replica has applied everything the primary has written so far. */
async function caughtUp(primary, replica, timeoutMs = 30_000) {
  const [{ position }] = await primary.query('SELECT @@gtid_binlog_pos AS position');
  const [{ ok }] = await replica.query('SELECT MASTER_GTID_WAIT(?, ?) AS ok', [
    position,
    timeoutMs / 1000,
  ]);
  if (Number(ok) !== 0) throw new Error(`the replica did not reach ${position}${replica.log()}`);
}

module.exports = {
  startPair,
  startServer,
  caughtUp,
  findBinary,
  missingBinaries,
  freePort,
  USER,
  PASSWORD,
};

if (require.main === module) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'records-pair-'));
  const { values } = require('node:util').parseArgs({
    options: { database: { type: 'string', default: 'records' } },
  });
  startPair(root, values.database).then(
    ({ primary, replica }) => {
      console.log(`primary  ${primary.url()}  (pid ${primary.pid})`);
      console.log(`replica  ${replica.url()}  (pid ${replica.pid})`);
      console.log('Ctrl-C stops both and removes their data.');
      const stop = async () => {
        await Promise.all([primary.stop(), replica.stop()]);
        fs.rmSync(root, { recursive: true, force: true });
        process.exit(0);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (error) => {
      console.error(error.message);
      fs.rmSync(root, { recursive: true, force: true });
      process.exit(1);
    },
  );
}
