/**
 * Scale-out (issue 9): a MariaDB primary and a GTID replica of it (two mariadbd processes of this
 * suite's own, scripts/mariadb-pair.js), two instances of the compiled service reading from the
 * replica, and nginx balancing them, all on the loopback. Every process is started here and stopped
 * here by its PID.
 *
 * Needs the MariaDB server binaries (mariadbd, mariadb-install-db) and nginx; `npm test` leaves
 * this folder out and reports it as not run where they are missing (a failure under CI).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { caughtUp, MariaDbServer, PASSWORD, startPair, USER } from '../../../scripts/mariadb-pair';
import { cleanup, scratchDir, ServerProcess, startServer, waitFor } from '../support/process';
import { Nginx } from './nginx';

/** Seconds: the suite runs with the defaults, named here for the deadlines below. */
const MAX_LAG = 5;
const READ_AFTER_WRITE = 2;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  cookie?: string;
}

interface ReplicaReport {
  url: string;
  state: string;
  lag_seconds: number | null;
  in_rotation: boolean;
  error?: string;
}

/** What the suite measured, printed at the end (the README's figures come from here). */
const figures: Record<string, unknown> = {};

async function call(url: string, init: RequestInit = {}, cookie?: string): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (cookie) headers.set('Cookie', cookie);
  const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: the test looks at the text
  }
  const setCookie = res.headers.get('set-cookie');
  return { status: res.status, body, text, cookie: setCookie?.split(';')[0] };
}

function patch(url: string, body: unknown): Promise<Answer> {
  return call(url, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('read replicas behind a load balancer (MariaDB primary + GTID replica, nginx)', () => {
  let primary: MariaDbServer;
  let replica: MariaDbServer;
  let a: ServerProcess;
  let b: ServerProcess;
  let nginx: Nginx;
  const name = (server: ServerProcess, id: number) =>
    call(server.url(`/api/demo/marbles/${id}`)).then((r) => r.body.name);

  /** The replica as `/health/ready` of `server` reports it (which must answer 200). */
  async function reported(server: ServerProcess): Promise<ReplicaReport> {
    const res = await call(server.url('/health/ready'));
    expect(res.status).toBe(200);
    const replicas = (res.body.info as { replicas: { servers: ReplicaReport[] } }).replicas;
    return replicas.servers[0];
  }

  /** Waits until both instances report the replica in (or out of) the rotation; the time taken. */
  async function rotationOnBoth(inRotation: boolean, since: number, timeoutMs: number) {
    await waitFor(
      async () =>
        (await Promise.all([a, b].map(reported))).every((r) => r.in_rotation === inRotation),
      `replica ${inRotation ? 'in' : 'out of'} the rotation on both instances`,
      timeoutMs,
      100,
    );
    return Date.now() - since;
  }

  beforeAll(async () => {
    const root = scratchDir('records-replicas-');
    ({ primary, replica } = await startPair(join(root, 'db')));
    const env = {
      DATABASE_URL: primary.url(),
      DATABASE_REPLICA_URLS: replica.url(),
      DEMO_DATA: 'true',
      // The replicas' addresses and errors in /health/ready, for the assertions below.
      HEALTH_DETAILS: 'true',
      TRUST_PROXY: 'true',
      LOG_LEVEL: 'info',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    await Promise.all([a, b].map((s) => s.waitReady('/health/ready', 90_000)));
    await caughtUp(primary, replica);
    mkdirSync(join(root, 'nginx'));
    nginx = await Nginx.start(join(root, 'nginx'), [a.port, b.port]);
  });

  afterAll(async () => {
    console.log(`replica suite figures: ${JSON.stringify(figures, null, 2)}`);
    await nginx?.stop();
    await Promise.all([primary?.stop(), replica?.stop()]);
    await cleanup();
  });

  it('should report the replica in /health/ready of every instance, with its password hidden', async () => {
    for (const url of [
      a.url('/health/ready'),
      b.url('/health/ready'),
      nginx.url('/health/ready'),
    ]) {
      const res = await call(url);
      expect(res.status).toBe(200);
      expect(res.body.info).toEqual({
        database: { status: 'up' },
        replicas: {
          status: 'up',
          in_rotation: 1,
          servers: [
            {
              url: `mysql://${USER}:***@127.0.0.1:${replica.port}/records`,
              state: 'ok',
              lag_seconds: 0,
              in_rotation: true,
            },
          ],
        },
      });
      expect(res.text).not.toContain(PASSWORD);
    }
    const xml = await call(a.url('/health/ready.xml'));
    expect(xml.status).toBe(200);
    expect(xml.text).toContain(
      `<replicas><in-rotation type="integer">1</in-rotation><servers type="array"><server>` +
        `<url>mysql://${USER}:***@127.0.0.1:${replica.port}/records</url><state>ok</state>` +
        `<lag-seconds type="integer">0</lag-seconds><in-rotation type="boolean">true</in-rotation>` +
        `</server></servers><status>up</status></replicas>`,
    );
    expect(xml.text).not.toContain(PASSWORD);
  });

  it('should send the reads to the replica, none to the primary, through nginx to both instances', async () => {
    // Each server's general log, in a table, for the requests below: the reads of marbles are
    // told from the instances' own background statements (the feed's, the webhooks'), which a
    // global counter such as Com_select would count too.
    const servers = { primary, replica };
    for (const server of Object.values(servers)) {
      await server.query("SET GLOBAL log_output = 'TABLE'");
      await server.query('TRUNCATE mysql.general_log');
      await server.query('SET GLOBAL general_log = ON');
    }
    const requests = 40;
    const tag = `split-${Date.now()}-`;
    for (let i = 0; i < requests; i++) {
      const res = await call(nginx.url('/api/demo/marbles?page_size=5'), {
        headers: { 'X-Request-Id': `${tag}${i}` },
      });
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(120);
    }
    const selects: Record<string, number> = {};
    for (const [name, server] of Object.entries(servers)) {
      await server.query('SET GLOBAL general_log = OFF');
      // The pattern is built in SQL, so that this statement, logged too, does not match it.
      const [{ n }] = await server.query(
        "SELECT COUNT(*) AS n FROM mysql.general_log WHERE command_type IN ('Query', 'Execute') " +
          "AND argument LIKE CONCAT('%SELECT%FROM ', CHAR(96), 'marbles', CHAR(96), '%')",
      );
      selects[name] = Number(n);
    }
    // Each index request is a COUNT and a page query.
    expect(selects).toEqual({ primary: 0, replica: 2 * requests });
    // nginx spread them over both instances (each logs the requests it served).
    await Promise.all([a.logsSettled(), b.logsSettled()]);
    const servedByUrl = [a, b].map((s) => s.stdout.filter((line) => line.includes(tag)).length);
    expect(servedByUrl[0] + servedByUrl[1]).toBe(requests);
    expect(Math.min(...servedByUrl)).toBeGreaterThanOrEqual(requests / 4);
    figures.readSplit = { requests, selects, perInstance: servedByUrl };
  });

  it("should report the replica's pool and its reads in /metrics, beside the primary's", async () => {
    for (const server of [a, b]) {
      const text = await (await fetch(server.url('/metrics'))).text();
      const value = (series: string) => {
        const line = text.split('\n').find((l) => l.startsWith(`${series} `));
        return line === undefined ? undefined : Number(line.slice(series.length + 1));
      };
      for (const pool of ['primary', 'replica0']) {
        expect([pool, value(`db_pool_connections_idle{pool="${pool}"}`)]).toEqual([
          pool,
          expect.any(Number),
        ]);
        expect(value(`db_pool_waiting_requests{pool="${pool}"}`)).toBe(0);
      }
      // Each instance served some of the 40 index requests above: their reads ran on replica0.
      expect(value('db_query_duration_seconds_count{pool="replica0",kind="read"}')).toBeGreaterThan(
        0,
      );
    }
  });

  it('should run writes on the primary, from where they replicate', async () => {
    const before = { primary: await primary.status('Com_insert') };
    const res = await call(nginx.url('/api/demo/marbles'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Replicated Opal', price: '3.25' }),
    });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Replicated Opal');
    // The marble's INSERT and its change-feed event's, both on the primary.
    expect((await primary.status('Com_insert')) - before.primary).toBe(2);
    await caughtUp(primary, replica);
    const rows = await replica.query('SELECT name FROM records.marbles WHERE id = ?', [
      res.body.id,
    ]);
    expect(rows).toEqual([{ name: 'Replicated Opal' }]);
  });

  it('should read a write made through one instance through the other', async () => {
    const written = await patch(a.url('/api/demo/marbles/3'), { name: 'Written via A' });
    expect(written.status).toBe(200);
    expect(written.cookie).toMatch(/^records_last_write=\d+$/);
    const at = Date.now();
    // With the write's cookie: at once, from the primary.
    const read = await call(b.url('/api/demo/marbles/3'), {}, written.cookie);
    expect([read.status, read.body.name]).toEqual([200, 'Written via A']);
    // Without it: from the replica, once replication has brought it there.
    await waitFor(
      async () => (await name(b, 3)) === 'Written via A',
      'the write on the replica',
      10_000,
      10,
    );
    figures.replicationVisibleAfterMs = Date.now() - at;
  });

  let stoppedAt = 0;

  it("should keep a client's own writes visible to it while the replica's SQL thread is stopped", async () => {
    await caughtUp(primary, replica);
    const before = await name(b, 4);
    await replica.query('STOP SLAVE SQL_THREAD');
    stoppedAt = Date.now();
    const written = await patch(a.url('/api/demo/marbles/4'), { name: 'Unreplicated' });
    expect(written.status).toBe(200);
    // A client without the cookie reads from the replica, still in the rotation (it stopped
    // moments ago, less than REPLICA_MAX_LAG): the old name.
    const stale = await name(b, 4);
    // The writer, through either instance, with the cookie its write set: the new name.
    const own = await call(b.url('/api/demo/marbles/4'), {}, written.cookie);
    const ownViaA = await call(a.url('/api/demo/marbles/4'), {}, written.cookie);
    // A cookie older than REPLICA_READ_AFTER_WRITE no longer sends the reads to the primary.
    const expired = await call(
      b.url('/api/demo/marbles/4'),
      {},
      `records_last_write=${Date.now() - (READ_AFTER_WRITE + 1) * 1000}`,
    );
    const elapsed = Date.now() - stoppedAt;
    expect({ inTime: elapsed < MAX_LAG * 1000, elapsed }).toEqual({ inTime: true, elapsed });
    expect({
      stale,
      own: own.body.name,
      ownViaA: ownViaA.body.name,
      expired: expired.body.name,
    }).toEqual({ stale: before, own: 'Unreplicated', ownViaA: 'Unreplicated', expired: before });
  });

  it('should take a replica whose SQL thread stopped out of the rotation within REPLICA_MAX_LAG + 5 s, and back when it runs again', async () => {
    const outAfter = await rotationOnBoth(false, stoppedAt, (MAX_LAG + 5) * 1000);
    expect(outAfter).toBeLessThanOrEqual((MAX_LAG + 5) * 1000);
    const report = await reported(b);
    expect(report).toMatchObject({ state: 'not replicating', in_rotation: false });
    expect(report.error).toMatch(/^SQL thread not running/);
    expect(report.lag_seconds).toBeGreaterThan(MAX_LAG);
    // Reads now come from the primary: everyone sees the write.
    expect(await name(b, 4)).toBe('Unreplicated');
    const selects = await replica.status('Com_select');
    await call(nginx.url('/api/demo/marbles?page_size=3'));
    expect((await replica.status('Com_select')) - selects).toBe(0);

    await replica.query('START SLAVE SQL_THREAD');
    const backAfter = await rotationOnBoth(true, Date.now(), 10_000);
    expect(await name(b, 4)).toBe('Unreplicated');
    figures.sqlThreadStopped = { outOfRotationAfterMs: outAfter, backAfterStartMs: backAfter };
  });

  it('should take a replica that falls more than REPLICA_MAX_LAG behind out of the rotation, and back once it caught up', async () => {
    // A row lock on the replica holds its SQL thread at the next change of that row.
    const blocker = await replica.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM records.marbles WHERE id = 6 FOR UPDATE');
      expect((await patch(a.url('/api/demo/marbles/6'), { name: 'Held back' })).status).toBe(200);
      const writtenAt = Date.now();
      // Out once it is more than MAX_LAG behind, at the next check: allow a loaded machine 5 s more.
      const outAfter = await rotationOnBoth(false, writtenAt, (MAX_LAG + 10) * 1000);
      const report = await reported(a);
      expect(report).toMatchObject({ state: 'lagging', in_rotation: false });
      expect(report.lag_seconds).toBeGreaterThan(MAX_LAG);
      expect(await name(b, 6)).toBe('Held back');
      await blocker.query('ROLLBACK');
      const releasedAt = Date.now();
      const backAfter = await rotationOnBoth(true, releasedAt, 10_000);
      expect(await reported(b)).toMatchObject({ state: 'ok', lag_seconds: 0 });
      figures.lagging = { outOfRotationAfterWriteMs: outAfter, backAfterCatchUpMs: backAfter };
    } finally {
      await blocker.end();
    }
  });

  it('should fail no read while the replica is killed (kill -9) under load', async () => {
    const statuses: number[] = [];
    const failures: string[] = [];
    let killedAt = 0;
    let afterKill = 0;
    let stop = false;
    const worker = async () => {
      for (let i = 0; !stop && i < 5000; i++) {
        const path = i % 2 ? '/api/demo/marbles?page_size=10' : '/api/demo/marbles/2';
        try {
          const res = await call(nginx.url(path));
          statuses.push(res.status);
          if (res.status !== 200) failures.push(`${res.status} ${path}: ${res.text}`);
        } catch (error) {
          failures.push(`${path}: ${(error as Error).message}`);
        }
        if (killedAt) afterKill++;
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    await waitFor(() => statuses.length >= 100, 'reads before the kill', 30_000, 10);
    await replica.kill();
    killedAt = Date.now();
    const outAfter = await rotationOnBoth(false, killedAt, 10_000);
    await waitFor(() => afterKill >= 200, 'reads after the kill', 30_000, 10);
    stop = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect((await reported(a)).state).toBe('down');
    figures.replicaKilled = {
      reads: statuses.length,
      readsAfterKill: afterKill,
      failed: failures.length,
      outOfRotationAfterMs: outAfter,
    };
  });

  it('should send reads to a restarted replica again, once it has caught up', async () => {
    // Written while the replica is down: it catches up on start.
    expect((await patch(a.url('/api/demo/marbles/5'), { name: 'While down' })).status).toBe(200);
    const restartedAt = Date.now();
    await replica.start();
    const backAfter = await rotationOnBoth(true, restartedAt, 30_000);
    await caughtUp(primary, replica);
    const selects = await replica.status('Com_select');
    for (let i = 0; i < 4; i++)
      expect((await call(nginx.url('/api/demo/marbles/5'))).body.name).toBe('While down');
    expect((await replica.status('Com_select')) - selects).toBe(4);
    figures.replicaRestarted = { backInRotationAfterStartMs: backAfter };
  });
});
