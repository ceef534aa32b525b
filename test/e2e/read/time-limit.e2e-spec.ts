/**
 * QUERY_TIMEOUT_MS: on MySQL a read that runs past the limit is cancelled by the server and
 * answered 503 with a clear message, and the connection goes back to the pool. better-sqlite3
 * cannot interrupt a statement, so on SQLite the same read completes.
 */
import { TestApp, useApp } from '../support/harness';

const ROWS = 100_000;

describe('the statement time limit', () => {
  const t = useApp({ queryTimeoutMs: 1, seed: (app) => insertMarbles(app) });

  /** One user and 100 000 marbles, from the cross product of five digit tables. */
  async function insertMarbles(app: TestApp) {
    await app.insertAll({ users: [{ id: 1, login: 'ann', email_id: null }] });
    const digit = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => `SELECT ${d} AS d`).join(' UNION ALL ');
    const id = 'a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 1';
    const name = app.dialect === 'mysql' ? `CONCAT('Marble ', ${id})` : `'Marble ' || (${id})`;
    const at = "'2024-01-01 00:00:00.000'";
    await app.query(
      'INSERT INTO marbles (id, name, radius_mm, is_discounted, created_at, updated_at, user_id, description) ' +
        `SELECT ${id}, ${name}, 1, 0, ${at}, ${at}, 1, 'a long description of a marble' ` +
        `FROM (${digit}) a, (${digit}) b, (${digit}) c, (${digit}) e, (${digit}) f`,
    );
  }

  it(`should hold ${ROWS} rows to search`, async () => {
    const [{ n }] = await t.query('SELECT COUNT(*) AS n FROM marbles');
    expect(Number(n)).toBe(ROWS);
  });

  if (process.env.TEST_DATABASE === 'mysql') {
    it('should cancel a search past the limit with 503, Retry-After and a clear message', async () => {
      const res = await t.http().get('/api/demo/marbles?search=no-such-marble');
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toEqual({
        message:
          'The query took longer than the time limit and was cancelled; narrow it (filters, a ' +
          'longer search term, no total count) or try again later.',
      });
    });

    it('should answer the same error in XML when XML was asked for', async () => {
      const res = await t.http().get('/api/demo/marbles.xml?search=no-such-marble');
      expect(res.status).toBe(503);
      expect(res.text).toContain('<message>The query took longer than the time limit');
    });

    it('should keep serving after many cancelled reads: no connection is lost to them', async () => {
      // More cancelled reads than the pool has connections (10).
      for (let i = 0; i < 15; i++) {
        expect((await t.http().get('/api/demo/marbles?search=nothing')).status).toBe(503);
      }
      // A read of one record by its key is quick, but with a limit of 1 ms a loaded machine (a
      // Galera node in CI) can still cancel it. Each such 503 carries the time limit's message,
      // so a connection was handed out and the server ran the read; a lost connection would
      // show as a pool that hands none out (another message, after the deadline).
      let res = await t.http().get('/api/demo/marbles/7');
      for (let tries = 1; res.status === 503 && tries < 20; tries++) {
        expect(res.body.message).toMatch(/^The query took longer than the time limit/);
        res = await t.http().get('/api/demo/marbles/7');
      }
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('Marble 7');
    });
  } else {
    it('should complete the same search on SQLite, which has no statement limit', async () => {
      const res = await t.http().get('/api/demo/marbles?search=no-such-marble');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 0, page: 1, page_size: 30, total_pages: 0, results: [] });
    });
  }
});
