/**
 * Writes that never half-commit, on a MariaDB of this suite's own (scripts/mariadb-pair.js,
 * `startServer`: its own datadir, port and socket in a temp folder, stopped by its PID) with a
 * short innodb_lock_wait_timeout. Another session holds the row of an Idempotency-Key locked, so
 * the service's keyed toggle of a marble waits for it at its last statement, after the marble's
 * UPDATE ran; then the wait ends in a lock wait timeout (1205), or in a KILL QUERY of the
 * service's statement (1317). Both roll back only the statement: the service must roll back the
 * rest before its connection is reused.
 *
 * What must hold: the answer is 503 "try again"; no transaction of the service stays open; the
 * marble's version is unchanged, also after later writes through the pool (mysql2's pool hands
 * out the connection given back last, so the next write runs on the one that failed); the
 * request resent with its key is written once, then replayed.
 *
 * Needs the MariaDB server binaries (mariadbd, mariadb-install-db), as .ci/run installs them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from 'mysql2/promise';
import { MariaDbServer, missingBinaries, startServer } from '../../../scripts/mariadb-pair';
import { marbleRow } from '../support/fixtures';
import { TestApp, testDatabase, useApp } from '../support/harness';
import { expectJson } from '../support/http';
import type { Response } from 'supertest';

const UNAVAILABLE = { message: 'The database is unavailable; try again shortly.' };
const USER = 'records';
const PASSWORD = 'records-secret';
/** Starting a MariaDB of its own: install, start, answer. Generous, for a loaded machine. */
const SERVER_TIMEOUT = 180_000;

describe('a lock wait that ends in an error leaves nothing behind (MariaDB of its own)', () => {
  if (testDatabase().type !== 'mysql') throw new Error('run with TEST_DATABASE=mysql');
  const missing = missingBinaries();
  if (missing.length) throw new Error(`not installed: ${missing.join(', ')} (mariadb-server)`);

  const root = mkdtempSync(join(tmpdir(), 'records-locks-'));
  let server: MariaDbServer;
  beforeAll(async () => {
    server = await startServer(root);
    await server.query('CREATE DATABASE records CHARACTER SET utf8mb4');
    await server.query(`CREATE USER '${USER}'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
    await server.query(`GRANT ALL ON records.* TO '${USER}'@'127.0.0.1'`);
  }, SERVER_TIMEOUT);
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  }, SERVER_TIMEOUT);

  const database = () => ({
    type: 'mysql' as const,
    url: `mysql://${USER}:${PASSWORD}@127.0.0.1:${server.port}/records`,
    database: 'records',
  });

  /** Another session, holding the row of `key` locked (an uncommitted insert of it). */
  async function holdKey(key: string): Promise<Connection> {
    const blocker = await server.connect();
    await blocker.query('USE records');
    await blocker.query('START TRANSACTION');
    await blocker.query(
      "INSERT INTO idempotency_keys (idempotency_key, fingerprint, claim, expires_at) VALUES (?, 'other', '', 0)",
      [key],
    );
    return blocker;
  }

  /** Transactions open on the server other than `except`'s (the blocker's). */
  async function openTransactions(except: Connection): Promise<number> {
    const [row] = await server.query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM information_schema.innodb_trx WHERE trx_mysql_thread_id <> ?',
      [except.threadId],
    );
    return Number(row.n);
  }

  async function marble(t: TestApp): Promise<[number, number]> {
    const [amber] = await t.rows('marbles');
    return [Number(amber.version), Number(amber.is_discounted)];
  }

  const toggle = (t: TestApp, key: string) =>
    t.http().patch('/api/demo/marbles/1/toggle_is_discounted').set('Idempotency-Key', key);

  /** The rest of each case: later writes commit alone, the key's resend writes once. */
  async function expectNoLeftovers(t: TestApp, key: string) {
    expect(await marble(t)).toEqual([1, 0]);
    for (const name of ['Ruby', 'Jade']) {
      expectJson(await t.http().post('/api/demo/marbles').send({ name }), 201);
    }
    expect(await marble(t)).toEqual([1, 0]);
    const again = await toggle(t, key);
    expectJson(again, 200);
    expect(again.body).toEqual({ message: 'Is discounted toggled to true.' });
    expect(await marble(t)).toEqual([2, 1]);
    const replayed = await toggle(t, key);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(await marble(t)).toEqual([2, 1]);
  }

  /** An app on the test database with one marble, Amber, at version 1. */
  const useAmber = () =>
    useApp(() => ({
      database: database(),
      seed: { marbles: [marbleRow(1, 'Amber', { version: 1 })] },
    }));

  /**
   * A toggle under `key` while a blocker holds the key's row: `during` sees the blocker and the
   * toggle's answer (awaited by `during`), must find it a 503 with no transaction of the service
   * left open; then the blocker lets go and nothing of the toggle remains.
   */
  async function blockedToggle(
    t: TestApp,
    key: string,
    during: (answer: Promise<Response>) => Promise<Response>,
  ): Promise<Response> {
    const blocker = await holdKey(key);
    let res: Response;
    try {
      res = await during(toggle(t, key).then((r) => r));
      expectJson(res, 503);
      expect(res.body).toEqual(UNAVAILABLE);
      // Answered after its ROLLBACK: nothing of the service is open, while the lock still is.
      expect(await openTransactions(blocker)).toBe(0);
    } finally {
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
    await expectNoLeftovers(t, key);
    return res;
  }

  describe('a lock wait timeout (innodb_lock_wait_timeout=1)', () => {
    beforeAll(() => server.query('SET GLOBAL innodb_lock_wait_timeout = 1'));
    const t = useAmber();

    it('should answer 503, roll the toggle back and leave no transaction open', async () => {
      const res = await blockedToggle(t, 'k-timeout', (answer) => answer);
      expect(res.headers['retry-after']).toBe('5');
    });
  });

  describe('a KILL QUERY of the waiting statement', () => {
    beforeAll(() => server.query('SET GLOBAL innodb_lock_wait_timeout = 120'));
    const t = useAmber();

    it('should answer 503, roll the toggle back and leave no transaction open', async () => {
      await blockedToggle(t, 'k-killed', async (answer) => {
        // The service's insert of the key, waiting for the blocker's lock.
        let id: number | undefined;
        while (id === undefined) {
          const [waiting] = await server.query<{ id: number }>(
            'SELECT id FROM information_schema.processlist' +
              " WHERE user = ? AND info LIKE 'INSERT INTO `idempotency_keys`%'",
            [USER],
          );
          id = waiting?.id;
        }
        await server.query(`KILL QUERY ${Number(id)}`);
        return answer;
      });
    });
  });
});
