#!/usr/bin/env node
/**
 * `npm test`: the type check, unit tests, then every e2e suite on SQLite, then on MySQL/MariaDB
 * and on SQLite once more with the fixture collections added, then on a Galera cluster (below).
 *
 * The type check (`tsc --noEmit -p test/tsconfig.json`: src and test under the project's
 * compiler options) comes first, in every scope: ts-jest compiles each file alone
 * (`isolatedModules`) and checks no types, so without it a type error would pass the tests. A
 * type error ends the run there, failed.
 *
 * MySQL is TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306/records_collections_test); its
 * database is dropped and created afresh when the tests created it (scripts/test-database.js: a
 * marker table says so); one of that name the tests did not create stops the run untouched.
 * The run lists the databases it uses before it starts. Where no MySQL answers, the run still passes on SQLite and says so
 * plainly, unless CI=true or REQUIRE_MYSQL=1, where a MySQL suite that did not run is a failure.
 * Extra arguments go to Jest (e.g. `npm test -- marbles`).
 *
 * TEST_SCOPE=smoke runs only the unit tests and SMOKE_SUITES, e2e suites on SQLite that between
 * them answer every route, write through every kind of write, record events and draw the pages:
 * enough to show that a second Node line runs the service (CI's pass on the machine's Node; the
 * full run, every suite, is on the image's line).
 *
 * The full run (neither scope below) then runs the e2e suites with EXTRA_COLLECTIONS=fixture_tags,fixture_notes,
 * on MySQL and again on SQLite: the fixture collections of test/fixtures/ added to the collections
 * every test counts (docs/operations.md, "The test command"). On MySQL that is the one pass: every
 * suite with every collection and two more, a superset of a plain pass, whose four collections
 * alone run on MariaDB in the cluster pass.
 *
 * The full run then runs the e2e suites once more on a three-node Galera cluster it starts itself
 * (scripts/galera-cluster.js, a temp directory, ports TEST_GALERA_PORT_BASE (24300) to +11), with
 * TEST_MYSQL_URL naming the three nodes; the cluster is stopped by its nodes' PIDs when the
 * suites end, fail or are interrupted. Without mariadb-server, galera-4 or rsync it is reported
 * as not run (a failure under CI=true).
 *
 * TEST_SCOPE=fixtures (`npm run test:fixtures`) runs the unit tests and the e2e suites, on SQLite
 * and on MySQL when it answers, with EXTRA_COLLECTIONS=fixture_tags,fixture_notes (no ops stages: they run the
 * built service, which serves no fixture).
 *
 * Then the operations stages: `npm run build` once, the `ops` Jest project (test/ops/, black-box
 * tests of `node dist/main.js`; the ones under test/ops/mysql/ get OPS_MYSQL_URL and run only when
 * MySQL was prepared, and are left out by path otherwise), and, with MySQL, the image's start
 * sequence outside Docker (test/ops/deploy/start-sequence.js: npm ci and build, the deps stage, start, probe, stop).
 * Without MySQL those are reported as not run, and are failures when MySQL is required.
 * The read-replica suite (test/ops/replicas/) starts MariaDB servers and nginx of its own: it needs
 * the binaries mariadbd, mariadb-install-db and nginx, and is reported as not run without them (a
 * failure under CI=true).
 * The Galera suite (test/ops/galera/) starts a three-node cluster of its own
 * (scripts/galera-cluster.js): it needs mariadb-server, galera-4 and rsync, and is reported as not
 * run without them (a failure under CI=true).
 * The browser test of /api/docs needs Chromium (CHROMIUM_PATH, default /usr/bin/chromium); without
 * it, it is reported as not run, and is a failure under CI=true.
 */
const { spawn, spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const {
  DEFAULT_TEST_MYSQL_URL,
  TEST_DATABASE_PREFIX,
  databaseOf,
  serverOf,
  prepareTestDatabase,
} = require('./test-database');

const mysqlUrl = process.env.TEST_MYSQL_URL || DEFAULT_TEST_MYSQL_URL;
const requireMysql = process.env.CI === 'true' || process.env.REQUIRE_MYSQL === '1';
const smoke = process.env.TEST_SCOPE === 'smoke';
const fixtures = process.env.TEST_SCOPE === 'fixtures';
/** The fixture collections of test/fixtures/, added to COLLECTIONS by the tests (test/sources.ts). */
const FIXTURES_ENV = { EXTRA_COLLECTIONS: 'fixture_tags,fixture_notes' };
const jestBin = require.resolve('jest/bin/jest');
const extra = process.argv.slice(2);
const outDir = mkdtempSync(join(tmpdir(), 'records-test-'));

/**
 * One Jest stage, its output shown as it comes; `running` (optional) is told of the child, so
 * that an interrupted run can end it.
 */
function jest(name, args, env = {}, running = () => undefined) {
  const outputFile = join(outDir, `${name}.json`);
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [jestBin, ...args, '--json', `--outputFile=${outputFile}`, ...extra],
      { stdio: 'inherit', env: { ...process.env, ...env } },
    );
    running(child);
    child.on('close', (status) => {
      let report = { numPassedTests: 0, numFailedTests: 0, numTotalTests: 0 };
      try {
        report = JSON.parse(readFileSync(outputFile, 'utf8'));
      } catch {
        // Jest did not get as far as writing a report: counted as a failure below.
      }
      console.log(`--- ${name} took ${seconds(started)}`);
      const ok = status === 0 && report.numFailedTests === 0 && report.numTotalTests > 0;
      const failed = report.numFailedTests || (ok ? 0 : 1);
      resolve({ name, ok, passed: report.numPassedTests, failed });
    });
  });
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

/**
 * The e2e suites on SQLite (in the smoke scope, SMOKE_SUITES alone); those under test/e2e/mysql/
 * need a MySQL server of their own making.
 */
function e2eOnSqlite(env, suffix) {
  return jest(
    `e2e on SQLite${suffix}${smoke ? ' (smoke suites)' : ''}`,
    // The patterns first: after --testPathIgnorePatterns they would count among what it ignores.
    [
      ...(smoke ? SMOKE_SUITES : []),
      '--selectProjects',
      'e2e',
      '--runInBand',
      '--testPathIgnorePatterns',
      '/e2e/mysql/',
    ],
    { TEST_DATABASE: 'sqlite', ...env },
  );
}

/** Every e2e suite on MySQL (TEST_MYSQL_URL's database, emptied before each suite). */
function e2eOnMysql(env, suffix) {
  return jest(`e2e on MySQL${suffix}`, ['--selectProjects', 'e2e', '--runInBand'], {
    TEST_DATABASE: 'mysql',
    TEST_MYSQL_URL: mysqlUrl,
    ...env,
  });
}

/** `tsc --noEmit` over src and test (test/tsconfig.json includes both). */
function typecheck() {
  const name = 'types (tsc --noEmit over src and test)';
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '--noEmit',
      '-p',
      join(__dirname, '..', 'test', 'tsconfig.json'),
    ],
    { stdio: 'inherit', env: process.env },
  );
  console.log(`--- type check took ${seconds(started)}`);
  const ok = run.status === 0;
  return { name, ok, passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** `npm run build`: the ops stages run the compiled server. */
function build() {
  console.log('\n=== build (npm run build) ===');
  const run = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', env: process.env });
  return run.status === 0;
}

/** test/ops/deploy/start-sequence.js, its output shown as it comes; counted from its summary line. */
function startSequence(env) {
  console.log('\n=== start sequence ===');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', 'test', 'ops', 'deploy', 'start-sequence.js')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, ...env },
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.on('close', (status) => {
      const summary = /^start sequence: (\d+) passed, (\d+) failed/m.exec(output);
      const passed = summary ? Number(summary[1]) : 0;
      const failed = summary ? Number(summary[2]) : 0;
      const ok = status === 0 && summary !== null && failed === 0 && passed > 0;
      resolve({ name: 'start sequence', ok, passed, failed: failed || (ok ? 0 : 1) });
    });
  });
}

/** The e2e database on the run's own Galera cluster. */
const CLUSTER_DATABASE = `${TEST_DATABASE_PREFIX}`;
/** Its ports: base to base + 11 (TEST_GALERA_PORT_BASE moves them; below 32768, see galera-cluster.js). */
const clusterPortBase = Number(process.env.TEST_GALERA_PORT_BASE || 24300);

/**
 * The e2e suites on a three-node Galera cluster of the run's own (scripts/galera-cluster.js, in a
 * temp folder, root@127.0.0.1 for the suites): TEST_MYSQL_URL names the three nodes, so the
 * service writes through the first and reads from all three. The cluster is stopped by its
 * nodes' PIDs when the suites end, fail or are interrupted (SIGINT, SIGTERM: the nodes run in
 * process groups of their own, which a terminal's Ctrl-C does not reach).
 */
async function e2eOnCluster() {
  const name = 'e2e on a Galera cluster';
  const galera = require('./galera-cluster');
  const root = mkdtempSync(join(tmpdir(), 'records-test-galera-'));
  let cluster;
  let child;
  const removeRoot = () => rmSync(root, { recursive: true, force: true });
  // Synchronous, for an interrupt or an exit: nothing may be left running.
  const killNodes = () => {
    for (const node of cluster?.nodes ?? []) node.signal('SIGKILL');
  };
  const interrupted = (signal) => {
    console.error(`\n${signal}: stopping the Galera cluster (${root})`);
    child?.kill(signal);
    killNodes();
    removeRoot();
    process.exit(1);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  process.once('exit', killNodes);
  console.log(
    `\n=== ${name}: starting three nodes (ports ${clusterPortBase}-${clusterPortBase + 11}) ===`,
  );
  const started = Date.now();
  try {
    cluster = await galera.startCluster(join(root, 'cluster'), {
      basePort: clusterPortBase,
      database: CLUSTER_DATABASE,
      rootOverTcp: true,
    });
    console.log(`--- the cluster started in ${seconds(started)}`);
    const hosts = cluster.nodes.map((node) => node.address).join(',');
    // Suites under test/e2e/mysql/ need a MySQL server of their own making, as on MySQL.
    return await jest(
      name,
      ['--selectProjects', 'e2e', '--runInBand', '--testPathIgnorePatterns', '/e2e/mysql/'],
      { TEST_DATABASE: 'mysql', TEST_MYSQL_URL: `mysql://root@${hosts}/${CLUSTER_DATABASE}` },
      (running) => (child = running),
    );
  } catch (error) {
    console.error(`The Galera cluster did not start: ${error.message}`);
    return { name, ok: false, passed: 0, failed: 1 };
  } finally {
    await cluster?.stop().catch(killNodes);
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    process.off('exit', killNodes);
    removeRoot();
  }
}

/** The databases this run uses, said before it starts. */
function announceDatabases() {
  const server = new URL(serverOf(mysqlUrl)).host;
  console.log(
    [
      'Databases this run uses:',
      '  SQLite: a new file per e2e suite, and per ops test, in the system temp directory',
      `  MySQL at ${server}, when it answers:`,
      `    ${databaseOf(mysqlUrl)} (e2e suites; dropped and created afresh, only if the tests created it)`,
      `    ${TEST_DATABASE_PREFIX}_<kind>_<random> (ops suites and the start sequence; each created and dropped by its test)`,
      '  The read-replica suite starts MariaDB servers of its own, in temp directories.',
      `  The full run starts a Galera cluster of its own (temp directory, ports ${clusterPortBase}-${clusterPortBase + 11}):`,
      `    ${CLUSTER_DATABASE} on it (e2e suites), and the Galera suite starts clusters of its own.`,
    ].join('\n'),
  );
}

async function main() {
  announceDatabases();
  // A database of the e2e database's name that the tests did not create stops the run first.
  const prepared = await prepareTestDatabase(mysqlUrl);
  if (prepared.foreign) {
    console.error(prepared.foreign);
    process.exit(1);
  }
  const results = [typecheck()];
  if (!results[0].ok) summarize(results, ['A type error ends the run before the tests.']);
  const withFixtures = ` with ${FIXTURES_ENV.EXTRA_COLLECTIONS}`;
  const scopeEnv = fixtures ? FIXTURES_ENV : {};
  const suffix = fixtures ? withFixtures : '';
  results.push(await jest(`unit${suffix}`, ['--selectProjects', 'unit'], scopeEnv));
  results.push(await e2eOnSqlite(scopeEnv, suffix));

  if (smoke) {
    console.log('\n(TEST_SCOPE=smoke: unit tests and the smoke suites on SQLite only)');
    summarize(results, []);
  }

  // On MySQL the e2e suites run once, with the fixture collections added: every suite, every
  // collection and two more, a superset of a plain run (the plain four run on MariaDB in the
  // cluster pass below); one pass instead of two keeps CI within its time.
  const mysqlProblem = prepared.unreachable;
  let mysqlNote;
  if (mysqlProblem) {
    mysqlNote = `MySQL e2e suites DID NOT RUN: no MySQL at ${mysqlUrl} (${mysqlProblem}).`;
    if (requireMysql) {
      results.push({ name: `e2e on MySQL${withFixtures}`, ok: false, passed: 0, failed: 1 });
    }
  } else {
    results.push(await e2eOnMysql(FIXTURES_ENV, withFixtures));
  }
  if (fixtures) summarize(results, [mysqlNote]);

  // The fixture collections added on SQLite too: the suite follows COLLECTIONS, not the four.
  results.push(await e2eOnSqlite(FIXTURES_ENV, withFixtures));

  // The e2e suites once more, on a three-node Galera cluster (docs/operations.md).
  const galeraTools = require('./galera-cluster').missing();
  let clusterNote;
  if (galeraTools.length) {
    clusterNote = `The e2e suites on a Galera cluster DID NOT RUN: ${galeraTools.join(', ')} not installed (apt-get install mariadb-server galera-4 rsync).`;
    if (requireMysql)
      results.push({ name: 'e2e on a Galera cluster', ok: false, passed: 0, failed: 1 });
  } else {
    results.push(await e2eOnCluster());
  }

  // The server URL (no database): ops suites and the start sequence create databases of their own.
  const opsEnv = mysqlProblem ? {} : { OPS_MYSQL_URL: serverOf(mysqlUrl) };

  const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  const chromium = existsSync(chromiumPath);
  let browserNote;

  const { findBinary } = require('./mariadb-pair');
  const replicaTools = ['mariadbd', 'mariadb-install-db', 'nginx'].filter((b) => !findBinary(b));
  let replicaNote;
  let galeraNote;

  let started = Date.now();
  if (build()) {
    console.log(`--- build took ${seconds(started)}`);
    const opsArgs = ['--selectProjects', 'ops', '--runInBand'];
    const ignored = [];
    if (mysqlProblem) ignored.push('/ops/mysql/');
    if (!chromium) {
      ignored.push('/ops/browser/');
      browserNote = `The browser test of /api/docs DID NOT RUN: no Chromium at ${chromiumPath} (apt-get install chromium).`;
      if (requireMysql) results.push({ name: 'browser test', ok: false, passed: 0, failed: 1 });
    }
    if (replicaTools.length) {
      ignored.push('/ops/replicas/');
      replicaNote = `The read-replica suite (test/ops/replicas/) DID NOT RUN: ${replicaTools.join(', ')} not installed (apt-get install mariadb-server nginx).`;
      if (requireMysql) results.push({ name: 'replica suite', ok: false, passed: 0, failed: 1 });
    }
    if (galeraTools.length) {
      ignored.push('/ops/galera/');
      galeraNote = `The Galera suite (test/ops/galera/) DID NOT RUN: ${galeraTools.join(', ')} not installed (apt-get install mariadb-server galera-4 rsync).`;
      if (requireMysql) results.push({ name: 'Galera suite', ok: false, passed: 0, failed: 1 });
    }
    if (ignored.length) opsArgs.push('--testPathIgnorePatterns', ...ignored);
    results.push(await jest(mysqlProblem ? 'ops (without MySQL)' : 'ops', opsArgs, opsEnv));
  } else {
    results.push({ name: 'ops (npm run build failed)', ok: false, passed: 0, failed: 1 });
  }
  if (mysqlProblem) {
    mysqlNote +=
      ' The MySQL ops suites (test/ops/mysql/) and the start sequence DID NOT RUN either.';
    if (requireMysql) results.push({ name: 'start sequence', ok: false, passed: 0, failed: 1 });
  } else {
    started = Date.now();
    results.push(await startSequence(opsEnv));
    console.log(`--- start sequence took ${seconds(started)}`);
  }

  summarize(results, [mysqlNote, clusterNote, replicaNote, galeraNote, browserNote]);
}

/** The summary of every stage, and the notes of what did not run; exits with the verdict. */
function summarize(results, notes) {
  console.log('\n=== summary ===');
  for (const r of results) {
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name}: ${r.passed} passed, ${r.failed} failed`);
  }
  for (const note of notes) if (note) console.log(`${requireMysql ? 'FAIL' : 'NOTE'} ${note}`);
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

main();
