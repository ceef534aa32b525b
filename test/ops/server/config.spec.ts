/**
 * Configuration errors stop the compiled server at once: exit code 1 and one fatal JSON log line
 * on stdout (as every other start-up failure) that names the variable, with no stack trace; on
 * a terminal, the same line pretty-printed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import {
  assertBuilt,
  freePort,
  MAIN,
  scratchDir,
  ServerProcess,
  sqliteUrl,
  startServer,
} from '../support/process';

/**
 * The one line a refused start writes: a fatal (60) pino line on stdout, nothing on stderr,
 * exit code 1. Its message is returned.
 */
async function refusal(server: ServerProcess): Promise<string> {
  const exit = await server.waitExit(20_000);
  expect(exit).toMatchObject({ code: 1, signal: null });
  expect(server.stderr).toEqual([]);
  expect(server.stdout).toHaveLength(1);
  const [line] = server.jsonLines();
  expect(line).toMatchObject({ level: 60, msg: expect.any(String), time: expect.any(Number) });
  expect(Object.keys(line).sort()).toEqual(['hostname', 'level', 'msg', 'pid', 'time']);
  return line.msg;
}

/** Starts the server with `env`: it must stop with the one line, whose message is returned. */
async function refusedWith(env: Record<string, string>): Promise<string> {
  return refusal(await startServer(env));
}

describe('invalid configuration', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '0'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'postgres://x/y'],
    ['DATABASE_URL', 'mysql://h'],
    ['DATABASE_URL', 'sqlite:'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_FORMAT', 'xml'],
    ['DEMO_DATA', 'maybe'],
    ['API_TOKEN', 'short'],
    ['SHUTDOWN_TIMEOUT', 'soon'],
    ['HEADERS_TIMEOUT', '0'],
    ['HEADERS_TIMEOUT', '30'], // longer than REQUEST_TIMEOUT's default of 20
    ['REQUEST_TIMEOUT', 'slow'],
    ['KEEP_ALIVE_TIMEOUT', '-5'],
    ['TRUST_PROXY', 'perhaps'],
  ])(
    'should stop with exit code 1 and one JSON log line naming %s when it is "%s"',
    async (name, value) => {
      const env: Record<string, string> = {
        DATABASE_URL: sqliteUrl(),
        DEMO_DATA: 'false',
        [name]: value,
      };
      if (name === 'PORT') env.PORT = value;
      const message = await refusedWith(env);
      expect(message).toMatch(new RegExp(`^Invalid configuration: ${name} `));
      expect(message).not.toMatch(/^\s+at |Error:|\.js:\d+|\n/);
    },
  );

  it('should name every invalid variable on the one line', async () => {
    const line = await refusedWith({
      PORT: 'abc',
      LOG_LEVEL: 'loud',
      DATABASE_URL: 'postgres://x/y',
    });
    expect(line).toContain('PORT must be a port number (1-65535), got "abc"');
    expect(line).toContain('LOG_LEVEL must be one of');
    expect(line).toContain('DATABASE_URL has unsupported scheme "postgres:"');
  });

  it('should not print a database password in the error line', async () => {
    const line = await refusedWith({ DATABASE_URL: 'mysql://app:s3cr3t-pw@db:notaport/records' });
    expect(line).toMatch(/^Invalid configuration: DATABASE_URL /);
    expect(line).not.toContain('s3cr3t-pw');
  });

  it('should not print the API token it rejects', async () => {
    const line = await refusedWith({
      DATABASE_URL: sqliteUrl(),
      API_TOKEN: 'tok with spaces 0123456789',
    });
    expect(line).toMatch(/^Invalid configuration: API_TOKEN /);
    expect(line).not.toContain('tok with spaces');
  });

  it('should read .env from the working directory and judge its values the same way', async () => {
    const cwd = scratchDir('records-ops-dotenv-');
    writeFileSync(join(cwd, '.env'), `DATABASE_URL=${sqliteUrl()}\nLOG_LEVEL=loud\n`);
    expect(await refusal(await startServer({}, cwd))).toBe(
      'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud".',
    );
  });

  it('should write the line readably on a terminal (pretty, not JSON)', async () => {
    assertBuilt();
    // stdout on a pseudo-terminal (util-linux `script`), as when an operator starts it by hand.
    const child = spawn(
      'script',
      [
        '-q',
        '-e',
        '-c',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)}`,
        '/dev/null',
      ],
      {
        cwd: scratchDir('records-ops-cwd-'),
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          TERM: 'dumb',
          DATABASE_URL: 'postgres://x/y',
          NO_COLOR: '1',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const server = new ServerProcess(child, 0);
    const exit = await server.waitExit(20_000);
    expect(exit.code).toBe(1);
    // eslint-disable-next-line no-control-regex
    const lines = server.stdout.map((l) => l.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r$/, ''));
    expect(lines.filter((l) => l !== '')).toEqual([
      expect.stringMatching(
        /^\[[\d:.]+\] FATAL: Invalid configuration: DATABASE_URL has unsupported scheme "postgres:" \(use sqlite: or mysql:\)/,
      ),
    ]);
  });

  it('should start with a valid configuration (control case)', async () => {
    const server = await startServer({
      PORT: String(await freePort()),
      DATABASE_URL: sqliteUrl(),
      DEMO_DATA: 'false',
    });
    await server.waitReady();
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
    expect(server.stderr).toEqual([]);
  });
});
