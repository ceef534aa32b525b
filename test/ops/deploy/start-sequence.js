#!/usr/bin/env node
/**
 * The container image's start sequence, outside Docker (see the Dockerfile):
 *
 *   build stage:   npm run build, on the checkout's node_modules (see below); npm ci --no-audit
 *                  --no-fund first, as the Dockerfile runs it, with START_SEQUENCE_NPM_CI=1
 *   deps stage:    npm ci --omit=dev --omit=optional (run beside the build, as BuildKit does)
 *   final stage:   package.json and node_modules of deps, dist of build;
 *                  NODE_ENV=production, and its CMD (node, V8 flags, dist/main.js)
 *
 * The sources are the repository's files as they are in the working tree (tracked ones, plus new
 * files git does not ignore, so uncommitted work is what gets tested), copied to a scratch
 * directory. The server runs against a MySQL database of its own
 * (records_collections_test_start_<random> on the server named by OPS_MYSQL_URL or
 * TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306), created first and dropped at the end,
 * as docker-compose runs it. Each check prints `ok` or `not ok`; the
 * last line is `start sequence: N passed, N failed`. Bounded: fails after 10 minutes in all.
 * The build stage's dependencies are the checkout's own node_modules, linked: `npm test` runs in a
 * checkout installed from the same package-lock.json (CI's first step is that `npm ci`), so a second
 * install of every dev dependency would show nothing new and cost CI a minute or two of its two
 * cores. What the image ships is the deps stage's install, and that one runs here as the
 * Dockerfile writes it. START_SEQUENCE_NPM_CI=1 runs the build stage's `npm ci` as well.
 * It runs on the Node that runs it (`.ci/run` runs it on the image's Node line too); npm settings
 * `npm_config_nodedir` and `npm_config_build_from_source` are passed on to the installs.
 *
 *   node test/ops/deploy/start-sequence.js            (KEEP_START_SEQUENCE=1 keeps the scratch directory;
 *                                              START_SEQUENCE_PORT=N serves on ports N and N+1)
 *
 * Longer than 500 lines: main() is the image's stages in their order, each step with its checks,
 * read top to bottom as the Dockerfile is; the helpers that need none of its state (the sources,
 * the Dockerfile read, the size of a tree) are in image-files.js.
 */
const { spawn, spawnSync } = require('node:child_process');
const { ownDatabaseName } = require('../../../scripts/test-database');
const {
  copyTree,
  dockerfileArgv,
  dockerfileStages,
  sourceFiles,
  treeBytes,
} = require('./image-files');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../../..');
const TOTAL_MS = Number(process.env.START_SEQUENCE_TIMEOUT_MS || 10 * 60 * 1000);
const startedAt = Date.now();
const deadline = startedAt + TOTAL_MS;

const results = [];
let current; // the child process running now, killed on the overall deadline

function record(name, ok, detail = '') {
  results.push({ name, ok });
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}${detail ? ` (${detail})` : ''}`);
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

function remaining() {
  return Math.max(0, deadline - Date.now());
}

/** Runs a command to completion (output shown only on failure); rejects on non-zero or timeout. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...options,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    current = child;
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      killGroup(child);
      reject(
        new Error(
          `${command} ${args.join(' ')}: still running at the ${seconds(TOTAL_MS)} limit\n${output}`,
        ),
      );
    }, remaining());
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      current = undefined;
      if (code === 0) resolve(output);
      else
        reject(
          new Error(`${command} ${args.join(' ')}: exit ${code ?? signal}\n${excerpt(output)}`),
        );
    });
  });
}

/** The first and last lines of a command's output: npm puts the cause first and the usage after it. */
function excerpt(output) {
  const lines = output.split('\n').filter((l) => !/Unknown user config "nodedir"/.test(l));
  if (lines.length <= 30) return lines.join('\n');
  return [...lines.slice(0, 12), `... (${lines.length - 24} lines)`, ...lines.slice(-12)].join(
    '\n',
  );
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

async function step(name, work) {
  const t0 = Date.now();
  try {
    const detail = await work();
    record(name, true, [seconds(Date.now() - t0), detail].filter(Boolean).join(', '));
    return true;
  } catch (error) {
    record(name, false, seconds(Date.now() - t0));
    console.log(String(error && error.stack ? error.message : error).replace(/^/gm, '    '));
    return false;
  }
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * A free port: the kernel's choice, or START_SEQUENCE_PORT plus `offset` where that is set (the
 * sequence uses two, the first and the next), for a machine whose users keep to ranges of ports.
 */
function freePort(offset) {
  const base = process.env.START_SEQUENCE_PORT;
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(base ? Number(base) + offset : 0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function mysqlServerUrl() {
  const raw =
    process.env.OPS_MYSQL_URL || process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';
  const url = new URL(raw);
  url.pathname = '/';
  return url;
}

async function mysqlQuery(sql) {
  const mysql = require(require.resolve('mysql2/promise', { paths: [ROOT] }));
  const connection = await mysql.createConnection({
    uri: mysqlServerUrl().toString(),
    connectTimeout: 5000,
  });
  try {
    return await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/** The server process, with its output kept for the report. */
function startServer(cwd, env) {
  const [command, ...args] = dockerfileArgv('CMD');
  check(command === 'node', `CMD runs ${command}, not node`);
  const child = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = { child, stdout: '', stderr: '', exit: undefined };
  child.stdout.on('data', (d) => (server.stdout += d));
  child.stderr.on('data', (d) => (server.stderr += d));
  server.exited = new Promise((resolve) =>
    child.on('close', (code, signal) => {
      server.exit = { code, signal };
      resolve(server.exit);
    }),
  );
  return server;
}

function dump(server) {
  return `--- stdout (last lines)\n${server.stdout.split('\n').slice(-30).join('\n')}\n--- stderr\n${server.stderr.slice(-4000)}`;
}

async function waitReady(server, url, timeoutMs) {
  const until = Date.now() + Math.min(timeoutMs, remaining());
  for (;;) {
    if (server.exit)
      throw new Error(
        `server exited ${JSON.stringify(server.exit)} before it was ready\n${dump(server)}`,
      );
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until)
      throw new Error(`${url} not 200 within ${seconds(timeoutMs)}\n${dump(server)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The build stage's dependencies: the checkout's node_modules, linked into the build directory
 * (the default), or, with START_SEQUENCE_NPM_CI=1, installed by `npm ci` as the Dockerfile runs it.
 */
async function buildDependencies(buildDir, buildEnv) {
  if (process.env.START_SEQUENCE_NPM_CI === '1') return installDependencies(buildDir, buildEnv);
  return step("build stage: the checkout's node_modules, linked", () => {
    const modules = path.join(ROOT, 'node_modules');
    // npm ci and npm install leave this file; its absence means nothing was installed by npm.
    check(
      fs.existsSync(path.join(modules, '.package-lock.json')),
      `${modules} was not installed by npm (npm ci first)`,
    );
    fs.symlinkSync(modules, path.join(buildDir, 'node_modules'), 'dir');
    return modules;
  });
}

/**
 * `npm ci`, as the Dockerfile runs it. When it fails that is recorded as a failure, and the
 * dependencies are then installed with `npm install` so the later steps still get checked.
 */
async function installDependencies(buildDir, buildEnv) {
  const ok = await step('npm ci --no-audit --no-fund', () =>
    run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: buildDir,
      env: buildEnv,
    }).then(() => ''),
  );
  if (ok) return true;
  console.log(
    'note - npm ci failed; installing with "npm install" instead so that the later steps still run',
  );
  try {
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: buildDir,
      env: buildEnv,
    });
    return true;
  } catch (error) {
    console.log(String(error.message).replace(/^/gm, '    '));
    return false;
  }
}

/** npm settings the installs keep: where the Node headers are (for better-sqlite3), and so on. */
const KEPT_NPM_SETTINGS = [
  'npm_config_update_notifier',
  'npm_config_nodedir',
  'npm_config_build_from_source',
];

/** Dependencies that must not reach the final stage: dev ones, and TypeScript by any path. */
const NOT_IN_IMAGE = [
  'jest',
  '@nestjs/cli',
  '@nestjs/testing',
  'ts-jest',
  'supertest',
  'prettier',
  'typescript',
  'ts-node',
];

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'records-start-'));
  const buildDir = path.join(scratch, 'build');
  const depsDir = path.join(scratch, 'deps');
  const appDir = path.join(scratch, 'app');
  const database = ownDatabaseName('start');
  // The build runs as in the image's build stage: no NODE_ENV (npm ci installs dev dependencies).
  const buildEnv = {
    ...process.env,
    JOBS: process.env.JOBS || 'max',
    npm_config_update_notifier: 'false',
  };
  delete buildEnv.NODE_ENV;
  for (const name of Object.keys(buildEnv))
    if (name.startsWith('npm_') && !KEPT_NPM_SETTINGS.includes(name)) delete buildEnv[name];
  let server;
  let databaseCreated = false;

  const overall = setTimeout(() => {
    console.log(`not ok - start sequence: over the ${seconds(TOTAL_MS)} limit`);
    if (current) killGroup(current);
    if (server) server.child.kill('SIGKILL');
    results.push({ name: 'time limit', ok: false });
    finish(scratch, database, databaseCreated);
  }, TOTAL_MS);
  overall.unref();

  console.log(`start sequence in ${scratch}`);
  const ready =
    (await step('copy the working tree', () => {
      const files = sourceFiles();
      const n = copyTree(files, buildDir);
      check(
        fs.existsSync(path.join(buildDir, 'package-lock.json')),
        'package-lock.json was not copied',
      );
      check(!fs.existsSync(path.join(buildDir, 'node_modules')), 'node_modules was copied');
      return `${n} files`;
    })) &&
    // The build and deps stages, side by side.
    (
      await Promise.all([
        (async () =>
          (await buildDependencies(buildDir, buildEnv)) &&
          (await step('npm run build', async () => {
            await run('npm', ['run', 'build'], { cwd: buildDir, env: buildEnv });
            check(
              fs.existsSync(path.join(buildDir, 'dist', 'main.js')),
              'dist/main.js was not built',
            );
          })))(),
        step(
          "deps stage: the Dockerfile's RUN lines (npm ci --omit=dev --omit=optional)",
          async () => {
            fs.mkdirSync(depsDir);
            for (const file of ['package.json', 'package-lock.json'])
              fs.copyFileSync(path.join(buildDir, file), path.join(depsDir, file));
            const runs = (dockerfileStages().deps || []).filter((l) => /^RUN\s/i.test(l));
            check(runs.length > 0, 'the Dockerfile has no RUN in a stage named deps');
            for (const line of runs) {
              // The npm cache is warm from the checkout's install (or the build stage's).
              const command = line
                .replace(/^RUN\s+/i, '')
                .replace(/\bnpm ci\b/g, 'npm ci --prefer-offline');
              await run('sh', ['-c', command], { cwd: depsDir, env: buildEnv });
            }
            for (const absent of NOT_IN_IMAGE) {
              check(
                !fs.existsSync(path.join(depsDir, 'node_modules', absent)),
                `${absent} is installed`,
              );
            }
            for (const prod of ['@nestjs/core', 'mysql2', 'better-sqlite3', 'pino', 'typeorm']) {
              check(
                fs.existsSync(path.join(depsDir, 'node_modules', prod)),
                `dependency ${prod} is missing`,
              );
            }
          },
        ),
      ])
    ).every(Boolean) &&
    (await step('final stage: package.json and node_modules of deps, dist of build', () => {
      fs.mkdirSync(appDir);
      for (const entry of ['package.json', 'node_modules'])
        fs.renameSync(path.join(depsDir, entry), path.join(appDir, entry));
      fs.renameSync(path.join(buildDir, 'dist'), path.join(appDir, 'dist'));
      fs.mkdirSync(path.join(appDir, 'data'));
      fs.rmSync(buildDir, { recursive: true, force: true });
      fs.rmSync(depsDir, { recursive: true, force: true });
      const mb = treeBytes(path.join(appDir, 'node_modules')) / 1e6;
      // The trimmed better-sqlite3 still loads (the server below runs on MySQL).
      const sqlite = spawnSync(
        process.execPath,
        ['-e', "new (require('better-sqlite3'))(':memory:').prepare('SELECT 1').get()"],
        { cwd: appDir, encoding: 'utf8' },
      );
      check(sqlite.status === 0, `better-sqlite3 does not load: ${sqlite.stderr}`);
      return `node_modules ${mb.toFixed(1)} MB on Node ${process.versions.node}`;
    })) &&
    (await step(`create database ${database}`, async () => {
      await mysqlQuery(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
      databaseCreated = true;
    }));

  if (ready) {
    const port = await freePort(0);
    const url = mysqlServerUrl();
    url.pathname = `/${database}`;
    // The image's ENV (NODE_ENV, PORT) and docker-compose's environment (DATABASE_URL, DEMO_DATA, LOG_LEVEL).
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME || os.tmpdir(),
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: url.toString(),
      DEMO_DATA: 'true',
      LOG_LEVEL: 'info',
    };
    const base = `http://127.0.0.1:${port}`;
    server = startServer(appDir, env);

    const up = await step("the Dockerfile's CMD becomes ready (/health/ready)", () =>
      waitReady(server, `${base}/health/ready`, 120_000),
    );
    if (up) {
      await step("the Dockerfile's HEALTHCHECK command passes", async () => {
        const [command, ...args] = dockerfileArgv('HEALTHCHECK');
        check(command === 'node', `HEALTHCHECK runs ${command}, not node`);
        await run(process.execPath, args, { cwd: appDir, env });
      });
      await step('GET /api/demo/marbles: 200, demo data (count 120)', async () => {
        const res = await fetch(`${base}/api/demo/marbles`);
        const body = await res.json();
        check(res.status === 200, `status ${res.status}`);
        check(
          res.headers.get('content-type') === 'application/json; charset=utf-8',
          `content-type ${res.headers.get('content-type')}`,
        );
        check(body.count === 120, `count ${body.count}`);
        check(
          Array.isArray(body.results) && body.results.length > 0 && body.results[0].id === 1,
          'no first page of results',
        );
      });
      await step('GET /api/plain/movies.xml: 200, 30 movies in XML', async () => {
        const res = await fetch(`${base}/api/plain/movies.xml`);
        const text = await res.text();
        check(res.status === 200, `status ${res.status}`);
        check(
          res.headers.get('content-type') === 'application/xml; charset=utf-8',
          `content-type ${res.headers.get('content-type')}`,
        );
        check(
          text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<objects type="array">'),
          `body starts ${text.slice(0, 80)}`,
        );
        check(
          (text.match(/<object>/g) || []).length === 30,
          `${(text.match(/<object>/g) || []).length} movies`,
        );
      });
      await step('the database holds the demo data once (100 users)', async () => {
        const [rows] = await mysqlQuery(`SELECT COUNT(*) AS n FROM \`${database}\`.users`);
        check(Number(rows[0].n) === 100, `users ${rows[0].n}`);
      });
      await step(
        'the API docs are served without dev dependencies (/api/docs/, /api/openapi.json)',
        async () => {
          const docs = await fetch(`${base}/api/docs/`);
          await docs.text();
          check(docs.status === 200, `/api/docs/ status ${docs.status}`);
          const openapi = await fetch(`${base}/api/openapi.json`);
          const body = await openapi.json();
          check(
            openapi.status === 200 && /^3\./.test(body.openapi),
            `/api/openapi.json status ${openapi.status}`,
          );
        },
      );
    }
    await step('SIGTERM: exit code 0', async () => {
      server.child.kill('SIGTERM');
      const exit = await withTimeout(
        server.exited,
        15_000,
        `no exit within 15 s after SIGTERM\n${dump(server)}`,
      );
      check(exit.code === 0, `exit ${JSON.stringify(exit)}\n${dump(server)}`);
    });
    await step('logs: JSON lines on stdout, nothing on stderr', () => {
      const lines = server.stdout.split('\n').filter(Boolean);
      const bad = lines.filter((line) => {
        try {
          JSON.parse(line);
          return false;
        } catch {
          return true;
        }
      });
      check(lines.length > 0, 'no log lines');
      check(bad.length === 0, `not JSON: ${bad.slice(0, 3).join(' | ')}`);
      check(server.stderr === '', `stderr: ${server.stderr.slice(0, 2000)}`);
    });
    await step(
      'LOG_FORMAT=pretty in the production install: starts, or stops with one clear line',
      async () => {
        const prettyPort = await freePort(1);
        const pretty = startServer(appDir, {
          ...env,
          PORT: String(prettyPort),
          LOG_FORMAT: 'pretty',
        });
        const up = await waitReady(
          pretty,
          `http://127.0.0.1:${prettyPort}/health/live`,
          30_000,
        ).then(
          () => true,
          () => false,
        );
        if (up) {
          pretty.child.kill('SIGTERM');
          const exit = await withTimeout(
            pretty.exited,
            15_000,
            'no exit within 15 s after SIGTERM',
          );
          check(exit.code === 0, `exit ${JSON.stringify(exit)}`);
          return 'started';
        }
        const exit = await withTimeout(
          pretty.exited,
          15_000,
          `neither ready nor stopped\n${dump(pretty)}`,
        );
        const stderr = pretty.stderr.trim().split('\n');
        check(
          exit.code === 1 && stderr.length === 1 && !/^\s+at /m.test(pretty.stderr),
          `exit ${JSON.stringify(exit)} with ${stderr.length} lines on stderr:\n${pretty.stderr.slice(0, 1500)}`,
        );
        return 'refused in one line';
      },
    );
  }

  clearTimeout(overall);
  finish(scratch, database, databaseCreated);
}

let finished = false;
async function finish(scratch, database, databaseCreated) {
  if (finished) return;
  finished = true;
  if (databaseCreated) {
    await mysqlQuery(`DROP DATABASE IF EXISTS \`${database}\``).catch((error) =>
      console.log(`(could not drop ${database}: ${error.message})`),
    );
  }
  if (process.env.KEEP_START_SEQUENCE === '1') console.log(`kept ${scratch}`);
  else fs.rmSync(scratch, { recursive: true, force: true });
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  console.log(
    `start sequence: ${passed} passed, ${failed} failed (${seconds(Date.now() - startedAt)})`,
  );
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

main().catch((error) => {
  console.log(`not ok - start sequence crashed: ${error.stack || error}`);
  results.push({ name: 'crash', ok: false });
  finish(fs.mkdtempSync(path.join(os.tmpdir(), 'records-start-none-')), '', false);
});
