/**
 * The start of the compiled server as an operator sees it: every line through pino, JSON in a
 * pipe and pretty lines in a terminal (a pseudo-terminal from util-linux `script`), Nest's route
 * map only at debug, one info line with the API URL, the docs URL and the database (password
 * hidden), SQL timings at debug, and a database that is not there yet retried one line per
 * attempt. (The MySQL cases, unknown database and access denied, are in mysql/database.spec.ts.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  assertBuilt,
  freePort,
  MAIN,
  scratchDir,
  ServerProcess,
  sqliteUrl,
  startServer,
} from '../support/process';
import { accessLine } from './access-line';

const START_LINE =
  /^Listening on http:\/\/localhost:(\d+) \(API: http:\/\/localhost:\1\/api\/demo\/, http:\/\/localhost:\1\/api\/plain\/; docs: http:\/\/localhost:\1\/api\/docs\/; database: (.+)\)$/;

/** ANSI colour codes, which pino-pretty writes to a terminal. */
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * `node dist/main.js` with its stdout and stderr on a pseudo-terminal (`script -q -e -c`), as
 * when an operator starts it in a terminal; the lines come back without colours or CR.
 */
async function startInTerminal(env: Record<string, string>): Promise<ServerProcess> {
  assertBuilt();
  const port = await freePort();
  const child = spawn(
    'script',
    ['-q', '-e', '-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)}`, '/dev/null'],
    {
      cwd: scratchDir('records-ops-cwd-'),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        TERM: 'xterm',
        PORT: String(port),
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const server = new ServerProcess(child, port);
  return server;
}

const plain = (line: string) => line.replace(ANSI, '').replace(/\r$/, '');

describe('start in a pipe', () => {
  it('should write only JSON lines through pino, one info line at start with both URLs and the database', async () => {
    const server = await startServer({ DATABASE_URL: sqliteUrl(), DEMO_DATA: 'false' });
    await server.waitReady();
    const start = await server.waitForLog((e) => START_LINE.test(e.msg));
    expect(START_LINE.exec(start.msg)![1]).toBe(String(server.port));
    expect(start).toMatchObject({
      level: 30,
      url: `http://localhost:${server.port}`,
      docs: `http://localhost:${server.port}/api/docs/`,
      database: expect.stringMatching(/^sqlite:.*records\.sqlite$/),
    });
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
    const lines = server.jsonLines();
    // Info and above before the first request: the start line alone (no route map, no module list).
    const beforeRequests = lines.slice(0, lines.indexOf(lines.find((e) => e.req)!));
    expect(beforeRequests.filter((e) => e.level >= 30).map((e) => e.msg)).toEqual([start.msg]);
    expect(lines.some((e) => /Mapped \{/.test(e.msg))).toBe(false);
    expect(server.stderr).toEqual([]);
  });

  it('should show the route map and SQL timings at LOG_LEVEL=debug, still as JSON', async () => {
    const server = await startServer({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'true',
      LOG_LEVEL: 'debug',
    });
    await server.waitReady();
    const route = await server.waitForLog((e) =>
      /Mapped \{\/api\/demo\/marbles\/:id, GET\}/.test(e.msg),
    );
    expect(route).toMatchObject({ level: 20, context: 'RouterExplorer' });

    const res = await fetch(server.url('/api/demo/marbles/1'), {
      headers: { 'X-Request-Id': 'debug-sql' },
    });
    expect(res.status).toBe(200);
    await accessLine(server, 'debug-sql');
    const timing = await server.waitForLog(
      (e) => typeof e.sql === 'string' && /FROM .marbles./.test(e.sql as string),
    );
    expect(timing).toMatchObject({ level: 20, pool: 'primary', kind: 'read' });
    expect(timing.msg).toMatch(/^SQL \d+(\.\d+)? ms$/);
    expect(typeof timing.duration_ms).toBe('number');
    // Parameters are never logged.
    expect(JSON.stringify(timing)).not.toMatch(/"params"|"parameters"/);
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
    expect(() => server.jsonLines()).not.toThrow();
    expect(server.stderr).toEqual([]);
  });
});

describe('start in a terminal', () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;

  it('should have util-linux script for the pseudo-terminal', () => {
    expect(hasScript).toBe(true);
  });

  it('should write pretty lines (not JSON), the start line first at info', async () => {
    const database = sqliteUrl();
    const server = await startInTerminal({ DATABASE_URL: database, DEMO_DATA: 'false' });
    const line = plain(await server.waitForLine((l) => plain(l).includes('Listening on')));
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Listening on http:\/\/localhost:\d+ /);
    expect(line).toContain(`database: ${database})`);
    await server.waitReady();
    const res = await fetch(server.url('/api/demo/emails/ping'), {
      headers: { 'X-Request-Id': 'pty-1' },
    });
    expect(res.status).toBe(200);
    const access = plain(await server.waitForLine((l) => l.includes('pty-1')));
    expect(access).toMatch(/INFO: GET \/api\/demo\/emails\/ping 200 /);
    expect(access).toMatch(/"trace_id":"[0-9a-f]{32}"/);
    server.child.kill('SIGKILL');
    await server.exited;
    const lines = server.stdout.map(plain).filter((l) => l !== '');
    // Every line is pino-pretty's: a time, a level; none is JSON; no Nest colour banner.
    for (const l of lines) {
      expect(l).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR|DEBUG): /);
      expect(() => JSON.parse(l)).toThrow();
    }
    expect(lines.filter((l) => / INFO: /.test(l) && !/ INFO: GET /.test(l))).toEqual([line]);
  });

  it('should still write JSON in a terminal with LOG_FORMAT=json', async () => {
    const server = await startInTerminal({
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'false',
      LOG_FORMAT: 'json',
    });
    const line = plain(await server.waitForLine((l) => l.includes('Listening on')));
    expect(JSON.parse(line)).toMatchObject({ level: 30, msg: expect.stringMatching(START_LINE) });
    server.child.kill('SIGKILL');
    await server.exited;
  });
});

describe('a database that is not reachable yet', () => {
  it('should retry with growing pauses, one line per attempt naming DATABASE_URL without its password', async () => {
    const port = await freePort(); // nothing listens there: ECONNREFUSED
    const url = `mysql://app:s3cret-pw@127.0.0.1:${port}/records`;
    const server = await startServer({ DATABASE_URL: url });
    const first = await server.waitForLog((e) => / attempt 1,/.test(e.msg), 30_000);
    const second = await server.waitForLog((e) => / attempt 2,/.test(e.msg), 30_000);
    const shown = `mysql://app:***@127.0.0.1:${port}/records`;
    expect(first).toMatchObject({ level: 40, context: 'Database' });
    expect(first.msg).toBe(
      `DATABASE_URL ${shown} unreachable (connect ECONNREFUSED 127.0.0.1:${port}); attempt 1, next in 1 s`,
    );
    expect(second.msg).toMatch(/; attempt 2, next in 2 s$/);
    expect(second.time - first.time).toBeGreaterThanOrEqual(900);
    expect(server.stdout.join('\n')).not.toContain('s3cret-pw');
    expect(server.stderr).toEqual([]);
    // Still trying, not listening: SIGTERM stops it.
    server.child.kill('SIGKILL');
    await server.exited;
    expect(() => server.jsonLines()).not.toThrow();
  });
});

describe('a port in use', () => {
  const busy = (port: number) =>
    `Cannot start: port ${port} is in use by another process; stop it, or set PORT to a free port.`;

  it('should stop with one fatal line naming PORT, before the database is created or written', async () => {
    const first = await startServer({ DATABASE_URL: sqliteUrl(), DEMO_DATA: 'false' });
    await first.waitReady('/health/live');
    const file = join(scratchDir(), 'other.sqlite');
    const second = await startServer({
      DATABASE_URL: `sqlite:${file}`,
      DEMO_DATA: 'true',
      PORT: String(first.port),
    });
    const exit = await second.waitExit(30_000);
    expect(exit.code).toBe(1);
    expect(second.jsonLines()).toEqual([
      expect.objectContaining({ level: 60, msg: busy(first.port) }),
    ]);
    expect(second.stderr).toEqual([]);
    // Nothing migrated, no demo data: the database file was never opened.
    expect(existsSync(file)).toBe(false);
    first.child.kill('SIGKILL');
  });

  it('should write that one line, and no stack trace, in a terminal and with several workers', async () => {
    expect(spawnSync('script', ['--version']).status).toBe(0);
    const first = await startServer({ DATABASE_URL: sqliteUrl(), DEMO_DATA: 'false' });
    await first.waitReady('/health/live');
    const second = await startInTerminal({
      DATABASE_URL: sqliteUrl(),
      PORT: String(first.port),
      WEB_CONCURRENCY: '2',
    });
    expect((await second.waitExit(30_000)).code).toBe(1);
    const lines = second.stdout.map(plain).filter((l) => l !== '');
    expect(lines).toEqual([expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] FATAL: /)]);
    expect(lines[0].endsWith(` FATAL: ${busy(first.port)}`)).toBe(true);
    first.child.kill('SIGKILL');
  });
});
