#!/usr/bin/env node
/**
 * The test commands (docs/operations.md, "The test command"):
 *
 * `npm test`, minutes: the type check, the unit tests, every e2e suite on SQLite, then every e2e
 * suite on MySQL/MariaDB when it answers.
 * `npm run test:all` (TEST_SCOPE=all), what CI runs: the same, with the MySQL pass made with the
 * fixture collections added (a superset of the plain pass), then the e2e suites on a Galera
 * cluster of the run's own, `npm run build` and the operations suites (test/ops/: the built
 * server as a black box, the browser, the read replicas, the Galera suite, the MySQL ones, and
 * the recipe's, which runs every e2e suite on SQLite with the fixture collections and one more),
 * and the image's start sequence outside Docker.
 *
 * The type check (`tsc --noEmit -p test/tsconfig.json`: src and test under the project's
 * compiler options) comes first, in every scope: ts-jest compiles each file alone
 * (`isolatedModules`) and checks no types, so without it a type error would pass the tests. A
 * type error ends the run there, failed.
 *
 * The e2e suites run in Jest workers, as many as the machine runs at once
 * (os.availableParallelism(), or TEST_WORKERS), each on a database of its own: SQLite, a file per
 * suite copied from one migrated once per run; MySQL, `<database>_<worker>` beside TEST_MYSQL_URL's
 * database (default mysql://root@127.0.0.1:3306/records_collections_test; test/e2e/support/
 * worker-database.ts). The run drops and creates afresh those databases the tests created
 * (scripts/test-database.js: a marker table says so); one of those names the tests did not create
 * stops the run untouched. The run lists the databases it uses before it starts. Where no MySQL
 * answers, the run still passes on SQLite and says so plainly, unless CI=true or REQUIRE_MYSQL=1,
 * where a MySQL stage that did not run is a failure. A MySQL server that goes away while a stage
 * uses it stops the run at once, with one line naming it.
 *
 * Extra arguments go to every Jest stage (e.g. `npm test -- marbles`). TEST_STAGES (a comma list
 * of the names below) runs those stages alone: `TEST_SCOPE=all TEST_STAGES=e2e-galera npm test --
 * read/shapes`.
 *
 * TEST_SCOPE=smoke runs the type check, the unit tests and SMOKE_SUITES, e2e suites on SQLite
 * that between them answer every route, write through every kind of write, record events and
 * draw the pages: enough to show that a second Node line runs the service (CI's pass on Node 20;
 * the full command runs on the image's line).
 * TEST_SCOPE=fixtures (`npm run test:fixtures`) runs the unit tests and the e2e suites, on SQLite
 * and on MySQL when it answers, with EXTRA_COLLECTIONS=fixture_tags,fixture_notes.
 *
 * The Galera stage starts a three-node cluster (scripts/galera-cluster.js, ports
 * TEST_GALERA_PORT_BASE (24300) to +11) in the run's folder; without mariadb-server, galera-4 or
 * rsync it is reported as not run (a failure under CI=true), as are the replica suite without
 * mariadbd or nginx, and the browser tests without Chromium (CHROMIUM_PATH, default
 * /usr/bin/chromium).
 *
 * A stopped run leaves nothing behind. Each run has a folder, `<tmp>/records-run-<pid>`, which
 * it names to every process it starts (RECORDS_TEST_RUN) and makes their TMPDIR; each stage runs
 * in a process group of its own. Ctrl-C, SIGTERM or SIGHUP ends the stage's group, then every
 * process that names the run and every group recorded in its folder (scripts/run-sweep.js), and
 * removes the folder; a guard process does the same when the runner itself is killed (SIGKILL).
 */
'use strict';

const { spawn } = require('node:child_process');
const { existsSync, mkdirSync, readFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');

const {
  DEFAULT_TEST_MYSQL_URL,
  TEST_DATABASE_PREFIX,
  databaseOf,
  serverOf,
  prepareTestDatabase,
  workerDatabaseUrl,
} = require('./test-database');
const { RUN_VARIABLE, sweep } = require('./run-sweep');

const ROOT = join(__dirname, '..');
const mysqlUrl = process.env.TEST_MYSQL_URL || DEFAULT_TEST_MYSQL_URL;
const requireMysql = process.env.CI === 'true' || process.env.REQUIRE_MYSQL === '1';
const scope = process.env.TEST_SCOPE || 'quick';
if (!['quick', 'smoke', 'fixtures', 'all'].includes(scope)) {
  console.error(`TEST_SCOPE=${scope}: one of smoke, fixtures, all (or none: npm test's stages).`);
  process.exit(2);
}
const only = process.env.TEST_STAGES
  ? process.env.TEST_STAGES.split(',').map((s) => s.trim())
  : undefined;
/** Jest workers for the e2e stages: one per core the machine runs at once. */
const workers = Number(process.env.TEST_WORKERS) || os.availableParallelism();
/** The fixture collections of test/fixtures/, added to COLLECTIONS by the tests (test/sources.ts). */
const FIXTURES_ENV = { EXTRA_COLLECTIONS: 'fixture_tags,fixture_notes' };
const WITH_FIXTURES = ` with ${FIXTURES_ENV.EXTRA_COLLECTIONS}`;
const jestBin = require.resolve('jest/bin/jest');
const extra = process.argv.slice(2);
/** Jest's cache where it would be without the run's TMPDIR, so that it outlives the run. */
const jestCache = join(os.tmpdir(), `jest_${(process.getuid?.() ?? 0).toString(36)}`);

/** The run's folder: the stages' TMPDIR, the Jest reports, the recorded process groups. */
const runDir = join(os.tmpdir(), `records-run-${process.pid}`);
const runTmp = join(runDir, 'tmp');
mkdirSync(runTmp, { recursive: true });
// Everything started from here on inherits them (this process's own Galera nodes too).
process.env[RUN_VARIABLE] = runDir;
process.env.TMPDIR = runTmp;
process.env.TMP = runTmp;
process.env.TEMP = runTmp;

/** The guard that sweeps the run if this process is killed outright (scripts/run-sweep.js). */
const guard = (() => {
  const env = { ...process.env };
  delete env[RUN_VARIABLE];
  const child = spawn(
    process.execPath,
    [join(__dirname, 'run-sweep.js'), 'guard', String(process.pid), runDir],
    { detached: true, stdio: 'ignore', env },
  );
  child.unref();
  return child;
})();

/** The stage running now: its child (the leader of its process group) and its name. */
let current;
let ending = false;

/** Ends the run: sweeps its folder and processes, sends the guard away, exits with `code`. */
function finish(code) {
  ending = true;
  sweep(runDir, { except: [process.pid] });
  try {
    process.kill(guard.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
  process.exit(code);
}

function stopGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group has ended.
  }
}

/** The exit code of a run stopped by a signal (128 + its number), once one came. */
let interruptedWith;

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (ending) return;
    ending = true;
    interruptedWith = 128 + os.constants.signals[signal];
    console.error(
      `\n${signal}: stopping the run${current ? ` (${current.name})` : ''} and what it started (${runDir})`,
    );
    if (current) stopGroup(current.child, 'SIGTERM');
    // A moment for the stage to end its own children; then whatever is left is killed.
    setTimeout(() => finish(interruptedWith), current ? 2000 : 0);
  });
}

function seconds(since) {
  return (Date.now() - since) / 1000;
}

/**
 * Watches the MySQL server at `url` while a stage uses it: a query a second on a connection of
 * its own; three failures in a row (a connection refused fails at once) call `gone` with the
 * reason. Returns a function that stops watching.
 */
function watchMysql(url, gone) {
  const mysql = require('mysql2/promise');
  let stopped = false;
  let connection;
  let failures = 0;
  let timer;
  const drop = () => {
    connection?.destroy();
    connection = undefined;
  };
  const tick = async () => {
    try {
      if (!connection) {
        connection = await mysql.createConnection({ uri: serverOf(url), connectTimeout: 2000 });
        connection.on('error', () => undefined);
      }
      await connection.query({ sql: 'SELECT 1', timeout: 2000 });
      failures = 0;
    } catch (error) {
      drop();
      if (++failures >= 3 && !stopped) {
        stopped = true;
        gone(`${error.code || ''} ${error.message}`.trim());
        return;
      }
    }
    if (!stopped) timer = setTimeout(tick, 1000);
  };
  timer = setTimeout(tick, 1000);
  return () => {
    stopped = true;
    clearTimeout(timer);
    drop();
  };
}

/**
 * A child in a process group of its own, its output shown as it comes (or piped, `pipe`), as the
 * stage `name`; `mysql`, a server URL to watch while it runs. Resolves to its exit status.
 */
function runStage(name, command, args, { env = {}, mysql, pipe = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      detached: true,
      stdio: pipe ? ['ignore', 'pipe', 'inherit'] : 'inherit',
      env: { ...process.env, ...env },
    });
    current = { name, child };
    const unwatch = mysql
      ? watchMysql(mysql, (reason) => {
          if (ending) return;
          ending = true;
          stopGroup(child, 'SIGKILL');
          console.error(
            `\nThe MySQL server at ${serverOf(mysql)} went away during ${name} (${reason}): the run stops.`,
          );
          finish(1);
        })
      : () => undefined;
    child.on('error', () => undefined);
    child.on('close', (status) => {
      unwatch();
      current = undefined;
      // Stopped by a signal: the run ends here, not with the next stage.
      if (interruptedWith !== undefined) finish(interruptedWith);
      resolve({ status, child });
    });
  });
}

/** One Jest stage; counted from its JSON report. */
async function jest(name, args, env = {}, mysql = undefined) {
  const outputFile = join(runDir, `${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const { status } = await runStage(
    name,
    process.execPath,
    [
      jestBin,
      ...args,
      `--cacheDirectory=${jestCache}`,
      '--json',
      `--outputFile=${outputFile}`,
      ...extra,
    ],
    { env, mysql },
  );
  let report = { numPassedTests: 0, numFailedTests: 0, numTotalTests: 0 };
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8'));
  } catch {
    // Jest did not get as far as writing a report: counted as a failure below.
  }
  const took = seconds(started);
  console.log(`--- ${name} took ${took.toFixed(1)} s`);
  const ok = status === 0 && report.numFailedTests === 0 && report.numTotalTests > 0;
  const failed = report.numFailedTests || (ok ? 0 : 1);
  return { name, ok, passed: report.numPassedTests, failed, seconds: took };
}

/** The e2e suites of TEST_SCOPE=smoke: the interface's contract, reads, writes, events, pages. */
const SMOKE_SUITES = [
  'contract',
  'pages/front-door',
  'read/shapes',
  'read/pagination',
  'write/create-marbles',
  'write/update-marbles',
  'write/marble-actions',
  'write/destroy',
  'events/events',
  'pages/browsable',
].map((name) => `/test/e2e/${name}\\.e2e-spec\\.ts$`);

/** The e2e project, in the run's workers. */
const E2E = ['--selectProjects', 'e2e', `--maxWorkers=${workers}`];

/**
 * The e2e suites on SQLite (in the smoke scope, SMOKE_SUITES alone); those under test/e2e/mysql/
 * need a MySQL server of their own making.
 */
function e2eOnSqlite(env, suffix) {
  return jest(
    `e2e on SQLite${suffix}${scope === 'smoke' ? ' (smoke suites)' : ''}`,
    // The patterns first: after --testPathIgnorePatterns they would count among what it ignores.
    [...(scope === 'smoke' ? SMOKE_SUITES : []), ...E2E, '--testPathIgnorePatterns', '/e2e/mysql/'],
    { TEST_DATABASE: 'sqlite', ...env },
  );
}

/** Every e2e suite on MySQL (each worker on `<database>_<worker>`, emptied before each suite). */
function e2eOnMysql(env, suffix) {
  return jest(
    `e2e on MySQL${suffix}`,
    E2E,
    { TEST_DATABASE: 'mysql', TEST_MYSQL_URL: mysqlUrl, ...env },
    mysqlUrl,
  );
}

/** `tsc --noEmit` over src and test (test/tsconfig.json includes both). */
async function typecheck() {
  const name = 'types (tsc --noEmit over src and test)';
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const { status } = await runStage(name, process.execPath, [
    require.resolve('typescript/bin/tsc'),
    '--noEmit',
    '-p',
    join(ROOT, 'test', 'tsconfig.json'),
  ]);
  const took = seconds(started);
  console.log(`--- type check took ${took.toFixed(1)} s`);
  const ok = status === 0;
  return { name, ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1, seconds: took };
}

/** `npm run build`: the ops stages run the compiled server. */
async function build() {
  console.log('\n=== build (npm run build) ===');
  const started = Date.now();
  const { status } = await runStage('build', 'npm', ['run', 'build']);
  const took = seconds(started);
  console.log(`--- build took ${took.toFixed(1)} s`);
  return {
    name: 'build',
    ok: status === 0,
    passed: status === 0 ? 1 : 0,
    failed: status === 0 ? 0 : 1,
    seconds: took,
  };
}

/** test/ops/deploy/start-sequence.js, its output shown as it comes; counted from its summary line. */
async function startSequence(env) {
  const name = 'start sequence';
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  let output = '';
  const running = runStage(
    name,
    process.execPath,
    [join(ROOT, 'test', 'ops', 'deploy', 'start-sequence.js')],
    { env, mysql: env.OPS_MYSQL_URL, pipe: true },
  );
  current.child.stdout.on('data', (chunk) => {
    output += chunk;
    process.stdout.write(chunk);
  });
  const { status } = await running;
  const took = seconds(started);
  console.log(`--- ${name} took ${took.toFixed(1)} s`);
  const summary = /^start sequence: (\d+) passed, (\d+) failed/m.exec(output);
  const passed = summary ? Number(summary[1]) : 0;
  const failed = summary ? Number(summary[2]) : 0;
  const ok = status === 0 && summary !== null && failed === 0 && passed > 0;
  return { name, ok, passed, failed: failed || (ok ? 0 : 1), seconds: took };
}

/** The e2e database on the run's own Galera cluster (each worker's `<database>_<worker>` beside it). */
const CLUSTER_DATABASE = `${TEST_DATABASE_PREFIX}`;
/** Its ports: base to base + 11 (TEST_GALERA_PORT_BASE moves them; below 32768, see galera-cluster.js). */
const clusterPortBase = Number(process.env.TEST_GALERA_PORT_BASE || 24300);

/**
 * The e2e suites on a three-node Galera cluster of the run's own (scripts/galera-cluster.js, in
 * the run's folder, root@127.0.0.1 for the suites): TEST_MYSQL_URL names the three nodes, so the
 * service writes through the first and reads from all three. The cluster is stopped when the
 * suites end or fail; an interrupted run sweeps its nodes (their groups are recorded in the
 * run's folder).
 */
async function e2eOnCluster() {
  const name = 'e2e on a Galera cluster';
  const galera = require('./galera-cluster');
  console.log(
    `\n=== ${name}: starting three nodes (ports ${clusterPortBase}-${clusterPortBase + 11}) ===`,
  );
  const started = Date.now();
  let cluster;
  try {
    cluster = await galera.startCluster(join(runTmp, 'galera'), {
      basePort: clusterPortBase,
      database: CLUSTER_DATABASE,
      rootOverTcp: true,
    });
    console.log(`--- the cluster started in ${seconds(started).toFixed(1)} s`);
    const hosts = cluster.nodes.map((node) => node.address).join(',');
    const url = `mysql://root@${hosts}/${CLUSTER_DATABASE}`;
    // Suites under test/e2e/mysql/ need a MySQL server of their own making, as on MySQL.
    const result = await jest(
      name,
      [...E2E, '--testPathIgnorePatterns', '/e2e/mysql/'],
      { TEST_DATABASE: 'mysql', TEST_MYSQL_URL: url },
      `mysql://root@${cluster.nodes[0].address}/`,
    );
    return { ...result, seconds: seconds(started) };
  } catch (error) {
    console.error(`The Galera cluster did not start: ${error.message}`);
    return { name, ok: false, passed: 0, failed: 1, seconds: seconds(started) };
  } finally {
    await cluster?.stop().catch(() => undefined);
  }
}

/** The databases this run uses, said before it starts. */
function announceDatabases() {
  const server = new URL(serverOf(mysqlUrl)).host;
  const base = databaseOf(mysqlUrl);
  console.log(
    [
      `This run's folder (its TMPDIR; removed when it ends): ${runDir}`,
      `Jest workers for the e2e suites: ${workers}`,
      'Databases this run uses:',
      '  SQLite: a new file per e2e suite, and per ops test, in the run folder',
      `  MySQL at ${server}, when it answers:`,
      `    ${base} and ${base}_1 to ${base}_${workers} (e2e suites, one per worker; dropped and created afresh, only if the tests created them)`,
      ...(scope === 'all'
        ? [
            `    ${TEST_DATABASE_PREFIX}_<kind>_<random> (ops suites and the start sequence; each created and dropped by its test)`,
            '  The read-replica suite starts MariaDB servers of its own, in the run folder.',
            `  A Galera cluster of the run's own (in the run folder, ports ${clusterPortBase}-${clusterPortBase + 11}):`,
            `    ${CLUSTER_DATABASE}_1 to _${workers} on it (e2e suites), and the Galera suite starts clusters of its own.`,
          ]
        : []),
    ].join('\n'),
  );
}

/** The base database and each worker's: prepared (or refused) alike. */
async function prepareDatabases() {
  const urls = [mysqlUrl];
  for (let worker = 1; worker <= workers; worker++) urls.push(workerDatabaseUrl(mysqlUrl, worker));
  for (const url of urls) {
    const prepared = await prepareTestDatabase(url);
    if (prepared.foreign || prepared.unreachable) return prepared;
  }
  return {};
}

/** Whether the stage `name` runs (TEST_STAGES names the ones to run, or all run). */
function wanted(name) {
  return !only || only.includes(name);
}

async function main() {
  announceDatabases();
  const needsMysql =
    scope !== 'smoke' &&
    (wanted('e2e-mysql') || (scope === 'all' && (wanted('ops') || wanted('start-sequence'))));
  // A database of the e2e databases' names that the tests did not create stops the run first.
  const prepared = needsMysql ? await prepareDatabases() : { unreachable: 'not needed' };
  if (prepared.foreign) {
    console.error(prepared.foreign);
    finish(1);
  }
  const results = [];
  const notes = [];
  if (wanted('types')) {
    results.push(await typecheck());
    if (!results[0].ok) summarize(results, ['A type error ends the run before the tests.']);
  }
  const fixtures = scope === 'fixtures';
  const scopeEnv = fixtures ? FIXTURES_ENV : {};
  const suffix = fixtures ? WITH_FIXTURES : '';
  if (wanted('unit'))
    results.push(
      await jest(
        `unit${suffix}`,
        ['--selectProjects', 'unit', `--maxWorkers=${workers}`],
        scopeEnv,
      ),
    );
  if (wanted('e2e-sqlite')) results.push(await e2eOnSqlite(scopeEnv, suffix));
  if (scope === 'smoke') {
    console.log(
      '\n(TEST_SCOPE=smoke: the type check, unit tests and the smoke suites on SQLite only)',
    );
    summarize(results, notes);
  }

  // On MySQL the full command runs the e2e suites once, with the fixture collections added:
  // every suite, every collection and two more, a superset of the plain pass.
  const mysqlSuffix = scope === 'quick' ? '' : WITH_FIXTURES;
  const mysqlProblem = prepared.unreachable;
  if (wanted('e2e-mysql')) {
    if (mysqlProblem) {
      notes.push(`MySQL e2e suites DID NOT RUN: no MySQL at ${mysqlUrl} (${mysqlProblem}).`);
      if (requireMysql)
        results.push({ name: `e2e on MySQL${mysqlSuffix}`, ok: false, passed: 0, failed: 1 });
    } else {
      results.push(await e2eOnMysql(scope === 'quick' ? {} : FIXTURES_ENV, mysqlSuffix));
    }
  }
  if (scope !== 'all') summarize(results, notes);

  // The fixture collections on SQLite run in the ops stage: test/ops/docs/recipe.spec.ts runs
  // every e2e suite on SQLite with them and the recipe's own collection beside them, a superset
  // of a pass here (which TEST_STAGES=e2e-sqlite-fixtures still runs).
  if (only?.includes('e2e-sqlite-fixtures'))
    results.push(await e2eOnSqlite(FIXTURES_ENV, WITH_FIXTURES));

  // The e2e suites once more, on a three-node Galera cluster (docs/operations.md).
  const galeraTools = require('./galera-cluster').missing();
  if (wanted('e2e-galera')) {
    if (galeraTools.length) {
      notes.push(
        `The e2e suites on a Galera cluster DID NOT RUN: ${galeraTools.join(', ')} not installed (apt-get install mariadb-server galera-4 rsync).`,
      );
      if (requireMysql)
        results.push({ name: 'e2e on a Galera cluster', ok: false, passed: 0, failed: 1 });
    } else {
      results.push(await e2eOnCluster());
    }
  }

  // The server URL (no database): ops suites and the start sequence create databases of their own.
  const opsEnv = mysqlProblem ? {} : { OPS_MYSQL_URL: serverOf(mysqlUrl) };
  if (wanted('ops')) {
    const built = await build();
    results.push(built);
    if (built.ok) results.push(await ops(opsEnv, mysqlProblem, galeraTools, notes, results));
  }
  if (wanted('start-sequence')) {
    if (mysqlProblem) {
      notes.push('The start sequence DID NOT RUN: it needs MySQL.');
      if (requireMysql) results.push({ name: 'start sequence', ok: false, passed: 0, failed: 1 });
    } else {
      results.push(await startSequence(opsEnv));
    }
  }
  summarize(results, notes);
}

/** The ops project, with what this machine lacks left out by path (and noted). */
async function ops(opsEnv, mysqlProblem, galeraTools, notes, results) {
  const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  const { findBinary } = require('./mariadb-pair');
  const replicaTools = ['mariadbd', 'mariadb-install-db', 'nginx'].filter((b) => !findBinary(b));
  const opsArgs = ['--selectProjects', 'ops', '--runInBand'];
  const ignored = [];
  if (mysqlProblem) {
    ignored.push('/ops/mysql/');
    notes.push('The MySQL ops suites (test/ops/mysql/) DID NOT RUN: no MySQL.');
  }
  if (!existsSync(chromiumPath)) {
    ignored.push('/ops/browser/');
    notes.push(
      `The browser tests DID NOT RUN: no Chromium at ${chromiumPath} (apt-get install chromium).`,
    );
    if (requireMysql) results.push({ name: 'browser test', ok: false, passed: 0, failed: 1 });
  }
  if (replicaTools.length) {
    ignored.push('/ops/replicas/');
    notes.push(
      `The read-replica suite (test/ops/replicas/) DID NOT RUN: ${replicaTools.join(', ')} not installed (apt-get install mariadb-server nginx).`,
    );
    if (requireMysql) results.push({ name: 'replica suite', ok: false, passed: 0, failed: 1 });
  }
  if (galeraTools.length) {
    ignored.push('/ops/galera/');
    notes.push(
      `The Galera suite (test/ops/galera/) DID NOT RUN: ${galeraTools.join(', ')} not installed (apt-get install mariadb-server galera-4 rsync).`,
    );
    if (requireMysql) results.push({ name: 'Galera suite', ok: false, passed: 0, failed: 1 });
  }
  if (ignored.length) opsArgs.push('--testPathIgnorePatterns', ...ignored);
  return jest(mysqlProblem ? 'ops (without MySQL)' : 'ops', opsArgs, opsEnv, opsEnv.OPS_MYSQL_URL);
}

/** The summary of every stage with its seconds, and the notes of what did not run; exits with the verdict. */
function summarize(results, notes) {
  console.log('\n=== summary ===');
  for (const r of results) {
    const took = r.seconds === undefined ? '' : ` (${r.seconds.toFixed(0)} s)`;
    console.log(
      `${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.passed} passed, ${r.failed} failed${took}`,
    );
  }
  for (const note of notes) if (note) console.log(`${requireMysql ? 'FAIL' : 'NOTE'} ${note}`);
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  finish(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  finish(1);
});
