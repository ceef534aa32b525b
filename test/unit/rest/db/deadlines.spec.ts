/**
 * The service's own deadline on database calls (rest/db/replicas.ts): a read that waits past it,
 * for a connection or for its answer, fails as "unavailable" and its connection is destroyed,
 * never given back to the pool; a COMMIT past it says the write may have been saved.
 */
import { ArgumentsHost } from '@nestjs/common';
import {
  DatabaseDeadline,
  isDatabaseUnavailable,
  mayHaveCommitted,
} from '../../../../src/rest/db/database-errors';
import {
  MysqlConnection,
  MysqlPool,
  queryWithin,
  withDeadline,
} from '../../../../src/rest/db/replicas';
import { ApiExceptionFilter } from '../../../../src/rest/http/response/api-exception.filter';
import { Row } from '../../../../src/rest/db/sql-database';

/** A connection whose answer comes when the test says, and that records what was done to it. */
class Connection implements MysqlConnection {
  fate: 'held' | 'released' | 'destroyed' = 'held';
  answer?: (rows: Row[]) => void;
  query(_sql: string, _p: unknown[], callback: (error: Error | null, rows: Row[]) => void) {
    this.answer = (rows) => callback(null, rows);
  }
  release() {
    this.fate = 'released';
  }
  destroy() {
    this.fate = 'destroyed';
  }
}

/** A pool that hands out `connection` when the test says. */
function poolOf(connection: Connection) {
  let give: (() => void) | undefined;
  const pool: MysqlPool = {
    query: () => undefined,
    getConnection: (callback) => {
      give = () => callback(null, connection);
    },
  };
  return { pool, give: () => give!() };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('database deadlines', () => {
  it('should answer a read within its deadline and give its connection back', async () => {
    const connection = new Connection();
    const { pool, give } = poolOf(connection);
    const read = queryWithin(pool, 'SELECT 1', [], 1000);
    give();
    connection.answer!([{ one: 1 }]);
    expect(await read).toEqual([{ one: 1 }]);
    expect(connection.fate).toBe('released');
  });

  it('should fail a read whose answer does not come, destroying its connection', async () => {
    const connection = new Connection();
    const { pool, give } = poolOf(connection);
    const read = queryWithin(pool, 'SELECT 1', [], 30);
    give();
    const error = await read.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseDeadline);
    expect([isDatabaseUnavailable(error), mayHaveCommitted(error)]).toEqual([true, false]);
    expect(connection.fate).toBe('destroyed');
    // The answer that comes late changes nothing.
    connection.answer!([]);
    expect(connection.fate).toBe('destroyed');
  });

  it('should fail a read that waits too long for a connection, and give back the one that comes later', async () => {
    const connection = new Connection();
    const { pool, give } = poolOf(connection);
    const error = await queryWithin(pool, 'SELECT 1', [], 30).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseDeadline);
    give();
    expect(connection.fate).toBe('released');
  });

  it('should say a COMMIT past the deadline may have been saved, and answer 503 saying so', async () => {
    let destroyed = false;
    const commit = new Promise<void>(() => undefined);
    const error = await withDeadline(commit, 30, () => (destroyed = true), true).catch(
      (e: unknown) => e,
    );
    expect([destroyed, mayHaveCommitted(error), isDatabaseUnavailable(error)]).toEqual([
      true,
      true,
      true,
    ]);
    const sent: { status?: number; headers: Record<string, string>; body?: string } = {
      headers: {},
    };
    const res = {
      headersSent: false,
      locals: {},
      status: (status: number) => (sent.status = status),
      setHeader: (name: string, value: string) => (sent.headers[name] = value),
      send: (body: string) => (sent.body = body),
    };
    const host = {
      switchToHttp: () => ({ getRequest: () => ({}), getResponse: () => res }),
    } as unknown as ArgumentsHost;
    new ApiExceptionFilter().catch(error, host);
    expect(sent).toEqual({
      status: 503,
      headers: {
        'Cache-Control': 'no-store',
        'Retry-After': '5',
        'Content-Type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify({
        message:
          'The database did not confirm this write: it may have been saved. Retrying it with the ' +
          'same Idempotency-Key is safe; without one, read the record before writing again.',
      }),
    });
  });

  it('should not fail a call that answers in time', async () => {
    let destroyed = false;
    expect(
      await withDeadline(
        wait(5).then(() => 'done'),
        1000,
        () => (destroyed = true),
      ),
    ).toBe('done');
    expect(destroyed).toBe(false);
  });
});
