/**
 * The database from the operator's side, on MySQL: a DATABASE_URL that cannot work (unknown
 * database, wrong password) stops the start at once with one line naming DATABASE_URL (password
 * hidden); an account locked while the service runs makes every request that needs the database
 * a 503 with Retry-After (never a 500), and readiness a 503.
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306). `npm test` sets it
 * when it prepared MySQL and leaves this directory out otherwise.
 */
import { randomBytes } from 'node:crypto';
import { ownDatabaseName } from '../../../scripts/test-database';
import { LogEntry, startServer } from '../support/process';
import { opsServerUrl, useOwnDatabase } from './own-database';

const serverUrl = opsServerUrl();

// Every test and hook here starts servers or waits on them: none may fail on Jest's 5 s default.
const suffix = randomBytes(4).toString('hex');
const user = `records_lock_${suffix}`;
const own = useOwnDatabase('ops_db', (admin) => admin.query(`DROP USER IF EXISTS ?@'%'`, [user]));
const database = own.name;
const password = `pw-${randomBytes(8).toString('hex')}`;

/** The URL of the test's server with these credentials and this database. */
function urlFor(name: string, secret: string, db: string): string {
  const url = new URL(serverUrl);
  url.username = name;
  url.password = secret;
  url.pathname = `/${db}`;
  return url.toString();
}

beforeAll(async () => {
  await own.admin.query(`CREATE USER ?@'%' IDENTIFIED BY ?`, [user, password]);
  await own.admin.query(`GRANT ALL ON \`${database}\`.* TO ?@'%'`, [user]);
});

describe('a DATABASE_URL that cannot work', () => {
  /**
   * Starts with `url` at LOG_LEVEL=debug and waits for the exit (1). The time that counts runs
   * from Nest's first debug line (the code is loaded; the database is next) to the exit, so a
   * machine slow to load Node does not make it fail; the whole run must still be short.
   */
  async function refused(url: string): Promise<{ took: number; lines: LogEntry[] }> {
    const server = await startServer({ DATABASE_URL: url, LOG_LEVEL: 'debug' });
    const exit = await server.waitExit(30_000);
    expect(exit.code).toBe(1);
    expect(exit.at).toBeLessThan(20_000);
    expect(server.stderr).toEqual([]);
    const all = server.jsonLines();
    const first = all.find((e) => e.context === 'NestFactory')!;
    expect(first).toBeDefined();
    const last = all[all.length - 1];
    // Info and above: the one line.
    return { took: last.time - first.time, lines: all.filter((e) => e.level >= 30) };
  }

  it('should stop in under 3 s with one line naming DATABASE_URL when the database does not exist', async () => {
    const missing = ownDatabaseName('missing');
    // The server's own account (root here), which may see every database: the name is unknown.
    const url = new URL(serverUrl);
    url.pathname = `/${missing}`;
    const { took, lines } = await refused(url.toString());
    expect(took).toBeLessThan(3000);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 60,
        msg: expect.stringMatching(
          new RegExp(
            `^DATABASE_URL mysql://\\S+/${missing} cannot be used: ER_BAD_DB_ERROR: Unknown database '${missing}'; ` +
              'create it first \\(CREATE DATABASE\\): the service creates nothing outside its database$',
          ),
        ),
      }),
    ]);
  });

  it('should stop in under 3 s with one line naming DATABASE_URL when access is denied', async () => {
    const { took, lines } = await refused(urlFor(user, 'wrong-password', database));
    expect(took).toBeLessThan(3000);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 60,
        msg: expect.stringMatching(/^DATABASE_URL mysql:\/\/.* cannot be used: .*Access denied/),
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('wrong-password');
  });
});

describe('an account locked while the service runs', () => {
  it('should answer 503 with Retry-After on reads and on readiness, never 500', async () => {
    const server = await startServer({
      DATABASE_URL: urlFor(user, password, database),
      DEMO_DATA: 'true',
    });
    await server.waitReady('/health/ready', 90_000);
    expect((await fetch(server.url('/api/demo/marbles/1'))).status).toBe(200);

    await own.admin.query(`ALTER USER ?@'%' ACCOUNT LOCK`, [user]);
    // Locking refuses new logins; the pool's open connections are cut as well.
    const [rows] = await own.admin.query(
      'SELECT id FROM information_schema.processlist WHERE user = ?',
      [user],
    );
    for (const { id } of rows as { id: number }[]) await own.admin.query(`KILL ${Number(id)}`);

    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(server.url('/api/demo/marbles/1'));
        expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5']);
        expect(await res.json()).toEqual({
          message: 'The database is unavailable; try again shortly.',
        });
      }
      const write = await fetch(server.url('/api/demo/marbles'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Locked Out' }),
      });
      expect([write.status, write.headers.get('retry-after')]).toEqual([503, '5']);
      const ready = await fetch(server.url('/health/ready'));
      expect([ready.status, ready.headers.get('retry-after')]).toEqual([503, '5']);
    } finally {
      await own.admin.query(`ALTER USER ?@'%' ACCOUNT UNLOCK`, [user]);
    }
    // Unlocked again: the pool logs in anew by itself.
    const back = await fetch(server.url('/api/demo/marbles/1'));
    expect(back.status).toBe(200);
    await server.logsSettled();
    expect(server.jsonLines().filter((e) => e.res?.status === 500)).toEqual([]);
    server.child.kill('SIGTERM');
    expect((await server.waitExit()).code).toBe(0);
  });
});
