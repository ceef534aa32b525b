/**
 * The read statements the app runs for one request, and those alone. A spy on the database's
 * `query` keeps a statement only when it runs for that request (its `X-Request-Id`, which the
 * app keeps at hand for the change feed), never the app's background work running meanwhile:
 * the feed's sequencer poll, a stream's reader, a purge.
 */
import { randomUUID } from 'node:crypto';
import { Response } from 'supertest';
import { SqlDatabase, writeContext } from '../../sources';
import { TestApp } from './harness';

export interface Statement {
  sql: string;
  parameters?: unknown[];
}

/** `GET path` (answered 200), and the read statements it ran, in order. */
export async function readsOf(
  t: TestApp,
  path: string,
): Promise<{ res: Response; statements: Statement[] }> {
  const db = t.app.get(SqlDatabase);
  const id = `statements-${randomUUID()}`;
  const statements: Statement[] = [];
  const query = db.query.bind(db);
  const spy = jest.spyOn(db, 'query').mockImplementation((sql, parameters) => {
    if (writeContext().requestId === id) statements.push({ sql, parameters });
    return query(sql, parameters);
  });
  try {
    const res = await t.http().get(path).set('X-Request-Id', id).expect(200);
    return { res, statements };
  } finally {
    spy.mockRestore();
  }
}
