/**
 * Atomic operations when the database fails mid-request, on either database: every statement of
 * a three-operation request failing in turn (the transaction runner's test seam, as
 * test/e2e/safe-writes/faults.e2e-spec.ts fails single writes), before COMMIT. Each answers 503,
 * leaves nothing of any operation behind and no transaction open, and the next write through the
 * same connection pool commits only itself.
 */
import { SqlDatabase, TransactionRunner, writeContext } from '../../sources';
import { TWO_PHONES, USERS, marbleRow } from '../support/fixtures';
import { useApp } from '../support/harness';
import { expectJson } from '../support/http';

const UNAVAILABLE = { message: 'The database is unavailable; try again shortly.' };

/** A statement refused (MySQL: a lock wait timeout; SQLite: an I/O error). */
function refusal(dialect: 'mysql' | 'sqlite'): Error {
  return dialect === 'sqlite'
    ? Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' })
    : Object.assign(new Error('Lock wait timeout exceeded; try restarting transaction'), {
        code: 'ER_LOCK_WAIT_TIMEOUT',
        errno: 1205,
      });
}

const isCommit = (sql: string) => sql === 'COMMIT' || sql.endsWith('; COMMIT');

const REQUEST = {
  operations: [
    { op: 'create', collection: 'marbles', ref: 'm', record: { name: 'Opal' } },
    { op: 'update', collection: 'phone_numbers', id: 1, record: { user_id: 2 } },
    { op: 'adjust_price', collection: 'marbles', id: { ref: 'm' }, record: { price: '3.5' } },
  ],
};

describe('atomic operations: a statement failing mid-request', () => {
  const t = useApp({
    seedEach: {
      users: USERS,
      marbles: [marbleRow(7, 'Amber', { version: 1 })],
      phone_numbers: TWO_PHONES,
    },
  });
  let runner: TransactionRunner;
  beforeAll(() => {
    runner = (t.app.get(SqlDatabase) as unknown as { transactions: TransactionRunner })
      .transactions;
  });
  afterEach(() => (runner.faults = undefined));

  it('should answer 503 for a failure at every statement before COMMIT, leaving nothing behind', async () => {
    // The statements of the request, seen once without a fault (then undone).
    const seen: string[] = [];
    runner.faults = (sql) => (writeContext().requestId === null ? undefined : void seen.push(sql));
    expectJson(await t.http().post('/api/operations').send(REQUEST), 200);
    runner.faults = undefined;
    const statements = seen.slice(1).filter((sql) => !isCommit(sql));
    expect(statements.length).toBeGreaterThanOrEqual(3);

    for (let n = 0; n < statements.length; n++) {
      await t.fresh();
      await t.seed({
        users: USERS,
        marbles: [marbleRow(7, 'Amber', { version: 1 })],
        phone_numbers: TWO_PHONES,
      });
      let count = 0;
      runner.faults = (sql) => {
        if (writeContext().requestId === null || sql === seen[0] || isCommit(sql)) return undefined;
        if (count++ === n) throw refusal(t.dialect);
        return undefined;
      };
      const res = await t.http().post('/api/operations').send(REQUEST);
      runner.faults = undefined;

      expect([n, res.status, res.body]).toEqual([n, 503, UNAVAILABLE]);
      expect((await t.rows('marbles')).map((m) => m.name)).toEqual(['Amber']);
      expect((await t.rows('phone_numbers')).map((p) => p.user_id)).toEqual([1, 2]);
      expect(await t.openTransactions()).toBe(0);
      const later = await t.http().patch('/api/demo/marbles/7/toggle_is_discounted');
      expectJson(later, 200);
      expect((await t.rows('marbles')).map((m) => [m.name, Number(m.version)])).toEqual([
        ['Amber', 2],
      ]);
      expect((await t.rows('phone_numbers')).map((p) => p.user_id)).toEqual([1, 2]);
    }
  });
});
