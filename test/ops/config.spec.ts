/**
 * Configuration errors stop the compiled server at once: exit code 1 and one line on stderr that
 * names the variable, with no stack trace.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, scratchDir, sqliteUrl, startServer } from './process';

/** Starts the server with `env`: it must stop with exit code 1 and one line on stderr, returned. */
async function refusedWith(env: Record<string, string>): Promise<string> {
  const server = await startServer(env);
  const exit = await server.waitExit(20_000);
  expect(exit.code).toBe(1);
  expect(server.stderr).toHaveLength(1);
  return server.stderr[0];
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
    'should stop with exit code 1 and one stderr line naming %s when it is "%s"',
    async (name, value) => {
      const env: Record<string, string> = {
        DATABASE_URL: sqliteUrl(),
        DEMO_DATA: 'false',
        [name]: value,
      };
      if (name === 'PORT') env.PORT = value;
      const server = await startServer(env);
      const exit = await server.waitExit(20_000);
      expect(exit).toMatchObject({ code: 1, signal: null });
      expect(server.stderr).toHaveLength(1);
      expect(server.stderr[0]).toMatch(new RegExp(`^Invalid configuration: ${name} `));
      expect(server.stderr[0]).not.toMatch(/^\s+at |Error:|\.js:\d+/);
      expect(server.stdout).toEqual([]);
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
    const server = await startServer({}, cwd);
    const exit = await server.waitExit(20_000);
    expect(exit.code).toBe(1);
    expect(server.stderr).toEqual([
      'Invalid configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud".',
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
