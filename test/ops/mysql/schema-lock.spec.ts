/**
 * Replicas starting together on one new MySQL database (src/database/migrate.ts): migrations and
 * the demo data run under a named lock, so both processes become ready, every table exists once,
 * each migration is recorded once and the demo data is loaded once.
 *
 * Needs MySQL: OPS_MYSQL_URL names the server (mysql://root@127.0.0.1:3306). `npm test` sets it
 * when it prepared MySQL and leaves this directory out otherwise.
 */
import { MIGRATIONS } from '../../sources';
import { ServerProcess, startServer } from '../support/process';
import { useOwnDatabase } from './own-database';

// Every test and hook here starts servers or waits on them: none may fail on Jest's 5 s default.
const TABLES = [
  'emails',
  'genres',
  'genres_movies',
  'idempotency_keys',
  'marbles',
  'migrations',
  'movies',
  'movies_users',
  'phone_numbers',
  // In the server's collation order ('_' after letters).
  'record_events',
  'record_event_outbox',
  'record_event_sequencer',
  'users',
  'webhook_deliveries',
  'webhook_subscriptions',
];
const DEMO_COUNTS = {
  users: 100,
  emails: 150,
  genres: 10,
  movies: 30,
  phone_numbers: 100,
  marbles: 120,
};

describe('schema lock (MySQL)', () => {
  const own = useOwnDatabase('ops');
  const database = own.name;
  const servers: ServerProcess[] = [];

  async function count(table: string): Promise<number> {
    const [rows] = await own.admin.query(`SELECT COUNT(*) AS n FROM \`${database}\`.\`${table}\``);
    return Number((rows as { n: number }[])[0].n);
  }

  it('should bring two processes started at the same moment on a new database to ready', async () => {
    const env = { DATABASE_URL: own.url, DEMO_DATA: 'true', LOG_LEVEL: 'info' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    await Promise.all(servers.map((s) => s.waitReady('/health/ready', 90_000)));
    for (const server of servers) {
      const res = await fetch(server.url('/api/demo/marbles?page_size=1'));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { count: number }).count).toBe(120);
    }
    // Neither had to retry after a failed migration or a failed demo-data load.
    for (const server of servers) {
      expect(server.jsonLines().filter((e) => e.level >= 50)).toEqual([]);
      expect(server.stderr).toEqual([]);
    }
  });

  it('should have created each table once and recorded each migration once', async () => {
    const [tables] = await own.admin.query(
      'SELECT TABLE_NAME AS name, COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? GROUP BY TABLE_NAME ORDER BY TABLE_NAME',
      [database],
    );
    expect(tables).toEqual(TABLES.map((name) => ({ name, n: 1 })));
    const [migrations] = await own.admin.query(
      `SELECT name FROM \`${database}\`.migrations ORDER BY id`,
    );
    expect(migrations).toEqual(MIGRATIONS.map((Migration) => ({ name: new Migration().name })));
  });

  it('should have loaded the demo data once', async () => {
    for (const [table, n] of Object.entries(DEMO_COUNTS)) {
      expect([table, await count(table)]).toEqual([table, n]);
    }
    // Log lines are written in batches: once each server's "Listening" line is out, every line
    // before it (the demo data's) is out too.
    await Promise.all(
      servers.map((s) => s.waitForLog((e) => String(e.msg).startsWith('Listening on'))),
    );
    const loaded = servers.map(
      (s) => s.jsonLines().filter((e) => e.msg === 'Empty database: demo data loaded.').length,
    );
    expect(loaded.sort()).toEqual([0, 1]);
  });

  it('should not load the demo data again when a third process starts on the filled database', async () => {
    const third = await startServer({ DATABASE_URL: own.url, DEMO_DATA: 'true' });
    servers.push(third);
    await third.waitReady('/health/ready', 60_000);
    expect(await count('users')).toBe(100);
    expect(await count('marbles')).toBe(120);
    expect(third.jsonLines().filter((e) => e.msg === 'Empty database: demo data loaded.')).toEqual(
      [],
    );
  });

  it('should stop every process with exit code 0 on SIGTERM and leave no lock held', async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    const exits = await Promise.all(servers.map((s) => s.waitExit(20_000)));
    expect(exits.map((e) => e.code)).toEqual([0, 0, 0]);
    const [rows] = await own.admin.query("SELECT IS_FREE_LOCK('records.schema') AS free");
    expect(Number((rows as { free: number }[])[0].free)).toBe(1);
  });
});
