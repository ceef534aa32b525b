/**
 * Atomic operations when the database fails mid-request (MySQL): the third operation waits on a
 * row another connection holds, and an operator kills its statement (KILL QUERY) or its whole
 * connection (KILL). The request answers 503, nothing of its first two operations is left
 * behind, no transaction stays open, and the next write through the same pool commits only
 * itself.
 */
import mysql from 'mysql2/promise';
import { TWO_PHONES, USERS, marbleRow } from '../support/fixtures';
import { testDatabase, useApp } from '../support/harness';
import { expectJson } from '../support/http';
import { eventually } from '../support/waits';

const UNAVAILABLE = { message: 'The database is unavailable; try again shortly.' };

describe('atomic operations: a statement or connection killed mid-request (MySQL)', () => {
  const database = testDatabase();
  if (database.type !== 'mysql') throw new Error('run with TEST_DATABASE=mysql');
  const t = useApp({
    seedEach: {
      users: USERS,
      marbles: [marbleRow(7, 'Amber', { version: 1 })],
      phone_numbers: TWO_PHONES,
    },
  });
  let blocker: mysql.Connection;

  beforeEach(async () => {
    blocker = await mysql.createConnection({ uri: database.url });
  });
  afterEach(async () => {
    await blocker.end();
  });

  for (const kill of ['KILL QUERY', 'KILL']) {
    it(`should answer 503 and leave nothing behind after ${kill}`, async () => {
      await blocker.query('START TRANSACTION');
      await blocker.query('SELECT id FROM marbles WHERE id = 7 FOR UPDATE');
      const pending = t
        .http()
        .post('/api/operations')
        .send({
          operations: [
            { op: 'create', collection: 'marbles', record: { name: 'Opal' } },
            { op: 'update', collection: 'phone_numbers', id: 1, record: { user_id: 2 } },
            { op: 'toggle_is_discounted', collection: 'marbles', id: 7 },
          ],
        })
        .then((res) => res);
      // The request's connection, waiting for the row the blocker holds.
      const waiting = await eventually(async () => {
        const [row] = await t.query(
          "SELECT id FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE 'SELECT * FROM `marbles`%FOR UPDATE' AND id <> CONNECTION_ID() AND id <> ?",
          [blocker.threadId],
        );
        if (!row) throw new Error('not waiting yet');
        return Number(row.id);
      });
      await t.query(`${kill} ${waiting}`);
      const res = await pending;
      await blocker.query('ROLLBACK');

      expectJson(res, 503);
      expect(res.body).toEqual(UNAVAILABLE);
      expect(res.headers['retry-after']).toBe('5');
      expect((await t.rows('marbles')).map((m) => [m.id, m.name, Number(m.version)])).toEqual([
        [7, 'Amber', 1],
      ]);
      expect((await t.rows('phone_numbers')).map((p) => p.user_id)).toEqual([1, 2]);
      await eventually(async () => expect(await t.openTransactions([blocker.threadId])).toBe(0));

      // The pool's next write commits itself alone.
      const later = await t.http().patch('/api/demo/marbles/7/toggle_is_discounted');
      expectJson(later, 200);
      expect((await t.rows('marbles')).map((m) => [m.id, Number(m.version)])).toEqual([[7, 2]]);
      expect((await t.rows('phone_numbers')).map((p) => p.user_id)).toEqual([1, 2]);
    });
  }
});
