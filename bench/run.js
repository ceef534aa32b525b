#!/usr/bin/env node
/**
 * `npm run bench`: the service against a hand-written baseline (bench/baseline.js), on MySQL.
 *
 *  1. Creates the benchmark database if it is missing and seeds it
 *     (`node dist/database/seed.js --reset --marbles N`).
 *  2. Starts the service (`node dist/main.js`, port 3100) and the baseline (port 3101).
 *  3. Checks that both answer every scenario with the same status, content type and body bytes;
 *     stops with exit code 1 if not.
 *  4. Runs autocannon on every scenario against each server (1 s warm-up, then the measured run)
 *     and prints a table.
 *
 * Environment:
 *   BENCH_MYSQL_URL     mysql://root@127.0.0.1:3306/records_bench (loopback only; its rows are
 *                       replaced, so the database name must contain "bench")
 *   BENCH_MARBLES       marbles to seed, default 10000
 *   BENCH_DURATION      seconds per measured run, default 5
 *   BENCH_CONNECTIONS   concurrent connections, default 10
 *   BENCH_CPU_PROF      1: run both servers under `node --cpu-prof` and print the top self-time
 *                       functions of each (profiles are kept in
 *                       $TMPDIR/records-bench-profiles/, for Chrome DevTools)
 */
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const HOST = '127.0.0.1';
const SERVICE_PORT = 3100;
const BASELINE_PORT = 3101;
/** Same Host header to both servers in the body check, so next/previous links compare equal. */
const CHECK_HOST = 'bench.localhost';
const PROFILE_DIR = path.join(os.tmpdir(), 'records-bench-profiles');

const SCENARIOS = [
  { name: 'marbles page 1 JSON', path: '/api/demo/marbles' },
  { name: 'marbles page 1 XML', path: '/api/demo/marbles.xml' },
  { name: 'emails page 3', path: '/api/demo/emails?page=3' },
  { name: 'one marble', path: '/api/demo/marbles/42' },
  { name: 'movies list', path: '/api/plain/movies' },
];

function fail(message) {
  const error = new Error(message);
  error.bench = true;
  return error;
}

function positiveInt(name, fallback, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw fail(`${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function loadSettings() {
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
  return {
    mysqlUrl,
    url,
    database,
    marbles: positiveInt('BENCH_MARBLES', 10000, 50_000_000),
    duration: positiveInt('BENCH_DURATION', 5, 600),
    connections: positiveInt('BENCH_CONNECTIONS', 10, 1000),
    cpuProf: /^(1|true|yes)$/i.test(process.env.BENCH_CPU_PROF || ''),
  };
}

// ---------------------------------------------------------------------------------------------
// Children

const children = new Set();

function startChild(name, args, env) {
  const proc = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = { name, proc, log: '', exit: undefined };
  const keep = (chunk) => {
    child.log = (child.log + chunk.toString()).slice(-20000);
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
      child.log += `\n${error.message}`;
      child.exit = { code: null, signal: null };
      children.delete(child);
      resolve(child.exit);
    });
  });
  children.add(child);
  return child;
}

function logTail(child) {
  // Nest colours its log lines; strip the escapes for a readable tail.
  const lines = child.log
    // eslint-disable-next-line no-control-regex -- ANSI colour escapes
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim()
    .split('\n');
  return lines
    .slice(-15)
    .map((l) => `    ${l}`)
    .join('\n');
}

async function stopChild(child) {
  if (child.exit) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 5000);
  await child.exited;
  clearTimeout(timer);
}

function stopAllNow() {
  for (const child of children) child.proc.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// HTTP helpers (loopback only)

function get(port, urlPath, headers = {}, timeoutMs = 10000) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: HOST, port, path: urlPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
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
      const res = await get(port, urlPath, {}, 2000);
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

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Steps

async function createDatabase(settings) {
  const mysql = require('mysql2/promise');
  const url = new URL(settings.url);
  url.pathname = '/';
  let connection;
  try {
    connection = await mysql.createConnection({
      uri: url.toString().replace(/^mariadb:/, 'mysql:'),
      connectTimeout: 5000,
    });
    await connection.query(
      `CREATE DATABASE IF NOT EXISTS \`${settings.database}\` CHARACTER SET utf8mb4`,
    );
  } catch (error) {
    throw fail(
      `cannot reach MySQL at ${redact(settings.mysqlUrl)}: ${error.code || ''} ${error.message}`,
    );
  } finally {
    await connection?.end().catch(() => undefined);
  }
}

async function seed(settings) {
  const seedScript = path.join(ROOT, 'dist/database/seed.js');
  if (!fs.existsSync(seedScript))
    throw fail('dist/ is missing: run `npm run build` (npm run bench does)');
  const child = startChild('seed', [seedScript, '--reset', '--marbles', String(settings.marbles)], {
    DATABASE_URL: settings.mysqlUrl,
  });
  const limitMs = 120_000 + settings.marbles * 0.2;
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), limitMs);
  const { code, signal } = await child.exited;
  clearTimeout(timer);
  if (code !== 0) {
    throw fail(
      `seeding failed (${signal ? `killed by ${signal}` : `exit code ${code}`}):\n${logTail(child)}`,
    );
  }
}

function serverArgs(script, name, settings) {
  if (!settings.cpuProf) return [script];
  const dir = PROFILE_DIR;
  fs.mkdirSync(dir, { recursive: true });
  fs.rmSync(path.join(dir, `${name}.cpuprofile`), { force: true });
  // The service re-raises SIGTERM after its shutdown hooks, and a process killed by a signal
  // writes no profile: exit normally on SIGTERM instead.
  return [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-name=${name}.cpuprofile`,
    '-e',
    `process.on('SIGTERM', () => process.exit(0)); require(${JSON.stringify(script)});`,
  ];
}

async function startServers(settings) {
  for (const port of [SERVICE_PORT, BASELINE_PORT]) {
    if (await portInUse(port))
      throw fail(`port ${port} is already in use; stop whatever listens there`);
  }
  const env = { DATABASE_URL: settings.mysqlUrl, DEMO_DATA: 'false' };
  const service = startChild(
    'service',
    serverArgs(path.join(ROOT, 'dist/main.js'), 'service', settings),
    {
      ...env,
      PORT: String(SERVICE_PORT),
    },
  );
  const baseline = startChild(
    'baseline',
    serverArgs(path.join(__dirname, 'baseline.js'), 'baseline', settings),
    { ...env, PORT: String(BASELINE_PORT), HOST },
  );
  await Promise.all([
    waitUntilAnswering(service, SERVICE_PORT, SCENARIOS[0].path, 60_000),
    waitUntilAnswering(baseline, BASELINE_PORT, SCENARIOS[0].path, 60_000),
  ]);
  return { service, baseline };
}

async function checkSameBodies() {
  const problems = [];
  for (const scenario of SCENARIOS) {
    const headers = { Host: CHECK_HOST };
    const [a, b] = await Promise.all([
      get(SERVICE_PORT, scenario.path, headers),
      get(BASELINE_PORT, scenario.path, headers),
    ]);
    const where = `${scenario.name} (GET ${scenario.path})`;
    if (a.status !== 200)
      problems.push(`${where}: service answered ${a.status}: ${a.body.toString().slice(0, 300)}`);
    if (b.status !== 200)
      problems.push(`${where}: baseline answered ${b.status}: ${b.body.toString().slice(0, 300)}`);
    if (a.headers['content-type'] !== b.headers['content-type']) {
      problems.push(
        `${where}: Content-Type differs: service "${a.headers['content-type']}", baseline "${b.headers['content-type']}"`,
      );
    }
    if (!a.body.equals(b.body))
      problems.push(`${where}: bodies differ\n${describeDifference(a.body, b.body)}`);
    else console.log(`  ok  ${scenario.name.padEnd(22)} ${a.body.length} bytes, identical`);
  }
  if (problems.length > 0) {
    throw fail(`the service and the baseline disagree:\n\n${problems.join('\n\n')}`);
  }
}

function describeDifference(a, b) {
  const sa = a.toString('utf8');
  const sb = b.toString('utf8');
  let i = 0;
  while (i < sa.length && i < sb.length && sa[i] === sb[i]) i++;
  const from = Math.max(0, i - 120);
  return (
    `  lengths: service ${a.length} bytes, baseline ${b.length} bytes; first difference at character ${i}\n` +
    `  service : …${JSON.stringify(sa.slice(from, i + 120))}\n` +
    `  baseline: …${JSON.stringify(sb.slice(from, i + 120))}`
  );
}

async function load(port, urlPath, connections, duration) {
  const autocannon = require('autocannon');
  const result = await autocannon({
    url: `http://${HOST}:${port}${urlPath}`,
    connections,
    duration,
    timeout: 10,
  });
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  };
}

async function measure(settings) {
  const rows = [];
  for (const scenario of SCENARIOS) {
    const row = { scenario };
    for (const [key, port] of [
      ['service', SERVICE_PORT],
      ['baseline', BASELINE_PORT],
    ]) {
      process.stdout.write(`  ${scenario.name} on the ${key}...`);
      await load(port, scenario.path, settings.connections, 1); // warm-up, not counted
      row[key] = await load(port, scenario.path, settings.connections, settings.duration);
      const r = row[key];
      const bad = r.errors + r.non2xx;
      process.stdout.write(
        ` ${Math.round(r.rps)} req/s${bad ? ` (${r.errors} errors, ${r.non2xx} non-2xx)` : ''}\n`,
      );
    }
    rows.push(row);
  }
  return rows;
}

function printTable(rows, settings) {
  const header = [
    'scenario',
    'service req/s',
    'p50 ms',
    'p99 ms',
    'baseline req/s',
    'p50 ms',
    'p99 ms',
    'service/baseline',
  ];
  const body = rows.map(({ scenario, service: s, baseline: b }) => [
    scenario.name,
    s.rps.toFixed(0),
    s.p50.toFixed(1),
    s.p99.toFixed(1),
    b.rps.toFixed(0),
    b.p50.toFixed(1),
    b.p99.toFixed(1),
    (s.rps / b.rps).toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells) =>
    '| ' +
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') +
    ' |';
  console.log(
    `\n${settings.marbles} marbles, ${settings.connections} connections, ` +
      `${settings.duration} s per run after a 1 s warm-up (GET, keep-alive, loopback)\n`,
  );
  console.log(line(header));
  console.log(
    '|' +
      widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') +
      '|',
  );
  for (const r of body) console.log(line(r));
  const failures = rows.flatMap(({ scenario, service, baseline }) =>
    [
      ['service', service],
      ['baseline', baseline],
    ]
      .filter(([, r]) => r.errors + r.non2xx + r.timeouts > 0)
      .map(
        ([who, r]) =>
          `${scenario.name} on the ${who}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`,
      ),
  );
  if (failures.length) console.log(`\nWARNING, failed requests:\n  ${failures.join('\n  ')}`);
  return failures.length === 0;
}

// ---------------------------------------------------------------------------------------------
// Optional CPU profile summary

function summariseProfile(file, top = 20) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) || 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  const functions = new Map();
  const packages = new Map();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') continue;
    busy += us;
    const where = shortUrl(url);
    const key = `${functionName || '(anonymous)'}  ${where}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) || 0) + us);
    const pkg = packageOf(functionName, url);
    packages.set(pkg, (packages.get(pkg) || 0) + us);
  }
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const sorted = (map) => [...map].sort((x, y) => y[1] - x[1]);
  console.log(`\n${file}: ${(busy / 1e6).toFixed(1)} s busy (idle excluded)`);
  console.log('  self time by package:');
  for (const [pkg, us] of sorted(packages).slice(0, 12)) console.log(`    ${pct(us)}  ${pkg}`);
  console.log(`  top ${top} functions by self time:`);
  for (const [key, us] of sorted(functions).slice(0, top)) console.log(`    ${pct(us)}  ${key}`);
}

function shortUrl(url) {
  if (!url) return '';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('node_modules/');
  if (nm !== -1) return file.slice(nm + 'node_modules/'.length);
  return file.startsWith(ROOT) ? path.relative(ROOT, file) : file;
}

function packageOf(functionName, url) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native/V8 builtins)';
  if (url.startsWith('node:')) return 'node core';
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = file.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (file.startsWith(ROOT)) return path.relative(ROOT, file).split('/').slice(0, 2).join('/');
  return file;
}

function redact(url) {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const settings = loadSettings();
  // Everything this run may take, plus a margin: past it, the children are killed and it exits.
  const budgetMs =
    120_000 +
    settings.marbles * 0.2 +
    120_000 +
    SCENARIOS.length * 2 * (settings.duration + 1 + 10) * 1000 +
    60_000;
  const watchdog = setTimeout(() => {
    console.error(`\nbench: gave up after ${Math.round(budgetMs / 1000)} s`);
    stopAllNow();
    process.exit(2);
  }, budgetMs);
  watchdog.unref();

  console.log(
    `Database ${redact(settings.mysqlUrl)}: creating if missing, seeding ${settings.marbles} marbles...`,
  );
  await createDatabase(settings);
  await seed(settings);

  console.log(
    `Starting the service (port ${SERVICE_PORT}) and the baseline (port ${BASELINE_PORT})...`,
  );
  const servers = await startServers(settings);
  let ok;
  try {
    console.log('Checking that both answer with identical bodies:');
    await checkSameBodies();
    console.log('Measuring:');
    const rows = await measure(settings);
    ok = printTable(rows, settings);
  } finally {
    await Promise.all([stopChild(servers.service), stopChild(servers.baseline)]);
  }
  if (settings.cpuProf) {
    for (const name of ['service', 'baseline']) {
      const file = path.join(PROFILE_DIR, `${name}.cpuprofile`);
      if (fs.existsSync(file)) summariseProfile(file);
      else console.log(`\nno profile written for the ${name}`);
    }
  }
  clearTimeout(watchdog);
  process.exitCode = ok ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopAllNow();
    process.exit(130);
  });
}

main().catch((error) => {
  console.error(`\nbench: ${error.bench ? error.message : error.stack}`);
  stopAllNow();
  process.exit(1);
});
