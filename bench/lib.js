/**
 * What bench/run.js and bench/soak.js share: settings, the benchmark database, child processes
 * (servers, seed), HTTP on the loopback, and wrk.
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const HOST = '127.0.0.1';
const REPORT_SCRIPT = path.join(__dirname, 'lua', 'wrk-report.lua');

/** An error whose message is the whole story: printed without a stack. */
function fail(message) {
  const error = new Error(message);
  error.bench = true;
  return error;
}

function positiveInt(name, fallback, max, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw fail(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function envFlag(name) {
  return /^(1|true|yes|on)$/i.test(process.env[name] || '');
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function redact(url) {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

// ---------------------------------------------------------------------------------------------
// The benchmark database

/** BENCH_MYSQL_URL, checked: loopback only, and a database whose name says it may be wiped. */
function databaseSettings() {
  const mysqlUrl = process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/records_bench';
  let url;
  try {
    url = new URL(mysqlUrl);
  } catch {
    throw fail(`BENCH_MYSQL_URL is not a URL: "${mysqlUrl}"`);
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    throw fail('BENCH_MYSQL_URL must be mysql://user:password@127.0.0.1:3306/records_bench');
  }
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(database) || !/bench/i.test(database)) {
    throw fail(
      `BENCH_MYSQL_URL names database "${database}": the benchmark replaces every row of it, ` +
        'so it must be a plain name containing "bench" (e.g. records_bench)',
    );
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (!['127.0.0.1', 'localhost', '::1'].includes(hostname)) {
    throw fail(`BENCH_MYSQL_URL must point at a loopback address, got "${url.hostname}"`);
  }
  return { mysqlUrl, url, database };
}

/** A connection to the benchmark's server (to its database with `withDatabase`); `options`: mysql2's. */
async function connect(db, withDatabase, options = {}) {
  const mysql = require('mysql2/promise');
  const url = new URL(db.url);
  if (!withDatabase) url.pathname = '/';
  try {
    return await mysql.createConnection({
      uri: url.toString().replace(/^mariadb:/, 'mysql:'),
      connectTimeout: 5000,
      ...options,
    });
  } catch (error) {
    const where = `${url.hostname}:${url.port || 3306}`;
    if (['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOENT'].includes(error.code)) {
      throw fail(
        `MySQL/MariaDB is not running at ${where} (${error.code}): start it ` +
          '(e.g. `service mariadb start`) or point BENCH_MYSQL_URL elsewhere on the loopback',
      );
    }
    throw fail(
      `cannot connect to MySQL at ${redact(db.mysqlUrl)}: ${error.code || ''} ${error.message}`,
    );
  }
}

/** Creates the database if it is missing. */
async function createDatabase(db) {
  const connection = await connect(db, false);
  try {
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS \`${db.database}\` CHARACTER SET utf8mb4`,
    );
  } finally {
    await connection.end().catch(() => undefined);
  }
}

/** Marbles in the database, or undefined when it has no marbles table yet. */
async function marbleCount(db) {
  const connection = await connect(db, true);
  try {
    const [rows] = await connection.query('SELECT COUNT(*) AS n FROM marbles');
    return Number(rows[0].n);
  } catch (error) {
    if (error.code === 'ER_NO_SUCH_TABLE') return undefined;
    throw error;
  } finally {
    await connection.end().catch(() => undefined);
  }
}

/**
 * Waits until no statement runs on the benchmark database (other than this connection's), at most
 * `limitMs`: a run that ends while requests are in flight leaves their queries running in the
 * database, and they must not weigh on the next run, which may be the other server's.
 * Resolves to the milliseconds waited.
 */
async function quiesce(db, limitMs) {
  const started = Date.now();
  const connection = await connect(db, true);
  try {
    for (;;) {
      const [rows] = await connection.query(
        'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST' +
          " WHERE DB = ? AND COMMAND = 'Query' AND ID <> CONNECTION_ID()",
        [db.database],
      );
      if (Number(rows[0].n) === 0 || Date.now() - started > limitMs) break;
      await sleep(50);
    }
  } finally {
    await connection.end().catch(() => undefined);
  }
  return Date.now() - started;
}

/**
 * A fresh database with `node dist/seed.js --reset --marbles N` (deterministic data).
 * The database is dropped and created first, not emptied: a million deleted rows would leave
 * InnoDB purging in the background and the tables' files and statistics those of the old size,
 * and both servers would then be measured against a database busy with itself. Afterwards every
 * table is analyzed, so that the planner's statistics describe the rows just loaded.
 */
async function seed(db, marbles) {
  const seedScript = path.join(ROOT, 'dist/seed.js');
  if (!fs.existsSync(seedScript)) throw fail('dist/ is missing: run `npm run build` first');
  const server = await connect(db, false);
  try {
    await server.query(`DROP DATABASE IF EXISTS \`${db.database}\``);
  } finally {
    await server.end().catch(() => undefined);
  }
  await createDatabase(db);
  const child = startChild('seed', [seedScript, '--reset', '--marbles', String(marbles)], {
    DATABASE_URL: db.mysqlUrl,
  });
  const limitMs = seedBudgetMs(marbles);
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), limitMs);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  if (code !== 0) {
    throw fail(
      `seeding failed (${signal ? `killed by ${signal}` : `exit code ${code}`}):\n${logTail(child)}`,
    );
  }
  const connection = await connect(db, true);
  try {
    const [tables] = await connection.query(
      "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
      [db.database],
    );
    const names = tables.map((t) => `\`${t.name}\``).join(', ');
    await connection.query(`ANALYZE TABLE ${names}`);
  } finally {
    await connection.end().catch(() => undefined);
  }
}

function seedBudgetMs(marbles) {
  return 120_000 + marbles * 0.2;
}

// ---------------------------------------------------------------------------------------------
// Children

const children = new Set();
/** Bytes of each child's output kept for error messages. */
const LOG_KEPT = 32 * 1024;

/**
 * The Node flags the service runs with: those of `npm start` (package.json), which the image's
 * CMD repeats (test/ops/deploy/compose.spec.ts checks they agree), so that the benchmarks measure the
 * service as it ships.
 */
function serviceNodeFlags() {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  // `exec` makes the server npm's own child, so that a signal to npm reaches it.
  const words = scripts.start.replace(/^exec\s+/, '').split(/\s+/);
  if (words[0] !== 'node' || words[words.length - 1] !== 'dist/main.js') {
    throw fail(`package.json: "start" is not "node [flags] dist/main.js": ${scripts.start}`);
  }
  return words.slice(1, -1);
}

let serverNodePath;

/**
 * The Node the servers (and the seed) run on: BENCH_NODE, a path to a `node` binary or `machine`
 * for the Node running this script; by default the image's line (the Dockerfile's
 * node:<major>-slim), which scripts/image-node.sh installs into .ci/tools once. The figures are
 * then those of the runtime the service ships on: Node 20 and 22 run Nest and Express about
 * three times slower than Node 24 and 26 do, and a hand-written node:http server only a little
 * slower, so the ratios depend on the line.
 */
function serverNode() {
  if (serverNodePath !== undefined) return serverNodePath;
  const wanted = process.env.BENCH_NODE;
  if (wanted === 'machine') {
    serverNodePath = process.execPath;
  } else if (wanted) {
    if (!fs.existsSync(wanted)) throw fail(`BENCH_NODE=${wanted}: no such file`);
    serverNodePath = wanted;
  } else {
    const script = path.join(ROOT, 'scripts/image-node.sh');
    const result = spawnSync('bash', [script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (result.status !== 0) {
      throw fail(
        "cannot install the image's Node line (scripts/image-node.sh); " +
          'BENCH_NODE=machine runs the servers on this Node instead',
      );
    }
    serverNodePath = result.stdout.trim();
  }
  return serverNodePath;
}

/** `node --version` of the servers' Node. */
function serverNodeVersion() {
  return spawnSync(serverNode(), ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/**
 * Starts `node ARGS` on the servers' Node (serverNode). Its output is kept as a short ring of
 * buffers, never decoded until an error needs it: the service logs a line per request, and this
 * process must stay idle under load.
 */
function startChild(name, args, env) {
  const proc = spawn(serverNode(), args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = { name, proc, chunks: [], kept: 0, exit: undefined };
  const keep = (chunk) => {
    child.chunks.push(chunk);
    child.kept += chunk.length;
    while (child.kept - child.chunks[0].length > LOG_KEPT)
      child.kept -= child.chunks.shift().length;
  };
  proc.stdout.on('data', keep);
  proc.stderr.on('data', keep);
  child.exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      child.exit = { code, signal };
      children.delete(child);
      resolve(child.exit);
    });
    proc.on('error', (error) => {
      keep(Buffer.from(`\n${error.message}\n`));
      child.exit = { code: null, signal: null };
      children.delete(child);
      resolve(child.exit);
    });
  });
  children.add(child);
  return child;
}

function logTail(child, lines = 15) {
  return (
    Buffer.concat(child.chunks)
      .toString('utf8')
      // Nest colours its log lines; strip the escapes for a readable tail.
      // eslint-disable-next-line no-control-regex -- ANSI colour escapes
      .replace(/\x1b\[[0-9;]*m/g, '')
      .trim()
      .split('\n')
      .slice(-lines)
      .map((l) => `    ${l.slice(0, 400)}`)
      .join('\n')
  );
}

async function stopChild(child) {
  if (child.exit) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 10_000);
  await child.exited;
  clearTimeout(timer);
}

function stopAllNow() {
  for (const child of children) child.proc.kill('SIGKILL');
  for (const proc of wrkProcesses) proc.kill('SIGKILL');
}

/** On Ctrl-C or SIGTERM, and on an unexpected error: no server or wrk left behind. */
function runMain(name, main) {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopAllNow();
      process.exit(130);
    });
  }
  main().catch((error) => {
    console.error(`\n${name}: ${error.bench ? error.message : error.stack}`);
    stopAllNow();
    process.exit(1);
  });
}

/** Past `ms`, everything is killed and the process exits with code 2. */
function watchdog(name, ms) {
  const timer = setTimeout(() => {
    console.error(`\n${name}: gave up after ${Math.round(ms / 1000)} s`);
    stopAllNow();
    process.exit(2);
  }, ms);
  timer.unref();
  return timer;
}

// ---------------------------------------------------------------------------------------------
// HTTP (loopback only)

function get(port, urlPath, headers = {}, timeoutMs = 10000) {
  return request(port, 'GET', urlPath, { headers, timeoutMs });
}

/** One request with any method and an optional body (a string, sent as JSON). */
function request(port, method, urlPath, { headers = {}, body, timeoutMs = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const all = { ...headers };
    if (body !== undefined) {
      all['Content-Type'] = 'application/json';
      all['Content-Length'] = Buffer.byteLength(body);
    }
    const req = http.request(
      { host: HOST, port, path: urlPath, method, headers: all, agent: false },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

function portInUse(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function waitUntilAnswering(child, port, urlPath, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exit) {
      throw fail(
        `${child.name} exited (code ${child.exit.code}) before answering:\n${logTail(child)}`,
      );
    }
    try {
      const res = await get(port, urlPath, {}, 10_000);
      if (res.status === 200) return;
      last = `status ${res.status}: ${res.body.toString().slice(0, 200)}`;
    } catch (error) {
      last = error.message;
    }
    await sleep(200);
  }
  throw fail(
    `${child.name} did not answer ${urlPath} in ${timeoutMs / 1000} s (${last}):\n${logTail(child)}`,
  );
}

/** VmRSS of a process in KiB, from /proc; undefined if it is gone. */
function rssKiB(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time (user + system) a process has used, in milliseconds, from /proc (NaN elsewhere): per
 * request, it varies far less than req/s on a machine shared with other work.
 */
function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * The database server's process id, from its pid file (`@@pid_file`), for its CPU time from
 * /proc; undefined when the file cannot be read here (a server on another machine, in a
 * container, or unreadable to this user).
 */
async function databasePid(db) {
  const connection = await connect(db, false);
  try {
    const [[row]] = await connection.query('SELECT @@pid_file AS file');
    const pid = Number(fs.readFileSync(row.file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  } finally {
    await connection.end().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// wrk

const WRK = process.env.BENCH_WRK || 'wrk';
const wrkProcesses = new Set();

/** Stops with a clear message when wrk is not installed. */
function checkWrk() {
  const result = spawnSync(WRK, ['--version'], { encoding: 'utf8' });
  if (result.error) {
    throw fail(
      result.error.code === 'ENOENT'
        ? `wrk is not installed (no "${WRK}" on the PATH): apt-get install wrk`
        : `cannot run ${WRK}: ${result.error.message}`,
    );
  }
  // `wrk --version` prints its banner and exits 1.
  const banner = `${result.stdout}${result.stderr}`.split('\n')[0].trim();
  if (!/^wrk /.test(banner)) throw fail(`"${WRK} --version" does not look like wrk: ${banner}`);
  return banner;
}

/**
 * One wrk run on http://127.0.0.1:PORT/PATH. Resolves to requests, rps, latency percentiles (ms)
 * and error counts; `script` defaults to the report hook, and `scriptArgs` reach its `init`.
 */
function runWrk({
  port,
  path: urlPath,
  connections,
  duration,
  threads = 1,
  timeout = 30,
  script = REPORT_SCRIPT,
  scriptArgs = [],
  headers = {},
}) {
  const args = [
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    `-t${Math.min(threads, connections)}`,
    `-c${connections}`,
    `-d${duration}s`,
    `--timeout`,
    `${timeout}s`,
    '-s',
    script,
    `http://${HOST}:${port}${urlPath}`,
  ];
  if (scriptArgs.length) args.push('--', ...scriptArgs);
  return new Promise((resolve, reject) => {
    const proc = spawn(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    wrkProcesses.add(proc);
    let out = '';
    proc.stdout.on('data', (c) => (out += c));
    proc.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => proc.kill('SIGKILL'), (duration + timeout + 30) * 1000);
    proc.on('error', (error) => {
      clearTimeout(timer);
      wrkProcesses.delete(proc);
      reject(fail(`cannot run wrk: ${error.message}`));
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      wrkProcesses.delete(proc);
      const line = /^WRK_RESULT (\{.*\})$/m.exec(out);
      if (!line) {
        return reject(
          fail(
            `wrk ended (${signal || `code ${code}`}) without a result: wrk ${args.join(' ')}\n${out}`,
          ),
        );
      }
      const r = JSON.parse(line[1]);
      const seconds = r.duration_us / 1e6;
      const ms = (us) => (r.requests > 0 ? us / 1000 : NaN);
      resolve({
        requests: r.requests,
        seconds,
        rps: r.requests / seconds,
        p50: ms(r.p50_us),
        p90: ms(r.p90_us),
        p99: ms(r.p99_us),
        max: ms(r.max_us),
        socketErrors: r.connect + r.read + r.write,
        non2xx: r.status,
        timeouts: r.timeout,
        output: out,
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Output

/** A Markdown table: first column left-aligned, the others right-aligned. */
function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) =>
    '| ' +
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') +
    ' |';
  return [
    line(header),
    '|' +
      widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') +
      '|',
    ...rows.map(line),
  ].join('\n');
}

module.exports = {
  ROOT,
  HOST,
  REPORT_SCRIPT,
  fail,
  positiveInt,
  envFlag,
  sleep,
  redact,
  databaseSettings,
  createDatabase,
  marbleCount,
  quiesce,
  seed,
  seedBudgetMs,
  serviceNodeFlags,
  serverNode,
  serverNodeVersion,
  startChild,
  logTail,
  stopChild,
  stopAllNow,
  runMain,
  watchdog,
  get,
  request,
  portInUse,
  connect,
  waitUntilAnswering,
  rssKiB,
  cpuMs,
  databasePid,
  checkWrk,
  runWrk,
  table,
};
